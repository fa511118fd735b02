"""Modular row similarity and divergences: cosine similarity, KL and Jensen-Shannon divergence.

With ``reduction`` ``"mean"``/``"sum"`` only a float64 running sum and a row count are kept; with
``"none"``/``None`` the per-row scores are kept (``cat``).

``update(..., sample_weight=None)``: one weight per row (see
:mod:`lightning_metrics.functional.regression.divergence`): the sum adds ``w s``, the row count becomes the
total weight (float64 from the first weighted batch until ``reset``), ``none`` keeps ``w s``.

>>> import torch
>>> metric = KLDivergence()
>>> metric.update(torch.tensor([[0.36, 0.48, 0.16]]), torch.tensor([[1 / 3, 1 / 3, 1 / 3]]))
>>> metric.compute()
tensor(0.0853)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import torch
from torch import Tensor

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics._input_checks import ValidatedInputs
from lightning_metrics.functional.regression._checks import check_reduction
from lightning_metrics.functional.regression.divergence import (
    REDUCTIONS,
    cosine_similarity_rows,
    js_divergence_rows,
    kl_divergence_rows,
    reduce_rows,
    weighted_rows,
)
from lightning_metrics.metric import Metric
from lightning_metrics.utilities.data import dim_zero_cat


class _RowScores(ValidatedInputs, Metric):
    """Accumulates per-row scores: a sum and a count, or (``reduction`` none) every score.

    ``validate_args=False`` (a keyword argument) skips the value check of ``sample_weight`` and its host read.
    """

    plot = _plot_methods.plot_value

    is_differentiable = True
    full_state_update = False
    additive_update = True
    _score_rows: Callable[..., Tensor]

    reduction: str | None

    def _build(self) -> None:
        """The states: a float64 sum of the scores (``mean``/``sum``) or every score, and the row count."""
        check_reduction(self.reduction, REDUCTIONS)
        if self.reduction in ("mean", "sum"):
            self.add_state("measures", torch.tensor(0.0, dtype=torch.float64), dist_reduce_fx="sum")
        else:
            self.add_state("measures", [], dist_reduce_fx="cat")
        self.add_state("total", torch.tensor(0, dtype=torch.int64), dist_reduce_fx="sum")
        self.add_state("saw_float64", torch.tensor(0, dtype=torch.int64), dist_reduce_fx="max")

    def _sample_weight_states(self) -> tuple[str, ...]:
        """The row count holds the total weight once a weighted batch came."""
        return ("total",)

    def _accumulate(self, scores: Tensor, double_input: bool, sample_weight: Any = None) -> None:
        scores, total = weighted_rows(scores, sample_weight, self.validate_args)
        if sample_weight is not None:
            self._use_sample_weights()
        if self.reduction in ("mean", "sum"):
            self.measures = self.measures + scores.sum(dtype=torch.float64)
        else:
            self.measures.append(scores)
        self.total = self.total + total
        if double_input:
            self.saw_float64 = self.saw_float64.clamp(min=1)

    def _reduced(self) -> Tensor:
        scores = self.measures if self.reduction in ("mean", "sum") else dim_zero_cat(self.measures)
        return reduce_rows(scores, self.total, self.reduction)


class CosineSimilarity(_RowScores):
    """Cosine similarity between rows of ``(N, d)`` inputs, reduced by ``sum`` (default), ``mean`` or ``none``.

    >>> import torch
    >>> metric = CosineSimilarity(reduction="mean")
    >>> metric.update(torch.tensor([[1.0, 2, 3, 4], [1, 2, 3, 4]]), torch.tensor([[1.0, 2, 3, 4], [-1, -2, -3, -4]]))
    >>> metric.compute()
    tensor(0.)
    """

    higher_is_better = True
    plot_lower_bound = 0.0
    plot_upper_bound = 1.0

    def __init__(self, reduction: Literal["mean", "sum", "none"] | None = "sum", **kwargs: Any) -> None:
        self._configure(locals())

    def update(self, preds: Tensor, target: Tensor, *, sample_weight: Any = None) -> None:
        """Score the batch's rows (weighted by ``sample_weight``, one weight per row)."""
        self._accumulate(cosine_similarity_rows(preds, target), False, sample_weight)

    def compute(self) -> Tensor:
        """Reduced similarity (float32, as torchmetrics)."""
        return self._reduced().to(torch.float32)


class _Divergence(_RowScores):
    higher_is_better = False
    plot_lower_bound = 0.0

    def __init__(
        self,
        log_prob: bool = False,
        reduction: Literal["mean", "sum", "none"] | None = "mean",
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _build(self) -> None:
        if not isinstance(self.log_prob, bool):
            raise TypeError(f"Argument `log_prob` must be a bool, got {self.log_prob!r}")
        super()._build()

    def _rows(self, p: Tensor, q: Tensor) -> Tensor:
        raise NotImplementedError

    def update(self, p: Tensor, q: Tensor, *, sample_weight: Any = None) -> None:
        """Score the batch's rows (weighted by ``sample_weight``, one weight per row)."""
        self._accumulate(self._rows(p, q), p.dtype == torch.float64 or q.dtype == torch.float64, sample_weight)

    def compute(self) -> Tensor:
        """Reduced divergence (float64 if any input was float64, as torchmetrics)."""
        return self._reduced().to(torch.float64 if bool(self.saw_float64) else self.dtype)


class KLDivergence(_Divergence):
    """Kullback-Leibler divergence ``KL(p || q)`` between rows (``log_prob``: log-probability inputs).

    >>> import torch
    >>> metric = KLDivergence(reduction="sum")
    >>> metric.update(torch.tensor([[0.5, 0.5]]), torch.tensor([[0.25, 0.75]]))
    >>> metric.compute()
    tensor(0.1438)
    """

    def _rows(self, p: Tensor, q: Tensor) -> Tensor:
        return kl_divergence_rows(p, q, self.log_prob)


class JensenShannonDivergence(_Divergence):
    """Jensen-Shannon divergence between rows (natural log).

    >>> import torch
    >>> metric = JensenShannonDivergence()
    >>> metric.update(torch.tensor([[0.36, 0.48, 0.16]]), torch.tensor([[1 / 3, 1 / 3, 1 / 3]]))
    >>> metric.compute()
    tensor(0.0225)
    """

    plot_upper_bound = 0.6931471805599453  # log(2)

    def _rows(self, p: Tensor, q: Tensor) -> Tensor:
        return js_divergence_rows(p, q, self.log_prob)


__all__ = ["CosineSimilarity", "JensenShannonDivergence", "KLDivergence"]
