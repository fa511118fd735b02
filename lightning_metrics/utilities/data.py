"""Reductions over the leading (rank or batch) dimension of metric states, and torchmetrics'
small tensor helpers (one-hot, top-k, interpolation)."""

from __future__ import annotations

from typing import Optional, Sequence, Union

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


def to_onehot(label_tensor: Tensor, num_classes: Optional[int] = None) -> Tensor:
    """Dense labels ``(N, ...)`` to one-hot ``(N, C, ...)`` in the labels' dtype.

    >>> to_onehot(torch.tensor([1, 2, 3]), num_classes=4)
    tensor([[0, 1, 0, 0],
            [0, 0, 1, 0],
            [0, 0, 0, 1]])
    """
    if num_classes is None:
        num_classes = int(label_tensor.max()) + 1
    out = torch.zeros(label_tensor.shape[0], num_classes, *label_tensor.shape[1:], dtype=label_tensor.dtype,
                      device=label_tensor.device)
    return out.scatter_(1, label_tensor.long().unsqueeze(1), 1)


def select_topk(prob_tensor: Tensor, topk: int = 1, dim: int = 1) -> Tensor:
    """1 at the ``topk`` highest entries along ``dim``, 0 elsewhere (int32).

    >>> select_topk(torch.tensor([[1.1, 2.0, 3.0], [2.0, 1.0, 0.5]]), topk=2)
    tensor([[0, 1, 1],
            [1, 1, 0]], dtype=torch.int32)
    """
    out = torch.zeros_like(prob_tensor, dtype=torch.int32)
    if topk == 1:
        index = prob_tensor.argmax(dim=dim, keepdim=True)
    elif prob_tensor.dtype == torch.half and prob_tensor.device.type == "cpu":  # no half topk on CPU
        index = torch.argsort(prob_tensor, dim=dim, stable=True).flip(dim).narrow(dim, 0, topk)
    else:
        index = prob_tensor.topk(k=topk, dim=dim).indices
    return out.scatter_(dim, index, 1)


def to_categorical(x: Tensor, argmax_dim: int = 1) -> Tensor:
    """Probabilities to dense labels (the argmax along ``argmax_dim``).

    >>> to_categorical(torch.tensor([[0.2, 0.5], [0.9, 0.1]]))
    tensor([1, 0])
    """
    return torch.argmax(x, dim=argmax_dim)


def allclose(tensor1: Tensor, tensor2: Tensor) -> bool:
    """``torch.allclose`` after casting the second tensor to the first one's dtype.

    >>> allclose(torch.tensor([1.0]), torch.tensor([1]))
    True
    """
    return torch.allclose(tensor1, tensor2.to(tensor1.dtype))


def interp(x: Tensor, xp: Tensor, fp: Tensor) -> Tensor:
    """Linear interpolation as ``numpy.interp`` (``xp`` sorted first), extrapolating at the ends.

    >>> interp(torch.tensor([0.5, 1.5]), torch.tensor([0.0, 1.0, 2.0]), torch.tensor([0.0, 2.0, 6.0]))
    tensor([1., 4.])
    """
    order = torch.argsort(xp)
    xp, fp = xp[order], fp[order]
    slopes = (fp[1:] - fp[:-1]) / (xp[1:] - xp[:-1])
    index = (torch.searchsorted(xp, x) - 1).clamp(0, slopes.numel() - 1)
    return fp[index] + slopes[index] * (x - xp[index])
