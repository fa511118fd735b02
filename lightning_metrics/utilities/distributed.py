"""torchmetrics' reduction helpers and uneven all-gather (``utilities.distributed``)."""

from __future__ import annotations

from typing import Optional

import torch
from torch import Tensor

from lightning_metrics.distributed import gather_all_tensors
from lightning_metrics.utilities.checks import check_choice


def reduce(x: Tensor, reduction: Optional[str]) -> Tensor:
    """``"elementwise_mean"``, ``"sum"`` or ``"none"``/``None`` of a tensor.

    >>> reduce(torch.tensor([1.0, 2.0, 6.0]), "elementwise_mean")
    tensor(3.)
    """
    check_choice("reduction", reduction, ("elementwise_mean", "sum", "none", None))
    if reduction == "elementwise_mean":
        return torch.mean(x)
    if reduction == "sum":
        return torch.sum(x)
    return x


def class_reduce(num: Tensor, denom: Tensor, weights: Tensor, class_reduction: Optional[str] = "none") -> Tensor:
    """``num / denom`` per class (0 where undefined), then ``"micro"``, ``"macro"``, ``"weighted"``
    (by ``weights``) or ``"none"``/``None``.

    >>> class_reduce(torch.tensor([1.0, 3.0]), torch.tensor([2.0, 4.0]), torch.tensor([1, 3]), "weighted")
    tensor(0.6875)
    """
    check_choice("class_reduction", class_reduction, ("micro", "macro", "weighted", "none", None))
    fraction = torch.sum(num) / torch.sum(denom) if class_reduction == "micro" else num / denom
    fraction = torch.nan_to_num(fraction, nan=0.0)
    if class_reduction == "macro":
        return torch.mean(fraction)
    if class_reduction == "weighted":
        return torch.sum(fraction * (weights.float() / torch.sum(weights)))
    return fraction


__all__ = ["class_reduce", "gather_all_tensors", "reduce"]
