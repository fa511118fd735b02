"""Modular classification metrics (torchmetrics names and arguments)."""

from lightning_metrics.classification._fairness_metrics import *  # noqa: F403
from lightning_metrics.classification.counting import *  # noqa: F403
from lightning_metrics.classification.curves import *  # noqa: F403
from lightning_metrics.classification import _fairness_metrics, counting as _counting, curves as _curves

__all__ = [*_counting.__all__, *_curves.__all__, *_fairness_metrics.__all__]
