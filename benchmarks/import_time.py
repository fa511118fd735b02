"""What ``import lightning_metrics`` costs on top of ``import torch``, what it loads, and what the
first figure costs.

Run: ``python benchmarks/import_time.py [--rounds N]``. Each round is a fresh interpreter that
imports torch, then lightning_metrics (and, for comparison, torchmetrics in another fresh
interpreter); the medians are printed with the goal (within 0.1 s of ``import torch``) and the
modules the import left loaded. matplotlib is not among them: it loads on the first figure, so a
last probe times, in a fresh interpreter after ``import lightning_metrics``, importing matplotlib
(its Agg canvas and figure), drawing the first figure (a 10-class confusion matrix, as the
loggers render it at the first epoch end), and drawing a second one.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

PROBE = """
import json, sys, time
t0 = time.perf_counter(); import torch; t1 = time.perf_counter()
import {module}; t2 = time.perf_counter()
heavy = [m for m in ("lightning", "pytorch_lightning", "torchmetrics", "scipy", "matplotlib", "sklearn") if m in sys.modules]
ours = sorted(m for m in sys.modules if m.startswith("lightning_metrics"))
print(json.dumps({{"torch": t1 - t0, "extra": t2 - t1, "heavy": heavy, "ours": ours}}))
"""

FIGURE_PROBE = """
import json, time
import torch, lightning_metrics
from lightning_metrics import plotting
matrix = torch.randint(0, 50, (10, 10)) + 200 * torch.eye(10, dtype=torch.long)
t0 = time.perf_counter()
import matplotlib, matplotlib.figure, matplotlib.backends.backend_agg
t1 = time.perf_counter(); plotting.render_image("confusion_matrix", matrix, title="val/confmat · epoch 0")
t2 = time.perf_counter(); plotting.render_image("confusion_matrix", matrix, title="val/confmat · epoch 1")
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "first": t2 - t1, "second": t3 - t2}))
"""


def measure_figure(rounds: int) -> dict:
    runs = []
    for _ in range(rounds):
        out = subprocess.run([sys.executable, "-c", FIGURE_PROBE], capture_output=True, text=True, check=True,
                             timeout=300)
        runs.append(json.loads(out.stdout))
    return {key: statistics.median(r[key] for r in runs) for key in runs[0]}


def measure(module: str, rounds: int) -> tuple[float, float, dict]:
    torch_s, extra_s, last = [], [], {}
    for _ in range(rounds):
        out = subprocess.run([sys.executable, "-c", PROBE.format(module=module)], capture_output=True, text=True,
                             check=True, timeout=300)
        last = json.loads(out.stdout)
        torch_s.append(last["torch"])
        extra_s.append(last["extra"])
    return statistics.median(torch_s), statistics.median(extra_s), last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    print(f"| import (fresh interpreter, median of {rounds}) | after `import torch` | `import torch` itself |")
    print("|---|---|---|")
    results = {}
    for module in ("lightning_metrics", "torchmetrics"):
        torch_s, extra_s, last = measure(module, rounds)
        results[module] = (extra_s, last)
        print(f"| `{module}` | {extra_s * 1000:.0f} ms | {torch_s * 1000:.0f} ms |")
    extra_s, probe = results["lightning_metrics"]
    print(f"\nlightning_metrics loads {len(probe['ours'])} of its modules; heavy packages: {probe['heavy'] or 'none'}")
    verdict = "met" if extra_s < 0.1 and not probe["heavy"] else "NOT met"
    print(f"goal, within 100 ms of `import torch`: {verdict}")
    figure = measure_figure(rounds)
    print(f"\n| the first figure (fresh interpreter, median of {rounds}) | time |")
    print("|---|---|")
    print(f"| `import matplotlib` (figure, Agg canvas) | {figure['import'] * 1000:.0f} ms |")
    print(f"| first figure drawn (10-class confusion matrix) | {figure['first'] * 1000:.0f} ms |")
    print(f"| first figure in all | {(figure['import'] + figure['first']) * 1000:.0f} ms |")
    print(f"| a later figure, for comparison | {figure['second'] * 1000:.0f} ms |")


if __name__ == "__main__":
    main()
