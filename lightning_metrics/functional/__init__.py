"""Stateless metric functions: ``lightning_metrics.functional.classification`` and ``.regression``."""

from lightning_metrics.functional import classification, regression

__all__ = ["classification", "regression"]
