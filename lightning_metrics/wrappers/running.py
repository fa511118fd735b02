"""``Running``: a metric over the last ``window`` updates only."""

from __future__ import annotations

from typing import Any

import torch

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics.metric import Metric


class Running(Metric):
    """Compute ``base_metric`` over the last ``window`` updates (or forward calls).

    Each update's state is kept in one of ``window`` slots; ``compute`` merges the slots with
    the base metric's own reductions, so any metric with ``full_state_update=False`` works.

    >>> import torch
    >>> from lightning_metrics.aggregation import SumMetric
    >>> from lightning_metrics.wrappers import Running
    >>> metric = Running(SumMetric(), window=2)
    >>> for v in [1.0, 2.0, 3.0]:
    ...     metric.update(v)
    >>> metric.compute()
    tensor(5.)
    """

    plot = _plot_methods.plot_value

    full_state_update = False

    def __init__(self, base_metric: Metric, window: int = 5) -> None:
        super().__init__()
        if not isinstance(base_metric, Metric):
            raise ValueError(f"Argument `base_metric` must be a lightning_metrics Metric, got {base_metric!r}")
        if isinstance(window, bool) or not isinstance(window, int) or window <= 0:
            raise ValueError(f"Argument `window` must be a positive integer, got {window!r}")
        if base_metric.full_state_update is not False:
            raise ValueError(
                f"Argument `base_metric`: {type(base_metric).__name__} has full_state_update="
                f"{base_metric.full_state_update}; Running needs a metric whose states merge (False)"
            )
        self.base_metric = base_metric
        self.window = window
        self._num_vals_seen = 0
        for key, default in base_metric._defaults.items():
            for slot in range(window):
                self.add_state(f"{key}_{slot}", default=default, dist_reduce_fx=base_metric._reductions[key])

    def _store(self) -> None:
        slot = self._num_vals_seen % self.window
        for key in self.base_metric._defaults:
            setattr(self, f"{key}_{slot}", getattr(self.base_metric, key))
        # fresh states for the base (reset() would empty the slot's list states in place)
        self.base_metric._forget_updates()
        self.base_metric._reset_states_only()
        self._num_vals_seen += 1

    def update(self, *args: Any, **kwargs: Any) -> None:
        """Update the base metric on this batch and keep its state in the next slot."""
        self.base_metric.update(*args, **kwargs)
        self._store()

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The base metric's batch value; the batch state goes into the next slot."""
        value = self.base_metric(*args, **kwargs)
        self._store()
        self._computed = None
        self._update_count += 1
        return value

    def compute(self) -> Any:
        """The base metric over the states of the last ``window`` updates."""
        base = self.base_metric
        base._reset_states_only()
        for slot in range(self.window):
            base._update_count = slot + 1
            base._merge_states({key: getattr(self, f"{key}_{slot}") for key in base._defaults})
        base._update_count = self._num_vals_seen
        value = base.compute()
        base.reset()
        return value

    def reset(self) -> None:
        """Clear every slot."""
        super().reset()
        self.base_metric.reset()
        self._num_vals_seen = 0

    def state_dict(  # type: ignore[override]
        self, destination: dict | None = None, prefix: str = "", keep_vars: bool = False
    ) -> dict[str, Any]:
        """The slots and, when they are persistent, the position of the next one."""
        destination = super().state_dict(destination=destination, prefix=prefix, keep_vars=keep_vars)
        if any(self._persistent.values()):  # without it a resumed window overwrites the wrong slot
            destination[prefix + "num_vals_seen"] = torch.tensor(self._num_vals_seen)
        return destination

    def _load_from_state_dict(self, state_dict: dict, prefix: str, *args: Any, **kwargs: Any) -> None:
        seen = state_dict.pop(prefix + "num_vals_seen", None)
        if seen is not None:
            self._num_vals_seen = int(seen)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)
