"""The bad-input catalogue (second part): regression, aggregation, wrappers and collections.
``test_bad_input.py`` runs them."""

from __future__ import annotations

import torch

from lightning_metrics import MetricCollection
from lightning_metrics import aggregation as agg
from lightning_metrics import classification as cls
from lightning_metrics import regression as reg
from lightning_metrics import wrappers as wr
from tests.reliability._bad_cases import NAN, C, Case, put, swap


# ------------------------------------------------------------------ regression
REGRESSION = [
    Case(
        "mse-length-mismatch",
        "regression",
        reg.MeanSquaredError,
        "real",
        swap(1, lambda t: t[:-1]),
        ("preds", "target", "(6,)", "(5,)"),
    ),
    Case(
        "mae-length-mismatch",
        "regression",
        reg.MeanAbsoluteError,
        "real",
        swap(0, lambda p: p[:-2]),
        ("preds", "(4,)", "(6,)"),
    ),
    Case(
        "mse-num-outputs-mismatch",
        "regression",
        lambda: reg.MeanSquaredError(num_outputs=2),
        "real2",
        lambda b: (torch.cat([b[0], b[0][:, :1]], 1), torch.cat([b[1], b[1][:, :1]], 1)),
        ("num_outputs", "2", "(6, 3)"),
    ),
    Case(
        "pearson-num-outputs-mismatch",
        "regression",
        lambda: reg.PearsonCorrCoef(num_outputs=2),
        "real2",
        lambda b: (b[0][:, 0], b[1][:, 0]),
        ("preds", "num_outputs", "(6,)"),
    ),
    Case(
        "r2-columns-change-between-batches",
        "regression",
        lambda: reg.R2Score(multioutput="raw_values"),
        "real2",
        lambda b: (torch.cat([b[0], b[0]], 1), torch.cat([b[1], b[1]], 1)),
        ("output column", "4"),
    ),
    Case(
        "spearman-int-preds",
        "regression",
        reg.SpearmanCorrCoef,
        "real",
        swap(0, lambda p: p.long()),
        ("preds", "int64"),
    ),
    Case(
        "kl-shape-mismatch",
        "regression",
        reg.KLDivergence,
        "prob",
        swap(1, lambda t: t[:, :3]),
        ("(6, 4)", "(6, 3)"),
    ),
    Case(
        "crps-ensemble-shape",
        "regression",
        reg.ContinuousRankedProbabilityScore,
        "ensemble",
        swap(1, lambda t: t[:-1]),
        ("preds", "target", "(5,)"),
    ),
    Case(
        "explained-variance-3d",
        "regression",
        reg.ExplainedVariance,
        "real",
        lambda b: (b[0].reshape(1, 2, 3), b[1].reshape(1, 2, 3)),
        ("preds", "(1, 2, 3)"),
    ),
    # constructor arguments
    Case(
        "num-outputs-zero",
        "regression",
        lambda: reg.MeanSquaredError(num_outputs=0),
        needles=("num_outputs", "0"),
    ),
    Case(
        "unknown-multioutput",
        "regression",
        lambda: reg.R2Score(multioutput="mean"),
        needles=("multioutput", "'mean'"),
    ),
    Case("minkowski-p-below-one", "regression", lambda: reg.MinkowskiDistance(p=0.5), needles=("p", "0.5")),
    Case(
        "tweedie-power-in-gap",
        "regression",
        lambda: reg.TweedieDevianceScore(power=0.5),
        needles=("power", "0.5"),
    ),
    Case(
        "cosine-unknown-reduction",
        "regression",
        lambda: reg.CosineSimilarity(reduction="avg"),
        needles=("reduction", "'avg'"),
    ),
    Case("r2-negative-adjusted", "regression", lambda: reg.R2Score(adjusted=-1), needles=("adjusted", "-1")),
    Case(
        "kendall-unknown-variant",
        "regression",
        lambda: reg.KendallRankCorrCoef(variant="d"),
        needles=("variant", "'d'"),
    ),
]

# ------------------------------------------------------------------ aggregation
AGGREGATION = [
    Case(
        "mean-nan-error",
        "aggregation",
        lambda: agg.MeanMetric(nan_strategy="error"),
        "values",
        put(0, 1, NAN),
        ("value", "nan"),
    ),
    Case(
        "max-nan-error",
        "aggregation",
        lambda: agg.MaxMetric(nan_strategy="error"),
        "values",
        put(0, 0, NAN),
        ("value", "nan"),
    ),
    Case(
        "cat-nan-error",
        "aggregation",
        lambda: agg.CatMetric(nan_strategy="error"),
        "values",
        put(0, 3, NAN),
        ("value", "nan"),
    ),
    Case(
        "mean-weight-shape",
        "aggregation",
        agg.MeanMetric,
        "values",
        lambda b: (b[0], torch.ones(b[0].shape[0] + 1)),
        ("weight", "(7,)"),
    ),
    Case(
        "sum-not-a-number", "aggregation", agg.SumMetric, "values", lambda b: ("seven",), ("value", "'seven'")
    ),
    Case(
        "unknown-nan-strategy",
        "aggregation",
        lambda: agg.MeanMetric(nan_strategy="drop"),
        needles=("nan_strategy", "'drop'"),
    ),
    Case("running-window-zero", "aggregation", lambda: agg.RunningMean(window=0), needles=("window", "0")),
]

# ------------------------------------------------------------------ wrappers
WRAPPERS = [
    Case(
        "multioutput-wrong-outputs",
        "wrappers",
        lambda: wr.MultioutputWrapper(reg.MeanSquaredError(), num_outputs=2),
        "real2",
        lambda b: (b[0][:, :1], b[1][:, :1]),
        ("num_outputs", "2", "(6, 1)"),
    ),
    Case(
        "multitask-missing-task",
        "wrappers",
        lambda: wr.MultitaskWrapper({"cls": cls.BinaryAccuracy(), "reg": reg.MeanSquaredError()}),
        "multitask",
        lambda b: ({"cls": b[0]["cls"]}, b[1]),
        ("task_preds", "reg"),
    ),
    Case(
        "multitask-one-task-rejects",
        "wrappers",
        lambda: wr.MultitaskWrapper({"cls": cls.BinaryAccuracy(), "reg": reg.MeanSquaredError()}),
        "multitask",
        lambda b: (b[0], {"cls": b[1]["cls"], "reg": b[1]["reg"][:-1]}),
        ("preds", "target", "(5,)"),
    ),
    Case(
        "classwise-inner-rejects",
        "wrappers",
        lambda: wr.ClasswiseWrapper(cls.MulticlassAccuracy(num_classes=C, average=None)),
        "multiclass",
        put(1, 0, 9),
        ("target", "9"),
    ),
    Case(
        "minmax-inner-rejects",
        "wrappers",
        lambda: wr.MinMaxMetric(reg.MeanSquaredError()),
        "real",
        swap(1, lambda t: t[:-1]),
        ("preds", "(5,)"),
    ),
    Case(
        "bootstrap-length-mismatch",
        "wrappers",
        lambda: wr.BootStrapper(
            reg.MeanSquaredError(), num_bootstraps=3, generator=torch.Generator().manual_seed(0)
        ),
        "real",
        swap(1, lambda t: t[:-1]),
        ("preds", "[6, 5]"),
    ),
    Case(
        "bootstrap-inner-rejects",
        "wrappers",
        lambda: wr.BootStrapper(
            cls.BinaryAccuracy(),
            num_bootstraps=3,
            sampling_strategy="multinomial",
            generator=torch.Generator().manual_seed(0),
        ),
        "binary",
        swap(1, lambda t: torch.full_like(t, 3)),
        ("target", "3"),
    ),
    Case(
        "running-inner-rejects",
        "wrappers",
        lambda: wr.Running(cls.BinaryAccuracy(), window=2),
        "binary",
        put(1, 0, 3),
        ("target", "3"),
    ),
    Case(
        "bootstrap-zero-draws",
        "wrappers",
        lambda: wr.BootStrapper(reg.MeanSquaredError(), num_bootstraps=0),
        needles=("num_bootstraps", "0"),
    ),
    Case(
        "multioutput-zero-outputs",
        "wrappers",
        lambda: wr.MultioutputWrapper(reg.MeanSquaredError(), num_outputs=0),
        needles=("num_outputs", "0"),
    ),
    Case("running-not-a-metric", "wrappers", lambda: wr.Running(42), needles=("base_metric", "42")),
    Case("tracker-not-a-metric", "wrappers", lambda: wr.MetricTracker("mse"), needles=("metric", "'mse'")),
]


# ------------------------------------------------------------------ collections
def _mixed_collection() -> MetricCollection:
    # two compute groups that accept the good batch; the bad target is only rejected by the second
    return MetricCollection(
        {
            "acc": cls.MulticlassAccuracy(num_classes=C),
            "f1": cls.MulticlassF1Score(num_classes=C),
            "auroc": cls.MulticlassAUROC(num_classes=C, validate_args=True),
            "conf": cls.MulticlassConfusionMatrix(num_classes=C),
        }
    )


COLLECTION = [
    # the first group (MAE) accepts integer preds, the second (Spearman) rejects them: MAE must roll back
    Case(
        "collection-late-group-rejects",
        "collection",
        lambda: MetricCollection([reg.MeanAbsoluteError(), reg.SpearmanCorrCoef()]),
        "real",
        swap(0, lambda p: p.long()),
        ("preds", "int64"),
    ),
    Case(
        "collection-target-out-of-range",
        "collection",
        _mixed_collection,
        "multiclass",
        put(1, 0, 4),
        ("target", "4"),
    ),
    Case(
        "collection-regression-length",
        "collection",
        lambda: MetricCollection([reg.MeanSquaredError(), reg.MeanAbsoluteError(), reg.SpearmanCorrCoef()]),
        "real",
        swap(1, lambda t: t[:-1]),
        ("preds", "(5,)"),
    ),
    Case(
        "collection-duplicate-names",
        "collection",
        lambda: MetricCollection([reg.MeanSquaredError(), reg.MeanSquaredError()]),
        needles=("metrics", "'MeanSquaredError'"),
    ),
    Case(
        "collection-unknown-group-member",
        "collection",
        lambda: MetricCollection({"a": reg.MeanSquaredError()}, compute_groups=[["a", "b"]]),
        needles=("compute_groups", "'b'"),
    ),
]
