"""The two Lightning packages, ``lightning.pytorch`` and the standalone ``pytorch_lightning``.

Both are served: :class:`~lightning_metrics.MetricsCallback` derives from the ``Callback`` of each
one that is installed (so either package's ``Trainer`` takes it), the mixin uses only what a
``LightningModule`` of either package has, and warnings go through ``lightning_utilities``, which
both share.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from typing import Iterator

PACKAGES = ("lightning.pytorch", "pytorch_lightning")


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # "lightning" itself is absent
        return False


def callback_bases() -> tuple[type, ...]:
    """The ``Callback`` class of every installed Lightning package (``lightning.pytorch`` first)."""
    bases = tuple(importlib.import_module(name).Callback for name in PACKAGES if _installed(name))
    if not bases:
        raise ImportError(
            "lightning_metrics' Lightning integration needs `lightning` or `pytorch_lightning`: pip install lightning"
        )
    return bases


def possible_user_warnings() -> Iterator[type]:
    """Lightning's ``PossibleUserWarning`` class of each package in use (imported by its Trainer)."""
    for name in ("lightning.fabric.utilities.warnings", "lightning_fabric.utilities.warnings"):
        module = sys.modules.get(name)
        if module is not None:
            yield module.PossibleUserWarning
