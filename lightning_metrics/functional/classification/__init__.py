"""Stateless classification metrics (torchmetrics names and arguments)."""

from lightning_metrics.functional.classification.counting import *  # noqa: F403
from lightning_metrics.functional.classification.curves import *  # noqa: F403
from lightning_metrics.functional.classification import counting as _counting, curves as _curves

__all__ = [*_counting.__all__, *_curves.__all__]
