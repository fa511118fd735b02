"""``MinMaxMetric``: a scalar metric plus the smallest and largest value it has taken."""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics.metric import Metric
from lightning_metrics.wrappers._base import WrapperMetric, check_metric


class MinMaxMetric(WrapperMetric):
    """Track the minimum and maximum of a scalar metric over the values it has produced.

    Each ``compute`` (and ``forward``, with the batch value) compares the value with the
    extremes so far. ``min_val`` and ``max_val`` are buffers: they follow device moves, and
    like every metric state they are saved in ``state_dict`` only after ``persistent(True)``
    (so module checkpoints match torchmetrics', whose extremes are plain attributes); then
    ``load_state_dict`` restores them (torchmetrics loses them, torchmetrics #3323). As in
    torchmetrics, ``reset`` resets the wrapped metric but keeps the extremes, so they span
    epochs. Unlike torchmetrics, ``forward`` keeps accumulating the wrapped metric (there,
    the wrapped metric holds only the last batch after ``forward``).

    Args:
        base_metric: the wrapped metric; its value must be a scalar.
        kwargs: the usual metric keyword arguments.

    >>> import torch
    >>> from lightning_metrics.aggregation import MeanMetric
    >>> from lightning_metrics.wrappers import MinMaxMetric
    >>> metric = MinMaxMetric(MeanMetric())
    >>> metric.update(torch.tensor([1.0, 3.0]))
    >>> metric.compute()
    {'raw': tensor(2.), 'max': tensor(2.), 'min': tensor(2.)}
    >>> metric.reset(); metric.update(torch.tensor([5.0]))
    >>> metric.compute()
    {'raw': tensor(5.), 'max': tensor(5.), 'min': tensor(2.)}
    >>> metric.state_dict()
    OrderedDict()
    >>> metric.persistent(True)
    >>> sorted(metric.state_dict())
    ['_base_metric.mean_value', '_base_metric.weight', 'max_val', 'min_val']
    """

    plot = _plot_methods.plot_value

    full_state_update = True
    min_val: Tensor
    max_val: Tensor

    def __init__(self, base_metric: Metric, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        check_metric("base_metric", base_metric)
        self._base_metric = base_metric
        self.register_buffer("min_val", torch.tensor(float("inf")), persistent=False)
        self.register_buffer("max_val", torch.tensor(float("-inf")), persistent=False)

    @property
    def higher_is_better(self) -> Any:  # type: ignore[override]
        """The wrapped metric's ``higher_is_better``."""
        return self._base_metric.higher_is_better

    def update(self, *args: Any, **kwargs: Any) -> None:
        """Update the wrapped metric."""
        self._base_metric.update(*args, **kwargs)

    def compute(self) -> dict[str, Tensor]:
        """The wrapped metric's value (``raw``) and the extremes including it."""
        return self._track(self._base_metric.compute())

    def forward(self, *args: Any, **kwargs: Any) -> dict[str, Tensor]:
        """Accumulate the batch; return its value (``raw``) and the extremes including it."""
        value = self._base_metric(*args, **kwargs)  # first: a rejected batch must not be counted
        self._computed = None
        self._update_count += 1
        return self._track(value)

    def _track(self, value: float | Tensor) -> dict[str, Tensor]:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = torch.tensor(float(value), device=self.min_val.device)
        if not isinstance(value, Tensor) or value.numel() != 1:
            raise RuntimeError(
                f"MinMaxMetric: the value of {type(self._base_metric).__name__} must be a float or a scalar "
                f"tensor, got {value!r}"
            )
        value = value.detach().reshape(())
        # compare as torchmetrics does: a NaN value never replaces an extreme
        if self.max_val.to(value.device) < value:
            self.max_val = value.clone().to(self.max_val.device)
        if self.min_val.to(value.device) > value:
            self.min_val = value.clone().to(self.min_val.device)
        return {"raw": value, "max": self.max_val.to(value.device), "min": self.min_val.to(value.device)}

    def persistent(self, mode: bool = False) -> None:
        """Choose whether the extremes and the wrapped metric's states are saved in ``state_dict``."""
        super().persistent(mode)
        for name in ("min_val", "max_val"):
            if mode:
                self._non_persistent_buffers_set.discard(name)
            else:
                self._non_persistent_buffers_set.add(name)

    def reset(self) -> None:
        """Reset the wrapped metric; the extremes are kept."""
        super().reset()
        self._base_metric.reset()

    def _load_from_state_dict(self, state_dict: dict, prefix: str, *args: Any, **kwargs: Any) -> None:
        self._computed = None  # a cached value would hide the loaded extremes
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)
