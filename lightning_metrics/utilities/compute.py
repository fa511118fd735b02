"""Areas, interpolation and logit normalization, with torchmetrics' names (``utilities.compute``)."""

from __future__ import annotations

from typing import Optional

import torch
from torch import Tensor

from lightning_metrics.functional.classification._curve_core import interp
from lightning_metrics.functional.classification._inputs import to_probabilities


def auc(x: Tensor, y: Tensor, reorder: bool = False) -> Tensor:
    """Area under the curve ``y(x)`` by the trapezoidal rule; ``x`` increasing or decreasing
    (or sorted first with ``reorder=True``).

    >>> auc(torch.tensor([0.0, 1.0, 2.0, 3.0]), torch.tensor([0.0, 1.0, 2.0, 2.0]))
    tensor(4.)
    """
    if x.ndim > 1:
        x, y = x.squeeze(), y.squeeze()
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(
            f"Arguments `x` and `y` must be 1-d tensors of the same length, got {tuple(x.shape)} and {tuple(y.shape)}"
        )
    if x.numel() < 2:
        raise ValueError(f"Arguments `x` and `y` need at least 2 points, got {x.numel()}")
    with torch.no_grad():
        if reorder:
            x, order = torch.sort(x, stable=True)
            y = y[order]
        dx = x[1:] - x[:-1]
        direction = 1.0
        if (dx < 0).any():
            if not (dx <= 0).all():
                raise ValueError("Argument `x` is neither increasing nor decreasing; pass `reorder=True`")
            direction = -1.0
        return torch.trapz(y, x) * direction


def normalize_logits_if_needed(tensor: Tensor, normalization: Optional[str]) -> Tensor:
    """``sigmoid`` (or ``softmax`` over dim 1) when any value lies outside [0, 1]; as is otherwise.

    >>> normalize_logits_if_needed(torch.tensor([-1.0, 0.0, 1.0]), "sigmoid")
    tensor([0.2689, 0.5000, 0.7311])
    """
    if not normalization:
        return tensor
    return to_probabilities(tensor, normalization)


__all__ = ["auc", "interp", "normalize_logits_if_needed"]
