"""What the wrappers share: a base class, all-or-nothing updates of child metrics, one fused sync.

A wrapper keeps its child metrics as submodules (``nn.ModuleList``/``nn.ModuleDict``
attributes). The core's :meth:`~lightning_metrics.Metric.sync` syncs a metric together with
every metric nested in it in ONE exchange, and a child that is already synced skips its own
sync in ``compute``; so a wrapper never syncs its children one by one.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable
from contextlib import contextmanager
from typing import Any

from torch import Tensor

from lightning_metrics import distributed
from lightning_metrics._states import rollback_on_error  # noqa: F401 (the wrappers import it from here)
from lightning_metrics.metric import Metric


class WrapperMetric(Metric):
    """Base class of metrics that drive other metrics (their children).

    Children are submodules, so device moves, ``state_dict`` and the fused sync reach them.
    ``update`` of a wrapper is all-or-nothing: if one child rejects the batch, the children
    updated before it are rolled back (see :func:`rollback_on_error`).

    >>> import torch
    >>> from lightning_metrics.aggregation import SumMetric
    >>> from lightning_metrics.wrappers import MinMaxMetric
    >>> isinstance(MinMaxMetric(SumMetric()), WrapperMetric)
    True
    """

    def _child_metrics(self) -> list[Metric]:
        """Every metric nested in this one (children, grandchildren, ...)."""
        return [m for m in self.modules() if isinstance(m, Metric) and m is not self]


class NotAMetricError(TypeError, ValueError):
    """A wrapper given something that is not a metric: a ``TypeError`` (torchmetrics'
    ``MetricInputTransformer`` raises one) and a ``ValueError`` (its other wrappers raise one)."""


def check_metric(name: str, value: Any, allow_collection: bool = False) -> None:
    """Raise :class:`NotAMetricError` unless ``value`` is one of our metrics (or a collection, if allowed).

    >>> check_metric("base_metric", 3)
    Traceback (most recent call last):
    ...
    lightning_metrics.wrappers._base.NotAMetricError: Argument `base_metric` must be a lightning_metrics Metric, got 3 (int)
    """
    from lightning_metrics.collection import MetricCollection

    allowed = (Metric, MetricCollection) if allow_collection else (Metric,)
    if not isinstance(value, allowed):
        what = "Metric or MetricCollection" if allow_collection else "Metric"
        raise NotAMetricError(f"Argument `{name}` must be a lightning_metrics {what}, got {value!r} ({type(value).__name__})")


def first_tensor(*values: Any) -> Tensor | None:
    """The first tensor found (depth first) in ``values``, or ``None``."""
    for value in values:
        if isinstance(value, Tensor):
            return value
        inner = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ()
        found = first_tensor(*inner)
        if found is not None:
            return found
    return None


@contextmanager
def fused_sync(metrics: Iterable[Metric]) -> Generator[None, None, None]:
    """Sync ``metrics`` and everything nested in them in ONE exchange; restore local states after.

    Metrics already synced (by a parent) are left alone, as are metrics that do not sync on
    compute or bring their own ``dist_sync_fn`` (they sync themselves in ``compute``).
    """
    roots = [m for m in metrics if m.sync_on_compute and m.dist_sync_fn is None and not m._is_synced]
    tree: dict[int, Metric] = {}
    for root in roots:
        for metric in root._sync_tree():
            tree.setdefault(id(metric), metric)
    synced = False
    if tree and roots[0].distributed_available_fn():
        distributed.sync_metrics(list(tree.values()), group=roots[0].process_group)
        synced = True
    try:
        yield
    finally:
        if synced:
            for metric in tree.values():  # parents first: unsync restores their children too
                if metric._is_synced:
                    metric.unsync()
