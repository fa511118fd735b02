"""Stateless classification metrics (torchmetrics names and arguments)."""

from lightning_metrics.functional.classification._fairness import *  # noqa: F403
from lightning_metrics.functional.classification.counting import *  # noqa: F403
from lightning_metrics.functional.classification.curves import *  # noqa: F403
from lightning_metrics.functional.classification import _fairness, counting as _counting, curves as _curves
from lightning_metrics.functional.classification._operating_points import specicity_at_sensitivity  # noqa: F401 (deprecated alias)

__all__ = [*_counting.__all__, *_curves.__all__, *_fairness.__all__]
