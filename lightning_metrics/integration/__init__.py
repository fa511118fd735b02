"""Lightning integration: ``MetricsCallback`` and ``MetricsMixin``, two doors onto one engine.

>>> import lightning_metrics as lm
>>> from lightning_metrics.aggregation import MeanMetric
>>> callback = lm.MetricsCallback({"mean": MeanMetric()}, stages=("val",))
>>> callback.state_key  # the metric names enter as a digest (a key stays short however many there are)
"MetricsCallback{'stages': ('val',), 'metrics': '29cebc97c642', 'separator': '/'}"

``import lightning_metrics`` already arranges that our ``Metric`` is a virtual subclass of
``torchmetrics.Metric`` once torchmetrics is imported (see :mod:`lightning_metrics._interop`), so
``self.log("acc", metric)`` works as it does for torchmetrics, in both Lightning packages.
"""

from lightning_metrics.integration.callback import MetricsCallback
from lightning_metrics.integration.engine import MetricsEngine
from lightning_metrics._interop import register_with_torchmetrics
from lightning_metrics.integration.mixin import MetricsMixin
from lightning_metrics.integration.routing import ResultKind, RoutedResult, RouteContext, Router, Sink

register_with_torchmetrics()  # torchmetrics is imported by now (Lightning depends on it)

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
