"""``MultitaskWrapper``: a metric (or collection) per task, fed from dicts of predictions and targets."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from copy import deepcopy
from typing import Any, Union

from torch import nn

from lightning_metrics.collection import MetricCollection
from lightning_metrics.metric import Metric
from lightning_metrics.wrappers._base import WrapperMetric, rollback_on_error

TaskMetric = Union[Metric, MetricCollection]


def _check_affix(value: str | None, name: str) -> str:
    if value is not None and not isinstance(value, str):
        raise ValueError(f"Argument `{name}` must be None or a string, got {value!r}")
    return value or ""


class MultitaskWrapper(WrapperMetric):
    """Evaluate each task of a multitask model with its own metric or ``MetricCollection``.

    ``update(task_preds, task_targets)`` takes two dicts keyed by task name; ``compute``
    returns a dict keyed by ``f"{prefix}{task}{postfix}"`` (the prefix and postfix change the
    output keys only). All tasks' metrics sync in one fused exchange.

    Args:
        task_metrics: a dict from task name to a metric or a collection.
        prefix / postfix: strings around the task names in the output.

    >>> import torch
    >>> from lightning_metrics import MetricCollection
    >>> from lightning_metrics.regression import MeanAbsoluteError, MeanSquaredError
    >>> from lightning_metrics.wrappers import MultitaskWrapper
    >>> metrics = MultitaskWrapper({
    ...     "depth": MeanAbsoluteError(),
    ...     "count": MetricCollection({"mae": MeanAbsoluteError(), "mse": MeanSquaredError()}),
    ... })
    >>> preds = {"depth": torch.tensor([1.0, 2.0]), "count": torch.tensor([3.0, 4.0])}
    >>> targets = {"depth": torch.tensor([1.5, 2.5]), "count": torch.tensor([0.0, 0.0])}
    >>> metrics.update(preds, targets)
    >>> metrics.compute()
    {'depth': tensor(0.5000), 'count': {'mae': tensor(3.5000), 'mse': tensor(12.5000)}}
    """

    is_differentiable = False

    def __init__(
        self,
        task_metrics: dict[str, TaskMetric],
        prefix: str | None = None,
        postfix: str | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(task_metrics, dict):
            raise TypeError(f"Argument `task_metrics` must be a dict from task name to metric, got {task_metrics!r}")
        for task, metric in task_metrics.items():
            if not isinstance(metric, (Metric, MetricCollection)):
                raise TypeError(
                    f"Argument `task_metrics`: task {task!r} must map to a Metric or a MetricCollection, "
                    f"got {type(metric).__name__}"
                )
        self.task_metrics = nn.ModuleDict(task_metrics)
        self._prefix = _check_affix(prefix, "prefix")
        self._postfix = _check_affix(postfix, "postfix")

    def _name(self, task: str) -> str:
        return f"{self._prefix}{task}{self._postfix}"

    def items(self, flatten: bool = True) -> Iterator[tuple[str, nn.Module]]:
        """(name, metric) pairs; with ``flatten`` a collection's metrics are listed one by one
        as ``f"{prefix}{task}_{name}{postfix}"``."""
        for task, metric in self.task_metrics.items():
            if flatten and isinstance(metric, MetricCollection):
                for name, inner in metric.items():
                    yield f"{self._prefix}{task}_{name}{self._postfix}", inner
            else:
                yield self._name(task), metric

    def keys(self, flatten: bool = True) -> Iterator[str]:
        """The names of :meth:`items`."""
        for name, _ in self.items(flatten):
            yield name

    def values(self, flatten: bool = True) -> Iterator[nn.Module]:
        """The metrics of :meth:`items`."""
        for _, metric in self.items(flatten):
            yield metric

    def _check_keys(self, task_preds: Any, task_targets: Any) -> None:
        tasks = set(self.task_metrics.keys())
        for name, value in (("task_preds", task_preds), ("task_targets", task_targets)):
            if not isinstance(value, dict) or set(value) != tasks:
                got = sorted(value) if isinstance(value, dict) else type(value).__name__
                raise ValueError(f"Argument `{name}` must be a dict with the task names {sorted(tasks)} as keys, got {got}")

    def update(self, task_preds: dict[str, Any], task_targets: dict[str, Any]) -> None:
        """Update each task's metric with its predictions and targets (all tasks or none)."""
        self._check_keys(task_preds, task_targets)
        with rollback_on_error(self._child_metrics()):
            for task, metric in self.task_metrics.items():
                metric.update(task_preds[task], task_targets[task])

    def compute(self) -> dict[str, Any]:
        """Every task's value (a tensor, or a dict for a collection)."""
        return {self._name(task): metric.compute() for task, metric in self.task_metrics.items()}

    def forward(self, task_preds: dict[str, Any], task_targets: dict[str, Any]) -> dict[str, Any]:
        """Accumulate the batch and return every task's value on it."""
        self._check_keys(task_preds, task_targets)
        with rollback_on_error(self._child_metrics()):
            out = {self._name(task): metric(task_preds[task], task_targets[task])
                   for task, metric in self.task_metrics.items()}
        self._computed = None
        self._update_count += 1
        return out

    def reset(self) -> None:
        """Reset every task's metric."""
        super().reset()
        for metric in self.task_metrics.values():
            metric.reset()

    def plot(self, val: dict[str, Any] | Sequence[dict[str, Any]] | None = None, axes: Any = None) -> list[Any]:
        """One figure per task; returns the ``(fig, ax)`` pairs.

        ``val`` is one result of :meth:`compute` (default: ``compute()`` now) or a list of them (one
        per step, drawn as each task's history); ``axes`` holds one matplotlib axis per task.
        """
        values = self.compute() if val is None else val
        if axes is not None and len(axes) != len(self.task_metrics):
            raise ValueError(f"Argument `axes` must hold one axis per task ({len(self.task_metrics)}), got {len(axes)}")
        several = isinstance(values, Sequence) and not isinstance(values, (str, Mapping))
        steps = list(values) if several else [values]
        for i, step in enumerate(steps):
            if not isinstance(step, Mapping):
                where = f" at index {i}" if several else ""
                raise TypeError(
                    f"Argument `val` must be a dict of task results (as compute() returns) or a list of them, "
                    f"got {type(step).__name__}{where}"
                )
        out = []
        for i, (task, metric) in enumerate(self.task_metrics.items()):
            key = self._name(task)
            missing = [j for j, step in enumerate(steps) if key not in step]
            if missing:
                raise ValueError(f"Argument `val` has no result for task {key!r} (entries {missing})")
            task_val = [step[key] for step in steps] if several else steps[0][key]
            out.append(metric.plot(task_val, axes[i] if axes is not None else None))
        return out

    def clone(self, prefix: str | None = None, postfix: str | None = None) -> MultitaskWrapper:
        """A deep copy with a new prefix and postfix (``None`` clears them, as in torchmetrics)."""
        copy = deepcopy(self)
        copy._computed = None  # a cached result carries the old names
        copy._prefix = _check_affix(prefix, "prefix")
        copy._postfix = _check_affix(postfix, "postfix")
        return copy
