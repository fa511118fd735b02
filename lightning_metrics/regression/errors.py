"""Modular error metrics that accumulate float64 sums: MAE, MSLE, log-cosh, Minkowski, MAPE, SMAPE, WMAPE,
Tweedie deviance, critical success index and CRPS.

Each ``update`` validates the batch and adds its float64 sums (``dist_reduce_fx="sum"``); results are in
the metric's dtype (float32 by default), as torchmetrics returns them.

``update(..., sample_weight=None)`` (MAE, MSLE, log-cosh, Minkowski, MAPE, SMAPE, WMAPE, Tweedie deviance;
the rules: :mod:`lightning_metrics.utilities.sample_weight`, the meaning per measure:
:mod:`lightning_metrics.functional.regression.errors`) multiplies each term by its sample's weight; the
observation count becomes the total weight, a float64 state from the first weighted batch until ``reset``.

>>> import torch
>>> metric = MeanAbsoluteError()
>>> metric.update(torch.tensor([2.5, 5.0, 4.0, 8.0]), torch.tensor([3.0, 5.0, 2.5, 7.0]))
>>> metric.compute()
tensor(0.7500)
>>> metric.update(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 4.0]), sample_weight=torch.tensor([3.0, 0.0]))
>>> metric.compute(), metric.count
(tensor(0.4286), tensor(7., dtype=torch.float64))
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics._input_checks import ValidatedInputs
from lightning_metrics._prepared import BatchSums, adds_batch_sums
from lightning_metrics.functional.regression import errors as F
from lightning_metrics.functional.regression._checks import check_num_outputs_arg
from lightning_metrics.metric import Metric
from lightning_metrics.utilities.data import dim_zero_cat
from lightning_metrics.utilities.exceptions import MetricInputError


def _zeros(*shape: int) -> Tensor:
    return torch.zeros(shape, dtype=torch.float64)


class _FloatSums(BatchSums, ValidatedInputs, Metric):
    """Float64 sums that add up across batches and ranks: a differentiable error, lower is better, >= 0.

    A subclass states its batch's sums once (:meth:`~lightning_metrics._prepared.BatchSums._batch_sums`).
    ``validate_args=False`` (a keyword argument) skips the value check of ``sample_weight`` and its host read.
    """

    plot = _plot_methods.plot_value

    is_differentiable = True
    higher_is_better = False
    full_state_update = False
    additive_update = True
    plot_lower_bound = 0.0


class _SumMetric(_FloatSums):
    """A float64 ``total`` (per output) and an observation count ``count``, both summed across ranks."""

    total: Tensor
    count: Tensor

    def __init__(self, **kwargs: Any) -> None:
        self._configure(locals())

    def _build(self) -> None:
        self._add_sum_states(1)

    def _sample_weight_states(self) -> tuple[str, ...]:
        """The observation count holds the total weight once a weighted batch came."""
        return ("count",)

    def _add_sums(self, sums: dict[str, Tensor | int]) -> None:
        count = sums["count"]
        if isinstance(count, Tensor) and count.is_floating_point():  # a weighted batch: weighted counts
            self._use_sample_weights()
        super()._add_sums(sums)

    def _add_sum_states(self, num_outputs: int) -> None:
        """The states: ``total`` (one per output when ``num_outputs > 1``) and ``count``."""
        self.add_state("total", _zeros(num_outputs) if num_outputs > 1 else _zeros(), dist_reduce_fx="sum")
        self.add_state("count", torch.tensor(0, dtype=torch.int64), dist_reduce_fx="sum")

    def _sums(self, preds: Tensor, target: Tensor, sample_weight: Any = None) -> tuple[Tensor, Tensor | int]:
        """The batch's float64 total (per output) and its observation count (total weight), checked."""
        raise NotImplementedError

    def _batch_sums(self, *args: Any, **kwargs: Any) -> dict[str, Tensor | int]:
        total, count = self._sums(*args, **kwargs)
        state = self.total
        if total.shape != state.shape:  # per-output sums of one output (log-cosh)
            total = total.reshape(state.shape)
        return {"total": total.to(state.device), "count": count}

    @adds_batch_sums
    def update(self, preds: Tensor, target: Tensor, *, sample_weight: Any = None) -> None:
        """Add the batch's sums (each term times its sample's weight with ``sample_weight``)."""
        self._add_sums(self._batch_sums(preds, target, sample_weight))

    def compute(self) -> Tensor:
        """The accumulated mean."""
        return (self.total / self.count).to(self.dtype)


class _PerOutputSums(_SumMetric):
    """A ``_SumMetric`` with one ``total`` per output column (``num_outputs``)."""

    def __init__(self, num_outputs: int = 1, **kwargs: Any) -> None:
        self._configure(locals())

    def _build(self) -> None:
        check_num_outputs_arg(self.num_outputs)
        self._add_sum_states(self.num_outputs)


class MeanAbsoluteError(_PerOutputSums):
    """Mean absolute error, per output with ``num_outputs > 1``.

    >>> import torch
    >>> metric = MeanAbsoluteError(num_outputs=2)
    >>> metric.update(torch.tensor([[1.0, 2], [3, 4]]), torch.tensor([[1.0, 4], [3, 1]]))
    >>> metric.compute()
    tensor([0.0000, 2.5000])
    """

    def _sums(self, preds: Tensor, target: Tensor, sample_weight: Any = None) -> tuple[Tensor, Tensor | int]:
        return F.mean_absolute_error_sums(preds, target, self.num_outputs, sample_weight, self.validate_args)


class MeanSquaredLogError(_SumMetric):
    """Mean squared logarithmic error; negative inputs are rejected.

    >>> import torch
    >>> metric = MeanSquaredLogError()
    >>> metric.update(torch.tensor([0.0, 1, 2, 3]), torch.tensor([0.0, 1, 2, 2]))
    >>> metric.compute()
    tensor(0.0207)
    """

    def _sums(self, preds: Tensor, target: Tensor, sample_weight: Any = None) -> tuple[Tensor, Tensor | int]:
        return F.mean_squared_log_error_sums(preds, target, sample_weight, self.validate_args)


class LogCoshError(_PerOutputSums):
    """Mean log-cosh error, per output with ``num_outputs > 1``.

    >>> import torch
    >>> metric = LogCoshError()
    >>> metric.update(torch.tensor([3.0, 5.0, 2.5, 7.0]), torch.tensor([2.5, 5.0, 4.0, 8.0]))
    >>> metric.compute()
    tensor(0.3523)
    """

    def _sums(self, preds: Tensor, target: Tensor, sample_weight: Any = None) -> tuple[Tensor, Tensor | int]:
        return F.log_cosh_error_sums(preds, target, self.num_outputs, sample_weight, self.validate_args)


class MinkowskiDistance(_FloatSums):
    """Minkowski distance ``(sum |preds - targets|^p)^(1/p)`` over everything seen.

    >>> import torch
    >>> metric = MinkowskiDistance(p=3)
    >>> metric.update(torch.tensor([1.0, 2.8, 3.5, 4.5]), torch.tensor([6.1, 2.11, 3.1, 5.6]))
    >>> metric.compute()
    tensor(5.1220)
    """

    minkowski_dist_sum: Tensor

    def __init__(self, p: float, **kwargs: Any) -> None:
        self._configure(locals())

    def _build(self) -> None:
        F.check_minkowski_p(self.p)
        self.add_state("minkowski_dist_sum", _zeros(), dist_reduce_fx="sum")

    def _batch_sums(  # type: ignore[override]
        self, preds: Tensor, targets: Tensor, sample_weight: Any = None
    ) -> dict[str, Tensor | int]:
        total = F.minkowski_distance_sum(preds, targets, self.p, sample_weight, self.validate_args)
        return {"minkowski_dist_sum": total}

    @adds_batch_sums
    def update(self, preds: Tensor, targets: Tensor, *, sample_weight: Any = None) -> None:
        """Add ``sum |preds - targets|^p`` of the batch (``sum w |preds - targets|^p`` with ``sample_weight``)."""
        self._add_sums(self._batch_sums(preds, targets, sample_weight))

    def compute(self) -> Tensor:
        """The p-th root of the accumulated sum."""
        return (self.minkowski_dist_sum ** (1.0 / self.p)).to(self.dtype)


class MeanAbsolutePercentageError(_SumMetric):
    """Mean absolute percentage error (a fraction).

    >>> import torch
    >>> metric = MeanAbsolutePercentageError()
    >>> metric.update(torch.tensor([0.9, 15, 1.2e6]), torch.tensor([1, 10, 1e6]))
    >>> metric.compute()
    tensor(0.2667)
    """

    def _sums(self, preds: Tensor, target: Tensor, sample_weight: Any = None) -> tuple[Tensor, Tensor | int]:
        return F.mean_absolute_percentage_error_sums(preds, target, sample_weight, self.validate_args)


class SymmetricMeanAbsolutePercentageError(_SumMetric):
    """Symmetric mean absolute percentage error, in ``[0, 2]``.

    >>> import torch
    >>> metric = SymmetricMeanAbsolutePercentageError()
    >>> metric.update(torch.tensor([0.9, 15, 1.2e6]), torch.tensor([1, 10, 1e6]))
    >>> metric.compute()
    tensor(0.2290)
    """

    plot_upper_bound = 2.0

    def _sums(self, preds: Tensor, target: Tensor, sample_weight: Any = None) -> tuple[Tensor, Tensor | int]:
        return F.symmetric_mean_absolute_percentage_error_sums(preds, target, sample_weight, self.validate_args)


class WeightedMeanAbsolutePercentageError(_FloatSums):
    """Weighted MAPE ``sum |preds - target| / sum |target|`` (``sample_weight`` multiplies both terms of a
    sample: ``sum w |preds - target| / sum w |target|``).

    >>> import torch
    >>> metric = WeightedMeanAbsolutePercentageError()
    >>> metric.update(torch.tensor([1.0, 2, 4]), torch.tensor([2.0, 2, 4]))
    >>> metric.compute()
    tensor(0.1250)
    """

    sum_abs_error: Tensor
    sum_scale: Tensor

    def __init__(self, **kwargs: Any) -> None:
        self._configure(locals())

    def _build(self) -> None:
        self.add_state("sum_abs_error", _zeros(), dist_reduce_fx="sum")
        self.add_state("sum_scale", _zeros(), dist_reduce_fx="sum")

    def _batch_sums(  # type: ignore[override]
        self, preds: Tensor, target: Tensor, sample_weight: Any = None
    ) -> dict[str, Tensor | int]:
        abs_error, scale = F.weighted_mean_absolute_percentage_error_sums(
            preds, target, sample_weight, self.validate_args
        )
        return {"sum_abs_error": abs_error, "sum_scale": scale}

    @adds_batch_sums
    def update(self, preds: Tensor, target: Tensor, *, sample_weight: Any = None) -> None:
        """Add the batch's absolute errors and absolute targets (times the sample weights, if any)."""
        self._add_sums(self._batch_sums(preds, target, sample_weight))

    def compute(self) -> Tensor:
        """WMAPE over everything seen."""
        return (self.sum_abs_error / self.sum_scale.clamp(min=F.EPSILON)).to(self.dtype)


class TweedieDevianceScore(_SumMetric):
    """Mean Tweedie deviance for ``power`` (0: normal, 1: Poisson, 2: Gamma, ...).

    >>> import torch
    >>> metric = TweedieDevianceScore(power=2)
    >>> metric.update(torch.tensor([4.0, 3.0, 2.0, 1.0]), torch.tensor([1.0, 2.0, 3.0, 4.0]))
    >>> metric.compute()
    tensor(1.2083)
    """

    higher_is_better = None

    def __init__(self, power: float = 0.0, **kwargs: Any) -> None:
        self._configure(locals())

    def _build(self) -> None:
        F.check_tweedie_power(self.power)
        super()._build()

    def _sums(  # type: ignore[override]
        self, preds: Tensor, targets: Tensor, sample_weight: Any = None
    ) -> tuple[Tensor, Tensor | int]:
        return F.tweedie_deviance_sums(preds, targets, self.power, sample_weight, self.validate_args)

    @adds_batch_sums
    def update(self, preds: Tensor, targets: Tensor, *, sample_weight: Any = None) -> None:  # torchmetrics' names
        """Add the batch's unit deviances (times the sample weights, if any)."""
        self._add_sums(self._batch_sums(preds, targets, sample_weight))


class CriticalSuccessIndex(Metric):
    """Critical success index ``hits / (hits + misses + false alarms)`` after thresholding.

    With ``keep_sequence_dim`` the per-index counts of each batch are kept and concatenated, as in
    torchmetrics.

    >>> import torch
    >>> metric = CriticalSuccessIndex(0.5)
    >>> metric.update(torch.tensor([0.2, 0.7, 0.9, 0.1]), torch.tensor([0.6, 0.8, 0.3, 0.2]))
    >>> metric.compute()
    tensor(0.3333)
    """

    is_differentiable = False
    higher_is_better = True
    full_state_update = False

    def __init__(self, threshold: float, keep_sequence_dim: int | None = None, **kwargs: Any) -> None:
        self._configure(locals())

    def _build(self) -> None:
        keep_sequence_dim = self.keep_sequence_dim
        if keep_sequence_dim is not None and (
            isinstance(keep_sequence_dim, bool)
            or not isinstance(keep_sequence_dim, int)
            or keep_sequence_dim < 0
        ):
            raise ValueError(
                f"Argument `keep_sequence_dim` must be a non-negative int or None, got {keep_sequence_dim!r}"
            )
        self.threshold = float(self.threshold)
        for name in ("hits", "misses", "false_alarms"):
            if keep_sequence_dim is None:
                self.add_state(name, torch.tensor(0, dtype=torch.int64), dist_reduce_fx="sum")
            else:
                self.add_state(f"{name}_list", [], dist_reduce_fx="cat")

    @property
    def additive_update(self) -> bool:  # type: ignore[override]
        """Per-sample counts, unless the counts of each batch are kept along a dim other than 0."""
        return self.keep_sequence_dim in (None, 0)

    def update(self, preds: Tensor, target: Tensor) -> None:
        """Add (or, per sequence index, append) the batch's hits, misses and false alarms."""
        counts = F.critical_success_index_counts(preds, target, self.threshold, self.keep_sequence_dim)
        for name, value in zip(("hits", "misses", "false_alarms"), counts):
            if self.keep_sequence_dim is None:
                setattr(self, name, getattr(self, name) + value)
            else:
                getattr(self, f"{name}_list").append(value)

    def compute(self) -> Tensor:
        """CSI over everything seen."""
        if self.keep_sequence_dim is None:
            counts = (self.hits, self.misses, self.false_alarms)
        else:
            counts = tuple(
                dim_zero_cat(getattr(self, f"{n}_list")) for n in ("hits", "misses", "false_alarms")
            )
        return F.critical_success_index_compute(*counts)


class ContinuousRankedProbabilityScore(_SumMetric):
    """Continuous ranked probability score of ensemble forecasts ``preds`` of shape ``(N, members)``.

    >>> import torch
    >>> metric = ContinuousRankedProbabilityScore()
    >>> metric.update(torch.tensor([[0.0, 1.0], [2.0, 4.0]]), torch.tensor([0.5, 2.0]))
    >>> metric.compute()
    tensor(0.3750)
    """

    is_differentiable = False

    def _sums(self, preds: Tensor, target: Tensor, sample_weight: Any = None) -> tuple[Tensor, int]:
        if sample_weight is not None:
            raise MetricInputError(
                "Argument `sample_weight` is not supported by ContinuousRankedProbabilityScore (not implemented yet)"
            )
        return F.crps_sum(preds, target)


__all__ = [
    "ContinuousRankedProbabilityScore",
    "CriticalSuccessIndex",
    "LogCoshError",
    "MeanAbsoluteError",
    "MeanAbsolutePercentageError",
    "MeanSquaredLogError",
    "MinkowskiDistance",
    "SymmetricMeanAbsolutePercentageError",
    "TweedieDevianceScore",
    "WeightedMeanAbsolutePercentageError",
]
