"""Hinge loss (binary, multiclass Crammer-Singer or one-vs-all) as a running sum and a count.

As in torchmetrics, scores outside [0, 1] are first squashed (sigmoid / softmax), and ignored
samples contribute neither loss nor count (masked, not removed, so shapes stay static).
"""

from __future__ import annotations

from typing import Optional

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


def binary_hinge_statistic(
    preds: Tensor, target: Tensor, squared: bool, ignore_index: Optional[int], validate_args: bool = False
) -> tuple[Tensor, Tensor]:
    """(sum of losses, number of counted samples) of one batch."""
    scores, target, valid = format_binary(preds, target, ignore_index, validate=validate_args)
    loss = _loss(torch.where(target.bool(), scores, -scores), squared)
    if valid is not None:
        loss = torch.where(valid, loss, 0)
    return loss.sum(dim=0), _count(valid, target.shape[0], target.device)


def multiclass_hinge_statistic(
    preds: Tensor, target: Tensor, num_classes: int, squared: bool, mode: str, ignore_index: Optional[int],
    validate_args: bool = False,
) -> tuple[Tensor, Tensor]:
    """(sum of losses: scalar for crammer-singer, (C,) for one-vs-all, number of counted samples)."""
    scores, target, valid = format_multiclass(preds, target, num_classes, ignore_index, validate_args)
    onehot = target.unsqueeze(1) == torch.arange(num_classes, device=target.device)
    if mode == "crammer-singer":
        true_score = (scores * onehot).sum(dim=1)
        best_other = scores.masked_fill(onehot, float("-inf")).max(dim=1).values
        loss = _loss(true_score - best_other, squared)
    else:
        loss = _loss(torch.where(onehot, scores, -scores), squared)
    if valid is not None:
        loss = torch.where(valid if loss.ndim == 1 else valid.unsqueeze(1), loss, 0)
    return loss.sum(dim=0), _count(valid, target.shape[0], target.device)


def binary_hinge_loss(preds: Tensor, target: Tensor, squared: bool = False,
                      ignore_index: Optional[int] = None, validate_args: bool = False) -> Tensor:
    """Mean hinge loss ``max(0, 1 - margin)`` with margin ``p`` for positives and ``-p`` for negatives.

    >>> import torch
    >>> binary_hinge_loss(torch.tensor([0.25, 0.25, 0.55, 0.75, 0.75]), torch.tensor([0, 0, 1, 1, 1]))
    tensor(0.6900)
    """
    if validate_args:
        check_hinge_args(squared, ignore_index)
    total, count = binary_hinge_statistic(preds, target, squared, ignore_index, validate_args)
    return total / count


def multiclass_hinge_loss(preds: Tensor, target: Tensor, num_classes: int, squared: bool = False,
                          multiclass_mode: str = "crammer-singer", ignore_index: Optional[int] = None,
                          validate_args: bool = False) -> Tensor:
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
        preds, target, num_classes, squared, multiclass_mode, ignore_index, validate_args
    )
    return total / count


def hinge_loss(preds: Tensor, target: Tensor, task: str, num_classes: Optional[int] = None,
               squared: bool = False, multiclass_mode: str = "crammer-singer",
               ignore_index: Optional[int] = None, validate_args: bool = True) -> Tensor:
    """Task wrapper for ``binary_hinge_loss`` and ``multiclass_hinge_loss``.

    >>> import torch
    >>> hinge_loss(torch.tensor([0.25, 0.75]), torch.tensor([0, 1]), task="binary")
    tensor(0.7500)
    """
    return call_for_task(locals(), task_functions(__name__, "hinge_loss"))
