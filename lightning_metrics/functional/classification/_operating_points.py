"""Functional operating-point measures (torchmetrics names and arguments).

Each returns, per column, the best value of one rate subject to a minimum of another, and the
threshold where it is reached, read from the shared curve statistic of :mod:`._curve_functions`.
"""

from __future__ import annotations

import warnings
from typing import Optional

from torch import Tensor

from lightning_metrics.functional.classification._curve_functions import (
    Thresholds,
    curve_statistic,
    require_int,
)
from lightning_metrics.functional.classification._fixed_point import (
    Selector,
    operating_point_compute,
    precision_at_recall,
    recall_at_precision,
)
from lightning_metrics.functional.classification._fixed_point import (
    sensitivity_at_specificity as _sens_at_spec,
)
from lightning_metrics.functional.classification._fixed_point import (
    specificity_at_sensitivity as _spec_at_sens,
)
from lightning_metrics.functional.classification._scores import (
    check_task,
    check_unit_float,
)


def _operating_point(
    task: str,
    num: int,
    preds: Tensor,
    target: Tensor,
    curve: str,
    select: Selector,
    minimum_name: str,
    minimum: float,
    thresholds: Thresholds,
    ignore_index: Optional[int],
    validate_args: bool,
) -> tuple[Tensor, Tensor]:
    if validate_args:
        check_unit_float(minimum_name, minimum)
    spec, state = curve_statistic(task, num, preds, target, thresholds, ignore_index, validate_args)
    return operating_point_compute(spec, state, curve, select, minimum)


def dispatch_task(task: str, num_classes: Optional[int], num_labels: Optional[int]) -> tuple[str, int]:
    task = check_task(task)
    if task == "binary":
        return task, 1
    if task == "multiclass":
        return task, require_int("num_classes", num_classes)
    return task, require_int("num_labels", num_labels)


# ------------------------------------------------------------------ precision at fixed recall
def binary_precision_at_fixed_recall(
    preds: Tensor,
    target: Tensor,
    min_recall: float,
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> tuple[Tensor, Tensor]:
    """Highest precision with recall >= ``min_recall``, and its threshold.

    >>> import torch
    >>> preds, target = torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1])
    >>> binary_precision_at_fixed_recall(preds, target, 0.5)
    (tensor(1.), tensor(0.8000))
    """
    return _operating_point(
        "binary",
        1,
        preds,
        target,
        "pr",
        precision_at_recall,
        "min_recall",
        min_recall,
        thresholds,
        ignore_index,
        validate_args,
    )


def multiclass_precision_at_fixed_recall(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    min_recall: float,
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> tuple[Tensor, Tensor]:
    """Per class (one-vs-rest): highest precision with recall >= ``min_recall``, and its threshold.

    >>> import torch
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> multiclass_precision_at_fixed_recall(preds, torch.tensor([0, 1, 2, 0]), 3, min_recall=1.0)
    (tensor([0.6667, 1.0000, 1.0000]), tensor([0.3000, 0.5000, 0.6000]))
    """
    return _operating_point(
        "multiclass",
        num_classes,
        preds,
        target,
        "pr",
        precision_at_recall,
        "min_recall",
        min_recall,
        thresholds,
        ignore_index,
        validate_args,
    )


def multilabel_precision_at_fixed_recall(
    preds: Tensor,
    target: Tensor,
    num_labels: int,
    min_recall: float,
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> tuple[Tensor, Tensor]:
    """Per label: highest precision with recall >= ``min_recall``, and its threshold.

    >>> import torch
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]])
    >>> target = torch.tensor([[1, 0], [0, 1], [0, 0]])
    >>> multilabel_precision_at_fixed_recall(preds, target, 2, min_recall=0.5)
    (tensor([1.0000, 0.5000]), tensor([0.8000, 0.6000]))
    """
    return _operating_point(
        "multilabel",
        num_labels,
        preds,
        target,
        "pr",
        precision_at_recall,
        "min_recall",
        min_recall,
        thresholds,
        ignore_index,
        validate_args,
    )


def precision_at_fixed_recall(
    preds: Tensor,
    target: Tensor,
    task: str,
    min_recall: float,
    thresholds: Thresholds = None,
    num_classes: Optional[int] = None,
    num_labels: Optional[int] = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> tuple[Tensor, Tensor]:
    """Task wrapper for the ``*_precision_at_fixed_recall`` functions.

    >>> import torch
    >>> precision_at_fixed_recall(torch.tensor([0.2, 0.7]), torch.tensor([0, 1]), "binary",
    ... min_recall=0.5)
    (tensor(1.), tensor(0.7000))
    """
    task, num = dispatch_task(task, num_classes, num_labels)
    return _operating_point(
        task,
        num,
        preds,
        target,
        "pr",
        precision_at_recall,
        "min_recall",
        min_recall,
        thresholds,
        ignore_index,
        validate_args,
    )


# ------------------------------------------------------------------ recall at fixed precision
def binary_recall_at_fixed_precision(
    preds: Tensor,
    target: Tensor,
    min_precision: float,
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> tuple[Tensor, Tensor]:
    """Highest recall with precision >= ``min_precision``, and its threshold.

    >>> import torch
    >>> preds, target = torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1])
    >>> binary_recall_at_fixed_precision(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]), 0.6)
    (tensor(1.), tensor(0.3500))
    """
    return _operating_point(
        "binary",
        1,
        preds,
        target,
        "pr",
        recall_at_precision,
        "min_precision",
        min_precision,
        thresholds,
        ignore_index,
        validate_args,
    )


def multiclass_recall_at_fixed_precision(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    min_precision: float,
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> tuple[Tensor, Tensor]:
    """Per class (one-vs-rest): highest recall with precision >= ``min_precision``, and its threshold.

    >>> import torch
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> multiclass_recall_at_fixed_precision(preds, torch.tensor([0, 1, 2, 0]), 3, min_precision=1.0)
    (tensor([0.5000, 1.0000, 1.0000]), tensor([0.7000, 0.5000, 0.6000]))
    """
    return _operating_point(
        "multiclass",
        num_classes,
        preds,
        target,
        "pr",
        recall_at_precision,
        "min_precision",
        min_precision,
        thresholds,
        ignore_index,
        validate_args,
    )


def multilabel_recall_at_fixed_precision(
    preds: Tensor,
    target: Tensor,
    num_labels: int,
    min_precision: float,
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> tuple[Tensor, Tensor]:
    """Per label: highest recall with precision >= ``min_precision``, and its threshold.

    >>> import torch
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]])
    >>> target = torch.tensor([[1, 0], [0, 1], [0, 0]])
    >>> multilabel_recall_at_fixed_precision(preds, target, 2, min_precision=0.5)
    (tensor([1., 1.]), tensor([0.8000, 0.6000]))
    """
    return _operating_point(
        "multilabel",
        num_labels,
        preds,
        target,
        "pr",
        recall_at_precision,
        "min_precision",
        min_precision,
        thresholds,
        ignore_index,
        validate_args,
    )


def recall_at_fixed_precision(
    preds: Tensor,
    target: Tensor,
    task: str,
    min_precision: float,
    thresholds: Thresholds = None,
    num_classes: Optional[int] = None,
    num_labels: Optional[int] = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> tuple[Tensor, Tensor]:
    """Task wrapper for the ``*_recall_at_fixed_precision`` functions.

    >>> import torch
    >>> recall_at_fixed_precision(torch.tensor([0.2, 0.7]), torch.tensor([0, 1]), "binary",
    ... min_precision=0.5)
    (tensor(1.), tensor(0.7000))
    """
    task, num = dispatch_task(task, num_classes, num_labels)
    return _operating_point(
        task,
        num,
        preds,
        target,
        "pr",
        recall_at_precision,
        "min_precision",
        min_precision,
        thresholds,
        ignore_index,
        validate_args,
    )


# --------------------------------------------------------------- sensitivity at specificity
def binary_sensitivity_at_specificity(
    preds: Tensor,
    target: Tensor,
    min_specificity: float,
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> tuple[Tensor, Tensor]:
    """Highest sensitivity (TPR) with specificity >= ``min_specificity``, and its threshold.

    >>> import torch
    >>> preds, target = torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1])
    >>> binary_sensitivity_at_specificity(preds, target, 0.5)
    (tensor(1.), tensor(0.3500))
    """
    return _operating_point(
        "binary",
        1,
        preds,
        target,
        "roc",
        _sens_at_spec,
        "min_specificity",
        min_specificity,
        thresholds,
        ignore_index,
        validate_args,
    )


def multiclass_sensitivity_at_specificity(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    min_specificity: float,
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> tuple[Tensor, Tensor]:
    """Per class (one-vs-rest): highest sensitivity with specificity >= ``min_specificity``.

    >>> import torch
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> multiclass_sensitivity_at_specificity(preds, torch.tensor([0, 1, 2, 0]), 3, min_specificity=1.0)
    (tensor([0.5000, 1.0000, 1.0000]), tensor([0.7000, 0.5000, 0.6000]))
    """
    return _operating_point(
        "multiclass",
        num_classes,
        preds,
        target,
        "roc",
        _sens_at_spec,
        "min_specificity",
        min_specificity,
        thresholds,
        ignore_index,
        validate_args,
    )


def multilabel_sensitivity_at_specificity(
    preds: Tensor,
    target: Tensor,
    num_labels: int,
    min_specificity: float,
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> tuple[Tensor, Tensor]:
    """Per label: highest sensitivity with specificity >= ``min_specificity``, and its threshold.

    >>> import torch
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]])
    >>> target = torch.tensor([[1, 0], [0, 1], [0, 0]])
    >>> multilabel_sensitivity_at_specificity(preds, target, 2, min_specificity=0.5)
    (tensor([1., 1.]), tensor([0.8000, 0.6000]))
    """
    return _operating_point(
        "multilabel",
        num_labels,
        preds,
        target,
        "roc",
        _sens_at_spec,
        "min_specificity",
        min_specificity,
        thresholds,
        ignore_index,
        validate_args,
    )


def sensitivity_at_specificity(
    preds: Tensor,
    target: Tensor,
    task: str,
    min_specificity: float,
    thresholds: Thresholds = None,
    num_classes: Optional[int] = None,
    num_labels: Optional[int] = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> tuple[Tensor, Tensor]:
    """Task wrapper for the ``*_sensitivity_at_specificity`` functions.

    >>> import torch
    >>> sensitivity_at_specificity(torch.tensor([0.2, 0.7]), torch.tensor([0, 1]), "binary",
    ... min_specificity=0.5)
    (tensor(1.), tensor(0.7000))
    """
    task, num = dispatch_task(task, num_classes, num_labels)
    return _operating_point(
        task,
        num,
        preds,
        target,
        "roc",
        _sens_at_spec,
        "min_specificity",
        min_specificity,
        thresholds,
        ignore_index,
        validate_args,
    )


# --------------------------------------------------------------- specificity at sensitivity
def binary_specificity_at_sensitivity(
    preds: Tensor,
    target: Tensor,
    min_sensitivity: float,
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> tuple[Tensor, Tensor]:
    """Highest specificity with sensitivity (TPR) >= ``min_sensitivity``, and its threshold.

    >>> import torch
    >>> preds, target = torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1])
    >>> binary_specificity_at_sensitivity(preds, target, 0.5)
    (tensor(1.), tensor(0.8000))
    """
    return _operating_point(
        "binary",
        1,
        preds,
        target,
        "roc",
        _spec_at_sens,
        "min_sensitivity",
        min_sensitivity,
        thresholds,
        ignore_index,
        validate_args,
    )


def multiclass_specificity_at_sensitivity(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    min_sensitivity: float,
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> tuple[Tensor, Tensor]:
    """Per class (one-vs-rest): highest specificity with sensitivity >= ``min_sensitivity``.

    >>> import torch
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> multiclass_specificity_at_sensitivity(preds, torch.tensor([0, 1, 2, 0]), 3, min_sensitivity=1.0)
    (tensor([0.5000, 1.0000, 1.0000]), tensor([0.3000, 0.5000, 0.6000]))
    """
    return _operating_point(
        "multiclass",
        num_classes,
        preds,
        target,
        "roc",
        _spec_at_sens,
        "min_sensitivity",
        min_sensitivity,
        thresholds,
        ignore_index,
        validate_args,
    )


def multilabel_specificity_at_sensitivity(
    preds: Tensor,
    target: Tensor,
    num_labels: int,
    min_sensitivity: float,
    thresholds: Thresholds = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> tuple[Tensor, Tensor]:
    """Per label: highest specificity with sensitivity >= ``min_sensitivity``, and its threshold.

    >>> import torch
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]])
    >>> target = torch.tensor([[1, 0], [0, 1], [0, 0]])
    >>> multilabel_specificity_at_sensitivity(preds, target, 2, min_sensitivity=0.5)
    (tensor([1.0000, 0.5000]), tensor([0.8000, 0.6000]))
    """
    return _operating_point(
        "multilabel",
        num_labels,
        preds,
        target,
        "roc",
        _spec_at_sens,
        "min_sensitivity",
        min_sensitivity,
        thresholds,
        ignore_index,
        validate_args,
    )


def specificity_at_sensitivity(
    preds: Tensor,
    target: Tensor,
    task: str,
    min_sensitivity: float,
    thresholds: Thresholds = None,
    num_classes: Optional[int] = None,
    num_labels: Optional[int] = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> tuple[Tensor, Tensor]:
    """Task wrapper for the ``*_specificity_at_sensitivity`` functions.

    >>> import torch
    >>> specificity_at_sensitivity(torch.tensor([0.2, 0.7]), torch.tensor([0, 1]), "binary",
    ... min_sensitivity=0.5)
    (tensor(1.), tensor(0.7000))
    """
    task, num = dispatch_task(task, num_classes, num_labels)
    return _operating_point(
        task,
        num,
        preds,
        target,
        "roc",
        _spec_at_sens,
        "min_sensitivity",
        min_sensitivity,
        thresholds,
        ignore_index,
        validate_args,
    )


def specicity_at_sensitivity(
    preds: Tensor,
    target: Tensor,
    task: str,
    min_sensitivity: float,
    thresholds: Thresholds = None,
    num_classes: Optional[int] = None,
    num_labels: Optional[int] = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> tuple[Tensor, Tensor]:
    """torchmetrics' misspelt, deprecated name of :func:`specificity_at_sensitivity` (warns, then calls it)."""
    warnings.warn(
        "`specicity_at_sensitivity` is deprecated (as in torchmetrics 1.3); use `specificity_at_sensitivity`.",
        DeprecationWarning,
        stacklevel=2,
    )
    return specificity_at_sensitivity(
        preds, target, task, min_sensitivity, thresholds, num_classes, num_labels, ignore_index, validate_args
    )
