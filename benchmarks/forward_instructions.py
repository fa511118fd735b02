"""Instruction counts (valgrind's callgrind) of the 8-metric collection's ``update`` and ``forward``, ours and
torchmetrics in one process: unlike a clock, the same on a busy or a quiet machine.

Each candidate's N calls run inside a C iterator of its own (``functools.reduce``, ``itertools.starmap``,
``itertools.takewhile``, ``itertools.dropwhile``: iterators the candidates never use themselves), so
callgrind's inclusive cost of that iterator is the cost of exactly those calls.
Needs ``valgrind`` on the PATH (Debian: ``apt install valgrind``); it takes a few minutes, most of it
importing torch under the simulator.

Run: ``python benchmarks/forward_instructions.py [--classes 10] [--calls 50]``
"""

from __future__ import annotations

import argparse
import functools
import itertools
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# the C function whose inclusive cost is each candidate's calls
MARKERS = {
    "functools_reduce": "ours update",
    "starmap_next": "ours forward",
    "takewhile_next": "torchmetrics update",
    "dropwhile_next": "torchmetrics forward",
}


def inner(num_classes: int, calls: int) -> None:
    import torch
    import torchmetrics
    import torchmetrics.classification as tmc
    from _common import eight

    import lightning_metrics
    import lightning_metrics.classification as lmc

    torch.set_num_threads(1)
    g = torch.Generator().manual_seed(0)
    logits = torch.randn(4096, num_classes, generator=g)
    target = torch.randint(0, num_classes, (4096,), generator=g)
    ours = lightning_metrics.MetricCollection(eight(lmc, num_classes))
    theirs = torchmetrics.MetricCollection(eight(tmc, num_classes), compute_groups=True)
    for collection in (ours, theirs):  # warm: compute groups found, caches filled
        for _ in range(3):
            collection(logits, target)
            collection.update(logits, target)
    functools.reduce(lambda acc, _: (ours.update(logits, target), acc)[1], range(calls), 0)
    list(itertools.starmap(lambda: ours(logits, target), [()] * calls))
    list(itertools.takewhile(lambda _: theirs.update(logits, target) is None, range(calls)))
    list(itertools.dropwhile(lambda _: theirs(logits, target) is not None, range(calls)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        inner(args.classes, args.calls)
        return
    if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
        print("forward_instructions: skipped, it needs valgrind (callgrind) on the PATH")
        return
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__,
                   "--inner", "--classes", str(args.classes), "--calls", str(args.calls)]
        subprocess.run(command, check=True, capture_output=True)
        annotated = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(out)],
                                   check=True, capture_output=True, text=True).stdout
    counts: dict[str, int] = {}
    for line in annotated.splitlines():
        match = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+\S*:(\w+)\s", line)
        if match and match.group(2) in MARKERS:
            counts.setdefault(MARKERS[match.group(2)], int(match.group(1).replace(",", "")) // args.calls)
    print(f"instructions per call, 8-metric collection, C={args.classes}, B=4096, one thread")
    for side in ("ours", "torchmetrics"):
        update, forward = counts[f"{side} update"], counts[f"{side} forward"]
        print(f"{side:<13} update {update:>13,}   forward {forward:>13,}   forward / update {forward / update:5.2f}x")


if __name__ == "__main__":
    main()
