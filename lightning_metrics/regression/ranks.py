"""Modular rank correlations (Spearman, Kendall): they keep every observation in ``cat`` states.

>>> import torch
>>> metric = SpearmanCorrCoef()
>>> metric.update(torch.tensor([2.5, 0.0, 2, 8]), torch.tensor([3, -0.5, 2, 7]))
>>> metric.compute()
tensor(1.0000)
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any, Literal

from torch import Tensor

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics.functional.regression._checks import check_num_outputs_arg
from lightning_metrics.functional.regression.ranks import (
    check_correlation_columns,
    check_kendall_args,
    kendall_finalize,
    kendall_from_columns,
    kendall_tau_dtype,
    refuse_sample_weight,
    spearman_from_columns,
)
from lightning_metrics.metric import Metric
from lightning_metrics.utilities.data import dim_zero_cat
from lightning_metrics.utilities.prints import warn_at_caller


class _PairedColumns(Metric):
    """Keeps ``preds`` and ``target`` as ``(N, num_outputs)`` columns (``cat`` across batches and ranks)."""

    plot = _plot_methods.plot_value

    full_state_update = False
    additive_update = True
    _floating_only = True
    _warns_about_memory = False  # torchmetrics warns for Spearman (not Kendall) at construction

    def __init__(self, num_outputs: int = 1, **kwargs: Any) -> None:
        self._configure(locals())

    def _build(self) -> None:
        check_num_outputs_arg(self.num_outputs)
        if self._warns_about_memory:
            warn_at_caller(
                f"Metric `SpearmanCorrcoef` will save all targets and predictions in the buffer. For large datasets,"
                f" this may lead to large memory footprint ({type(self).__name__} keeps every sample to rank them).",
                UserWarning,
            )
        self.add_state("preds", [], dist_reduce_fx="cat")
        self.add_state("target", [], dist_reduce_fx="cat")

    @property
    def statistic_spec(self) -> Hashable | None:
        """Spearman and Kendall keep the same columns; the dtype check differs, so it is part of the spec."""
        return ("regression_paired_columns", self.num_outputs, self._floating_only)

    def update(self, preds: Tensor, target: Tensor, *, sample_weight: Any = None) -> None:
        """Append the batch as columns (``sample_weight``: not supported, a clear error; see
        :mod:`lightning_metrics.functional.regression.ranks`)."""
        refuse_sample_weight(sample_weight, type(self).__name__)
        check_correlation_columns(preds, target, self.num_outputs, floating=self._floating_only)
        self.preds.append(_as_rows(preds))
        self.target.append(_as_rows(target))

    def _columns(self) -> tuple[Tensor, Tensor]:
        return dim_zero_cat(self.preds), dim_zero_cat(self.target)


def _as_rows(values: Tensor) -> Tensor:
    """``(N, columns)``; explicit sizes, since a reshape of an empty batch cannot infer one."""
    if values.ndim == 0:
        return values.reshape(1, 1)
    return values.reshape(values.shape[0], math.prod(values.shape[1:]))


class SpearmanCorrCoef(_PairedColumns):
    """Spearman's rank correlation, per output with ``num_outputs > 1``.

    >>> import torch
    >>> metric = SpearmanCorrCoef(num_outputs=2)
    >>> metric.update(torch.tensor([[1.0, 2], [2, 1], [3, 3]]), torch.tensor([[1.0, 1], [3, 2], [2, 3]]))
    >>> metric.compute()
    tensor([0.5000, 0.5000])
    """

    is_differentiable = False
    higher_is_better = True
    plot_lower_bound = -1.0
    plot_upper_bound = 1.0
    _warns_about_memory = True

    def compute(self) -> Tensor:
        """Spearman's rho over everything seen (ranks are global)."""
        return spearman_from_columns(*self._columns()).to(self.dtype)


class KendallRankCorrCoef(_PairedColumns):
    """Kendall's tau (``variant`` a, b or c); with ``t_test`` also the asymptotic p-value.

    >>> import torch
    >>> metric = KendallRankCorrCoef(t_test=True, alternative="greater")
    >>> metric.update(torch.tensor([2.5, 0.0, 2.0, 8.0]), torch.tensor([3.0, -0.5, 2.0, 1.0]))
    >>> metric.compute()
    (tensor(0.3333), tensor(0.2484))
    """

    is_differentiable = False
    higher_is_better = None
    full_state_update = True  # torchmetrics' setting: forward recomputes the batch from its own update
    plot_lower_bound = 0.0
    plot_upper_bound = 1.0
    _floating_only = False

    def __init__(
        self,
        variant: Literal["a", "b", "c"] = "b",
        t_test: bool = False,
        alternative: Literal["two-sided", "less", "greater"] | None = "two-sided",
        num_outputs: int = 1,
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _build(self) -> None:
        check_kendall_args(self.variant, self.t_test, self.alternative)
        super()._build()
        self.alternative = self.alternative if self.t_test else None

    def compute(self) -> Tensor | tuple[Tensor, Tensor]:
        """Kendall's tau (and p-value) over everything seen."""
        preds, target = self._columns()
        tau, p_value = kendall_from_columns(preds, target, self.variant, self.alternative)
        return kendall_finalize(tau, p_value, kendall_tau_dtype(self.variant, preds, target))


__all__ = ["KendallRankCorrCoef", "SpearmanCorrCoef"]
