"""Modular association measures between two categorical series (torchmetrics 1.9 names and values).

The state is one ``num_classes x num_classes`` int64 contingency table indexed by the category values
(rows: ``target``, columns: ``preds``), summed across batches and processes: constant memory, exact.
Every update reads the extremes of the batch once to check that each value lies in
``[0, num_classes)`` (a value outside would land in the wrong cell). The four measures declare the
same ``statistic_spec`` for the same ``num_classes`` and NaN handling: in a ``MetricCollection`` they
share one table, one update and, within one ``compute``, the chi-squared and entropies read from it.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Literal

import torch
from torch import Tensor

from lightning_metrics._additive_score import AdditiveScore
from lightning_metrics.functional._contingency import (
    check_label_range,
    check_num_classes,
    fixed_table,
    stats_of_state,
)
from lightning_metrics.functional._contingency_measures import MEASURES
from lightning_metrics.functional.nominal.association import check_association_args, nominal_labels


def _bias_corrected_init(
    self: NominalAssociation,
    num_classes: int,
    bias_correction: bool = True,
    nan_strategy: Literal["replace", "drop"] = "replace",
    nan_replace_value: float | None = 0.0,
    **kwargs: Any,
) -> None:
    """The constructor (torchmetrics' signature) of Cramer's V and Tschuprow's T."""
    self._configure(locals())


def _uncorrected_init(
    self: NominalAssociation,
    num_classes: int,
    nan_strategy: Literal["replace", "drop"] = "replace",
    nan_replace_value: float | None = 0.0,
    **kwargs: Any,
) -> None:
    """The constructor (torchmetrics' signature) of Pearson's contingency coefficient and Theil's U."""
    self._configure(locals())


class NominalAssociation(AdditiveScore):
    """Accumulates the contingency table and reads ``MEASURES[_measure]`` from it."""

    _measure = ""

    def _build(self) -> None:
        check_num_classes(self.num_classes)
        check_association_args(self.nan_strategy, self.nan_replace_value, **self._measure_options)
        shape = (self.num_classes, self.num_classes)
        self.add_state("confmat", torch.zeros(shape, dtype=torch.int64), dist_reduce_fx="sum")

    @property
    def _measure_options(self) -> dict[str, Any]:
        """The measure's own arguments (``bias_correction``), as this metric holds them."""
        return {option: getattr(self, option) for option in MEASURES[self._measure].options}

    @property
    def statistic_spec(self) -> Hashable:
        """The table depends on ``num_classes`` and the NaN handling, not on the measure."""
        replace_value = self.nan_replace_value if self.nan_strategy == "replace" else None
        return ("nominal_table", self.num_classes, self.nan_strategy, replace_value)

    def update(self, preds: Tensor, target: Tensor) -> None:
        """Count one batch: 1-D categories or 2-D scores (``argmax``), NaN per ``nan_strategy``."""
        preds, target = nominal_labels(preds, target, self.nan_strategy, self.nan_replace_value, as_long=False)
        check_label_range(preds, target, self.num_classes)  # an infinite value is out of range and shown
        self.confmat.add_(fixed_table(preds, target, self.num_classes))

    def compute(self) -> Tensor:
        """The measure of the whole table (empty rows and columns dropped)."""
        stats = stats_of_state("contingency_stats", self.confmat)
        return MEASURES[self._measure](stats, **self._measure_options)


class CramersV(NominalAssociation):
    """Cramer's V between two categorical series, in [0, 1] (symmetric).

    >>> import torch
    >>> metric = CramersV(num_classes=3)
    >>> preds = torch.tensor([0, 1, 2, 2, 1, 0, 0, 1, 2, 2])
    >>> metric.update(preds, torch.tensor([0, 1, 2, 1, 1, 0, 0, 1, 2, 2]))
    >>> metric.compute()
    tensor(0.8478)
    """

    _measure = "cramers_v"

    __init__ = _bias_corrected_init


class TschuprowsT(NominalAssociation):
    """Tschuprow's T between two categorical series, in [0, 1] (symmetric).

    >>> import torch
    >>> metric = TschuprowsT(num_classes=3)
    >>> preds = torch.tensor([0, 1, 2, 2, 1, 0, 0, 1, 2, 2])
    >>> metric.update(preds, torch.tensor([0, 1, 2, 1, 1, 0, 0, 1, 2, 2]))
    >>> metric.compute()
    tensor(0.8478)
    """

    _measure = "tschuprows_t"

    __init__ = _bias_corrected_init


class PearsonsContingencyCoefficient(NominalAssociation):
    """Pearson's contingency coefficient between two categorical series (symmetric).

    >>> import torch
    >>> metric = PearsonsContingencyCoefficient(num_classes=3)
    >>> preds = torch.tensor([0, 1, 2, 2, 1, 0, 0, 1, 2, 2])
    >>> metric.update(preds, torch.tensor([0, 1, 2, 1, 1, 0, 0, 1, 2, 2]))
    >>> metric.compute()
    tensor(0.7809)
    """

    _measure = "pearsons_contingency_coefficient"

    __init__ = _uncorrected_init


class TheilsU(NominalAssociation):
    """Theil's uncertainty coefficient U(preds | target), in [0, 1] (asymmetric).

    >>> import torch
    >>> metric = TheilsU(num_classes=3)
    >>> preds = torch.tensor([0, 1, 2, 2, 1, 0, 0, 1, 2, 2])
    >>> metric.update(preds, torch.tensor([0, 1, 2, 1, 1, 0, 0, 1, 2, 2]))
    >>> metric.compute()
    tensor(0.7934)
    """

    _measure = "theils_u"

    __init__ = _uncorrected_init


__all__ = ["CramersV", "PearsonsContingencyCoefficient", "TheilsU", "TschuprowsT"]
