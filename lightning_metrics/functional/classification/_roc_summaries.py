"""Functional ROC summaries: equal error rate (EER) and LogAUC (torchmetrics names and arguments).

Both read the ROC curves of the shared curve statistic (:mod:`._curve_functions`).
"""

from __future__ import annotations

from typing import Optional

from torch import Tensor

from lightning_metrics.functional.classification._curve_core import multiclass_curve, roc_curves
from lightning_metrics.functional.classification._curve_functions import Thresholds, curve_statistic
from lightning_metrics.functional.classification._fixed_point import (
    binary_logauc_from_roc,
    eer_from_roc,
    logauc_from_roc,
)
from lightning_metrics.functional.classification._operating_points import dispatch_task
from lightning_metrics.functional.classification._scores import check_average, check_fpr_range

FPR_RANGE = (0.001, 0.1)


# ------------------------------------------------------------------------------------- EER
def binary_eer(
    preds: Tensor,
    target: Tensor,
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Equal error rate: the error where false positive and false negative rates meet.

    >>> import torch
    >>> binary_eer(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    tensor(0.5000)
    """
    spec, state = curve_statistic("binary", 1, preds, target, thresholds, ignore_index, validate_args)
    return eer_from_roc(*roc_curves(spec, state)[:2])


def multiclass_eer(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    thresholds: Thresholds = None,
    average: Optional[str] = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Equal error rate per class, or of the ``micro`` / ``macro`` averaged ROC curve.

    >>> import torch
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> multiclass_eer(preds, torch.tensor([0, 1, 2, 0]), num_classes=3)
    tensor([0.5000, 0.0000, 0.0000])
    """
    if validate_args:
        check_average(average, ("micro", "macro", None))
    spec, state = curve_statistic(
        "multiclass", num_classes, preds, target, thresholds, ignore_index, validate_args
    )
    return eer_from_roc(*multiclass_curve("roc", spec, state, average)[:2])


def multilabel_eer(
    preds: Tensor,
    target: Tensor,
    num_labels: int,
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Equal error rate of every label.

    >>> import torch
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]])
    >>> multilabel_eer(preds, torch.tensor([[1, 0], [0, 1], [0, 0]]), num_labels=2)
    tensor([0.0000, 0.7500])
    """
    spec, state = curve_statistic(
        "multilabel", num_labels, preds, target, thresholds, ignore_index, validate_args
    )
    return eer_from_roc(*roc_curves(spec, state)[:2])


def eer(
    preds: Tensor,
    target: Tensor,
    task: str,
    thresholds: Thresholds = None,
    num_classes: Optional[int] = None,
    num_labels: Optional[int] = None,
    average: Optional[str] = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Task wrapper for the ``*_eer`` functions.

    >>> import torch
    >>> eer(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]), task="binary")
    tensor(0.5000)
    """
    task, num = dispatch_task(task, num_classes, num_labels)
    if task == "binary":
        return binary_eer(preds, target, thresholds, ignore_index, validate_args)
    if task == "multiclass":
        return multiclass_eer(preds, target, num, thresholds, average, ignore_index, validate_args)
    return multilabel_eer(preds, target, num, thresholds, ignore_index, validate_args)


# ---------------------------------------------------------------------------------- LogAUC
def binary_logauc(
    preds: Tensor,
    target: Tensor,
    fpr_range: tuple[float, float] = FPR_RANGE,
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Area under the ROC curve on a log10 FPR axis inside ``fpr_range``, scaled to [0, 1].

    >>> import torch
    >>> binary_logauc(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    tensor(0.5000)
    """
    check_fpr_range(fpr_range)
    spec, state = curve_statistic("binary", 1, preds, target, thresholds, ignore_index, validate_args)
    fpr, tpr, _ = roc_curves(spec, state)
    return binary_logauc_from_roc(fpr, tpr, fpr_range)  # type: ignore[arg-type]


def _multi_logauc(
    task: str,
    num: int,
    preds: Tensor,
    target: Tensor,
    fpr_range: tuple[float, float],
    average: Optional[str],
    thresholds: Thresholds,
    ignore_index: Optional[int],
    validate_args: bool,
) -> Tensor:
    if validate_args:
        check_fpr_range(fpr_range)
        check_average(average, ("macro", "none", None))
    spec, state = curve_statistic(task, num, preds, target, thresholds, ignore_index, validate_args)
    fpr, tpr, _ = roc_curves(spec, state)
    return logauc_from_roc(fpr, tpr, fpr_range, average)


def multiclass_logauc(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    fpr_range: tuple[float, float] = FPR_RANGE,
    average: Optional[str] = "macro",
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """LogAUC of every class (one-vs-rest), averaged with ``macro`` or ``none``.

    >>> import torch
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> multiclass_logauc(preds, torch.tensor([0, 1, 2, 0]), num_classes=3, average=None)
    tensor([0.5000, 1.0000, 1.0000])
    """
    return _multi_logauc(
        "multiclass", num_classes, preds, target, fpr_range, average, thresholds, ignore_index, validate_args
    )


def multilabel_logauc(
    preds: Tensor,
    target: Tensor,
    num_labels: int,
    fpr_range: tuple[float, float] = FPR_RANGE,
    average: Optional[str] = "macro",
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """LogAUC of every label, averaged with ``macro`` or ``none``.

    >>> import torch
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]])
    >>> multilabel_logauc(preds, torch.tensor([[1, 0], [0, 1], [0, 0]]), num_labels=2)
    tensor(0.5000)
    """
    return _multi_logauc(
        "multilabel", num_labels, preds, target, fpr_range, average, thresholds, ignore_index, validate_args
    )


def logauc(
    preds: Tensor,
    target: Tensor,
    task: str,
    thresholds: Thresholds = None,
    num_classes: Optional[int] = None,
    num_labels: Optional[int] = None,
    fpr_range: tuple[float, float] = FPR_RANGE,
    average: Optional[str] = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Task wrapper for the ``*_logauc`` functions (``average`` defaults to None here, as in torchmetrics).

    >>> import torch
    >>> logauc(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]), task="binary")
    tensor(0.5000)
    """
    task, num = dispatch_task(task, num_classes, num_labels)
    if task == "binary":
        return binary_logauc(preds, target, fpr_range, thresholds, ignore_index, validate_args)
    return _multi_logauc(
        task, num, preds, target, fpr_range, average, thresholds, ignore_index, validate_args
    )
