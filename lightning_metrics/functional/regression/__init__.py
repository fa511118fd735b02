"""Stateless regression metrics (torchmetrics names and arguments)."""

__all__: list[str] = []
