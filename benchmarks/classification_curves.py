"""Binned and exact BinaryAUROC on 1e6 samples: lightning_metrics vs torchmetrics, side by side.

Run: ``python benchmarks/classification_curves.py [--samples 1000000] [--repeats 5] [--device cpu]``.
Prints update time per call and compute time (median of ``repeats``) and the ratio torchmetrics / ours.
Also times a collection of ROC + AUROC + AP + PR curve (binned, one shared update for us).

A second table times ``sample_weight`` (issue 39): our metric weighted, our metric unweighted and
torchmetrics unweighted (torchmetrics takes no weights), the three in one row. ``--only TEXT`` keeps the
rows whose name contains TEXT (``--only weighted``: the second table alone).
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from typing import Callable, Optional

import torch
import torchmetrics
import torchmetrics.classification as tmc

import lightning_metrics as lm
import lightning_metrics.classification as lmc


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def _median_time(fn: Callable[[], object], repeats: int, device: torch.device) -> float:
    times = []
    for _ in range(repeats):
        _sync(device)
        start = time.perf_counter()
        fn()
        _sync(device)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def time_metric(
    factory: Callable[[], object], preds: torch.Tensor, target: torch.Tensor, repeats: int, updates: int,
    weight: Optional[torch.Tensor] = None,
) -> tuple[float, float]:
    """(update seconds per call, compute seconds) for ``updates`` calls on the same batch (weighted by
    ``weight`` when given)."""
    device = preds.device
    metric = factory().to(device)  # type: ignore[attr-defined]
    kwargs = {} if weight is None else {"sample_weight": weight}
    metric.update(preds, target, **kwargs)  # warm-up
    metric.compute()

    def run_updates() -> None:
        metric.reset()
        for _ in range(updates):
            metric.update(preds, target, **kwargs)

    update = _median_time(run_updates, repeats, device) / updates

    def run_compute() -> None:
        metric._computed = None  # bypass both libraries' compute cache
        metric.compute()

    return update, _median_time(run_compute, repeats, device)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--updates", type=int, default=3)
    parser.add_argument("--thresholds", type=int, default=100)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--only", default="", help="time only the rows whose name contains this text")
    args = parser.parse_args()
    device = torch.device(args.device)
    g = torch.Generator().manual_seed(0)
    preds = torch.rand(args.samples, generator=g).to(device)
    target = torch.randint(0, 2, (args.samples,), generator=g).to(device)
    weight = (torch.rand(args.samples, generator=g) * 3).to(device)
    print(
        f"torch {torch.__version__}, torchmetrics {torchmetrics.__version__}, device {device}, "
        f"{args.samples:,} samples, {args.updates} updates per timing, median of {args.repeats}"
    )
    header = f"{'case':44s} {'ours':>10s} {'torchmetrics':>13s} {'tm/ours':>8s}"
    cases = [
        (
            f"BinaryAUROC thresholds={args.thresholds}",
            lambda: lmc.BinaryAUROC(thresholds=args.thresholds),
            lambda: tmc.BinaryAUROC(thresholds=args.thresholds),
        ),
        ("BinaryAUROC exact (thresholds=None)", lambda: lmc.BinaryAUROC(), lambda: tmc.BinaryAUROC()),
        (
            f"BinaryAUROC thresholds={args.thresholds} validate_args=False",
            lambda: lmc.BinaryAUROC(thresholds=args.thresholds, validate_args=False),
            lambda: tmc.BinaryAUROC(thresholds=args.thresholds, validate_args=False),
        ),
        (
            "BinaryAUROC exact validate_args=False",
            lambda: lmc.BinaryAUROC(validate_args=False),
            lambda: tmc.BinaryAUROC(validate_args=False),
        ),
    ]

    def collection(module, cls):  # type: ignore[no-untyped-def]
        t = args.thresholds
        return lambda: cls(
            {
                "roc": module.BinaryROC(thresholds=t),
                "auroc": module.BinaryAUROC(thresholds=t),
                "ap": module.BinaryAveragePrecision(thresholds=t),
                "pr": module.BinaryPrecisionRecallCurve(thresholds=t),
            }
        )

    cases.append(
        (
            f"ROC+AUROC+AP+PR collection thresholds={args.thresholds}",
            collection(lmc, lm.MetricCollection),
            collection(tmc, torchmetrics.MetricCollection),
        )
    )
    # (name, ours, torchmetrics): ours weighted beside ours and torchmetrics unweighted
    weighted_cases = [
        (f"BinaryAUROC thresholds={args.thresholds} weighted", cases[0][1], cases[0][2]),
        ("BinaryAUROC exact weighted", cases[1][1], cases[1][2]),
        (f"ROC+AUROC+AP+PR thresholds={args.thresholds} weighted", cases[-1][1], cases[-1][2]),
    ]
    cases = [c for c in cases if args.only in c[0]]
    weighted_cases = [c for c in weighted_cases if args.only in c[0]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if cases:
            print()
            print(header)
            print("-" * len(header))
        for name, ours_factory, theirs_factory in cases:
            ours = time_metric(ours_factory, preds, target, args.repeats, args.updates)
            theirs = time_metric(theirs_factory, preds, target, args.repeats, args.updates)
            for what, a, b in (("update", ours[0], theirs[0]), ("compute", ours[1], theirs[1])):
                print(f"{name + ' ' + what:44s} {a * 1e3:8.2f}ms {b * 1e3:11.2f}ms {b / a:7.1f}x")
        if weighted_cases:
            header = f"{'case':56s} {'ours weighted':>14s} {'ours':>10s} {'torchmetrics':>13s}"
            print()
            print(header)
            print("-" * len(header))
        for name, ours_factory, theirs_factory in weighted_cases:
            weighted = time_metric(ours_factory, preds, target, args.repeats, args.updates, weight)
            ours = time_metric(ours_factory, preds, target, args.repeats, args.updates)
            theirs = time_metric(theirs_factory, preds, target, args.repeats, args.updates)
            for i, what in enumerate(("update", "compute")):
                print(f"{name + ' ' + what:56s} {weighted[i] * 1e3:12.2f}ms {ours[i] * 1e3:8.2f}ms "
                      f"{theirs[i] * 1e3:11.2f}ms")
    # the value agrees, for the record
    for factory in (lambda m: m.BinaryAUROC(thresholds=args.thresholds), lambda m: m.BinaryAUROC()):
        ours, theirs = factory(lmc).to(device), factory(tmc).to(device)
        ours.update(preds, target)
        theirs.update(preds, target)
        print(f"value check: ours {ours.compute().item():.6f}  torchmetrics {theirs.compute().item():.6f}")


if __name__ == "__main__":
    main()
