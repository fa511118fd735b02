"""``self.log(name, metric)`` for our metrics: the torchmetrics idiom, unchanged.

Lightning's ``LightningModule.log`` accepts metric objects only when they pass
``isinstance(value, torchmetrics.Metric)``; its result collection then reads ``_forward_cache``
for step values and calls ``compute()``, ``reset()`` and ``.to()``, all of which our
:class:`~lightning_metrics.Metric` provides. ``torchmetrics.Metric`` is an abstract base class,
so registering our class as a *virtual* subclass is enough: no subclassing, no wrapper, and the
core never imports torchmetrics. Lightning itself imports torchmetrics, so by the time the
integration is imported the registration costs nothing.

The registration runs when :mod:`lightning_metrics.integration` is imported, and from
:func:`callbacks_factory`, which Lightning calls for every ``Trainer`` when the package
declares it under the ``lightning.pytorch.callbacks_factory`` entry point.
"""

from __future__ import annotations

from typing import Any


def register_with_torchmetrics() -> bool:
    """Make ``isinstance(our_metric, torchmetrics.Metric)`` true; ``False`` if torchmetrics is absent.

    >>> import torchmetrics
    >>> from lightning_metrics.aggregation import SumMetric
    >>> register_with_torchmetrics()
    True
    >>> isinstance(SumMetric(), torchmetrics.Metric)
    True
    """
    try:
        import torchmetrics
    except ImportError:
        return False
    from lightning_metrics.metric import Metric

    if not issubclass(Metric, torchmetrics.Metric):
        torchmetrics.Metric.register(Metric)
    return True


def callbacks_factory() -> list[Any]:
    """Entry point for ``lightning.pytorch.callbacks_factory``: registers, adds no callback.

    >>> callbacks_factory()
    []
    """
    register_with_torchmetrics()
    return []
