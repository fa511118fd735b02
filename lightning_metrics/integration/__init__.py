"""Lightning integration: ``MetricsCallback`` and ``MetricsMixin``, two doors onto one engine.

>>> import lightning_metrics as lm
>>> from lightning_metrics.aggregation import MeanMetric
>>> callback = lm.MetricsCallback({"mean": MeanMetric()}, stages=("val",))
>>> callback.state_key  # the metric names enter as a digest (a key stays short however many there are)
"MetricsCallback{'stages': ('val',), 'metrics': '29cebc97c642', 'separator': '/'}"

``import lightning_metrics`` already arranges that our ``Metric`` is a virtual subclass of
``torchmetrics.Metric`` once torchmetrics is imported (see :mod:`.interop`), so
``self.log("acc", metric)`` works as it does for torchmetrics, in both Lightning packages.

The names below load on first use: importing this package (``lightning_metrics`` does, for
:mod:`.interop`) imports no Lightning.
"""

import importlib
from typing import Any

_HOMES = {
    "MetricsCallback": "callback",
    "MetricsEngine": "engine",
    "MetricsMixin": "mixin",
    "ResultKind": "routing",
    "RouteContext": "routing",
    "RoutedResult": "routing",
    "Router": "routing",
    "Sink": "routing",
    "register_with_torchmetrics": "interop",
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
    globals()[name] = value  # loaded once
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(_HOMES))


__all__ = [
    "MetricsCallback",
    "MetricsEngine",
    "MetricsMixin",
    "ResultKind",
    "RouteContext",
    "RoutedResult",
    "Router",
    "Sink",
    "register_with_torchmetrics",
]
