"""Fleiss' kappa: agreement between many raters who each put every sample in one category.

The score needs four sums over the samples, so it streams in constant memory per update: the number
of samples, the ratings per category, the sum of squared per-sample category counts and the largest
number of raters of a sample (:func:`fleiss_statistics`, :func:`fleiss_kappa_from`).
"""

from __future__ import annotations

from typing import Any, Literal

import torch
from torch import Tensor

from lightning_metrics.utilities.checks import check_choice

MODES = ("counts", "probs")


def check_mode(mode: Any) -> None:
    check_choice("mode", mode, MODES)


def fleiss_counts(ratings: Any, mode: str) -> Tensor:
    """``(n_samples, n_categories)`` int64 counts of the raters choosing each category.

    ``mode="counts"``: ``ratings`` already are those counts (integers); ``mode="probs"``: ``ratings``
    are ``(n_samples, n_categories, n_raters)`` scores and each rater chooses its ``argmax``.
    """
    if not isinstance(ratings, Tensor):
        raise TypeError(f"Argument `ratings` must be a torch.Tensor, got {type(ratings).__name__}")
    if mode == "probs":
        if ratings.ndim != 3 or not ratings.is_floating_point():
            raise ValueError(
                "Argument `ratings` must be a floating point tensor of shape "
                f"(n_samples, n_categories, n_raters) when `mode`='probs', got dtype {ratings.dtype} "
                f"and shape {tuple(ratings.shape)}"
            )
        choice = ratings.argmax(dim=1)
        counts = torch.zeros(ratings.shape[0], ratings.shape[1], dtype=torch.int64, device=ratings.device)
        return counts.scatter_add_(1, choice, torch.ones_like(choice))
    if ratings.ndim != 2 or ratings.is_floating_point() or ratings.is_complex():
        raise ValueError(
            "Argument `ratings` must be an integer tensor of shape (n_samples, n_categories) "
            f"when `mode`='counts', got dtype {ratings.dtype} and shape {tuple(ratings.shape)}"
        )
    return ratings.long()


def check_count_values(ratings: Tensor) -> None:
    """Counts of raters are non-negative (one host read), or a ``ValueError`` naming the first other.

    >>> check_count_values(torch.tensor([[2, -1, 1], [1, 1, 0]]))
    Traceback (most recent call last):
    ...
    ValueError: Argument `ratings` must hold non-negative counts of raters when `mode`='counts', got -1 at index (0, 1)
    """
    if ratings.numel() and bool(ratings.min() < 0):
        where = tuple((ratings < 0).nonzero()[0].tolist())
        raise ValueError(
            "Argument `ratings` must hold non-negative counts of raters when `mode`='counts', "
            f"got {ratings[where].item()} at index {where}"
        )


def fleiss_statistics(counts: Tensor) -> dict[str, Tensor]:
    """The sums the score needs, for one batch of counts (all int64)."""
    per_sample = counts.sum(1)
    widest = (
        per_sample.amax() if per_sample.numel() else torch.zeros((), dtype=torch.int64, device=counts.device)
    )
    return {
        "n_samples": torch.tensor(counts.shape[0], dtype=torch.int64, device=counts.device),
        "category_totals": counts.sum(0),
        "sum_squares": (counts**2).sum(),
        "max_raters": widest,
    }


def fleiss_kappa_from(
    n_samples: Tensor, category_totals: Tensor, sum_squares: Tensor, max_raters: Tensor
) -> Tensor:
    """Fleiss' kappa from the sums (float32), with torchmetrics' ``1e-5`` in the denominator."""
    n, raters = n_samples.double(), max_raters.double()
    category_share = category_totals.double() / (n * raters)
    agreement = (sum_squares.double() / n - raters) / (raters * (raters - 1))
    chance = (category_share**2).sum()
    return ((agreement - chance) / (1 - chance + 1e-5)).float()


def fleiss_kappa(ratings: Tensor, mode: Literal["counts", "probs"] = "counts") -> Tensor:
    """Fleiss' kappa of ``ratings``: 1 for full agreement, about 0 for agreement by chance.

    >>> import torch
    >>> ratings = torch.tensor([[3, 0, 0], [0, 3, 0], [1, 1, 1], [2, 1, 0]])  # 4 samples, 3 raters
    >>> fleiss_kappa(ratings)
    tensor(0.2683)
    >>> probs = torch.tensor([[[0.9, 0.8], [0.1, 0.2]], [[0.3, 0.6], [0.7, 0.4]]])  # 2 samples, 2 raters
    >>> fleiss_kappa(probs, mode="probs")
    tensor(-0.3333)
    """
    check_mode(mode)
    stats = fleiss_statistics(fleiss_counts(ratings, mode))
    return fleiss_kappa_from(**stats)


__all__ = ["fleiss_kappa"]
