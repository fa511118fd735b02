"""Issue 22's "never slower than torchmetrics on any single metric", beyond the table of
``single_metric.py``: the aggregation, regression and score-based classification metrics alone, with
default arguments, ours and torchmetrics in one process (medians of interleaved repeats, one thread,
this thread's CPU time), B=4096.

Three figures per metric: one ``update``; one ``forward`` (the ``self.metric(preds, target)`` idiom of a
training step: the batch value and the accumulation); one epoch (20 updates, then ``compute``). The last
is the fair one where torchmetrics' update only stores its inputs and does the work in ``compute``
(cosine similarity, the calibration errors, ``CatMetric``): it keeps every input, where ours keeps a
statistic.

Run: ``python benchmarks/lone_metrics.py [--repeats 300] [--only R2Score,MeanMetric]``
"""

from __future__ import annotations

import argparse
import warnings
from typing import Any

import torch
import torchmetrics
import torchmetrics.aggregation as ta
import torchmetrics.classification as tc
import torchmetrics.regression as tr
from _common import cpu_us, interleaved

import lightning_metrics.aggregation as la
import lightning_metrics.classification as lc
import lightning_metrics.regression as lr

BATCH = 4096
EPOCH_UPDATES = 20


def cases() -> list[tuple[str, Any, Any, dict, tuple]]:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(BATCH, generator=g)
    y = x + 0.1 * torch.randn(BATCH, generator=g)
    pos, ypos = x.abs() + 0.1, y.abs() + 0.1
    rows_p = torch.randn(BATCH, 8, generator=g)
    rows_t = rows_p + 0.1 * torch.randn(BATCH, 8, generator=g)
    prob, label = torch.rand(BATCH, generator=g), torch.randint(0, 2, (BATCH,), generator=g)
    logits, classes = torch.randn(BATCH, 10, generator=g), torch.randint(0, 10, (BATCH,), generator=g)
    multi_p, multi_t = torch.rand(BATCH, 5, generator=g), torch.randint(0, 2, (BATCH, 5), generator=g)
    agg = [(name, la, ta, {}, (x,)) for name in ("MeanMetric", "SumMetric", "MaxMetric", "MinMetric", "CatMetric")]
    reg = [
        (name, lr, tr, kwargs, args)
        for name, kwargs, args in (
            ("MeanSquaredError", {}, (x, y)),
            ("MeanAbsoluteError", {}, (x, y)),
            ("MeanAbsolutePercentageError", {}, (pos, ypos)),
            ("SymmetricMeanAbsolutePercentageError", {}, (pos, ypos)),
            ("WeightedMeanAbsolutePercentageError", {}, (pos, ypos)),
            ("MeanSquaredLogError", {}, (pos, ypos)),
            ("LogCoshError", {}, (x, y)),
            ("MinkowskiDistance", {"p": 3}, (x, y)),
            ("TweedieDevianceScore", {}, (pos, ypos)),
            ("R2Score", {}, (x, y)),
            ("ExplainedVariance", {}, (x, y)),
            ("RelativeSquaredError", {}, (x, y)),
            ("NormalizedRootMeanSquaredError", {}, (x, y)),
            ("PearsonCorrCoef", {}, (x, y)),
            ("ConcordanceCorrCoef", {}, (x, y)),
            ("CosineSimilarity", {}, (rows_p, rows_t)),
            ("KLDivergence", {}, (rows_p.softmax(1), rows_t.softmax(1))),
        )
    ]
    clf = [
        (name, lc, tc, kwargs, args)
        for name, kwargs, args in (
            ("BinaryAccuracy", {}, (prob, label)),
            ("BinaryF1Score", {}, (prob, label)),
            ("BinaryConfusionMatrix", {}, (prob, label)),
            ("BinaryAUROC", {"thresholds": 100}, (prob, label)),
            ("BinaryAveragePrecision", {"thresholds": 100}, (prob, label)),
            ("BinaryCalibrationError", {}, (prob, label)),
            ("BinaryHingeLoss", {}, (prob, label)),
            ("MulticlassAUROC", {"num_classes": 10, "thresholds": 100}, (logits.softmax(1), classes)),
            ("MulticlassCalibrationError", {"num_classes": 10}, (logits.softmax(1), classes)),
            ("MulticlassHingeLoss", {"num_classes": 10}, (logits, classes)),
            ("MultilabelAccuracy", {"num_labels": 5}, (multi_p, multi_t)),
            ("MultilabelF1Score", {"num_labels": 5}, (multi_p, multi_t)),
            ("MultilabelAUROC", {"num_labels": 5, "thresholds": 100}, (multi_p, multi_t)),
            ("MultilabelRankingLoss", {"num_labels": 5}, (multi_p, multi_t)),
            ("MultilabelCoverageError", {"num_labels": 5}, (multi_p, multi_t)),
        )
    ]
    return agg + reg + clf


def epoch(metric: Any, args: tuple) -> None:
    metric.reset()
    for _ in range(EPOCH_UPDATES):
        metric.update(*args)
    metric.compute()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=300)
    parser.add_argument("--only", default="", help="comma-separated class names: time only these")
    args = parser.parse_args()
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore")
    print(f"torch {torch.__version__}, torchmetrics {torchmetrics.__version__}, 1 thread, B={BATCH}, cpu clock, "
          f"medians of interleaved repeats; epoch = {EPOCH_UPDATES} updates + compute")
    print(f"{'metric alone':<40} {'update tm':>10} {'ours':>9} {'ours/tm':>8} {'forward tm':>11} {'ours':>9} "
          f"{'ours/tm':>8} {'epoch tm':>10} {'ours':>9} {'ours/tm':>8}")
    only = set(filter(None, args.only.split(",")))
    for name, ours_mod, tm_mod, kwargs, inputs in cases():
        if only and name not in only:
            continue
        ours, theirs = getattr(ours_mod, name)(**kwargs), getattr(tm_mod, name)(**kwargs)
        step = interleaved(
            {"ours": lambda: ours.update(*inputs), "tm": lambda: theirs.update(*inputs)}, args.repeats, clock_us=cpu_us
        )
        fwd = interleaved({"ours": lambda: ours(*inputs), "tm": lambda: theirs(*inputs)}, args.repeats, clock_us=cpu_us)
        whole = interleaved(
            {"ours": lambda: epoch(ours, inputs), "tm": lambda: epoch(theirs, inputs)},
            max(args.repeats // EPOCH_UPDATES, 5),
            clock_us=cpu_us,
        )
        print(f"{name:<40} {step['tm']:>10.1f} {step['ours']:>9.1f} {step['ours'] / step['tm']:>8.2f} "
              f"{fwd['tm']:>11.1f} {fwd['ours']:>9.1f} {fwd['ours'] / fwd['tm']:>8.2f} "
              f"{whole['tm']:>10.0f} {whole['ours']:>9.0f} {whole['ours'] / whole['tm']:>8.2f}")


if __name__ == "__main__":
    main()
