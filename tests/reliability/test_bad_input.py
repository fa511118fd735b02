"""Bad-input catalogue: every rejected call names the argument and the offending value, and
leaves the metric exactly as it was.

A case is a metric factory, the kind of its good batches and either a bad batch (a function of
a good batch) or a constructor that must fail. For update cases the test feeds a good batch,
the bad one (through ``update`` and, separately, through ``forward``), then a second good batch,
and compares ``compute()`` bit for bit with a fresh metric fed only the two good batches. So a
half-applied batch, a bumped update count or a poisoned cache all fail the case.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Callable, Optional

import pytest
import torch
import torchmetrics
from torch import Tensor

import lightning_metrics as lm
from lightning_metrics import MetricCollection
from lightning_metrics import aggregation as agg
from lightning_metrics import classification as cls
from lightning_metrics import regression as reg
from lightning_metrics import wrappers as wr
from tests._bad_input import update_count
from tests.reliability._registry import ENTRIES, TEXT_KINDS, assert_identical, batches, make_batch

C = 3
ERRORS = (ValueError, TypeError, RuntimeError)


@dataclass(frozen=True)
class Case:
    id: str
    family: str
    build: Callable[[], Any]
    kind: str = ""
    bad: Optional[Callable[[tuple], tuple]] = None  # None: the constructor itself must fail
    needles: tuple[str, ...] = ()  # substrings of the message: the argument, the value or shape

    @property
    def is_constructor(self) -> bool:
        return self.bad is None


# ------------------------------------------------------------------ batch transformations
def _clone(batch: tuple) -> list:
    return [b.clone() if isinstance(b, Tensor) else dict(b) if isinstance(b, dict) else b for b in batch]


def put(arg: int, index: Any, value: Any) -> Callable[[tuple], tuple]:
    """Set ``batch[arg][index] = value``."""

    def bad(batch: tuple) -> tuple:
        out = _clone(batch)
        out[arg][index] = value
        return tuple(out)

    return bad


def swap(arg: int, fn: Callable[[Tensor], Any]) -> Callable[[tuple], tuple]:
    """Replace ``batch[arg]`` by ``fn(batch[arg])``."""

    def bad(batch: tuple) -> tuple:
        out = _clone(batch)
        out[arg] = fn(out[arg])
        return tuple(out)

    return bad


NAN, INF = float("nan"), float("inf")

# ------------------------------------------------------------------ classification: counts
COUNTS = [
    Case(
        "binary-shape-mismatch",
        "counts",
        cls.BinaryAccuracy,
        "binary",
        swap(0, lambda p: p[:-1]),
        ("preds", "(5,)", "(6,)"),
    ),
    Case(
        "binary-fractional-float-target",  # whole-number floats are labels (as in torchmetrics)
        "counts",
        cls.BinaryF1Score,
        "binary",
        swap(1, lambda t: t.float() + 0.5),
        ("target", "whole numbers", "0.5"),
    ),
    Case(
        "binary-target-out-of-range", "counts", cls.BinaryPrecision, "binary", put(1, 0, 2), ("target", "2")
    ),
    Case("binary-negative-target", "counts", cls.BinaryRecall, "binary", put(1, 0, -1), ("target", "-1")),
    Case(
        "binary-negative-target-other-than-ignore",
        "counts",
        lambda: cls.BinaryAccuracy(ignore_index=-1),
        "binary",
        put(1, 0, -2),
        ("target", "-2"),
    ),
    Case("binary-nan-scores", "counts", cls.BinaryStatScores, "binary", put(0, 1, NAN), ("preds", "NaN")),
    Case(
        "binary-int-preds-out-of-range",
        "counts",
        cls.BinarySpecificity,
        "binary",
        swap(0, lambda p: torch.full(p.shape, 3)),
        ("preds", "3"),
    ),
    Case(
        "multiclass-target-out-of-range",
        "counts",
        lambda: cls.MulticlassAccuracy(num_classes=C),
        "multiclass",
        put(1, 0, 5),
        ("target", "5"),
    ),
    Case(
        "multiclass-negative-target-other-than-ignore",
        "counts",
        lambda: cls.MulticlassF1Score(num_classes=C, ignore_index=-1),
        "multiclass",
        put(1, 0, -2),
        ("target", "-2"),
    ),
    Case(
        "multiclass-wrong-class-dim",
        "counts",
        lambda: cls.MulticlassPrecision(num_classes=C),
        "multiclass",
        swap(0, lambda p: torch.cat([p, p[:, :1]], 1)),
        ("preds", "(6, 4)"),
    ),
    Case(
        "multiclass-fractional-float-target",
        "counts",
        lambda: cls.MulticlassRecall(num_classes=C),
        "multiclass",
        swap(1, lambda t: t.double() / 4),
        ("target", "whole numbers", "0.25"),
    ),
    Case(
        "multiclass-label-preds-out-of-range",
        "counts",
        lambda: cls.MulticlassConfusionMatrix(num_classes=C),
        "multiclass",
        swap(0, lambda p: torch.full((p.shape[0],), 7)),
        ("preds", "7"),
    ),
    Case(
        "multiclass-nan-scores",
        "counts",
        lambda: cls.MulticlassJaccardIndex(num_classes=C),
        "multiclass",
        put(0, (0, 1), NAN),
        ("preds", "NaN"),
    ),
    Case(
        "multiclass-batch-size-mismatch",
        "counts",
        lambda: cls.MulticlassMatthewsCorrCoef(num_classes=C),
        "multiclass",
        swap(1, lambda t: t[:-2]),
        ("preds", "(6, 3)", "(4,)"),
    ),
    Case(
        "multiclass-kappa-target-out-of-range",
        "counts",
        lambda: cls.MulticlassCohenKappa(num_classes=C),
        "multiclass",
        put(1, 2, 3),
        ("target", "3"),
    ),
    Case(
        "multilabel-wrong-num-labels",
        "counts",
        lambda: cls.MultilabelF1Score(num_labels=C),
        "multilabel",
        swap(0, lambda p: p[:, :2]),
        ("preds", "(6, 2)"),
    ),
    Case(
        "multilabel-target-out-of-range",
        "counts",
        lambda: cls.MultilabelAccuracy(num_labels=C),
        "multilabel",
        put(1, (0, 0), 2),
        ("target", "2"),
    ),
    Case(
        "multilabel-fractional-float-target",
        "counts",
        lambda: cls.MultilabelHammingDistance(num_labels=C),
        "multilabel",
        swap(1, lambda t: t.float() * 0.75),
        ("target", "whole numbers", "0.75"),
    ),
    Case(
        "multilabel-nan-scores",
        "counts",
        lambda: cls.MultilabelExactMatch(num_labels=C),
        "multilabel",
        put(0, (1, 1), NAN),
        ("preds", "NaN"),
    ),
    Case(
        "samplewise-needs-extra-dim",
        "counts",
        lambda: cls.MulticlassAccuracy(num_classes=C, multidim_average="samplewise"),
        "multiclass_2d",
        lambda b: (b[0][:, :, 0], b[1][:, 0]),
        ("multidim_average", "samplewise"),
    ),
    # constructor arguments
    Case(
        "num-classes-zero",
        "counts",
        lambda: cls.MulticlassAccuracy(num_classes=0),
        needles=("num_classes", "0"),
    ),
    Case(
        "num-classes-missing",
        "counts",
        lambda: lm.Accuracy(task="multiclass"),
        needles=("num_classes", "None"),
    ),
    Case(
        "num-labels-one", "counts", lambda: cls.MultilabelPrecision(num_labels=1), needles=("num_labels", "1")
    ),
    Case(
        "top-k-above-num-classes",
        "counts",
        lambda: cls.MulticlassAccuracy(num_classes=C, top_k=4),
        needles=("top_k", "4"),
    ),
    Case(
        "unknown-average",
        "counts",
        lambda: cls.MulticlassF1Score(num_classes=C, average="mean"),
        needles=("average", "'mean'"),
    ),
    Case(
        "threshold-above-one",
        "counts",
        lambda: cls.BinaryAccuracy(threshold=1.5),
        needles=("threshold", "1.5"),
    ),
    Case(
        "threshold-negative",
        "counts",
        lambda: cls.MultilabelRecall(num_labels=C, threshold=-0.1),
        needles=("threshold", "-0.1"),
    ),
    Case(
        "unknown-task",
        "counts",
        lambda: lm.Accuracy(task="multi", num_classes=C),
        needles=("task", "'multi'"),
    ),
    Case("beta-zero", "counts", lambda: cls.BinaryFBetaScore(beta=0.0), needles=("beta", "0.0")),
    Case(
        "unknown-multidim-average",
        "counts",
        lambda: cls.BinaryPrecision(multidim_average="mean"),
        needles=("multidim_average", "'mean'"),
    ),
    Case(
        "unknown-normalize",
        "counts",
        lambda: cls.MulticlassConfusionMatrix(num_classes=C, normalize="rows"),
        needles=("normalize", "'rows'"),
    ),
]

# ------------------------------------------------------------------ classification: curves
CURVES = [
    Case("auroc-nan-scores", "curves", cls.BinaryAUROC, "binary", put(0, 2, NAN), ("preds", "NaN")),
    Case("auroc-target-out-of-range", "curves", cls.BinaryAUROC, "binary", put(1, 0, 2), ("target", "2")),
    Case(
        "ap-shape-mismatch",
        "curves",
        cls.BinaryAveragePrecision,
        "binary",
        swap(1, lambda t: t[:-1]),
        ("preds", "(6,)", "(5,)"),
    ),
    Case(
        "roc-int-scores",
        "curves",
        cls.BinaryROC,
        "binary",
        swap(0, lambda p: (p > 0.5).long()),
        ("preds", "int64"),
    ),
    Case(
        "multiclass-auroc-label-preds",
        "curves",
        lambda: cls.MulticlassAUROC(num_classes=C),
        "multiclass",
        swap(0, lambda p: p.argmax(1).float()),
        ("preds", "(6,)"),
    ),
    Case(
        "multiclass-roc-target-out-of-range",
        "curves",
        lambda: cls.MulticlassROC(num_classes=C, thresholds=5),
        "multiclass",
        put(1, 0, 3),
        ("target", "3"),
    ),
    Case(
        "multiclass-pr-negative-target",
        "curves",
        lambda: cls.MulticlassPrecisionRecallCurve(num_classes=C),
        "multiclass",
        put(1, 1, -1),
        ("target", "-1"),
    ),
    Case(
        "multilabel-auroc-wrong-num-labels",
        "curves",
        lambda: cls.MultilabelAUROC(num_labels=C),
        "multilabel",
        swap(0, lambda p: p[:, :2]),
        ("preds", "(6, 2)"),
    ),
    Case(
        "multilabel-ranking-fractional-float-target",
        "curves",
        lambda: cls.MultilabelRankingLoss(num_labels=C),
        "multilabel",
        swap(1, lambda t: t.float() + 0.5),
        ("target", "whole numbers", "0.5"),
    ),
    Case(
        "calibration-nan-scores",
        "curves",
        lambda: cls.MulticlassCalibrationError(num_classes=C),
        "multiclass",
        put(0, (3, 0), NAN),
        ("preds", "NaN"),
    ),
    Case("hinge-target-out-of-range", "curves", cls.BinaryHingeLoss, "binary", put(1, 4, 5), ("target", "5")),
    Case(
        "binned-ap-nan-scores",
        "curves",
        lambda: cls.MultilabelAveragePrecision(num_labels=C, thresholds=5),
        "multilabel",
        put(0, (0, 2), NAN),
        ("preds", "NaN"),
    ),
    # constructor arguments (probabilities and thresholds outside [0, 1], unsorted thresholds)
    Case(
        "thresholds-unsorted",
        "curves",
        lambda: cls.BinaryROC(thresholds=[0.5, 0.2, 0.9]),
        needles=("thresholds", "[0.5, 0.2, 0.9]"),
    ),
    Case(
        "thresholds-outside-unit",
        "curves",
        lambda: cls.BinaryAUROC(thresholds=[-0.1, 0.5]),
        needles=("thresholds", "-0.1"),
    ),
    Case(
        "thresholds-one-bin",
        "curves",
        lambda: cls.MulticlassAUROC(num_classes=C, thresholds=1),
        needles=("thresholds", "1"),
    ),
    Case("max-fpr-above-one", "curves", lambda: cls.BinaryAUROC(max_fpr=1.5), needles=("max_fpr", "1.5")),
    Case(
        "min-recall-above-one",
        "curves",
        lambda: cls.BinaryPrecisionAtFixedRecall(min_recall=1.5),
        needles=("min_recall", "1.5"),
    ),
    Case(
        "min-specificity-negative",
        "curves",
        lambda: cls.MulticlassSensitivityAtSpecificity(num_classes=C, min_specificity=-0.5),
        needles=("min_specificity", "-0.5"),
    ),
    Case(
        "fpr-range-reversed",
        "curves",
        lambda: cls.BinaryLogAUC(fpr_range=(0.5, 0.1)),
        needles=("fpr_range", "(0.5, 0.1)"),
    ),
    Case("n-bins-zero", "curves", lambda: cls.BinaryCalibrationError(n_bins=0), needles=("n_bins", "0")),
    Case("unknown-norm", "curves", lambda: cls.BinaryCalibrationError(norm="l3"), needles=("norm", "'l3'")),
    Case(
        "curve-unknown-average",
        "curves",
        lambda: cls.MulticlassAUROC(num_classes=C, average="samples"),
        needles=("average", "'samples'"),
    ),
    Case(
        "curve-num-classes-zero",
        "curves",
        lambda: cls.MulticlassROC(num_classes=0),
        needles=("num_classes", "0"),
    ),
]

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
CASES = COUNTS + CURVES + REGRESSION + AGGREGATION + WRAPPERS + COLLECTION


# ------------------------------------------------------------------ the checks
def _good(case: Case) -> list[tuple]:
    return batches(case.kind, (6, 5), seed=sum(map(ord, case.id)))


def _check_message(err: BaseException, case: Case) -> None:
    message = str(err)
    assert message, f"{case.id}: empty message"
    assert "`" in message or any(n in message for n in case.needles), message
    for needle in case.needles:
        assert needle in message, f"{case.id}: {needle!r} not in message {message!r}"


def _fresh_result(case: Case, good: list[tuple]) -> Any:
    metric = case.build()
    for batch in good:
        metric.update(*batch)
    return metric.compute()


def test_catalogue_size() -> None:
    families = {c.family for c in CASES}
    assert families == {"counts", "curves", "regression", "aggregation", "wrappers", "collection"}
    assert len(CASES) >= 40
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", [c for c in CASES if c.is_constructor], ids=lambda c: f"{c.family}:{c.id}")
def test_bad_constructor(case: Case) -> None:
    with pytest.raises(ERRORS) as info:
        case.build()
    _check_message(info.value, case)


@pytest.mark.parametrize("mode", ["update", "forward"])
@pytest.mark.parametrize(
    "case", [c for c in CASES if not c.is_constructor], ids=lambda c: f"{c.family}:{c.id}"
)
def test_bad_batch_leaves_state_unchanged(case: Case, mode: str) -> None:
    good = _good(case)
    bad = case.bad(good[0])
    metric = case.build()
    metric.update(*good[0])
    before_count = update_count(metric)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. nan_strategy="warn" is not what these cases test
        with pytest.raises(ERRORS) as info:
            metric.update(*bad) if mode == "update" else metric(*bad)
    _check_message(info.value, case)
    assert update_count(metric) == before_count, f"{case.id}: the rejected batch was counted"
    metric.update(*good[1])
    assert_identical(metric.compute(), _fresh_result(case, good))


# ------------------------------------------------------------------ infinite scores
# Infinite scores are not bad input: they are logits (a masked class scores -inf), squashed by a
# sigmoid or softmax as in torchmetrics. Infinite regression values propagate as in torchmetrics.
INFINITE = [
    ("BinaryAccuracy", (torch.tensor([INF, -INF, 0.3, 2.0]), torch.tensor([1, 0, 0, 1]))),
    ("BinaryAUROC", (torch.tensor([INF, -INF, 0.3, 2.0]), torch.tensor([1, 0, 0, 1]))),
    (
        "MultilabelF1Score",
        (torch.tensor([[INF, -INF, 1.0], [-2.0, 3.0, -INF]]), torch.tensor([[1, 0, 1], [0, 1, 1]])),
    ),
    ("MeanAbsoluteError", (torch.tensor([INF, 1.0]), torch.tensor([0.0, 1.0]))),
    ("MaxMetric", (torch.tensor([1.0, INF]),)),
]


@pytest.mark.parametrize(("key", "batch"), INFINITE, ids=[k for k, _ in INFINITE])
def test_infinite_scores_are_logits_not_errors(key: str, batch: tuple) -> None:
    entry = ENTRIES[key]
    ours, oracle = entry.build(), entry.build(torchmetrics)
    ours.update(*batch)
    oracle.update(*batch)
    torch.testing.assert_close(ours.compute(), oracle.compute(), equal_nan=True, check_dtype=False)


# ------------------------------------------------------------------ empty batches
# Windowed metrics count update calls, as torchmetrics does: an empty batch takes a window slot.
WINDOWED = {"RunningMean", "RunningSum", "Running"}


@pytest.mark.parametrize("key", sorted(ENTRIES))
def test_empty_batch_is_a_no_op(key: str) -> None:
    """Empty batches before, between and after good ones change nothing and never cause a NaN."""
    entry = ENTRIES[key]
    good = batches(entry.kind, (6, 5), seed=3)
    empty = make_batch(entry.kind, 0, torch.Generator().manual_seed(0))
    lib = torchmetrics if entry.name in WINDOWED else lm
    torch.manual_seed(0)
    metric, reference = entry.build(), entry.build(lib)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.manual_seed(1)
        metric.update(*empty)
        for batch in good:
            metric.update(*batch)
            metric.update(*empty)
        torch.manual_seed(1)
        for batch in good:
            if entry.name in WINDOWED:
                reference.update(*empty)
            reference.update(*batch)
        if entry.name in WINDOWED:
            reference.update(*empty)
    assert_identical(metric.compute(), reference.compute()) if lib is lm else torch.testing.assert_close(
        metric.compute(), reference.compute()
    )


# ------------------------------------------------------------------ devices
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a second device (CUDA)")
@pytest.mark.parametrize(
    "key", ["MulticlassAccuracy", "MultilabelF1Score", "BinaryAUROC[thresholds=5]", "MeanSquaredError"]
)
def test_cpu_metric_fed_tensors_on_another_device(key: str) -> None:
    entry = ENTRIES[key]
    good = batches(entry.kind, (6, 5), seed=4)
    metric = entry.build()
    metric.update(*good[0])
    bad = tuple(t.cuda() for t in good[1])
    with pytest.raises(ERRORS) as info:
        metric.update(*bad)
    message = str(info.value)
    assert "cuda" in message or "device" in message, message
    metric.update(*good[1])
    assert_identical(metric.compute(), _fresh_result(Case(key, "device", entry.build), good))


# ------------------------------------------------------------------ validation behind validate_args
# Always-on value checks that read a tensor back (a host sync), with the reason they are kept.
ALWAYS_CHECKED = {
    "MeanSquaredLogError": "negative inputs are rejected (the torchmetrics API has no validate_args here)",
    "TweedieDevianceScore": "the domain of `power` is checked, as torchmetrics does",
    # a label outside [0, num_classes) would land in another cell of the fixed table
    "CramersV": "labels are checked against num_classes (torchmetrics' API has no validate_args here)",
    "PearsonsContingencyCoefficient": "labels are checked against num_classes (no validate_args in the API)",
    "TheilsU": "labels are checked against num_classes (no validate_args in the API)",
    "TschuprowsT": "labels are checked against num_classes (no validate_args in the API)",
    "ClusterAccuracy": "labels are checked against num_classes, as torchmetrics' confusion matrix does",
    "Perplexity": "target classes outside the vocabulary are rejected: the index would fault on an accelerator",
    "PanopticQuality": "unknown predicted categories raise, as torchmetrics; segments are found with unique",
    "ModifiedPanopticQuality": "unknown predicted categories raise, as torchmetrics; segments are found with unique",
}
HOST_READS = ("item", "tolist", "__bool__", "nonzero", "unique")


@pytest.mark.parametrize("key", sorted(k for k, e in ENTRIES.items() if e.package != "wrappers"))
def test_no_host_read_in_update_without_validation(key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``validate_args=False`` (and ``nan_strategy="disable"``) ``update`` never reads a value back."""
    from lightning_metrics.functional.classification import _scores

    entry = ENTRIES[key]
    if entry.name in ALWAYS_CHECKED:
        pytest.skip(ALWAYS_CHECKED[entry.name])
    if entry.kind in TEXT_KINDS:
        pytest.skip("strings are tokenised on the host: the tensors read back are CPU tensors of that batch")
    metric = entry.unchecked().build()
    good = batches(entry.kind, (6, 5), seed=0)
    metric.update(*good[0])
    monkeypatch.setattr(_scores, "CPU_HOST_BRANCH", False)  # the accelerator path (CPU may branch for free)

    def forbid(*args: Any, **kwargs: Any) -> None:
        raise AssertionError(f"{key}: update read a tensor value back to the host")

    for name in HOST_READS:
        monkeypatch.setattr(torch.Tensor, name, forbid)
    metric.update(*good[1])
