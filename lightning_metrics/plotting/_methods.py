"""The ``plot`` methods, one per torchmetrics signature; a metric family picks one by assignment.

torchmetrics gives most metrics ``plot(val=None, ax=None)``, curves ``plot(curve=None, score=None,
ax=None)``, confusion matrices ``plot(val, ax, add_text, labels, cmap)`` and the base class
``plot(*_, **__)``. The drawing itself is :func:`lightning_metrics.plotting.plot_metric`, which
reads the value's shape; matplotlib is imported on the first call.
"""

from __future__ import annotations

from typing import Any, Optional


def plot_any(self: Any, *_: Any, **__: Any) -> Any:
    """Draw ``val`` (the first argument; default ``compute()``) on ``ax`` (the second); ``(fig, ax)``."""
    from lightning_metrics import plotting

    args = list(_) + [None, None]
    return plotting.plot_metric(self, val=__.get("val", args[0]), ax=__.get("ax", args[1]))


def plot_value(self: Any, val: Any = None, ax: Any = None) -> Any:
    """Draw a value (or a sequence of values; default ``compute()``) with matplotlib; ``(fig, ax)``."""
    from lightning_metrics import plotting

    return plotting.plot_metric(self, val=val, ax=ax)


def plot_curve(self: Any, curve: Any = None, score: Any = None, ax: Any = None) -> Any:
    """Draw the curve (default ``compute()``), one line per class; the legend gives each area.

    ``score`` is accepted for torchmetrics' signature: the area is always shown.
    """
    from lightning_metrics import plotting

    return plotting.plot_metric(self, val=curve, ax=ax)


def plot_curve_with_labels(self: Any, curve: Any = None, score: Any = None, ax: Any = None,
                           labels: Optional[list] = None) -> Any:
    """As :func:`plot_curve`; ``labels`` name the classes in the legend."""
    from lightning_metrics import plotting

    value = self.compute() if curve is None else curve
    kind = plotting.curve_kind(self)
    return plotting.plot_curves(value, kind=kind, class_names=labels, ax=ax, title=type(self).__name__)


def plot_confusion_matrix(self: Any, val: Any = None, ax: Any = None, add_text: bool = True,
                          labels: Optional[list] = None, cmap: Any = None) -> Any:
    """Draw the confusion matrix (default ``compute()``): counts in the cells unless ``add_text``
    is false, ``labels`` on the axes, ``cmap`` the matplotlib colour map."""
    from lightning_metrics import plotting

    value = self.compute() if val is None else val
    return plotting.plot_confusion_matrix(value, class_names=labels, ax=ax, title=type(self).__name__,
                                          add_text=add_text, cmap=cmap)


def plot_curve_without_score(self: Any, curve: Any = None, ax: Any = None) -> Any:
    """As :func:`plot_curve`, for the curves whose torchmetrics signature takes no ``score``."""
    from lightning_metrics import plotting

    return plotting.plot_metric(self, val=curve, ax=ax)
