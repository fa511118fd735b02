"""Functional operating-point measures (torchmetrics names and arguments).

Each returns, per column, the best value of one rate subject to a minimum of another, and the
threshold where it is reached, read from the shared curve statistic of :mod:`._curve_functions`.
A function is torchmetrics' signature, its docstring and one line: :func:`operating_point` with
its task and the name of its minimum (a key of :data:`~._fixed_point.OPERATING_POINTS`); a task
wrapper is one :func:`~._core.call_for_task`. ``sample_weight`` weighs the curves as in
:mod:`._curve_functions`.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from torch import Tensor

from lightning_metrics.functional.classification._core import _SIZES, call_for_task
from lightning_metrics.functional.classification._curve_functions import Thresholds, curve_statistic
from lightning_metrics.functional.classification._fixed_point import OPERATING_POINTS, operating_point_compute
from lightning_metrics.functional.classification._scores import check_unit_float
from lightning_metrics.functional.classification._task_functions import task_functions
from lightning_metrics.utilities.prints import warn_at_caller


def operating_point(task: str, minimum_name: str, arguments: Mapping[str, Any]) -> tuple[Tensor, Tensor]:
    """The body of every operating-point function: ``arguments`` is its ``locals()``.

    >>> import torch
    >>> operating_point("binary", "min_recall", {"preds": torch.tensor([0.2, 0.7]), "target": torch.tensor([0, 1]),
    ...                                          "min_recall": 0.5})
    (tensor(1.), tensor(0.7000))
    """
    get = arguments.get
    minimum, validate_args = arguments[minimum_name], get("validate_args", True)
    if validate_args:
        check_unit_float(minimum_name, minimum)
    num = arguments[_SIZES[task]] if task in _SIZES else 1
    spec, state = curve_statistic(
        task, num, arguments["preds"], arguments["target"], get("thresholds"), get("ignore_index"), validate_args,
        sample_weight=get("sample_weight"),
    )
    curve, select = OPERATING_POINTS[minimum_name]
    return operating_point_compute(spec, state, curve, select, minimum)


# ------------------------------------------------------------------ precision at fixed recall
def binary_precision_at_fixed_recall(preds: Tensor, target: Tensor, min_recall: float, thresholds: Thresholds = None,
                                     ignore_index: Optional[int] = None,
                                     validate_args: bool = True,
                                     *, sample_weight: Optional[Tensor] = None) -> tuple[Tensor, Tensor]:
    """Highest precision with recall >= ``min_recall``, and its threshold.

    >>> import torch
    >>> preds, target = torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1])
    >>> binary_precision_at_fixed_recall(preds, target, 0.5)
    (tensor(1.), tensor(0.8000))
    """
    return operating_point("binary", "min_recall", locals())


def multiclass_precision_at_fixed_recall(preds: Tensor, target: Tensor, num_classes: int, min_recall: float,
                                         thresholds: Thresholds = None, ignore_index: Optional[int] = None,
                                         validate_args: bool = True,
                                         *, sample_weight: Optional[Tensor] = None) -> tuple[Tensor, Tensor]:
    """Per class (one-vs-rest): highest precision with recall >= ``min_recall``, and its threshold.

    >>> import torch
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> multiclass_precision_at_fixed_recall(preds, torch.tensor([0, 1, 2, 0]), 3, min_recall=1.0)
    (tensor([0.6667, 1.0000, 1.0000]), tensor([0.3000, 0.5000, 0.6000]))
    """
    return operating_point("multiclass", "min_recall", locals())


def multilabel_precision_at_fixed_recall(preds: Tensor, target: Tensor, num_labels: int, min_recall: float,
                                         thresholds: Thresholds = None, ignore_index: Optional[int] = None,
                                         validate_args: bool = True,
                                         *, sample_weight: Optional[Tensor] = None) -> tuple[Tensor, Tensor]:
    """Per label: highest precision with recall >= ``min_recall``, and its threshold.

    >>> import torch
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]])
    >>> target = torch.tensor([[1, 0], [0, 1], [0, 0]])
    >>> multilabel_precision_at_fixed_recall(preds, target, 2, min_recall=0.5)
    (tensor([1.0000, 0.5000]), tensor([0.8000, 0.6000]))
    """
    return operating_point("multilabel", "min_recall", locals())


def precision_at_fixed_recall(preds: Tensor, target: Tensor, task: str, min_recall: float,
                              thresholds: Thresholds = None, num_classes: Optional[int] = None,
                              num_labels: Optional[int] = None, ignore_index: Optional[int] = None,
                              validate_args: bool = True,
                              *, sample_weight: Optional[Tensor] = None) -> tuple[Tensor, Tensor]:
    """Task wrapper for the ``*_precision_at_fixed_recall`` functions.

    >>> import torch
    >>> precision_at_fixed_recall(torch.tensor([0.2, 0.7]), torch.tensor([0, 1]), "binary",
    ... min_recall=0.5)
    (tensor(1.), tensor(0.7000))
    """
    return call_for_task(locals(), task_functions(__name__, "precision_at_fixed_recall"))


# ------------------------------------------------------------------ recall at fixed precision
def binary_recall_at_fixed_precision(preds: Tensor, target: Tensor, min_precision: float,
                                     thresholds: Thresholds = None, ignore_index: Optional[int] = None,
                                     validate_args: bool = True,
                                     *, sample_weight: Optional[Tensor] = None) -> tuple[Tensor, Tensor]:
    """Highest recall with precision >= ``min_precision``, and its threshold.

    >>> import torch
    >>> binary_recall_at_fixed_precision(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]), 0.6)
    (tensor(1.), tensor(0.3500))
    """
    return operating_point("binary", "min_precision", locals())


def multiclass_recall_at_fixed_precision(preds: Tensor, target: Tensor, num_classes: int, min_precision: float,
                                         thresholds: Thresholds = None, ignore_index: Optional[int] = None,
                                         validate_args: bool = True,
                                         *, sample_weight: Optional[Tensor] = None) -> tuple[Tensor, Tensor]:
    """Per class (one-vs-rest): highest recall with precision >= ``min_precision``, and its threshold.

    >>> import torch
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> multiclass_recall_at_fixed_precision(preds, torch.tensor([0, 1, 2, 0]), 3, min_precision=1.0)
    (tensor([0.5000, 1.0000, 1.0000]), tensor([0.7000, 0.5000, 0.6000]))
    """
    return operating_point("multiclass", "min_precision", locals())


def multilabel_recall_at_fixed_precision(preds: Tensor, target: Tensor, num_labels: int, min_precision: float,
                                         thresholds: Thresholds = None, ignore_index: Optional[int] = None,
                                         validate_args: bool = True,
                                         *, sample_weight: Optional[Tensor] = None) -> tuple[Tensor, Tensor]:
    """Per label: highest recall with precision >= ``min_precision``, and its threshold.

    >>> import torch
    >>> target = torch.tensor([[1, 0], [0, 1], [0, 0]])
    >>> multilabel_recall_at_fixed_precision(torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]]), target, 2, 0.5)
    (tensor([1., 1.]), tensor([0.8000, 0.6000]))
    """
    return operating_point("multilabel", "min_precision", locals())


def recall_at_fixed_precision(preds: Tensor, target: Tensor, task: str, min_precision: float,
                              thresholds: Thresholds = None, num_classes: Optional[int] = None,
                              num_labels: Optional[int] = None, ignore_index: Optional[int] = None,
                              validate_args: bool = True,
                              *, sample_weight: Optional[Tensor] = None) -> tuple[Tensor, Tensor]:
    """Task wrapper for the ``*_recall_at_fixed_precision`` functions.

    >>> import torch
    >>> recall_at_fixed_precision(torch.tensor([0.2, 0.7]), torch.tensor([0, 1]), "binary", min_precision=0.5)
    (tensor(1.), tensor(0.7000))
    """
    return call_for_task(locals(), task_functions(__name__, "recall_at_fixed_precision"))


# --------------------------------------------------------------- sensitivity at specificity
def binary_sensitivity_at_specificity(preds: Tensor, target: Tensor, min_specificity: float,
                                      thresholds: Thresholds = None, ignore_index: Optional[int] = None,
                                      validate_args: bool = True,
                                      *, sample_weight: Optional[Tensor] = None) -> tuple[Tensor, Tensor]:
    """Highest sensitivity (TPR) with specificity >= ``min_specificity``, and its threshold.

    >>> import torch
    >>> preds, target = torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1])
    >>> binary_sensitivity_at_specificity(preds, target, 0.5)
    (tensor(1.), tensor(0.3500))
    """
    return operating_point("binary", "min_specificity", locals())


def multiclass_sensitivity_at_specificity(preds: Tensor, target: Tensor, num_classes: int, min_specificity: float,
                                          thresholds: Thresholds = None, ignore_index: Optional[int] = None,
                                          validate_args: bool = True,
                                          *, sample_weight: Optional[Tensor] = None) -> tuple[Tensor, Tensor]:
    """Per class (one-vs-rest): highest sensitivity with specificity >= ``min_specificity``.

    >>> import torch
    >>> scores = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> multiclass_sensitivity_at_specificity(scores, torch.tensor([0, 1, 2, 0]), num_classes=3, min_specificity=1.0)
    (tensor([0.5000, 1.0000, 1.0000]), tensor([0.7000, 0.5000, 0.6000]))
    """
    return operating_point("multiclass", "min_specificity", locals())


def multilabel_sensitivity_at_specificity(preds: Tensor, target: Tensor, num_labels: int, min_specificity: float,
                                          thresholds: Thresholds = None, ignore_index: Optional[int] = None,
                                          validate_args: bool = True,
                                          *, sample_weight: Optional[Tensor] = None) -> tuple[Tensor, Tensor]:
    """Per label: highest sensitivity with specificity >= ``min_specificity``, and its threshold.

    >>> import torch
    >>> scores, labels = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]]), torch.tensor([[1, 0], [0, 1], [0, 0]])
    >>> multilabel_sensitivity_at_specificity(scores, labels, 2, min_specificity=0.5)
    (tensor([1., 1.]), tensor([0.8000, 0.6000]))
    """
    return operating_point("multilabel", "min_specificity", locals())


def sensitivity_at_specificity(preds: Tensor, target: Tensor, task: str, min_specificity: float,
                               thresholds: Thresholds = None, num_classes: Optional[int] = None,
                               num_labels: Optional[int] = None, ignore_index: Optional[int] = None,
                               validate_args: bool = True,
                               *, sample_weight: Optional[Tensor] = None) -> tuple[Tensor, Tensor]:
    """Task wrapper for the ``*_sensitivity_at_specificity`` functions.

    >>> import torch
    >>> sensitivity_at_specificity(torch.tensor([0.2, 0.7]), torch.tensor([0, 1]), task="binary", min_specificity=0.5)
    (tensor(1.), tensor(0.7000))
    """
    return call_for_task(locals(), task_functions(__name__, "sensitivity_at_specificity"))


# --------------------------------------------------------------- specificity at sensitivity
def binary_specificity_at_sensitivity(preds: Tensor, target: Tensor, min_sensitivity: float,
                                      thresholds: Thresholds = None, ignore_index: Optional[int] = None,
                                      validate_args: bool = True,
                                      *, sample_weight: Optional[Tensor] = None) -> tuple[Tensor, Tensor]:
    """Highest specificity with sensitivity (TPR) >= ``min_sensitivity``, and its threshold.

    >>> import torch
    >>> binary_specificity_at_sensitivity(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]), 0.5)
    (tensor(1.), tensor(0.8000))
    """
    return operating_point("binary", "min_sensitivity", locals())


def multiclass_specificity_at_sensitivity(preds: Tensor, target: Tensor, num_classes: int, min_sensitivity: float,
                                          thresholds: Thresholds = None, ignore_index: Optional[int] = None,
                                          validate_args: bool = True,
                                          *, sample_weight: Optional[Tensor] = None) -> tuple[Tensor, Tensor]:
    """Per class (one-vs-rest): highest specificity with sensitivity >= ``min_sensitivity``.

    >>> import torch
    >>> multiclass_specificity_at_sensitivity(
    ...     torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]]),
    ...     torch.tensor([0, 1, 2, 0]), 3, min_sensitivity=1.0)
    (tensor([0.5000, 1.0000, 1.0000]), tensor([0.3000, 0.5000, 0.6000]))
    """
    return operating_point("multiclass", "min_sensitivity", locals())


def multilabel_specificity_at_sensitivity(preds: Tensor, target: Tensor, num_labels: int, min_sensitivity: float,
                                          thresholds: Thresholds = None, ignore_index: Optional[int] = None,
                                          validate_args: bool = True,
                                          *, sample_weight: Optional[Tensor] = None) -> tuple[Tensor, Tensor]:
    """Per label: highest specificity with sensitivity >= ``min_sensitivity``, and its threshold.

    >>> import torch
    >>> multilabel_specificity_at_sensitivity(torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]]),
    ...                                       torch.tensor([[1, 0], [0, 1], [0, 0]]), 2, min_sensitivity=0.5)
    (tensor([1.0000, 0.5000]), tensor([0.8000, 0.6000]))
    """
    return operating_point("multilabel", "min_sensitivity", locals())


def specificity_at_sensitivity(preds: Tensor, target: Tensor, task: str, min_sensitivity: float,
                               thresholds: Thresholds = None, num_classes: Optional[int] = None,
                               num_labels: Optional[int] = None, ignore_index: Optional[int] = None,
                               validate_args: bool = True,
                               *, sample_weight: Optional[Tensor] = None) -> tuple[Tensor, Tensor]:
    """Task wrapper for the ``*_specificity_at_sensitivity`` functions.

    >>> import torch
    >>> specificity_at_sensitivity(torch.tensor([0.2, 0.7]), torch.tensor([0, 1]), "binary", min_sensitivity=0.5)
    (tensor(1.), tensor(0.7000))
    """
    return call_for_task(locals(), task_functions(__name__, "specificity_at_sensitivity"))


def specicity_at_sensitivity(preds: Tensor, target: Tensor, task: str, min_sensitivity: float,
                             thresholds: Thresholds = None, num_classes: Optional[int] = None,
                             num_labels: Optional[int] = None, ignore_index: Optional[int] = None,
                             validate_args: bool = True,
                             *, sample_weight: Optional[Tensor] = None) -> tuple[Tensor, Tensor]:
    """torchmetrics' misspelt, deprecated name of :func:`specificity_at_sensitivity` (warns, then calls it)."""
    warn_at_caller(
        "`specicity_at_sensitivity` is deprecated (as in torchmetrics 1.3); use `specificity_at_sensitivity`.",
        DeprecationWarning,
    )
    return specificity_at_sensitivity(
        preds, target, task, min_sensitivity, thresholds, num_classes, num_labels, ignore_index, validate_args,
        sample_weight=sample_weight,
    )
