"""Similarity and divergence of row vectors: cosine similarity, KL and Jensen-Shannon divergence.

All three score each row of ``(N, d)`` inputs; the modular forms keep a running sum (``mean``/``sum``) or
the per-row scores (``none``).

``sample_weight=None`` (the rules: :mod:`lightning_metrics.utilities.sample_weight`) is one weight per row,
``(N,)`` or a scalar: ``sum`` is ``sum w s``, ``mean`` the weighted mean ``sum w s / sum w`` and ``none``
the weighted scores ``w s`` (as Keras' per-sample losses).

>>> import torch
>>> p = torch.tensor([[0.36, 0.48, 0.16]])
>>> q = torch.tensor([[1 / 3, 1 / 3, 1 / 3]])
>>> kl_divergence(p, q)
tensor(0.0853)
"""

from __future__ import annotations

import math
from typing import Any, Literal

import torch
from torch import Tensor

from lightning_metrics.functional.regression._checks import (
    check_reduction,
    check_same_shape,
)
from lightning_metrics.functional.regression.moment_measures import result_dtype
from lightning_metrics.utilities.exceptions import MetricInputError
from lightning_metrics.utilities.sample_weight import as_sample_weight

REDUCTIONS = ("mean", "sum", "none", None)


def weighted_rows(scores: Tensor, sample_weight: Any, validate: bool = True) -> tuple[Tensor, int | Tensor]:
    """The row scores times their weights (one per row; checked with ``validate``) and the total weight;
    unchanged scores and the row count without weights."""
    if sample_weight is None:
        return scores, scores.shape[0]
    weight = as_sample_weight(sample_weight, scores.shape[:1], device=scores.device, validate=validate)
    return scores * weight, weight.sum()


def reduce_rows(scores: Tensor, total: int | Tensor, reduction: str | None) -> Tensor:
    """Apply ``reduction`` to per-row scores (``mean`` divides by ``total``)."""
    if reduction == "sum":
        return scores.sum()
    if reduction == "mean":
        return scores.sum() / total
    return scores


def _check_2d(a: Tensor, b: Tensor, names: tuple[str, str]) -> None:
    check_same_shape(a, b, names=names)
    if a.ndim != 2:
        raise MetricInputError(
            f"Expected 2D `{names[0]}`/`{names[1]}` of shape (N, d), got {names[0]}.shape={tuple(a.shape)}"
        )


def cosine_similarity_rows(preds: Tensor, target: Tensor) -> Tensor:
    """Cosine similarity of each row pair, in the inputs' dtype when float32 or float64 (as torchmetrics;
    a cosine has no cancellation to guard against), else in float64."""
    _check_2d(preds, target, ("preds", "target"))
    dtype = torch.promote_types(preds.dtype, target.dtype)
    dtype = dtype if dtype in (torch.float32, torch.float64) else torch.float64
    p, t = preds.to(dtype), target.to(dtype)
    # row sums as products with ones: faster than reductions over a short last dimension
    ones = torch.ones(p.shape[-1], dtype=dtype, device=p.device)
    return (p * t) @ ones / ((p * p) @ ones * ((t * t) @ ones)).sqrt()


def cosine_similarity(
    preds: Tensor, target: Tensor, reduction: str | None = "sum", *, sample_weight: Any = None
) -> Tensor:
    """Cosine similarity between rows of ``preds`` and ``target`` (float32, as torchmetrics).

    >>> import torch
    >>> cosine_similarity(torch.tensor([[1.0, 2], [3, 4]]), torch.tensor([[1.0, 2], [-3, -4]]), reduction="none")
    tensor([ 1., -1.])
    """
    check_reduction(reduction, REDUCTIONS)
    scores, total = weighted_rows(cosine_similarity_rows(preds, target), sample_weight)
    return reduce_rows(scores, total, reduction).to(torch.float32)


def kl_divergence_rows(p: Tensor, q: Tensor, log_prob: bool) -> Tensor:
    """``KL(p || q)`` of each row in float64; probabilities are renormalised to sum to one."""
    _check_2d(p, q, ("p", "q"))
    p64, q64 = p.to(torch.float64), q.to(torch.float64)
    if log_prob:
        return (p64.exp() * (p64 - q64)).sum(dim=-1)
    # row sums as products with ones (faster than a reduction over a short last dimension); the rows are
    # normalised afterwards: sum p' log(p'/q') = (sum p log(p/q)) / s_p + log(s_q / s_p) for p' = p / s_p,
    # q' = q / s_q. log(p/q) as log1p((p - q) / q): float64 keeps the digits that cancel between the terms
    # of nearly equal distributions (torchmetrics' float32 loses them: 10% off at a KL of 4e-9)
    ones = torch.ones(p64.shape[-1], dtype=torch.float64, device=p64.device)
    sum_p, sum_q = p64 @ ones, q64 @ ones
    # 0 log(0 / q) = 0, with finite gradients there too (no inf or NaN in a branch that ``where`` drops)
    zero = p64 == 0
    ratio = torch.where(zero, 0.0, (p64 - q64) / torch.where(zero, 1.0, q64))
    return (p64 * torch.log1p(ratio)) @ ones / sum_p + (sum_q / sum_p).log()


def js_divergence_rows(p: Tensor, q: Tensor, log_prob: bool) -> Tensor:
    """Jensen-Shannon divergence of each row in float64."""
    _check_2d(p, q, ("p", "q"))
    p64, q64 = p.to(torch.float64), q.to(torch.float64)
    if log_prob:
        mix = torch.logsumexp(torch.stack([p64, q64]), dim=0) - math.log(2.0)
    else:
        p64 = p64 / p64.sum(dim=-1, keepdim=True)
        q64 = q64 / q64.sum(dim=-1, keepdim=True)
        mix = (p64 + q64) / 2
    return 0.5 * kl_divergence_rows(p64, mix, log_prob) + 0.5 * kl_divergence_rows(q64, mix, log_prob)


def kl_divergence(
    p: Tensor,
    q: Tensor,
    log_prob: bool = False,
    reduction: Literal["mean", "sum", "none"] | None = "mean",
    *, sample_weight: Any = None,
) -> Tensor:
    """Kullback-Leibler divergence ``KL(p || q)`` between rows (``log_prob``: inputs are log-probabilities).

    >>> import torch
    >>> kl_divergence(torch.tensor([[0.5, 0.5]]), torch.tensor([[0.25, 0.75]]), reduction="sum")
    tensor(0.1438)
    """
    check_reduction(reduction, REDUCTIONS)
    scores, total = weighted_rows(kl_divergence_rows(p, q, log_prob), sample_weight)
    return reduce_rows(scores, total, reduction).to(result_dtype(p, q))


def jensen_shannon_divergence(
    p: Tensor,
    q: Tensor,
    log_prob: bool = False,
    reduction: Literal["mean", "sum", "none"] | None = "mean",
    *, sample_weight: Any = None,
) -> Tensor:
    """Jensen-Shannon divergence between rows (natural log, at most ``log 2``).

    >>> import torch
    >>> p = torch.tensor([[0.36, 0.48, 0.16]])
    >>> q = torch.tensor([[1 / 3, 1 / 3, 1 / 3]])
    >>> jensen_shannon_divergence(p, q)
    tensor(0.0225)
    """
    check_reduction(reduction, REDUCTIONS)
    scores, total = weighted_rows(js_divergence_rows(p, q, log_prob), sample_weight)
    return reduce_rows(scores, total, reduction).to(result_dtype(p, q))


__all__ = ["cosine_similarity", "jensen_shannon_divergence", "kl_divergence"]
