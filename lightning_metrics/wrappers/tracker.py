"""``MetricTracker``: one copy of a metric (or collection) per step, and the best step."""

from __future__ import annotations

from copy import deepcopy
from typing import Any, Union

import torch
from torch import Tensor, nn

from lightning_metrics.collection import MetricCollection
from lightning_metrics.metric import Metric
from lightning_metrics.utilities.prints import warn_at_caller
from lightning_metrics.wrappers._base import fused_sync
from lightning_metrics.wrappers.classwise import ClasswiseWrapper

Tracked = Union[Metric, MetricCollection]


def _direction_of(name: str, metric: Any) -> list[bool]:
    better = getattr(metric, "higher_is_better", None)
    if better is None:
        raise AttributeError(
            f"The metric {name!r} has no `higher_is_better`; pass the argument `maximize` explicitly."
        )
    num_classes = getattr(getattr(metric, "metric", None), "num_classes", None)
    if isinstance(metric, ClasswiseWrapper) and isinstance(num_classes, int):
        return [better] * num_classes  # one result per class
    return [better]


class MetricTracker(nn.ModuleList):
    """Keep a fresh copy of a metric or collection per step (e.g. per epoch) and find the best.

    Call :meth:`increment` at the start of each step; ``update``/``forward``/``compute``/
    ``reset`` act on the current step's copy. :meth:`compute_all` computes every step (all
    copies sync in ONE fused exchange) and :meth:`best_metric` picks the best step, using
    ``maximize`` or else each metric's ``higher_is_better``. As in torchmetrics the base
    metric is the module at position 0, so ``tracker[-1]`` is the current step and
    ``len(tracker) == tracker.n_steps + 1``.

    Args:
        metric: the metric or ``MetricCollection`` to track.
        maximize: a bool, a list of bools (one per collection entry), or ``None`` to use
            ``higher_is_better``.

    >>> import torch
    >>> from lightning_metrics.regression import MeanAbsoluteError
    >>> from lightning_metrics.wrappers import MetricTracker
    >>> tracker = MetricTracker(MeanAbsoluteError())
    >>> for epoch_error in [3.0, 1.0, 2.0]:
    ...     tracker.increment()
    ...     tracker.update(torch.tensor([epoch_error]), torch.tensor([0.0]))
    >>> tracker.compute_all()
    tensor([3., 1., 2.])
    >>> tracker.best_metric(return_step=True)
    (1.0, 1)
    """

    # TorchScript must not compile these; ``forward`` is unused (no class annotation for
    # ``maximize`` either: TorchScript cannot read ``bool | list[bool]``)
    __jit_unused_properties__ = ["n_steps"]

    def __init__(self, metric: Tracked, maximize: bool | list[bool] | None = None) -> None:
        super().__init__()
        if not isinstance(metric, (Metric, MetricCollection)):
            raise TypeError(f"Argument `metric` must be a lightning_metrics Metric or MetricCollection, got {metric!r}")
        self._base_metric = metric  # registered as a submodule: position 0, moved with the tracker
        if maximize is None:
            if isinstance(metric, Metric):
                self.maximize = _direction_of(type(metric).__name__, metric)[0]
            else:
                self.maximize = [d for name, m in metric.items() for d in _direction_of(name, m)]
        else:
            if not isinstance(maximize, (bool, list)):
                raise ValueError(f"Argument `maximize` must be a bool or a list of bools, got {maximize!r}")
            if isinstance(maximize, list) and not all(isinstance(m, bool) for m in maximize):
                raise ValueError(f"Argument `maximize` is a list but not all of bools, got {maximize!r}")
            if isinstance(maximize, list) and isinstance(metric, MetricCollection) and len(maximize) != len(metric):
                raise ValueError(
                    f"Argument `maximize` must have one entry per metric of the collection ({len(metric)}), "
                    f"got {len(maximize)}"
                )
            if isinstance(metric, Metric) and not isinstance(maximize, bool):
                raise ValueError(f"Argument `maximize` must be a single bool for a single metric, got {maximize!r}")
            self.maximize = maximize
        self._increment_called = False

    @property
    def n_steps(self) -> int:
        """How many times :meth:`increment` was called."""
        return len(self) - 1

    def increment(self) -> None:
        """Start a new step with a fresh copy of the base metric."""
        self._increment_called = True
        self.append(deepcopy(self._base_metric))

    def _current(self, method: str) -> Tracked:
        if not self._increment_called:
            raise ValueError(f"`{method}` cannot be called before `.increment()` has been called.")
        return self[-1]

    @torch.jit.unused
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The current step's ``forward``."""
        return self._current("forward")(*args, **kwargs)

    def update(self, *args: Any, **kwargs: Any) -> None:
        """Update the current step."""
        self._current("update").update(*args, **kwargs)

    def compute(self) -> Any:
        """Compute the current step."""
        return self._current("compute").compute()

    def _steps(self) -> list[Tracked]:
        return [m for i, m in enumerate(self) if i > 0]

    def compute_all(self) -> Any:
        """Every step's value, stacked: a tensor, or a dict of tensors for a collection.

        Values that cannot be stacked come back as the list of per-step results.
        """
        steps = self._steps() if self._increment_called else None
        if not steps:
            raise ValueError("`compute_all` cannot be called before `.increment()` has been called.")
        metrics = [m for step in steps for m in step.modules() if isinstance(m, Metric)]
        with fused_sync(metrics):
            results = [step.compute() for step in steps]
        try:
            if isinstance(results[0], dict):
                return {k: torch.stack([r[k] for r in results], dim=0) for k in results[0]}
            if isinstance(results[0], list):
                return torch.stack([torch.stack(r, dim=0) for r in results], dim=0)
            return torch.stack(results, dim=0)
        except TypeError:  # not tensors: hand back the per-step results
            return results

    def reset(self) -> None:
        """Reset the current step."""
        self[-1].reset()

    def reset_all(self) -> None:
        """Reset every step (and the base metric)."""
        for metric in self:
            metric.reset()

    def plot(self, val: Any = None, ax: Any = None) -> Any:
        """Draw every step's value (default: :meth:`compute_all`), one line per result; ``(fig, ax)``.

        Needs matplotlib.

        >>> import torch
        >>> from lightning_metrics.regression import MeanAbsoluteError
        >>> tracker = MetricTracker(MeanAbsoluteError())
        >>> for error in [3.0, 1.0, 2.0]:
        ...     tracker.increment()
        ...     tracker.update(torch.tensor([error]), torch.tensor([0.0]))
        >>> fig, ax = tracker.plot()
        >>> [float(y) for y in ax.get_lines()[0].get_ydata()]
        [3.0, 1.0, 2.0]
        """
        from lightning_metrics import plotting

        values = self.compute_all() if val is None else val
        if isinstance(values, Tensor) and values.ndim > 1:  # a vector per step: one line per entry
            values = list(values)
        return plotting.plot_scalars(values, ax=ax, name=type(self).__name__)

    def best_metric(self, return_step: bool = False) -> Any:
        """The best value over the steps (and, with ``return_step``, the step it came from).

        A single metric gives a float (``(value, step)``); a collection gives dicts keyed by
        result name. Where no best is defined (e.g. a non-scalar value) the entry is ``None``,
        with a warning.
        """
        res = self.compute_all()
        if isinstance(res, list):
            warn_at_caller(
                "Encountered nested structure. The results of this nested structure cannot be stacked, so"
                " `best_metric` returns None.", UserWarning,
            )
            return (None, None) if return_step else None
        if isinstance(self._base_metric, Metric) and not isinstance(self._base_metric, ClasswiseWrapper):
            try:
                value, step = _best(res, bool(self.maximize))
            except (ValueError, RuntimeError) as err:
                warn_at_caller(
                    f"Encountered the following error when trying to get the best metric: {err}; the metric's value may"
                    " not be orderable. Returning None.",
                    UserWarning,
                )
                return (None, None) if return_step else None
            return (value, step) if return_step else value
        maximize = self.maximize if isinstance(self.maximize, list) else [self.maximize] * len(res)
        values: dict[str, float | None] = {}
        steps: dict[str, int | None] = {}
        for i, (key, stacked) in enumerate(res.items()):
            try:
                values[key], steps[key] = _best(stacked, maximize[i])
            except (ValueError, RuntimeError, IndexError) as err:
                warn_at_caller(
                    f"Encountered the following error when trying to get the best metric for metric {key}: {err}."
                    " Returning None for it.",
                    UserWarning,
                )
                values[key], steps[key] = None, None
        return (values, steps) if return_step else values


def _best(stacked: Tensor, maximize: bool) -> tuple[float, int]:
    value, step = (torch.max if maximize else torch.min)(stacked, 0)
    return value.item(), step.item()
