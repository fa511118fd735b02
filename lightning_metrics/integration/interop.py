"""``self.log(name, metric)`` for our metrics, in both Lightning packages, pip-installed or not.

Lightning (``lightning.pytorch`` and ``pytorch_lightning`` alike) accepts metric objects in
``LightningModule.log`` when they pass ``isinstance(value, torchmetrics.Metric)``; its result
collection then reads ``_forward_cache`` and calls ``compute()``, ``reset()`` and ``.to()``, which
our :class:`~lightning_metrics.Metric` provides. ``torchmetrics.Metric`` is an abstract base
class, so registering ours as a *virtual* subclass is enough: no subclassing, no wrapper.

This is the one place that touches torchmetrics, lazily: ``import lightning_metrics`` calls
:func:`install`, which imports nothing. It registers at once if torchmetrics is already imported,
or else puts a finder first on ``sys.meta_path`` that lets torchmetrics' import run (Lightning
imports it, one of its dependencies), registers, and steps aside. No entry point is needed, so a
checkout on ``sys.path`` behaves as an installed package. This module imports no Lightning.
"""

from __future__ import annotations

import importlib.abc
import sys
from typing import Any, Optional


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


class _AfterTorchmetrics(importlib.abc.MetaPathFinder):
    """First on ``sys.meta_path`` until torchmetrics is imported; then registers and leaves."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Optional[Any]:
        if fullname != "torchmetrics":
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                run = spec.loader.exec_module

                def exec_module(module: Any) -> None:
                    run(module)
                    _uninstall()
                    register_with_torchmetrics()

                spec.loader.exec_module = exec_module  # this loader instance serves torchmetrics only
                return spec
        return None


def _uninstall() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _AfterTorchmetrics)]


def install() -> None:
    """Register now if torchmetrics is imported, else as soon as it is (once)."""
    if "torchmetrics" in sys.modules:
        register_with_torchmetrics()
    elif not any(isinstance(f, _AfterTorchmetrics) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterTorchmetrics())


def callbacks_factory() -> list[Any]:
    """A Lightning ``callbacks_factory`` entry point that registers and adds no callback (kept for
    installs that still declare it; the import hook makes it unnecessary).

    >>> callbacks_factory()
    []
    """
    register_with_torchmetrics()
    return []


__all__ = ["callbacks_factory", "install", "register_with_torchmetrics"]
