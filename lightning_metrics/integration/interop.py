"""``self.log(name, metric)`` for our metrics, in both Lightning packages, pip-installed or not.

Lightning (``lightning.pytorch`` and ``pytorch_lightning`` alike) accepts metric objects in
``LightningModule.log`` when they pass ``isinstance(value, torchmetrics.Metric)``; its result
collection then reads ``_forward_cache`` and calls ``compute()``, ``reset()`` and ``.to()``, which
our :class:`~lightning_metrics.Metric` provides. ``torchmetrics.Metric`` is an abstract base
class, so registering ours as a *virtual* subclass is enough: no subclassing, no wrapper.

``LightningModule.log_dict`` takes a collection down its own path when it passes
``isinstance(value, torchmetrics.MetricCollection)``, a plain class: :func:`see_our_collections`
makes the name Lightning checks against accept ours too.

This is the one place that touches torchmetrics and Lightning, lazily: ``import lightning_metrics`` calls
:func:`install`, which imports nothing. It acts at once on what is already imported, and puts a finder
first on ``sys.meta_path`` that lets the imports of torchmetrics (a dependency of Lightning) and of
Lightning's ``core.module`` run, then acts. No entry point is needed, so a
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


class _CollectionCheck(type):
    """The metaclass of the ``MetricCollection`` that Lightning's module checks ``log_dict`` values against:
    torchmetrics' collections and ours pass (see :func:`see_our_collections`)."""

    _torchmetrics: type

    def __instancecheck__(cls, obj: Any) -> bool:
        from lightning_metrics.collection import MetricCollection

        return isinstance(obj, (cls._torchmetrics, MetricCollection))

    def __subclasscheck__(cls, sub: type) -> bool:
        from lightning_metrics.collection import MetricCollection

        return issubclass(sub, (cls._torchmetrics, MetricCollection))


def see_our_collections(module: Any) -> bool:
    """Make ``LightningModule.log_dict`` take our ``MetricCollection`` down its collection path, as it does
    torchmetrics' (names with prefix and postfix, members not copied under compute groups).

    ``torchmetrics.MetricCollection`` is a plain class, which cannot take a virtual subclass as
    ``torchmetrics.Metric`` does; so the name that Lightning's ``core.module`` checks against is
    replaced by a class that both collections pass (``isinstance`` answers as for torchmetrics' own
    otherwise). ``module`` is ``lightning.pytorch.core.module`` or ``pytorch_lightning.core.module``;
    returns whether it holds the check now.
    """
    current = getattr(module, "MetricCollection", None)
    if current is None:
        return False
    if not isinstance(current, _CollectionCheck):
        module.MetricCollection = _CollectionCheck("MetricCollection", (), {"_torchmetrics": current})
    return True


# modules whose import runs a hook of ours once it has run (the name Lightning's core.module binds comes
# from torchmetrics, so that module is patched after its own import, whichever package comes first)
_LIGHTNING_MODULES = ("lightning.pytorch.core.module", "pytorch_lightning.core.module")


def _after_import(fullname: str) -> None:
    if fullname == "torchmetrics":
        register_with_torchmetrics()
    else:
        see_our_collections(sys.modules[fullname])


class _AfterTorchmetrics(importlib.abc.MetaPathFinder):
    """First on ``sys.meta_path``: registers ours with torchmetrics once it is imported, and shows our
    collections to Lightning's ``log_dict`` once either Lightning package's ``core.module`` is."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Optional[Any]:
        if fullname != "torchmetrics" and fullname not in _LIGHTNING_MODULES:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                run = spec.loader.exec_module

                def exec_module(module: Any) -> None:
                    run(module)
                    _after_import(fullname)

                spec.loader.exec_module = exec_module  # this loader instance serves torchmetrics only
                return spec
        return None


def install() -> None:
    """Register now what is imported already; the rest as soon as it is imported (a finder, once)."""
    if "torchmetrics" in sys.modules:
        register_with_torchmetrics()
    for name in _LIGHTNING_MODULES:
        if name in sys.modules:
            see_our_collections(sys.modules[name])
    if not any(isinstance(f, _AfterTorchmetrics) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterTorchmetrics())


def callbacks_factory() -> list[Any]:
    """A Lightning ``callbacks_factory`` entry point that registers and adds no callback (kept for
    installs that still declare it; the import hook makes it unnecessary).

    >>> callbacks_factory()
    []
    """
    register_with_torchmetrics()
    return []


__all__ = ["callbacks_factory", "install", "register_with_torchmetrics", "see_our_collections"]
