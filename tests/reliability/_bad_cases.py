"""The bad-input catalogue (first part): the case type, batch transformations, and the classification
cases (counts and curves). ``test_bad_input.py`` runs them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

import torch
from torch import Tensor

import lightning_metrics as lm
from lightning_metrics import classification as cls

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

