"""Metrics given by name, built for the task that the first batch shows (what Keras users expect).

``MetricsCallback(["accuracy", "f1", "auroc"])`` needs no ``task=`` and no ``num_classes=``: the
names are torchmetrics' task-wrapper names in snake case (``accuracy``, ``f1_score``,
``confusion_matrix``, ...), its regression names (``mse``, ``r2``, ``pearson``, ...) and Keras'
spellings where they differ (``binary_accuracy``, ``sparse_categorical_accuracy``, ``auc``, ...);
see :data:`NAMES`. The task is read from the first batch's shapes and dtypes only (so every DDP
rank decides alike, without a host sync), by torchmetrics' input rules:

==========================================  ===============================  ==========================
preds                                       target                           task
==========================================  ===============================  ==========================
floating ``(N, C, ...)``                    integer ``(N, ...)``             multiclass, ``C`` classes
floating or bool ``(N,)``                   integer ``(N,)``                 binary
floating or bool ``(N, L, ...)``            integer, the same shape          multilabel, ``L`` labels
floating ``(N,)`` or ``(N, D)``             floating, the same shape         regression (``D`` outputs)
==========================================  ===============================  ==========================

Then each name becomes the task wrapper with that task and size and torchmetrics' defaults for
everything else, so ``"accuracy"`` equals ``torchmetrics.Accuracy(task="multiclass",
num_classes=C)``. ``task``, ``num_classes``, ``num_labels``, ``average`` and ``threshold`` given
to the callback take precedence. Integer label predictions say nothing about the number of
classes: they need ``num_classes`` (or ``task="binary"``, or ``num_labels``). A name that does
not fit the data (``"accuracy"`` on a regression model) raises at the first batch, naming the
names that fit (:func:`fitting_names`).

Names and metric objects mix in one list or dict (a dict key names the result); the mixin's
``configure_metrics`` may return names (``metrics_task``, ``metrics_num_classes``, ... as class
attributes), and so may a LightningCLI YAML (``metrics: [accuracy, f1]``, see
``configs/names.yaml``). When, and on which rank, the task is read, and how a checkpoint keeps
what was built: :mod:`.task_inference`.

Deliberate differences from Keras: ``categorical_accuracy`` takes class indices as targets
(torchmetrics' multiclass input), not one-hot rows; ``auc`` is the exact ROC AUC, not Keras'
200-threshold approximation; ``cosine_similarity`` keeps torchmetrics' default
``reduction="sum"``.

>>> import torch
>>> given = TaskArguments()
>>> inferred = given.infer(torch.randn(8, 4), torch.randint(0, 4, (8,)), ["accuracy"])
>>> inferred.describe()
'multiclass, 4 classes, from preds (8, 4) float32 and target (8,) int64'
>>> build_metric("accuracy", inferred, given)
MulticlassAccuracy()
"""

from __future__ import annotations

import difflib
import importlib
import inspect
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Mapping, Optional, Sequence

import torch
from torch import Tensor

TASKS = ("binary", "multiclass", "multilabel", "regression")
AVERAGES = ("micro", "macro", "weighted", "none", "samples")


@dataclass(frozen=True)
class MetricName:
    """What a name builds: ``cls`` of ``domain`` with the arguments ``fixed`` (a Keras name may fix the task)."""

    domain: str  # "classification" (a task wrapper) or "regression"
    cls: str
    fixed: tuple[tuple[str, Any], ...] = ()

    @property
    def task(self) -> Optional[str]:
        return dict(self.fixed).get("task")


def _table() -> dict[str, MetricName]:
    classification = {
        "accuracy": "Accuracy", "acc": "Accuracy", "precision": "Precision", "recall": "Recall", "f1": "F1Score",
        "f1_score": "F1Score", "fbeta": "FBetaScore", "fbeta_score": "FBetaScore", "specificity": "Specificity",
        "negative_predictive_value": "NegativePredictiveValue", "hamming_distance": "HammingDistance",
        "exact_match": "ExactMatch", "jaccard_index": "JaccardIndex", "matthews_corrcoef": "MatthewsCorrCoef",
        "cohen_kappa": "CohenKappa", "confusion_matrix": "ConfusionMatrix", "stat_scores": "StatScores",
        "auroc": "AUROC", "average_precision": "AveragePrecision", "roc": "ROC",
        "precision_recall_curve": "PrecisionRecallCurve", "calibration_error": "CalibrationError",
        "hinge_loss": "HingeLoss", "eer": "EER", "log_auc": "LogAUC",
        "auc": "AUROC",  # Keras' AUC is the area under the ROC curve (here exact, not over 200 thresholds)
    }
    regression = {
        "mse": "MeanSquaredError", "mean_squared_error": "MeanSquaredError",
        "mae": "MeanAbsoluteError", "mean_absolute_error": "MeanAbsoluteError",
        "mape": "MeanAbsolutePercentageError", "mean_absolute_percentage_error": "MeanAbsolutePercentageError",
        "smape": "SymmetricMeanAbsolutePercentageError",
        "symmetric_mean_absolute_percentage_error": "SymmetricMeanAbsolutePercentageError",
        "wmape": "WeightedMeanAbsolutePercentageError",
        "weighted_mean_absolute_percentage_error": "WeightedMeanAbsolutePercentageError",
        "msle": "MeanSquaredLogError", "mean_squared_log_error": "MeanSquaredLogError",
        "mean_squared_logarithmic_error": "MeanSquaredLogError",
        "r2": "R2Score", "r2_score": "R2Score", "pearson": "PearsonCorrCoef", "pearson_corrcoef": "PearsonCorrCoef",
        "spearman": "SpearmanCorrCoef", "spearman_corrcoef": "SpearmanCorrCoef",
        "kendall": "KendallRankCorrCoef", "kendall_rank_corrcoef": "KendallRankCorrCoef",
        "concordance": "ConcordanceCorrCoef", "concordance_corrcoef": "ConcordanceCorrCoef",
        "explained_variance": "ExplainedVariance", "cosine_similarity": "CosineSimilarity",
        "log_cosh_error": "LogCoshError", "logcosh": "LogCoshError",
        "relative_squared_error": "RelativeSquaredError", "nrmse": "NormalizedRootMeanSquaredError",
        "normalized_root_mean_squared_error": "NormalizedRootMeanSquaredError",
        "tweedie_deviance_score": "TweedieDevianceScore",
    }
    table = {name: MetricName("classification", cls) for name, cls in classification.items()}
    table.update({name: MetricName("regression", cls) for name, cls in regression.items()})
    root = (("squared", False),)
    table["rmse"] = table["root_mean_squared_error"] = MetricName("regression", "MeanSquaredError", root)
    # Keras' accuracies: the fraction of correct predictions (torchmetrics' Accuracy wrapper is micro already)
    table["binary_accuracy"] = MetricName("classification", "Accuracy", (("task", "binary"),))
    for name in ("categorical_accuracy", "sparse_categorical_accuracy"):
        table[name] = MetricName("classification", "Accuracy", (("task", "multiclass"),))
    for name in ("top_k_categorical_accuracy", "sparse_top_k_categorical_accuracy"):
        table[name] = MetricName("classification", "Accuracy", (("task", "multiclass"), ("top_k", 5)))
    return table


NAMES: dict[str, MetricName] = _table()
"""Every metric name the callback and the mixin take, and what it builds."""

# what an error suggests for a task: the common names (NAMES has every one, aliases included)
SUGGESTED = {
    "classification": ("accuracy", "precision", "recall", "f1", "auroc", "average_precision", "confusion_matrix",
                       "matthews_corrcoef", "cohen_kappa", "calibration_error", "exact_match"),
    "regression": ("mse", "rmse", "mae", "r2", "pearson", "spearman", "explained_variance", "mape"),
}


def fitting_names(task: str) -> list[str]:
    """Common metric names that fit ``task`` (what an error about a misfit name suggests).

    >>> fitting_names("regression")
    ['mse', 'rmse', 'mae', 'r2', 'pearson', 'spearman', 'explained_variance', 'mape']
    >>> fitting_names("multilabel")  # no cohen_kappa, no calibration_error: they have no multilabel form
    ['accuracy', 'precision', 'recall', 'f1', 'auroc', 'average_precision', 'confusion_matrix', 'matthews_corrcoef', 'exact_match']
    """
    if task == "regression":
        return list(SUGGESTED["regression"])
    wrappers = importlib.import_module("lightning_metrics.classification")
    return [n for n in SUGGESTED["classification"] if task in getattr(wrappers, NAMES[n].cls)._tasks]


def _fit_hint(task: str) -> str:
    names = ", ".join(repr(n) for n in fitting_names(task))
    return f"the names that fit {task} data: {names}, ... (every name: lightning_metrics.integration.by_name.NAMES)"


def _listed(names: Sequence[str]) -> str:
    quoted = [repr(n) for n in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"


def check_name(name: str, where: str = "metrics") -> MetricName:
    """The entry of ``name``, or a ValueError that names close matches.

    >>> check_name("f1").cls
    'F1Score'
    >>> check_name("acuracy")
    Traceback (most recent call last):
    ...
    ValueError: Argument `metrics`: unknown metric name 'acuracy' (did you mean 'accuracy' or 'auroc' or 'binary_accuracy'?); the names are torchmetrics' task-wrapper and regression names in snake case, e.g. 'accuracy', 'f1_score', 'auroc', 'mse', 'r2'
    """
    entry = NAMES.get(name)
    if entry is not None:
        return entry
    close = difflib.get_close_matches(name, list(NAMES), n=3)
    hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
    raise ValueError(
        f"Argument `{where}`: unknown metric name {name!r}{hint}; the names are torchmetrics' task-wrapper and "
        "regression names in snake case, e.g. 'accuracy', 'f1_score', 'auroc', 'mse', 'r2'"
    )


# ---------------------------------------------------------------- the task
def _shape(tensor: Tensor) -> str:
    return str(tuple(tensor.shape))


def _dtype(tensor: Tensor) -> str:
    return str(tensor.dtype).replace("torch.", "")


@dataclass(frozen=True)
class Inferred:
    """The task the named metrics are built for; ``source`` says where it came from (not compared)."""

    task: str
    num_classes: Optional[int] = None
    num_labels: Optional[int] = None
    num_outputs: int = 1
    source: str = field(default="", compare=False)

    def describe(self) -> str:
        """``"multiclass, 10 classes, from preds (64, 10) float32 and target (64,) int64"``."""
        size = (
            f", {self.num_classes} classes" if self.task == "multiclass" else
            f", {self.num_labels} labels" if self.task == "multilabel" else
            f", {self.num_outputs} outputs" if self.task == "regression" and self.num_outputs > 1 else ""
        )
        return f"{self.task}{size}{', ' + self.source if self.source else ''}"

    def as_dict(self) -> dict[str, Any]:
        """What a checkpoint keeps (and what ranks compare): the task and its sizes."""
        out = asdict(self)
        del out["source"]
        return out

    @classmethod
    def from_dict(cls, config: Mapping[str, Any], source: str = "") -> "Inferred":
        known = {k: config[k] for k in ("task", "num_classes", "num_labels", "num_outputs") if k in config}
        return cls(**known, source=source)


def _check_size(name: str, value: Any) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 2):
        raise ValueError(f"Argument `{name}` must be an int of at least 2 or None, got {value!r}")


@dataclass(frozen=True)
class TaskArguments:
    """What the user fixed of the task (``None``: infer it), checked when the callback is made.

    >>> TaskArguments(task="multiclass", num_classes=3).preset(["accuracy"])
    Inferred(task='multiclass', num_classes=3, num_labels=None, num_outputs=1, source='')
    >>> TaskArguments(average="mean")
    Traceback (most recent call last):
    ...
    ValueError: Argument `average` must be one of ('micro', 'macro', 'weighted', 'none', 'samples') or None, got 'mean'
    """

    task: Optional[str] = None
    num_classes: Optional[int] = None
    num_labels: Optional[int] = None
    average: Optional[str] = None
    threshold: Optional[float] = None

    def __post_init__(self) -> None:
        if self.task is not None and self.task not in TASKS:
            raise ValueError(f"Argument `task` must be one of {TASKS} or None, got {self.task!r}")
        _check_size("num_classes", self.num_classes)
        _check_size("num_labels", self.num_labels)
        if self.average is not None and self.average not in AVERAGES:
            raise ValueError(f"Argument `average` must be one of {AVERAGES} or None, got {self.average!r}")
        threshold = self.threshold
        if threshold is not None and (isinstance(threshold, bool) or not isinstance(threshold, (int, float))
                                      or not 0 <= threshold <= 1):
            raise ValueError(f"Argument `threshold` must be a float in [0, 1] or None, got {threshold!r}")

    @property
    def given(self) -> bool:
        return any(v is not None for v in asdict(self).values())

    def for_names(self, names: Sequence[str], where: str) -> "TaskArguments":
        """These arguments with the task that Keras names fix (``binary_accuracy``: binary), checked."""
        fixed = {n: NAMES[n].task for n in names if NAMES[n].task is not None}
        tasks = set(fixed.values()) | ({self.task} if self.task is not None else set())
        if len(tasks) > 1:
            said = ", ".join(f"{n!r} is {t}" for n, t in fixed.items())
            given = f"task={self.task!r}; " if self.task is not None else ""
            raise ValueError(
                f"{where}: the named metrics need different tasks ({given}{said}); the metrics of one stage are "
                "built for one task: use one family of names, or give the others as metric objects"
            )
        return replace(self, task=tasks.pop()) if tasks and self.task is None else self

    def preset(self, names: Sequence[str]) -> Optional[Inferred]:
        """The task when the arguments settle it without data (binary, or a size given), else None."""
        task = self.task or ("multilabel" if self.num_labels else "multiclass" if self.num_classes else None)
        if task == "binary":
            return Inferred("binary")
        if task == "multiclass" and self.num_classes is not None:
            return Inferred("multiclass", num_classes=self.num_classes)
        if task == "multilabel" and self.num_labels is not None:
            return Inferred("multilabel", num_labels=self.num_labels)
        return None  # regression needs the number of outputs, the others a size

    def infer(self, preds: Any, target: Any, names: Sequence[str], where: str = "the metrics") -> Inferred:
        """The task of ``names`` for a batch of ``preds`` and ``target`` (shapes and dtypes only)."""
        if not isinstance(preds, Tensor) or not isinstance(target, Tensor):
            raise TypeError(
                f"{where}: metrics given by name read the task from tensors `preds` and `target`, got "
                f"{type(preds).__name__} and {type(target).__name__}; give the metrics as objects instead"
            )
        seen = f"from preds {_shape(preds)} {_dtype(preds)} and target {_shape(target)} {_dtype(target)}"
        p, t = tuple(preds.shape), tuple(target.shape)
        scores = preds.is_floating_point()
        labels_only = not scores and preds.dtype != torch.bool
        task = self.task or ("multilabel" if self.num_labels else "multiclass" if self.num_classes else None)
        pass_what = "pass task= ('binary', 'multiclass', 'multilabel' or 'regression') and num_classes= or num_labels="
        if task is None:
            if target.is_floating_point():
                task = "regression"
            elif labels_only:
                raise ValueError(
                    f"{where}: cannot tell the task {seen}: integer predictions are labels, which do not say how "
                    "many classes there are; pass num_classes=C (multiclass), task='binary', or num_labels=L "
                    "(multilabel) to the callback, or return scores (probabilities or logits) as preds"
                )
            elif p == t and len(p) == 1:
                task = "binary"
            elif p == t and len(p) >= 2:
                task = "multilabel"
            elif scores and len(p) == len(t) + 1 and len(t) >= 1 and p[0] == t[0] and p[2:] == t[1:]:
                task = "multiclass"
            else:
                raise ValueError(
                    f"{where}: the shapes fit no task ({seen}): multiclass takes preds (N, C, ...) and target "
                    "(N, ...), binary preds and target (N,), multilabel preds and target (N, L, ...), regression "
                    f"floating preds and target of one shape; {pass_what}"
                )
        out = Inferred(task, source=seen)
        if task == "multiclass":
            size = self.num_classes
            if size is None:
                if not (scores and len(p) == len(t) + 1 and len(p) >= 2):
                    one_hot = " (multiclass targets are class indices: for one-hot rows return target.argmax(1))"
                    raise ValueError(
                        f"{where}: multiclass {seen} needs the number of classes: pass num_classes=C"
                        + (one_hot if p == t and len(p) >= 2 else "")
                    )
                size = p[1]
            out = replace(out, num_classes=size)
        elif task == "multilabel":
            size = self.num_labels
            if size is None:
                if len(p) < 2:
                    raise ValueError(f"{where}: multilabel {seen} needs the number of labels: pass num_labels=L")
                size = p[1]
            out = replace(out, num_labels=size)
        elif task == "regression":
            if not scores or p != t or len(t) > 2:
                raise ValueError(
                    f"{where}: regression metrics take floating preds and target of one shape (N,) or (N, D), "
                    f"got {seen}; for classification pass task= and num_classes= or num_labels="
                )
            out = replace(out, num_outputs=t[1] if len(t) == 2 else 1)
        if task == "regression":
            misfit = [n for n in names if NAMES[n].domain == "classification"]
            if misfit:
                several = len(misfit) > 1
                raise ValueError(
                    f"{where}: {_listed(misfit)} {'are classification metrics' if several else 'is a classification metric'}"
                    f", but the data looks like regression ({seen}: a floating target); {_fit_hint('regression')}. "
                    "For classification, return integer labels as target, or pass task= and num_classes="
                )
        else:
            misfit = [n for n in names if NAMES[n].domain == "regression" and p != t]
            if misfit:
                several = len(misfit) > 1
                raise ValueError(
                    f"{where}: {_listed(misfit)} {'are regression metrics' if several else 'is a regression metric'}"
                    f": {'they take' if several else 'it takes'} preds and target of one shape, got {seen}, which "
                    f"looks like {out.describe().split(',')[0]}; {_fit_hint(task)}"
                )
        return out


def build_metric(name: str, inferred: Inferred, given: TaskArguments) -> Any:
    """The metric of ``name`` for the task ``inferred``: torchmetrics' defaults, then what is ``given``.

    >>> rmse = build_metric("rmse", Inferred("regression", num_outputs=2), TaskArguments())
    >>> type(rmse).__name__, rmse.squared, rmse.num_outputs
    ('MeanSquaredError', False, 2)
    >>> build_metric("cohen_kappa", Inferred("multilabel", num_labels=3), TaskArguments())
    Traceback (most recent call last):
    ...
    ValueError: Metric 'cohen_kappa' (CohenKappa) has no multilabel form; its tasks are ['binary', 'multiclass']; the names that fit multilabel data: 'accuracy', 'precision', 'recall', 'f1', 'auroc', 'average_precision', 'confusion_matrix', 'matthews_corrcoef', 'exact_match', ... (every name: lightning_metrics.integration.by_name.NAMES)
    """
    entry = NAMES[name]
    cls = getattr(importlib.import_module(f"lightning_metrics.{entry.domain}"), entry.cls)
    arguments = {k: v for k, v in entry.fixed if k != "task"}
    if entry.domain == "regression":
        if inferred.num_outputs > 1 and "num_outputs" in inspect.signature(cls.__init__).parameters:
            arguments["num_outputs"] = inferred.num_outputs
        return cls(**arguments)
    if inferred.task not in cls._tasks:
        raise ValueError(
            f"Metric {name!r} ({entry.cls}) has no {inferred.task} form; its tasks are {list(cls._tasks)}; "
            f"{_fit_hint(inferred.task)}"
        )
    accepted = inspect.signature(cls.__new__).parameters
    sizes = {"num_classes": inferred.num_classes, "num_labels": inferred.num_labels}
    options = {"threshold": given.threshold, "average": given.average}
    for key, value in {**sizes, **options}.items():
        if value is not None and key in accepted:
            arguments[key] = value
    return cls(task=inferred.task, **arguments)


# -------------------------------------------------------------- the source
class NamedMetrics:
    """A stage's metrics as the user gave them, with some given by name (``entries``: key, name or metric).

    >>> from lightning_metrics.aggregation import MeanMetric
    >>> named = NamedMetrics.find(["accuracy", MeanMetric()])
    >>> named.keys(), named.names
    (['accuracy', 'MeanMetric'], ['accuracy'])
    >>> NamedMetrics.find([MeanMetric()]) is None
    True
    """

    def __init__(self, entries: list[tuple[str, Any]]) -> None:
        self.entries = entries
        self.names = [v for _, v in entries if isinstance(v, str)]

    @classmethod
    def find(cls, metrics: Any) -> Optional["NamedMetrics"]:
        """The named form of ``metrics`` (a name, or a list or dict holding names), or None without names."""
        if isinstance(metrics, str):
            metrics = [metrics]
        if isinstance(metrics, Mapping):
            entries = [(str(k), v) for k, v in metrics.items()]
        elif isinstance(metrics, (list, tuple)):
            entries = [(m if isinstance(m, str) else type(m).__name__, m) for m in metrics]
        else:
            return None
        if not any(isinstance(v, str) for _, v in entries):
            return None
        for key, value in entries:
            if isinstance(value, str):
                check_name(value, "metrics" if key == value else f"metrics[{key!r}]")
        return cls(entries)

    def keys(self) -> list[str]:
        """The result names (the logged keys after the stage): a name as given, or the metric's key."""
        return [key for key, _ in self.entries]

    def resolve(self, inferred: Inferred, given: TaskArguments) -> dict[str, Any]:
        """The metrics, each name built for ``inferred`` (identically on every rank)."""
        return {key: build_metric(v, inferred, given) if isinstance(v, str) else v for key, v in self.entries}
