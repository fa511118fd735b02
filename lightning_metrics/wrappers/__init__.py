"""Metric wrappers (torchmetrics names and arguments)."""

from lightning_metrics.wrappers.running import Running

__all__ = ["Running"]
