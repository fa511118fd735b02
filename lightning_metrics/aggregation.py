"""Aggregation metrics: mean, sum, max, min, concatenation, and running windows of them.

>>> import torch
>>> from lightning_metrics.aggregation import MeanMetric
>>> metric = MeanMetric()
>>> metric.update(torch.tensor([1.0, 3.0]), weight=torch.tensor([3.0, 1.0]))
>>> metric.compute()
tensor(1.5000)
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

import torch
from torch import Tensor

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics._prepared import BatchSums, adds_batch_sums
from lightning_metrics.metric import Metric
from lightning_metrics.utilities.data import dim_zero_cat
from lightning_metrics.utilities.exceptions import MetricInputError
from lightning_metrics.utilities.prints import warn_at_caller
from lightning_metrics.wrappers.running import Running

NanStrategy = Union[str, float]
_NAN_STRATEGIES = ("error", "warn", "ignore", "disable")


class BaseAggregator(Metric):
    """Shared input handling of the aggregators: tensor conversion and the ``nan_strategy``.

    ``nan_strategy``: ``"error"`` raises, ``"warn"`` warns and drops NaNs, ``"ignore"`` drops
    them silently, ``"disable"`` skips the check, and a float replaces NaNs by that value.

    >>> class Product(BaseAggregator):
    ...     def __init__(self):
    ...         super().__init__(lambda x: x.prod(0), torch.tensor(1.0), "ignore", "product")
    ...     def update(self, value):
    ...         value, _ = self._cast_and_nan_check_input(value)
    ...         self.product = self.product * value.prod()
    >>> metric = Product()
    >>> metric.update(torch.tensor([2.0, float("nan"), 3.0]))
    >>> metric.compute()
    tensor(6.)
    """

    is_differentiable = None
    higher_is_better = None
    full_state_update: bool = False
    additive_update = True

    def __init__(
        self,
        fn: Union[str, Callable],
        default_value: Union[Tensor, list],
        nan_strategy: NanStrategy = "error",
        state_name: str = "value",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if nan_strategy not in _NAN_STRATEGIES and not isinstance(nan_strategy, float):
            raise ValueError(
                f"Argument `nan_strategy` must be a float or one of {_NAN_STRATEGIES}, got {nan_strategy!r}"
            )
        self.nan_strategy = nan_strategy
        self.state_name = state_name
        self.add_state(state_name, default=default_value, dist_reduce_fx=fn)

    def _cast_and_nan_check_input(
        self, x: Union[float, Tensor], weight: Optional[Union[float, Tensor]] = None
    ) -> tuple[Tensor, Tensor]:
        """Convert ``x`` (and ``weight``) to tensors of the metric dtype and apply ``nan_strategy``."""
        x = _as_tensor("value", x, self.dtype, self.device)
        weight = torch.ones_like(x) if weight is None else _as_tensor("weight", weight, self.dtype, self.device)
        return self._nan_checked(x, weight)  # type: ignore[return-value]

    def _nan_checked(self, x: Tensor, weight: Optional[Tensor]) -> tuple[Tensor, Optional[Tensor]]:
        """``nan_strategy`` applied to ``x`` and ``weight`` (``None``: no weight, which has no NaN), cast to
        the metric dtype."""
        if self.nan_strategy != "disable":
            nans = torch.isnan(x) if weight is None else torch.isnan(x) | torch.isnan(weight)
            if nans.any():
                if self.nan_strategy == "error":
                    raise RuntimeError(f"Argument `value`: encountered NaN values in {x}")
                if isinstance(self.nan_strategy, float):
                    x = torch.where(nans, torch.as_tensor(self.nan_strategy, dtype=x.dtype), x)
                    if weight is not None:
                        weight = torch.where(nans, torch.ones_like(weight), weight)
                else:
                    if self.nan_strategy == "warn":
                        warn_at_caller("Encountered `nan` values in tensor. Will be removed.")
                    if weight is None:
                        x = x[~nans]
                    else:
                        x, weight = torch.broadcast_tensors(x, weight)
                        x, weight = x[~nans.expand_as(x)], weight[~nans.expand_as(weight)]
        return x.to(self.dtype), None if weight is None else weight.to(self.dtype)

    def _checked_values(self, value: float | Tensor) -> Tensor:
        """``value`` as a tensor of the metric dtype, ``nan_strategy`` applied (an unweighted aggregator)."""
        return self._nan_checked(_as_tensor("value", value, self.dtype, self.device), None)[0]

    def _fold(self, value: float | Tensor, fold: Callable[[Tensor, Tensor], Tensor]) -> None:
        """Cast ``value`` and apply ``nan_strategy``; unless nothing is left, the state becomes
        ``fold(state, value)``."""
        value = self._checked_values(value)
        if value.numel():
            setattr(self, self.state_name, fold(getattr(self, self.state_name), value))

    def update(self, value: Union[float, Tensor]) -> None:
        """Overridden by each aggregator."""
        raise NotImplementedError

    def compute(self) -> Tensor:
        """The aggregated value."""
        return getattr(self, self.state_name)


def _as_tensor(name: str, value: Any, dtype: torch.dtype, device: torch.device) -> Tensor:
    if isinstance(value, Tensor):
        return value
    try:
        return torch.as_tensor(value, dtype=dtype, device=device)
    except (TypeError, ValueError, RuntimeError) as err:
        raise TypeError(f"Argument `{name}` must be a number or a tensor, got {value!r}") from err


class MaxMetric(BaseAggregator):
    """Maximum of a stream of values.

    >>> from lightning_metrics.aggregation import MaxMetric
    >>> metric = MaxMetric()
    >>> metric.update(torch.tensor([1.0, 5.0])); metric.update(3.0)
    >>> metric.compute()
    tensor(5.)
    """

    plot = _plot_methods.plot_value

    full_state_update: bool = True

    def __init__(self, nan_strategy: NanStrategy = "warn", **kwargs: Any) -> None:
        super().__init__("max", -torch.tensor(float("inf")), nan_strategy, state_name="max_value", **kwargs)

    def update(self, value: Union[float, Tensor]) -> None:
        """Fold ``value`` (any shape) into the maximum."""
        self._fold(value, lambda acc, v: torch.maximum(acc, v.max()))


class MinMetric(BaseAggregator):
    """Minimum of a stream of values.

    >>> from lightning_metrics.aggregation import MinMetric
    >>> metric = MinMetric()
    >>> metric.update(torch.tensor([4.0, 2.0])); metric.update(3.0)
    >>> metric.compute()
    tensor(2.)
    """

    plot = _plot_methods.plot_value

    full_state_update: bool = True

    def __init__(self, nan_strategy: NanStrategy = "warn", **kwargs: Any) -> None:
        super().__init__("min", torch.tensor(float("inf")), nan_strategy, state_name="min_value", **kwargs)

    def update(self, value: Union[float, Tensor]) -> None:
        """Fold ``value`` (any shape) into the minimum."""
        self._fold(value, lambda acc, v: torch.minimum(acc, v.min()))


class SumMetric(BatchSums, BaseAggregator):
    """Sum of a stream of values.

    >>> from lightning_metrics.aggregation import SumMetric
    >>> metric = SumMetric()
    >>> metric.update(torch.tensor([1.0, 2.0])); metric.update(3.0)
    >>> metric.compute()
    tensor(6.)
    """

    plot = _plot_methods.plot_value

    def __init__(self, nan_strategy: NanStrategy = "warn", **kwargs: Any) -> None:
        super().__init__("sum", torch.tensor(0.0), nan_strategy, state_name="sum_value", **kwargs)

    def _batch_sums(self, value: Union[float, Tensor]) -> dict[str, Tensor | int]:  # type: ignore[override]
        return {"sum_value": self._checked_values(value).sum()}

    @adds_batch_sums
    def update(self, value: Union[float, Tensor]) -> None:
        """Add the sum of ``value`` (any shape)."""
        self._add_sums(self._batch_sums(value))


class CatMetric(BaseAggregator):
    """Concatenation of a stream of values (flattened per update only if 0-dimensional).

    >>> from lightning_metrics.aggregation import CatMetric
    >>> metric = CatMetric()
    >>> metric.update(torch.tensor([1.0, 2.0])); metric.update(3.0)
    >>> metric.compute()
    tensor([1., 2., 3.])
    """

    def __init__(self, nan_strategy: NanStrategy = "warn", **kwargs: Any) -> None:
        super().__init__("cat", [], nan_strategy, **kwargs)

    def update(self, value: Union[float, Tensor]) -> None:
        """Append ``value``."""
        value = self._checked_values(value)
        if value.numel():
            self.value.append(value)

    def compute(self) -> Tensor:
        """All values seen, concatenated (an empty list before any update)."""
        if isinstance(self.value, list) and self.value:
            return dim_zero_cat(self.value)
        return self.value


class MeanMetric(BatchSums, BaseAggregator):
    """(Weighted) mean of a stream of values.

    >>> from lightning_metrics.aggregation import MeanMetric
    >>> metric = MeanMetric()
    >>> metric.update(1.0); metric.update(torch.tensor([2.0, 3.0]))
    >>> metric.compute()
    tensor(2.)
    """

    plot = _plot_methods.plot_value

    def __init__(self, nan_strategy: NanStrategy = "warn", **kwargs: Any) -> None:
        super().__init__("sum", torch.tensor(0.0), nan_strategy, state_name="mean_value", **kwargs)
        self.add_state("weight", default=torch.tensor(0.0), dist_reduce_fx="sum")

    def _batch_sums(  # type: ignore[override]
        self, value: Union[float, Tensor], weight: Union[float, Tensor, None] = None
    ) -> dict[str, Tensor | int]:
        if weight is None:  # weights of one: the values' sum and their count (no tensor of ones to multiply)
            value_t = self._checked_values(value)
            return {"mean_value": value_t.sum(), "weight": value_t.numel()}
        value_t = _as_tensor("value", value, self.dtype, self.device)
        weight_t = _as_tensor("weight", weight, self.dtype, self.device)
        try:
            weight_t = torch.broadcast_to(weight_t, value_t.shape)
        except RuntimeError as err:
            raise MetricInputError(
                f"Argument `weight` of shape {tuple(weight_t.shape)} does not broadcast to `value` of shape "
                f"{tuple(value_t.shape)}"
            ) from err
        value_t, weight_t = self._cast_and_nan_check_input(value_t, weight_t)
        return {"mean_value": (value_t * weight_t).sum(), "weight": weight_t.sum()}

    @adds_batch_sums
    def update(self, value: Union[float, Tensor], weight: Union[float, Tensor, None] = None) -> None:
        """Add ``value`` with ``weight`` (broadcastable to ``value``; default 1)."""
        self._add_sums(self._batch_sums(value, weight))

    def compute(self) -> Tensor:
        """Sum of weighted values over the sum of weights."""
        return self.mean_value / self.weight


class RunningMean(Running):
    """Mean over the last ``window`` updates.

    >>> from lightning_metrics.aggregation import RunningMean
    >>> metric = RunningMean(window=2)
    >>> for v in [1.0, 2.0, 6.0]:
    ...     metric.update(v)
    >>> metric.compute()
    tensor(4.)
    """

    def __init__(self, window: int = 5, nan_strategy: NanStrategy = "warn", **kwargs: Any) -> None:
        super().__init__(base_metric=MeanMetric(nan_strategy=nan_strategy, **kwargs), window=window)


class RunningSum(Running):
    """Sum over the last ``window`` updates.

    >>> from lightning_metrics.aggregation import RunningSum
    >>> metric = RunningSum(window=2)
    >>> for v in [1.0, 2.0, 6.0]:
    ...     metric.update(v)
    >>> metric.compute()
    tensor(8.)
    """

    def __init__(self, window: int = 5, nan_strategy: NanStrategy = "warn", **kwargs: Any) -> None:
        super().__init__(base_metric=SumMetric(nan_strategy=nan_strategy, **kwargs), window=window)


__all__ = [
    "BaseAggregator",
    "CatMetric",
    "MaxMetric",
    "MeanMetric",
    "MinMetric",
    "RunningMean",
    "RunningSum",
    "SumMetric",
]
