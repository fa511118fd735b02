"""``self.log(name, metric)`` for our metrics: see :mod:`lightning_metrics._interop` (the
registration as a virtual ``torchmetrics.Metric`` runs when torchmetrics is imported)."""

from __future__ import annotations

from typing import Any

from lightning_metrics._interop import register_with_torchmetrics


def callbacks_factory() -> list[Any]:
    """A Lightning ``callbacks_factory`` entry point that registers and adds no callback (kept for
    installs that still declare it; the import hook makes it unnecessary).

    >>> callbacks_factory()
    []
    """
    register_with_torchmetrics()
    return []


__all__ = ["callbacks_factory", "register_with_torchmetrics"]
