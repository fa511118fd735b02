"""Functional ROC, precision-recall curve, AUROC and average precision (torchmetrics names and arguments).

Every function is validate -> one statistic (:func:`._curve_core.curve_update`) -> one compute,
the same path the modular metrics take batch by batch.

``thresholds``: ``None`` computes exact curves from all scores; an int ``n`` (``linspace(0, 1, n)``),
a list or a 1d tensor of sorted values in [0, 1] bins the scores (constant memory).
"""

from __future__ import annotations

from typing import Any, Optional, Union

from torch import Tensor

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
    validate_curve_input,
)
from lightning_metrics.functional.classification._scores import (
    check_average,
    check_ignore_index,
    check_max_fpr,
    check_num,
    check_task,
    check_thresholds,
    threshold_tensor,
)

Thresholds = Optional[Union[int, list[float], Tensor]]


def curve_statistic(
    task: str,
    num: int,
    preds: Tensor,
    target: Tensor,
    thresholds: Thresholds,
    ignore_index: Optional[int],
    validate_args: bool,
    normalization: Optional[str] = "sigmoid",
) -> tuple[CurveSpec, CurveState]:
    """Check arguments and tensors (when asked) and return the spec and the statistic of the batch."""
    if validate_args:
        if task != "binary":
            check_num("num_classes" if task == "multiclass" else "num_labels", num)
        check_thresholds(thresholds)
        check_ignore_index(ignore_index)
    spec = CurveSpec(task, num, threshold_tensor(thresholds, preds.device), ignore_index, normalization)
    if validate_args:
        validate_curve_input(spec, preds, target)
    return spec, curve_update(spec, preds, target)


def require_int(name: str, value: Any) -> int:
    """Task wrappers need ``num_classes`` / ``num_labels`` for the multi-column tasks."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"Argument `{name}` must be an int for this task, got {value!r}")
    return value


# ------------------------------------------------------------------------ precision-recall curve
def binary_precision_recall_curve(
    preds: Tensor,
    target: Tensor,
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> tuple[Tensor, Tensor, Tensor]:
    """Precision, recall and increasing thresholds for binary scores (probabilities or logits).

    >>> import torch
    >>> preds, target = torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1])
    >>> binary_precision_recall_curve(preds, target)
    (tensor([0.5000, 0.6667, 0.5000, 1.0000, 1.0000]), tensor([1.0000, 1.0000, 0.5000, 0.5000, 0.0000]),
     tensor([0.1000, 0.3500, 0.4000, 0.8000]))
    """
    spec, state = curve_statistic("binary", 1, preds, target, thresholds, ignore_index, validate_args)
    return pr_curves(spec, state)  # type: ignore[return-value]


def multiclass_precision_recall_curve(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    thresholds: Thresholds = None,
    average: Optional[str] = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Curves:
    """One-vs-rest precision-recall curves per class, or one ``micro`` / ``macro`` averaged curve.

    >>> import torch
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> precision, recall, _ = multiclass_precision_recall_curve(preds, torch.tensor([0, 1, 2, 0]), 3, 3)
    >>> precision
    tensor([[0.5000, 1.0000,    nan, 1.0000],
            [0.2500, 1.0000,    nan, 1.0000],
            [0.2500, 1.0000,    nan, 1.0000]])
    """
    if validate_args:
        check_average(average, ("micro", "macro", None))
    spec, state = curve_statistic(
        "multiclass", num_classes, preds, target, thresholds, ignore_index, validate_args
    )
    return multiclass_curve("pr", spec, state, average)


def multilabel_precision_recall_curve(
    preds: Tensor,
    target: Tensor,
    num_labels: int,
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Curves:
    """Precision-recall curve of every label.

    >>> import torch
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.9]])
    >>> target = torch.tensor([[1, 0], [0, 1], [1, 1]])
    >>> precision, recall, thresholds = multilabel_precision_recall_curve(preds, target, 2)
    >>> recall
    [tensor([1.0000, 1.0000, 0.5000, 0.0000]), tensor([1.0000, 1.0000, 0.5000, 0.0000])]
    """
    spec, state = curve_statistic(
        "multilabel", num_labels, preds, target, thresholds, ignore_index, validate_args
    )
    return pr_curves(spec, state)


def precision_recall_curve(
    preds: Tensor,
    target: Tensor,
    task: str,
    thresholds: Thresholds = None,
    num_classes: Optional[int] = None,
    num_labels: Optional[int] = None,
    average: Optional[str] = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Curves:
    """Task wrapper for the ``binary_``/``multiclass_``/``multilabel_precision_recall_curve`` functions.

    >>> import torch
    >>> _, recall, _ = precision_recall_curve(torch.tensor([0.2, 0.7]), torch.tensor([0, 1]), "binary")
    >>> recall
    tensor([1., 1., 0.])
    """
    task = check_task(task)
    if task == "binary":
        return binary_precision_recall_curve(preds, target, thresholds, ignore_index, validate_args)
    if task == "multiclass":
        num_classes = require_int("num_classes", num_classes)
        return multiclass_precision_recall_curve(
            preds, target, num_classes, thresholds, average, ignore_index, validate_args
        )
    num_labels = require_int("num_labels", num_labels)
    return multilabel_precision_recall_curve(
        preds, target, num_labels, thresholds, ignore_index, validate_args
    )


# ---------------------------------------------------------------------------------------- ROC
def binary_roc(
    preds: Tensor,
    target: Tensor,
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> tuple[Tensor, Tensor, Tensor]:
    """False positive rate, true positive rate and decreasing thresholds for binary scores.

    >>> import torch
    >>> binary_roc(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    (tensor([0.0000, 0.0000, 0.5000, 0.5000, 1.0000]), tensor([0.0000, 0.5000, 0.5000, 1.0000, 1.0000]),
     tensor([1.0000, 0.8000, 0.4000, 0.3500, 0.1000]))
    """
    spec, state = curve_statistic("binary", 1, preds, target, thresholds, ignore_index, validate_args)
    return roc_curves(spec, state)  # type: ignore[return-value]


def multiclass_roc(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    thresholds: Thresholds = None,
    average: Optional[str] = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Curves:
    """One-vs-rest ROC curves per class, or one ``micro`` / ``macro`` averaged curve.

    >>> import torch
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> fpr, tpr, thresholds = multiclass_roc(preds, torch.tensor([0, 1, 2, 0]), 3, average="micro")
    >>> tpr
    tensor([0.0000, 0.2500, 0.5000, 0.7500, 0.7500, 1.0000, 1.0000, 1.0000])
    """
    if validate_args:
        check_average(average, ("micro", "macro", None))
    spec, state = curve_statistic(
        "multiclass", num_classes, preds, target, thresholds, ignore_index, validate_args
    )
    return multiclass_curve("roc", spec, state, average)


def multilabel_roc(
    preds: Tensor,
    target: Tensor,
    num_labels: int,
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Curves:
    """ROC curve of every label.

    >>> import torch
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.9]])
    >>> fpr, tpr, _ = multilabel_roc(preds, torch.tensor([[1, 0], [0, 1], [1, 1]]), 2, thresholds=3)
    >>> fpr
    tensor([[0., 0., 1.],
            [0., 0., 1.]])
    """
    spec, state = curve_statistic(
        "multilabel", num_labels, preds, target, thresholds, ignore_index, validate_args
    )
    return roc_curves(spec, state)


def roc(
    preds: Tensor,
    target: Tensor,
    task: str,
    thresholds: Thresholds = None,
    num_classes: Optional[int] = None,
    num_labels: Optional[int] = None,
    average: Optional[str] = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Curves:
    """Task wrapper for the ``binary_``/``multiclass_``/``multilabel_roc`` functions.

    >>> import torch
    >>> fpr, tpr, _ = roc(torch.tensor([0.2, 0.7]), torch.tensor([0, 1]), task="binary")
    >>> tpr
    tensor([0., 1., 1.])
    """
    task = check_task(task)
    if task == "binary":
        return binary_roc(preds, target, thresholds, ignore_index, validate_args)
    if task == "multiclass":
        num_classes = require_int("num_classes", num_classes)
        return multiclass_roc(preds, target, num_classes, thresholds, average, ignore_index, validate_args)
    num_labels = require_int("num_labels", num_labels)
    return multilabel_roc(preds, target, num_labels, thresholds, ignore_index, validate_args)


# -------------------------------------------------------------------------------------- AUROC
def binary_auroc(
    preds: Tensor,
    target: Tensor,
    max_fpr: Optional[float] = None,
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Area under the ROC curve; with ``max_fpr`` the McClish-standardized partial area.

    >>> import torch
    >>> preds, target = torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1])
    >>> binary_auroc(preds, target)
    tensor(0.7500)
    >>> binary_auroc(preds, target, max_fpr=0.5)
    tensor(0.6667)
    """
    if validate_args:
        check_max_fpr(max_fpr)
    spec, state = curve_statistic("binary", 1, preds, target, thresholds, ignore_index, validate_args)
    return auroc_compute(spec, state, None, max_fpr)


def multiclass_auroc(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    average: Optional[str] = "macro",
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """One-vs-rest AUROC averaged over classes (``macro``, ``weighted`` by support, ``none``).

    >>> import torch
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> multiclass_auroc(preds, torch.tensor([0, 1, 2, 0]), num_classes=3, average=None)
    tensor([0.7500, 1.0000, 1.0000])
    """
    if validate_args:
        check_average(average, ("macro", "weighted", "none", None))
    spec, state = curve_statistic(
        "multiclass", num_classes, preds, target, thresholds, ignore_index, validate_args
    )
    return auroc_compute(spec, state, average, None)


def multilabel_auroc(
    preds: Tensor,
    target: Tensor,
    num_labels: int,
    average: Optional[str] = "macro",
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """AUROC of every label, averaged (``micro``, ``macro``, ``weighted``, ``none``).

    >>> import torch
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]])
    >>> multilabel_auroc(preds, torch.tensor([[1, 0], [0, 1], [0, 0]]), num_labels=2, average="micro")
    tensor(0.8125)
    """
    if validate_args:
        check_average(average, ("micro", "macro", "weighted", "none", None))
    spec, state = curve_statistic(
        "multilabel", num_labels, preds, target, thresholds, ignore_index, validate_args
    )
    return auroc_compute(spec, state, average, None)


def auroc(
    preds: Tensor,
    target: Tensor,
    task: str,
    thresholds: Thresholds = None,
    num_classes: Optional[int] = None,
    num_labels: Optional[int] = None,
    average: Optional[str] = "macro",
    max_fpr: Optional[float] = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Task wrapper for the ``binary_``/``multiclass_``/``multilabel_auroc`` functions.

    >>> import torch
    >>> auroc(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]), task="binary")
    tensor(0.7500)
    """
    task = check_task(task)
    if task == "binary":
        return binary_auroc(preds, target, max_fpr, thresholds, ignore_index, validate_args)
    if task == "multiclass":
        num_classes = require_int("num_classes", num_classes)
        return multiclass_auroc(preds, target, num_classes, average, thresholds, ignore_index, validate_args)
    num_labels = require_int("num_labels", num_labels)
    return multilabel_auroc(preds, target, num_labels, average, thresholds, ignore_index, validate_args)


# -------------------------------------------------------------------------- average precision
def binary_average_precision(
    preds: Tensor,
    target: Tensor,
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Average precision: the step-wise area under the precision-recall curve.

    >>> import torch
    >>> binary_average_precision(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    tensor(0.8333)
    """
    spec, state = curve_statistic("binary", 1, preds, target, thresholds, ignore_index, validate_args)
    return average_precision_compute(spec, state, None)


def multiclass_average_precision(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    average: Optional[str] = "macro",
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """One-vs-rest average precision averaged over classes (``macro``, ``weighted``, ``none``).

    >>> import torch
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> multiclass_average_precision(preds, torch.tensor([0, 1, 2, 0]), num_classes=3)
    tensor(0.9444)
    """
    if validate_args:
        check_average(average, ("macro", "weighted", "none", None))
    spec, state = curve_statistic(
        "multiclass", num_classes, preds, target, thresholds, ignore_index, validate_args
    )
    return average_precision_compute(spec, state, average)


def multilabel_average_precision(
    preds: Tensor,
    target: Tensor,
    num_labels: int,
    average: Optional[str] = "macro",
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Average precision of every label, averaged (``micro``, ``macro``, ``weighted``, ``none``).

    >>> import torch
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]])
    >>> target = torch.tensor([[1, 0], [0, 1], [0, 0]])
    >>> multilabel_average_precision(preds, target, num_labels=2, average=None)
    tensor([1.0000, 0.5000])
    """
    if validate_args:
        check_average(average, ("micro", "macro", "weighted", "none", None))
    spec, state = curve_statistic(
        "multilabel", num_labels, preds, target, thresholds, ignore_index, validate_args
    )
    return average_precision_compute(spec, state, average)


def average_precision(
    preds: Tensor,
    target: Tensor,
    task: str,
    thresholds: Thresholds = None,
    num_classes: Optional[int] = None,
    num_labels: Optional[int] = None,
    average: Optional[str] = "macro",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Task wrapper for the ``binary_``/``multiclass_``/``multilabel_average_precision`` functions.

    >>> import torch
    >>> average_precision(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]), task="binary")
    tensor(0.8333)
    """
    task = check_task(task)
    if task == "binary":
        return binary_average_precision(preds, target, thresholds, ignore_index, validate_args)
    if task == "multiclass":
        num_classes = require_int("num_classes", num_classes)
        return multiclass_average_precision(
            preds, target, num_classes, average, thresholds, ignore_index, validate_args
        )
    num_labels = require_int("num_labels", num_labels)
    return multilabel_average_precision(
        preds, target, num_labels, average, thresholds, ignore_index, validate_args
    )
