"""The binned curve statistic: a multi-threshold confusion matrix from one bucketize and one bincount.

For sorted thresholds ``t_0 <= ... <= t_{T-1}`` a score ``p`` is predicted positive at ``t_i``
exactly when ``i < k`` with ``k = #{j : t_j <= p}`` (``bucketize(p, t, right=True)``). So one histogram over
(k, column, target) and a suffix sum over ``k`` give every threshold's counts at once, instead
of one comparison pass per threshold. Ignored samples go to one extra bin that is dropped.

The result has torchmetrics' layout ``(T, [C,] 2, 2)`` indexed ``[threshold, (column,) target,
prediction]``, so tp = ``[..., 1, 1]``, fp = ``[..., 0, 1]``, fn = ``[..., 1, 0]``.
"""

from __future__ import annotations

from typing import Optional

import torch
from torch import Tensor


def bincount(index: Tensor, minlength: int, weights: Optional[Tensor] = None) -> Tensor:
    """``torch.bincount`` with a deterministic fallback on CUDA (where bincount may refuse to run);
    with ``weights`` (float64) the bins hold the sums of the weights, as float64."""
    if index.is_cuda and torch.are_deterministic_algorithms_enabled():
        values = torch.ones_like(index) if weights is None else weights.to(torch.float64)
        out = torch.zeros(minlength, dtype=values.dtype, device=index.device)
        return out.index_put_((index,), values, accumulate=True)
    if weights is None:
        return torch.bincount(index, minlength=minlength)
    return torch.bincount(index, weights=weights.to(torch.float64), minlength=minlength)


def binned_confmat(
    scores: Tensor, positive: Tensor, thresholds: Tensor, valid: Optional[Tensor] = None,
    weight: Optional[Tensor] = None,
) -> Tensor:
    """Multi-threshold confusion matrix for (N,) or (N, C) scores.

    Args:
        scores: (N,) or (N, C) scores in [0, 1].
        positive: same shape as ``scores``; nonzero where the sample is positive for that column.
        thresholds: (T,) non-decreasing thresholds.
        valid: optional mask broadcastable to ``scores``; ``False`` entries are not counted.
        weight: optional sample weights broadcastable to ``scores`` (checked by the caller): every
            entry counts its weight instead of 1 (ties and thresholds as without weights).

    Returns:
        int64 tensor (T, 2, 2) for 1d scores, (T, C, 2, 2) for 2d scores; float64 with ``weight``.

    >>> scores, positive = torch.tensor([0.2, 0.6, 0.9]), torch.tensor([0, 1, 1])
    >>> binned_confmat(scores, positive, torch.tensor([0.0, 0.5, 1.0]))[:, 1]
    tensor([[0, 2],
            [0, 2],
            [2, 0]])
    >>> binned_confmat(scores, positive, torch.tensor([0.5]), weight=torch.tensor([1.0, 0.5, 2.0]))[0]
    tensor([[1.0000, 0.0000],
            [0.0000, 2.5000]], dtype=torch.float64)
    """
    num_thresholds = thresholds.numel()
    columns = 1 if scores.ndim == 1 else scores.shape[1]
    # compare in the promoted dtype, exactly as `scores >= thresholds` would
    dtype = torch.promote_types(scores.dtype, thresholds.dtype)
    bucket = torch.bucketize(scores.to(dtype), thresholds.to(dtype), right=True)
    index = bucket * (2 * columns) + positive.to(torch.long)
    if scores.ndim == 2:
        index += 2 * torch.arange(columns, device=scores.device)
    size = (num_thresholds + 1) * 2 * columns
    if valid is not None:
        index = torch.where(valid if valid.ndim == index.ndim else valid.unsqueeze(-1), index, size)
    if weight is not None:
        weight = (weight if weight.ndim == index.ndim else weight.unsqueeze(-1)).expand(index.shape).reshape(-1)
    counts = bincount(index.reshape(-1), size + 1, weight)[:size].view(num_thresholds + 1, columns, 2)
    at_or_above = counts.flip(0).cumsum(0).flip(0)  # [k] = samples whose bucket is >= k
    predicted_positive = at_or_above[1:]  # score >= t_i  <=>  bucket >= i + 1
    confmat = torch.stack((at_or_above[0] - predicted_positive, predicted_positive), dim=-1)
    return confmat[:, 0] if scores.ndim == 1 else confmat
