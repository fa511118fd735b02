"""Hinge loss (binary, multiclass Crammer-Singer or one-vs-all) as a running sum and a count.

As in torchmetrics, scores outside [0, 1] are first squashed (sigmoid / softmax), and ignored
samples contribute neither loss nor count (masked, not removed, so shapes stay static).

With ``sample_weight`` (the rules of :mod:`lightning_metrics.utilities.sample_weight`) the loss is
the weighted mean, scikit-learn's ``hinge_loss(..., sample_weight=)``: the sum of weighted losses over
the sum of the weights (float64).
"""

from __future__ import annotations

from typing import Any, Optional

import torch
from torch import Tensor

from lightning_metrics.functional.classification._core import call_for_task
from lightning_metrics.functional.classification._scores import (
    check_ignore_index,
    check_num,
    format_binary,
    format_multiclass,
)
from lightning_metrics.functional.classification._task_functions import task_functions
from lightning_metrics.utilities.checks import check_choice
from lightning_metrics.utilities.sample_weight import as_sample_weight

MULTICLASS_MODES = ("crammer-singer", "one-vs-all")


def check_hinge_args(squared: bool, ignore_index: Optional[int]) -> None:
    if not isinstance(squared, bool):
        raise ValueError(f"Argument `squared` must be a bool, got {squared!r}")
    check_ignore_index(ignore_index)


def _loss(margin: Tensor, squared: bool) -> Tensor:
    loss = torch.clamp(1 - margin, 0)
    return loss.pow(2) if squared else loss


def _count(valid: Optional[Tensor], size: int, device: torch.device) -> Tensor:
    return valid.sum() if valid is not None else torch.tensor(size, device=device)


def _totals(loss: Tensor, valid: Optional[Tensor], weight: Optional[Tensor]) -> tuple[Tensor, Tensor]:
    """(sum of losses, number of counted samples), or with ``weight`` (N,) the weighted sum (in the
    loss's dtype) and the float64 weight sum; ignored samples count nothing."""
    if valid is not None:
        loss = torch.where(valid if loss.ndim == 1 else valid.unsqueeze(1), loss, 0)
    if weight is None:
        return loss.sum(dim=0), _count(valid, loss.shape[0], loss.device)
    if valid is not None:
        weight = torch.where(valid, weight, 0.0)
    weighted = loss * (weight if loss.ndim == 1 else weight.unsqueeze(1))
    return weighted.sum(dim=0).to(loss.dtype), weight.sum()


def _weight(sample_weight: Any, target: Tensor, validate: bool) -> Optional[Tensor]:
    weight = as_sample_weight(sample_weight, target.shape, device=target.device, validate=validate)
    return None if weight is None else weight.reshape(-1)


def binary_hinge_statistic(
    preds: Tensor, target: Tensor, squared: bool, ignore_index: Optional[int], validate_args: bool = False,
    sample_weight: Any = None,
) -> tuple[Tensor, Tensor]:
    """(sum of losses, number of counted samples) of one batch (weighted: see :func:`_totals`)."""
    weight = _weight(sample_weight, target, validate_args)
    scores, target, valid = format_binary(preds, target, ignore_index, validate=validate_args)
    loss = _loss(torch.where(target.bool(), scores, -scores), squared)
    return _totals(loss, valid, weight)


def multiclass_hinge_statistic(
    preds: Tensor, target: Tensor, num_classes: int, squared: bool, mode: str, ignore_index: Optional[int],
    validate_args: bool = False, sample_weight: Any = None,
) -> tuple[Tensor, Tensor]:
    """(sum of losses: scalar for crammer-singer, (C,) for one-vs-all, number of counted samples)."""
    weight = _weight(sample_weight, target, validate_args)
    scores, target, valid = format_multiclass(preds, target, num_classes, ignore_index, validate_args)
    onehot = target.unsqueeze(1) == torch.arange(num_classes, device=target.device)
    if mode == "crammer-singer":
        true_score = (scores * onehot).sum(dim=1)
        best_other = scores.masked_fill(onehot, float("-inf")).max(dim=1).values
        loss = _loss(true_score - best_other, squared)
    else:
        loss = _loss(torch.where(onehot, scores, -scores), squared)
    return _totals(loss, valid, weight)


def binary_hinge_loss(preds: Tensor, target: Tensor, squared: bool = False,
                      ignore_index: Optional[int] = None, validate_args: bool = False,
                      *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Mean hinge loss ``max(0, 1 - margin)`` with margin ``p`` for positives and ``-p`` for negatives.

    >>> import torch
    >>> binary_hinge_loss(torch.tensor([0.25, 0.25, 0.55, 0.75, 0.75]), torch.tensor([0, 0, 1, 1, 1]))
    tensor(0.6900)
    >>> binary_hinge_loss(torch.tensor([0.25, 0.25, 0.55, 0.75, 0.75]), torch.tensor([0, 0, 1, 1, 1]),
    ...                   sample_weight=torch.tensor([2.0, 1.0, 0.0, 1.0, 3.0]))
    tensor(0.6786)
    """
    if validate_args:
        check_hinge_args(squared, ignore_index)
    total, count = binary_hinge_statistic(preds, target, squared, ignore_index, validate_args, sample_weight)
    return (total / count).to(total.dtype)


def multiclass_hinge_loss(preds: Tensor, target: Tensor, num_classes: int, squared: bool = False,
                          multiclass_mode: str = "crammer-singer", ignore_index: Optional[int] = None,
                          validate_args: bool = False, *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Mean multiclass hinge loss: Crammer-Singer (true score minus best other) or one-vs-all per class.

    >>> import torch
    >>> preds = torch.tensor([[0.25, 0.20, 0.55], [0.55, 0.05, 0.40], [0.10, 0.30, 0.60], [0.90, 0.05, 0.05]])
    >>> multiclass_hinge_loss(preds, torch.tensor([0, 1, 2, 0]), num_classes=3)
    tensor(0.9125)
    >>> multiclass_hinge_loss(preds, torch.tensor([0, 1, 2, 0]), num_classes=3, multiclass_mode="one-vs-all")
    tensor([0.8750, 1.1250, 1.1000])
    """
    if validate_args:
        check_hinge_args(squared, ignore_index)
        check_num("num_classes", num_classes)
        check_choice("multiclass_mode", multiclass_mode, MULTICLASS_MODES)
    total, count = multiclass_hinge_statistic(
        preds, target, num_classes, squared, multiclass_mode, ignore_index, validate_args, sample_weight
    )
    return (total / count).to(total.dtype)


def hinge_loss(preds: Tensor, target: Tensor, task: str, num_classes: Optional[int] = None,
               squared: bool = False, multiclass_mode: str = "crammer-singer",
               ignore_index: Optional[int] = None, validate_args: bool = True,
               *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Task wrapper for ``binary_hinge_loss`` and ``multiclass_hinge_loss``.

    >>> import torch
    >>> hinge_loss(torch.tensor([0.25, 0.75]), torch.tensor([0, 1]), task="binary")
    tensor(0.7500)
    """
    return call_for_task(locals(), task_functions(__name__, "hinge_loss"))
