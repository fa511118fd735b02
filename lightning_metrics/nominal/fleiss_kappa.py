"""Fleiss' kappa as a metric: four running sums, constant memory per update."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Literal, Optional

import torch
from torch import Tensor

from lightning_metrics._additive_score import AdditiveScore
from lightning_metrics._input_checks import ValidatedInputs
from lightning_metrics.functional.nominal.fleiss_kappa import (
    check_count_values,
    check_mode,
    fleiss_counts,
    fleiss_kappa_from,
    fleiss_statistics,
)
from lightning_metrics.utilities.data import dim_zero_cat


class FleissKappa(ValidatedInputs, AdditiveScore):
    """Fleiss' kappa: agreement between raters beyond chance (1: full agreement).

    ``ratings`` are ``(n_samples, n_categories)`` integer counts of the raters choosing each category
    (``mode="counts"``) or ``(n_samples, n_categories, n_raters)`` scores whose ``argmax`` over the
    categories is each rater's choice (``mode="probs"``). The states are the number of samples, the
    sum of squared counts, the largest number of raters of a sample and one row of per-category
    totals per update: memory does not grow with the samples (torchmetrics keeps every row).

    A batch with a negative count or a NaN score raises, naming the argument and the value, and
    leaves the state as it was; the keyword argument ``validate_args=False`` (ours: torchmetrics
    has none and takes such values) skips that check and its host read.

    >>> import torch
    >>> metric = FleissKappa()
    >>> metric.update(torch.tensor([[3, 0, 0], [0, 3, 0]]))
    >>> metric.update(torch.tensor([[1, 1, 1], [2, 1, 0]]))
    >>> metric.compute()
    tensor(0.2683)
    """

    plot_lower_bound = None  # below 0: less agreement than chance

    def __init__(self, mode: Literal["counts", "probs"] = "counts", **kwargs: Any) -> None:
        self._configure(locals())

    def _build(self) -> None:
        check_mode(self.mode)
        self.add_state("n_samples", torch.tensor(0), dist_reduce_fx="sum")
        self.add_state("sum_squares", torch.tensor(0), dist_reduce_fx="sum")
        self.add_state("max_raters", torch.tensor(0), dist_reduce_fx="max")
        self.add_state("category_totals", [], dist_reduce_fx="cat")

    @property
    def statistic_spec(self) -> Hashable:
        return ("fleiss_kappa", self.mode)

    def update(self, ratings: Tensor) -> None:
        """Add the sums of one batch of ratings."""
        counts = fleiss_counts(ratings, self.mode)
        if self.mode == "probs":
            self._check_finite(("ratings", ratings), allow_inf=True)  # argmax: infinite scores are fine
        elif self.validate_args:
            check_count_values(ratings)
        _check_categories(_categories(self.category_totals), counts.shape[1])
        stats = fleiss_statistics(counts)
        self.n_samples += stats["n_samples"]
        self.sum_squares += stats["sum_squares"]
        self.max_raters = torch.maximum(self.max_raters, stats["max_raters"])
        self.category_totals.append(stats["category_totals"].unsqueeze(0))

    def _merge_states(self, incoming: dict[str, Any]) -> None:
        """As every metric's, after checking that both sides rate the same categories (``forward``
        merges the accumulated state into the batch's: a batch of other categories must fail there too)."""
        earlier, current = _categories(incoming["category_totals"]), _categories(self.category_totals)
        if current is not None:
            _check_categories(earlier, current)
        super()._merge_states(incoming)

    def compute(self) -> Tensor:
        """Fleiss' kappa of every rating seen."""
        rows = self.category_totals
        totals = (
            dim_zero_cat(rows).sum(0)
            if isinstance(rows, Tensor) or rows
            else torch.zeros(0, device=self.device)
        )
        return fleiss_kappa_from(self.n_samples, totals, self.sum_squares, self.max_raters)


def _categories(totals: Any) -> Optional[int]:
    """The number of categories of a ``category_totals`` state (``None`` before any rating)."""
    if isinstance(totals, Tensor):
        return totals.shape[-1] if totals.numel() else None
    return totals[-1].shape[-1] if totals else None


def _check_categories(earlier: Optional[int], given: int) -> None:
    if earlier is not None and earlier != given:
        raise ValueError(
            f"Argument `ratings` must keep the {earlier} categories of the earlier updates, got {given}"
        )


__all__ = ["FleissKappa"]
