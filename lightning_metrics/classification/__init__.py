"""Modular classification metrics (torchmetrics names and arguments)."""

from lightning_metrics.classification.counting import *  # noqa: F403
from lightning_metrics.classification.curves import *  # noqa: F403
from lightning_metrics.classification import counting as _counting, curves as _curves

__all__ = [*_counting.__all__, *_curves.__all__]
