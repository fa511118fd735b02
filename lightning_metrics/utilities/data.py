"""Reductions over the leading (rank or batch) dimension of metric states."""

from __future__ import annotations

from typing import Sequence, Union

import torch
from torch import Tensor


def dim_zero_cat(x: Union[Tensor, Sequence[Tensor]]) -> Tensor:
    """Concatenate a list of tensors (or return a tensor as is) along dimension zero.

    Zero-dimensional items are treated as one-element vectors.

    >>> dim_zero_cat([torch.tensor([1.0]), torch.tensor([2.0, 3.0])])
    tensor([1., 2., 3.])
    """
    if isinstance(x, Tensor):
        return x
    items = [t.reshape(1) if t.ndim == 0 else t for t in x]
    if not items:
        raise ValueError("dim_zero_cat: no samples to concatenate (the list state is empty)")
    return torch.cat(items, dim=0)


def dim_zero_sum(x: Tensor) -> Tensor:
    """Sum over dimension zero.

    >>> dim_zero_sum(torch.tensor([[1, 2], [3, 4]]))
    tensor([4, 6])
    """
    return torch.sum(x, dim=0)


def dim_zero_mean(x: Tensor) -> Tensor:
    """Mean over dimension zero.

    >>> dim_zero_mean(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([2., 3.])
    """
    return torch.mean(x, dim=0)


def dim_zero_max(x: Tensor) -> Tensor:
    """Maximum over dimension zero.

    >>> dim_zero_max(torch.tensor([[1, 5], [3, 4]]))
    tensor([3, 5])
    """
    return torch.max(x, dim=0).values


def dim_zero_min(x: Tensor) -> Tensor:
    """Minimum over dimension zero.

    >>> dim_zero_min(torch.tensor([[1, 5], [3, 4]]))
    tensor([1, 4])
    """
    return torch.min(x, dim=0).values
