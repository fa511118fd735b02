"""Update time and memory of MeanIoU + DiceScore, lightning_metrics vs torchmetrics, in one process.

Inputs (the issue's): 8x21x256x256 class maps (``input_format="index"``) and 4x150x128x128 one-hot
masks (``F.one_hot(labels).movedim(-1, 1)``: int64, channels last, as most pipelines make them);
also 4x150x128x128 float scores (logits, the usual model output). For each: MeanIoU alone,
DiceScore alone, and both in one collection (torchmetrics: its MetricCollection with compute
groups; ours shares one count table where the specs allow it).

Time: median wall time of one ``update`` (after warm-up). Memory, from ``torch.profiler`` over one
update: the peak of the bytes allocated minus freed, in op order (peak extra), and the largest
single allocation; ``largest / (C x pixels)`` below 1 means no tensor as large as a one-byte
one-hot of the batch was made.

Run: ``python benchmarks/segmentation.py [--repeats 15] [--threads 1] [--hausdorff]``
"""

from __future__ import annotations

import argparse
import warnings
from typing import Any, Callable

import torch
import torchmetrics
import torchmetrics.segmentation as tms
from _common import per_call_ms
from torch.nn import functional as F
from torch.profiler import ProfilerActivity, profile

import lightning_metrics
import lightning_metrics.segmentation as lms


def memory(update: Callable[[], None]) -> tuple[int, int]:
    """(peak extra bytes, largest single allocation) of one call, from the profiler's op records."""
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        update()
    running = peak = largest = 0
    for event in sorted(prof.events(), key=lambda e: e.time_range.start):
        delta = event.self_cpu_memory_usage
        largest = max(largest, delta)
        running += delta
        peak = max(peak, running)
    return peak, largest


def metrics(lib: Any, classes: int, input_format: str, validate_args: bool = True) -> dict[str, Any]:
    extra = {} if lib is tms else {"validate_args": validate_args}
    return {
        "miou": lib.MeanIoU(num_classes=classes, input_format=input_format, **extra),
        "dice": lib.DiceScore(num_classes=classes, input_format=input_format, **extra),
    }


def scenario(
    name: str, preds: torch.Tensor, target: torch.Tensor, classes: int, input_format: str, repeats: int
):
    pixels = target.numel() if input_format == "index" else target[:, 0].numel()
    print(f"\n{name}: preds {tuple(preds.shape)} {preds.dtype}, target {tuple(target.shape)} {target.dtype}")
    header = (
        f"{'metrics':<14} {'lib':<16} | {'ms/update':>9} {'speed-up':>8} | "
        f"{'peak MiB':>8} {'largest MiB':>11} {'largest/(C*px)':>14}"
    )
    print(header)
    print("-" * len(header))
    for keys in (("miou",), ("dice",), ("miou", "dice")):
        rows = []
        for label, lib, kwargs in (
            ("torchmetrics", tms, {}),
            ("ours", lms, {}),
            ("ours noval", lms, {"validate_args": False}),
        ):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                chosen = {k: v for k, v in metrics(lib, classes, input_format, **kwargs).items() if k in keys}
                module = torchmetrics if lib is tms else lightning_metrics
                target_metric = chosen[keys[0]] if len(keys) == 1 else module.MetricCollection(chosen)

                def update() -> None:
                    target_metric.update(preds, target)

                ms = per_call_ms(update, repeats)
                peak, largest = memory(update)
                value = target_metric.compute()
            rows.append((label, ms, peak, largest, value))
        reference = rows[0][4]
        for label, _, _, _, value in rows[1:]:  # the same values after the same updates
            ours = value if isinstance(value, dict) else {"v": value}
            theirs = reference if isinstance(reference, dict) else {"v": reference}
            for k in theirs:
                assert torch.allclose(ours[k].double(), theirs[k].double(), rtol=1e-5, atol=1e-6), (label, k)
        base = rows[0][1]
        for label, ms, peak, largest, _ in rows:
            print(
                f"{'+'.join(keys):<14} {label:<16} | {ms:>9.1f} {base / ms:>7.1f}x | {peak / 2**20:>8.1f} "
                f"{largest / 2**20:>11.2f} {largest / (classes * pixels):>14.3f}"
            )


def hausdorff(repeats: int) -> None:
    """A small square case: torchmetrics loops over samples and classes with pairwise distances."""
    gen = torch.Generator().manual_seed(0)
    classes, shape = 3, (2, 32, 32)
    labels = torch.randint(0, classes, shape, generator=gen)
    target = torch.where(
        torch.rand(shape, generator=gen) < 0.8, labels, torch.randint(0, classes, shape, generator=gen)
    )
    print(f"\nHausdorffDistance: class maps {shape}, {classes} classes (square: torchmetrics is right there)")
    times = {}
    for label, lib in (("torchmetrics", tms), ("ours", lms)):
        metric = lib.HausdorffDistance(num_classes=classes, input_format="index")
        times[label] = per_call_ms(lambda: metric.update(labels, target), repeats if lib is lms else 1)
        print(f"{label:<16} {times[label]:>10.1f} ms/update   value {metric.compute().item():.4f}")
    print(f"speed-up {times['torchmetrics'] / times['ours']:.0f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument(
        "--threads", type=int, default=1, help="torch intra-op threads (1: stable on shared CPUs)"
    )
    parser.add_argument(
        "--hausdorff", action="store_true", help="also time HausdorffDistance (torchmetrics is slow)"
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(
        f"torch {torch.__version__}, torchmetrics {torchmetrics.__version__}, "
        f"threads {torch.get_num_threads()}"
    )
    gen = torch.Generator().manual_seed(0)

    def class_maps(n: int, classes: int, side: int) -> tuple[torch.Tensor, torch.Tensor]:
        target = torch.randint(0, classes, (n, side, side), generator=gen)
        noise = torch.randint(0, classes, (n, side, side), generator=gen)
        return torch.where(torch.rand(n, side, side, generator=gen) < 0.7, target, noise), target

    preds, target = class_maps(8, 21, 256)
    scenario("class maps, 21 classes", preds, target, 21, "index", args.repeats)

    preds, target = class_maps(4, 150, 128)
    one_hot_p, one_hot_t = F.one_hot(preds, 150).movedim(-1, 1), F.one_hot(target, 150).movedim(-1, 1)
    scenario("one-hot masks, 150 classes", one_hot_p, one_hot_t, 150, "one-hot", args.repeats)
    scores = torch.randn(4, 150, 128, 128, generator=gen) + 4 * one_hot_p
    scenario(
        "scores (logits) and one-hot target, 150 classes", scores, one_hot_t, 150, "one-hot", args.repeats
    )
    if args.hausdorff:
        hausdorff(args.repeats)


if __name__ == "__main__":
    main()
