"""Update time per call, lightning_metrics vs torchmetrics, for MSE, R2 and Pearson (CPU, float32 inputs),
and the time of Kendall's tau (one update and compute) as the sample grows.

Run: ``python benchmarks/regression.py``. Prints a table with microseconds per ``update`` and the ratio
(ours / torchmetrics; below 1 means faster), then the Kendall table (ours counts the discordant
pairs by sorting, O(n log^2 n); torchmetrics compares pairs, O(n^2)). Our updates compute float64 centred moments and a Chan merge,
which costs more kernels than torchmetrics' float32 running sums: the price of staying accurate at large
offsets (see tests/regression/test_moments.py::test_stability_at_large_offset).

A third table times ``update(..., sample_weight=w)`` (one float64 weight per sample) beside our unweighted
update and torchmetrics' (which takes no weights); the project's budget is 15% over our unweighted update.
"""

from __future__ import annotations

import time
import warnings

import torch
import torchmetrics

import lightning_metrics.regression as lm
from lightning_metrics import MetricCollection

warnings.filterwarnings("ignore")


def time_updates(metric, preds: torch.Tensor, target: torch.Tensor, repeats: int, **kwargs) -> float:
    for _ in range(20):  # warm-up
        metric.update(preds, target, **kwargs)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeats):
            metric.update(preds, target, **kwargs)
        best = min(best, (time.perf_counter() - start) / repeats)
    return best * 1e6


def time_kendall(metric_cls, preds: torch.Tensor, target: torch.Tensor, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        metric = metric_cls()
        start = time.perf_counter()
        metric.update(preds, target)
        metric.compute()
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def main() -> None:
    torch.manual_seed(0)
    torch.set_num_threads(1)
    rows = []
    for batch in (256, 4096):
        target = torch.randn(batch)
        preds = target + 0.1 * torch.randn(batch)
        for name in ("MeanSquaredError", "R2Score", "PearsonCorrCoef"):
            ours = time_updates(getattr(lm, name)(), preds, target, repeats=300)
            theirs = time_updates(getattr(torchmetrics.regression, name)(), preds, target, repeats=300)
            rows.append((name, batch, ours, theirs))
        # five moment metrics in one collection: ours updates one shared statistic per batch
        names = ("MeanSquaredError", "R2Score", "PearsonCorrCoef", "ExplainedVariance", "ConcordanceCorrCoef")
        ours_c = MetricCollection([getattr(lm, n)() for n in names])
        theirs_c = torchmetrics.MetricCollection([getattr(torchmetrics.regression, n)() for n in names])
        rows.append(
            (
                "Collection(5)",
                batch,
                time_updates(ours_c, preds, target, 200),
                time_updates(theirs_c, preds, target, 200),
            )
        )
    print(f"torch {torch.__version__}, torchmetrics {torchmetrics.__version__}, 1 thread, best of 5 runs")
    print(f"{'metric':<18} {'batch':>6} {'ours us/update':>15} {'torchmetrics us/update':>23} {'ratio':>7}")
    for name, batch, ours, theirs in rows:
        print(f"{name:<18} {batch:>6} {ours:>15.1f} {theirs:>23.1f} {ours / theirs:>7.2f}")
    print_weighted()
    print(f"\n{'KendallRankCorrCoef':<20} {'samples':>8} {'ours ms':>9} {'torchmetrics ms':>16} {'ratio':>7}")
    for n in (1_000, 10_000):
        target = torch.randn(n)
        preds = target + torch.randn(n)
        ours = time_kendall(lm.KendallRankCorrCoef, preds, target)
        theirs = time_kendall(torchmetrics.regression.KendallRankCorrCoef, preds, target)
        print(f"{'update + compute':<20} {n:>8} {ours:>9.1f} {theirs:>16.1f} {ours / theirs:>7.3f}")


WEIGHTED = ("MeanSquaredError", "R2Score", "PearsonCorrCoef", "ExplainedVariance", "MeanAbsoluteError",
            "TweedieDevianceScore")


def print_weighted() -> None:
    """Weighted updates (``sample_weight``, one weight per sample) beside the unweighted ones."""
    print(f"\n{'weighted update':<20} {'batch':>6} {'ours weighted us':>17} {'ours unweighted us':>19}"
          f" {'torchmetrics us':>16} {'weighted/unweighted':>20}")
    for batch in (256, 4096):
        target = torch.randn(batch)
        preds = target + 0.1 * torch.randn(batch)
        weight = torch.rand(batch, dtype=torch.float64)
        rows = [(name, lambda name=name: getattr(lm, name)(), lambda name=name: getattr(torchmetrics.regression, name)())
                for name in WEIGHTED]
        names = ("MeanSquaredError", "R2Score", "PearsonCorrCoef", "ExplainedVariance", "ConcordanceCorrCoef")
        rows.append(("Collection(5)", lambda names=names: MetricCollection([getattr(lm, n)() for n in names]),
                     lambda names=names: torchmetrics.MetricCollection([getattr(torchmetrics.regression, n)() for n in names])))
        for name, ours, theirs in rows:
            weighted = time_updates(ours(), preds, target, 300, sample_weight=weight)
            plain = time_updates(ours(), preds, target, 300)
            reference = time_updates(theirs(), preds, target, 300)
            print(f"{name:<20} {batch:>6} {weighted:>17.1f} {plain:>19.1f} {reference:>16.1f} {weighted / plain:>20.2f}")


if __name__ == "__main__":
    main()
