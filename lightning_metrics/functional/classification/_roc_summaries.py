"""Functional ROC summaries: equal error rate (EER) and LogAUC (torchmetrics names and arguments).

Both read the ROC curves of the shared curve statistic through :func:`._curve_functions.curve_function`.
"""

from __future__ import annotations

from typing import Optional

from torch import Tensor

from lightning_metrics.functional.classification._core import call_for_task
from lightning_metrics.functional.classification._curve_functions import Thresholds, curve_function
from lightning_metrics.functional.classification._task_functions import task_functions

FPR_RANGE = (0.001, 0.1)


# ------------------------------------------------------------------------------------- EER
def binary_eer(preds: Tensor, target: Tensor, thresholds: Thresholds = None, ignore_index: Optional[int] = None,
               validate_args: bool = True, *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Equal error rate: the error where false positive and false negative rates meet.

    >>> import torch
    >>> binary_eer(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    tensor(0.5000)
    """
    return curve_function("binary", "eer", locals())


def multiclass_eer(preds: Tensor, target: Tensor, num_classes: int, thresholds: Thresholds = None,
                   average: Optional[str] = None, ignore_index: Optional[int] = None,
                   validate_args: bool = True, *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Equal error rate per class, or of the ``micro`` / ``macro`` averaged ROC curve.

    >>> import torch
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> multiclass_eer(preds, torch.tensor([0, 1, 2, 0]), num_classes=3)
    tensor([0.5000, 0.0000, 0.0000])
    """
    return curve_function("multiclass", "eer", locals())


def multilabel_eer(preds: Tensor, target: Tensor, num_labels: int, thresholds: Thresholds = None,
                   ignore_index: Optional[int] = None, validate_args: bool = True,
                   *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Equal error rate of every label.

    >>> import torch
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]])
    >>> multilabel_eer(preds, torch.tensor([[1, 0], [0, 1], [0, 0]]), num_labels=2)
    tensor([0.0000, 0.7500])
    """
    return curve_function("multilabel", "eer", locals())


def eer(preds: Tensor, target: Tensor, task: str, thresholds: Thresholds = None, num_classes: Optional[int] = None,
        num_labels: Optional[int] = None, average: Optional[str] = None, ignore_index: Optional[int] = None,
        validate_args: bool = True, *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Task wrapper for the ``*_eer`` functions.

    >>> import torch
    >>> eer(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]), task="binary")
    tensor(0.5000)
    """
    return call_for_task(locals(), task_functions(__name__, "eer"))


# ---------------------------------------------------------------------------------- LogAUC
def binary_logauc(preds: Tensor, target: Tensor, fpr_range: tuple[float, float] = FPR_RANGE,
                  thresholds: Thresholds = None, ignore_index: Optional[int] = None,
                  validate_args: bool = True, *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Area under the ROC curve on a log10 FPR axis inside ``fpr_range``, scaled to [0, 1].

    >>> import torch
    >>> binary_logauc(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    tensor(0.5000)
    """
    return curve_function("binary", "logauc", locals())


def multiclass_logauc(preds: Tensor, target: Tensor, num_classes: int, fpr_range: tuple[float, float] = FPR_RANGE,
                      average: Optional[str] = "macro", thresholds: Thresholds = None,
                      ignore_index: Optional[int] = None, validate_args: bool = True,
                      *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """LogAUC of every class (one-vs-rest), averaged with ``macro`` or ``none``.

    >>> import torch
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> multiclass_logauc(preds, torch.tensor([0, 1, 2, 0]), num_classes=3, average=None)
    tensor([0.5000, 1.0000, 1.0000])
    """
    return curve_function("multiclass", "logauc", locals())


def multilabel_logauc(preds: Tensor, target: Tensor, num_labels: int, fpr_range: tuple[float, float] = FPR_RANGE,
                      average: Optional[str] = "macro", thresholds: Thresholds = None,
                      ignore_index: Optional[int] = None, validate_args: bool = True,
                      *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """LogAUC of every label, averaged with ``macro`` or ``none``.

    >>> import torch
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]])
    >>> multilabel_logauc(preds, torch.tensor([[1, 0], [0, 1], [0, 0]]), num_labels=2)
    tensor(0.5000)
    """
    return curve_function("multilabel", "logauc", locals())


def logauc(preds: Tensor, target: Tensor, task: str, thresholds: Thresholds = None, num_classes: Optional[int] = None,
           num_labels: Optional[int] = None, fpr_range: tuple[float, float] = FPR_RANGE,
           average: Optional[str] = None, ignore_index: Optional[int] = None, validate_args: bool = True,
           *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Task wrapper for the ``*_logauc`` functions (``average`` defaults to None here, as in torchmetrics).

    >>> import torch
    >>> logauc(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]), task="binary")
    tensor(0.5000)
    """
    return call_for_task(locals(), task_functions(__name__, "logauc"))
