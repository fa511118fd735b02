"""Functional ROC, precision-recall curve, AUROC and average precision (torchmetrics names and arguments).

Every function is validate -> one statistic (:func:`._curve_core.curve_update`) -> one compute,
the same path the modular metrics take batch by batch. A function is torchmetrics' signature, its
docstring and one line, :func:`curve_function` with its task and measure; a task wrapper is one
:func:`~._core.call_for_task`.

``thresholds``: ``None`` computes exact curves from all scores; an int ``n`` (``linspace(0, 1, n)``),
a list or a 1d tensor of sorted values in [0, 1] bins the scores (constant memory).

``sample_weight`` (every function, after torchmetrics' arguments): one weight per sample, with the
rules of :mod:`lightning_metrics.utilities.sample_weight`; the curves count weight sums instead of
samples (scikit-learn's ``sample_weight``), a zero weight removes the sample (also as a threshold of
an exact curve), and ``average="weighted"`` weighs a class by the weight sum of its positives.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Union

from torch import Tensor

from lightning_metrics.functional.classification._core import _SIZES, call_for_task
from lightning_metrics.functional.classification._curve_core import (
    Curves,
    CurveSpec,
    CurveState,
    auroc_compute,
    average_precision_compute,
    curve_update,
    multiclass_curve,
    pr_curves,
    roc_curves,
)
from lightning_metrics.functional.classification._fixed_point import (
    binary_logauc_from_roc,
    eer_from_roc,
    logauc_from_roc,
)
from lightning_metrics.functional.classification._scores import (
    check_average,
    check_fpr_range,
    check_ignore_index,
    check_max_fpr,
    check_num,
    check_thresholds,
    threshold_tensor,
)
from lightning_metrics.functional.classification._task_functions import task_functions

Thresholds = Optional[Union[int, list[float], Tensor]]

_AVERAGED_CURVE = ("micro", "macro", None)
_AREA = ("macro", "weighted", "none", None)
# The ``average`` values a measure takes per task (torchmetrics' choices), shared with the modular classes.
CURVE_AVERAGES: dict[tuple[str, str], tuple[Optional[str], ...]] = {
    ("multiclass", "pr"): _AVERAGED_CURVE,
    ("multiclass", "roc"): _AVERAGED_CURVE,
    ("multiclass", "eer"): _AVERAGED_CURVE,
    ("multiclass", "auroc"): _AREA,
    ("multiclass", "average_precision"): _AREA,
    ("multilabel", "auroc"): ("micro", *_AREA),
    ("multilabel", "average_precision"): ("micro", *_AREA),
    ("multiclass", "logauc"): ("macro", "none", None),
    ("multilabel", "logauc"): ("macro", "none", None),
}


def curve_statistic(
    task: str,
    num: int,
    preds: Tensor,
    target: Tensor,
    thresholds: Thresholds,
    ignore_index: Optional[int],
    validate_args: bool,
    normalization: Optional[str] = "sigmoid",
    sample_weight: Any = None,
) -> tuple[CurveSpec, CurveState]:
    """Check arguments and tensors (when asked) and return the spec and the statistic of the batch."""
    if validate_args:
        if task != "binary":
            check_num("num_classes" if task == "multiclass" else "num_labels", num)
        check_thresholds(thresholds)
        check_ignore_index(ignore_index)
    spec = CurveSpec(task, num, threshold_tensor(thresholds, preds.device), ignore_index, normalization)
    return spec, curve_update(spec, preds, target, validate_args, sample_weight)


def curve_measure(measure: str, spec: CurveSpec, state: CurveState, arguments: Mapping[str, Any]) -> Any:
    """What ``measure`` reads from a curve statistic (``average``, ``max_fpr``, ``fpr_range`` from ``arguments``)."""
    average = arguments.get("average")
    if measure in ("pr", "roc", "eer"):
        if spec.task == "multiclass":
            curves = multiclass_curve("pr" if measure == "pr" else "roc", spec, state, average)
        else:
            curves = (pr_curves if measure == "pr" else roc_curves)(spec, state)
        return eer_from_roc(*curves[:2]) if measure == "eer" else curves
    if measure == "auroc":
        return auroc_compute(spec, state, average, arguments.get("max_fpr"))
    if measure == "average_precision":
        return average_precision_compute(spec, state, average)
    fpr, tpr, _ = roc_curves(spec, state)  # logauc
    if spec.task == "binary":
        return binary_logauc_from_roc(fpr, tpr, arguments["fpr_range"])  # type: ignore[arg-type]
    return logauc_from_roc(fpr, tpr, arguments["fpr_range"], average)


def curve_function(task: str, measure: str, arguments: Mapping[str, Any]) -> Any:
    """The body of every curve function: ``arguments`` is its ``locals()``.

    >>> import torch
    >>> curve_function("binary", "auroc", {"preds": torch.tensor([0.2, 0.7]), "target": torch.tensor([0, 1])})
    tensor(1.)
    """
    get = arguments.get
    validate_args = get("validate_args", True)
    if measure == "logauc" and (validate_args or task == "binary"):  # torchmetrics checks the binary range always
        check_fpr_range(arguments["fpr_range"])
    if validate_args:
        if (task, measure) in CURVE_AVERAGES:
            check_average(get("average"), CURVE_AVERAGES[task, measure])
        if "max_fpr" in arguments:
            check_max_fpr(arguments["max_fpr"])
    num = arguments[_SIZES[task]] if task in _SIZES else 1
    spec, state = curve_statistic(
        task, num, arguments["preds"], arguments["target"], get("thresholds"), get("ignore_index"), validate_args,
        sample_weight=get("sample_weight"),
    )
    return curve_measure(measure, spec, state, arguments)


# ------------------------------------------------------------------------ precision-recall curve
def binary_precision_recall_curve(preds: Tensor, target: Tensor, thresholds: Thresholds = None,
                                  ignore_index: Optional[int] = None,
                                  validate_args: bool = True,
                                  *, sample_weight: Optional[Tensor] = None) -> tuple[Tensor, Tensor, Tensor]:
    """Precision, recall and increasing thresholds for binary scores (probabilities or logits).

    >>> import torch
    >>> preds, target = torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1])
    >>> binary_precision_recall_curve(preds, target)
    (tensor([0.5000, 0.6667, 0.5000, 1.0000, 1.0000]), tensor([1.0000, 1.0000, 0.5000, 0.5000, 0.0000]),
     tensor([0.1000, 0.3500, 0.4000, 0.8000]))
    """
    return curve_function("binary", "pr", locals())


def multiclass_precision_recall_curve(preds: Tensor, target: Tensor, num_classes: int, thresholds: Thresholds = None,
                                      average: Optional[str] = None, ignore_index: Optional[int] = None,
                                      validate_args: bool = True,
                                      *, sample_weight: Optional[Tensor] = None) -> Curves:
    """One-vs-rest precision-recall curves per class, or one ``micro`` / ``macro`` averaged curve.

    >>> import torch
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> precision, recall, _ = multiclass_precision_recall_curve(preds, torch.tensor([0, 1, 2, 0]), 3, 3)
    >>> precision
    tensor([[0.5000, 1.0000,    nan, 1.0000],
            [0.2500, 1.0000,    nan, 1.0000],
            [0.2500, 1.0000,    nan, 1.0000]])
    """
    return curve_function("multiclass", "pr", locals())


def multilabel_precision_recall_curve(preds: Tensor, target: Tensor, num_labels: int, thresholds: Thresholds = None,
                                      ignore_index: Optional[int] = None, validate_args: bool = True,
                                      *, sample_weight: Optional[Tensor] = None) -> Curves:
    """Precision-recall curve of every label.

    >>> import torch
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.9]])
    >>> target = torch.tensor([[1, 0], [0, 1], [1, 1]])
    >>> precision, recall, thresholds = multilabel_precision_recall_curve(preds, target, 2)
    >>> recall
    [tensor([1.0000, 1.0000, 0.5000, 0.0000]), tensor([1.0000, 1.0000, 0.5000, 0.0000])]
    """
    return curve_function("multilabel", "pr", locals())


def precision_recall_curve(preds: Tensor, target: Tensor, task: str, thresholds: Thresholds = None,
                           num_classes: Optional[int] = None, num_labels: Optional[int] = None,
                           average: Optional[str] = None, ignore_index: Optional[int] = None,
                           validate_args: bool = True, *, sample_weight: Optional[Tensor] = None) -> Curves:
    """Task wrapper for the ``binary_``/``multiclass_``/``multilabel_precision_recall_curve`` functions.

    >>> import torch
    >>> _, recall, _ = precision_recall_curve(torch.tensor([0.2, 0.7]), torch.tensor([0, 1]), "binary")
    >>> recall
    tensor([1., 1., 0.])
    """
    return call_for_task(locals(), task_functions(__name__, "precision_recall_curve"))


# ---------------------------------------------------------------------------------------- ROC
def binary_roc(preds: Tensor, target: Tensor, thresholds: Thresholds = None, ignore_index: Optional[int] = None,
               validate_args: bool = True,
               *, sample_weight: Optional[Tensor] = None) -> tuple[Tensor, Tensor, Tensor]:
    """False positive rate, true positive rate and decreasing thresholds for binary scores.

    >>> import torch
    >>> binary_roc(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    (tensor([0.0000, 0.0000, 0.5000, 0.5000, 1.0000]), tensor([0.0000, 0.5000, 0.5000, 1.0000, 1.0000]),
     tensor([1.0000, 0.8000, 0.4000, 0.3500, 0.1000]))
    >>> binary_roc(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]),
    ...            sample_weight=torch.tensor([1.0, 0.0, 2.0, 1.0]))  # a zero weight drops the sample (and 0.4)
    (tensor([0., 0., 0., 1.]), tensor([0.0000, 0.3333, 1.0000, 1.0000]), tensor([1.0000, 0.8000, 0.3500, 0.1000]))
    """
    return curve_function("binary", "roc", locals())


def multiclass_roc(preds: Tensor, target: Tensor, num_classes: int, thresholds: Thresholds = None,
                   average: Optional[str] = None, ignore_index: Optional[int] = None,
                   validate_args: bool = True, *, sample_weight: Optional[Tensor] = None) -> Curves:
    """One-vs-rest ROC curves per class, or one ``micro`` / ``macro`` averaged curve.

    >>> import torch
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> fpr, tpr, thresholds = multiclass_roc(preds, torch.tensor([0, 1, 2, 0]), 3, average="micro")
    >>> tpr
    tensor([0.0000, 0.2500, 0.5000, 0.7500, 0.7500, 1.0000, 1.0000, 1.0000])
    """
    return curve_function("multiclass", "roc", locals())


def multilabel_roc(preds: Tensor, target: Tensor, num_labels: int, thresholds: Thresholds = None,
                   ignore_index: Optional[int] = None, validate_args: bool = True,
                   *, sample_weight: Optional[Tensor] = None) -> Curves:
    """ROC curve of every label.

    >>> import torch
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.9]])
    >>> fpr, tpr, _ = multilabel_roc(preds, torch.tensor([[1, 0], [0, 1], [1, 1]]), 2, thresholds=3)
    >>> fpr
    tensor([[0., 0., 1.],
            [0., 0., 1.]])
    """
    return curve_function("multilabel", "roc", locals())


def roc(preds: Tensor, target: Tensor, task: str, thresholds: Thresholds = None, num_classes: Optional[int] = None,
        num_labels: Optional[int] = None, average: Optional[str] = None, ignore_index: Optional[int] = None,
        validate_args: bool = True, *, sample_weight: Optional[Tensor] = None) -> Curves:
    """Task wrapper for the ``binary_``/``multiclass_``/``multilabel_roc`` functions.

    >>> import torch
    >>> fpr, tpr, _ = roc(torch.tensor([0.2, 0.7]), torch.tensor([0, 1]), task="binary")
    >>> tpr
    tensor([0., 1., 1.])
    """
    return call_for_task(locals(), task_functions(__name__, "roc"))


# -------------------------------------------------------------------------------------- AUROC
def binary_auroc(preds: Tensor, target: Tensor, max_fpr: Optional[float] = None, thresholds: Thresholds = None,
                 ignore_index: Optional[int] = None, validate_args: bool = True,
                 *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Area under the ROC curve; with ``max_fpr`` the McClish-standardized partial area.

    >>> import torch
    >>> preds, target = torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1])
    >>> binary_auroc(preds, target)
    tensor(0.7500)
    >>> binary_auroc(preds, target, max_fpr=0.5)
    tensor(0.6667)
    >>> binary_auroc(preds, target, sample_weight=torch.tensor([1.0, 0.0, 2.0, 1.0]))  # the 0.4 weighs nothing
    tensor(1.)
    """
    return curve_function("binary", "auroc", locals())


def multiclass_auroc(preds: Tensor, target: Tensor, num_classes: int, average: Optional[str] = "macro",
                     thresholds: Thresholds = None, ignore_index: Optional[int] = None,
                     validate_args: bool = True, *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """One-vs-rest AUROC averaged over classes (``macro``, ``weighted`` by support, ``none``).

    >>> import torch
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> multiclass_auroc(preds, torch.tensor([0, 1, 2, 0]), num_classes=3, average=None)
    tensor([0.7500, 1.0000, 1.0000])
    """
    return curve_function("multiclass", "auroc", locals())


def multilabel_auroc(preds: Tensor, target: Tensor, num_labels: int, average: Optional[str] = "macro",
                     thresholds: Thresholds = None, ignore_index: Optional[int] = None,
                     validate_args: bool = True, *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """AUROC of every label, averaged (``micro``, ``macro``, ``weighted``, ``none``).

    >>> import torch
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]])
    >>> multilabel_auroc(preds, torch.tensor([[1, 0], [0, 1], [0, 0]]), num_labels=2, average="micro")
    tensor(0.8125)
    """
    return curve_function("multilabel", "auroc", locals())


def auroc(preds: Tensor, target: Tensor, task: str, thresholds: Thresholds = None, num_classes: Optional[int] = None,
          num_labels: Optional[int] = None, average: Optional[str] = "macro", max_fpr: Optional[float] = None,
          ignore_index: Optional[int] = None, validate_args: bool = True,
          *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Task wrapper for the ``binary_``/``multiclass_``/``multilabel_auroc`` functions.

    >>> import torch
    >>> auroc(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]), task="binary")
    tensor(0.7500)
    """
    return call_for_task(locals(), task_functions(__name__, "auroc"))


# -------------------------------------------------------------------------- average precision
def binary_average_precision(preds: Tensor, target: Tensor, thresholds: Thresholds = None,
                             ignore_index: Optional[int] = None, validate_args: bool = True,
                             *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Average precision: the step-wise area under the precision-recall curve.

    >>> import torch
    >>> binary_average_precision(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    tensor(0.8333)
    """
    return curve_function("binary", "average_precision", locals())


def multiclass_average_precision(preds: Tensor, target: Tensor, num_classes: int, average: Optional[str] = "macro",
                                 thresholds: Thresholds = None, ignore_index: Optional[int] = None,
                                 validate_args: bool = True,
                                 *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """One-vs-rest average precision averaged over classes (``macro``, ``weighted``, ``none``).

    >>> import torch
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> multiclass_average_precision(preds, torch.tensor([0, 1, 2, 0]), num_classes=3)
    tensor(0.9444)
    """
    return curve_function("multiclass", "average_precision", locals())


def multilabel_average_precision(preds: Tensor, target: Tensor, num_labels: int, average: Optional[str] = "macro",
                                 thresholds: Thresholds = None, ignore_index: Optional[int] = None,
                                 validate_args: bool = True,
                                 *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Average precision of every label, averaged (``micro``, ``macro``, ``weighted``, ``none``).

    >>> import torch
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]])
    >>> target = torch.tensor([[1, 0], [0, 1], [0, 0]])
    >>> multilabel_average_precision(preds, target, num_labels=2, average=None)
    tensor([1.0000, 0.5000])
    """
    return curve_function("multilabel", "average_precision", locals())


def average_precision(preds: Tensor, target: Tensor, task: str, thresholds: Thresholds = None,
                      num_classes: Optional[int] = None, num_labels: Optional[int] = None,
                      average: Optional[str] = "macro", ignore_index: Optional[int] = None,
                      validate_args: bool = True, *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Task wrapper for the ``binary_``/``multiclass_``/``multilabel_average_precision`` functions.

    >>> import torch
    >>> average_precision(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]), task="binary")
    tensor(0.8333)
    """
    return call_for_task(locals(), task_functions(__name__, "average_precision"))
