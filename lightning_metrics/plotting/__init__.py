"""Figures of metric values, drawn once here with matplotlib for ``Metric.plot`` and the loggers.

Every drawing function takes a value (and an optional matplotlib ``ax``) and returns
``(fig, ax)`` as torchmetrics' plot API does:

- :func:`plot_scalars`: one value, a series of values over steps, or several named series;
- :func:`plot_bars`: one bar per class (or per key of a dict of scalars);
- :func:`plot_confusion_matrix`: a heat-map with the counts in the cells and the class names on
  the axes (optionally normalized; linear, log or per-row colours); a stack of 2x2 matrices
  (multilabel) becomes a grid on one colour scale (:mod:`._matrix`);
- :func:`plot_curves`: ROC or precision-recall curves, one line per class, the AUC (ROC) or the
  average precision (PR) in the legend (:mod:`._curves`);
- :func:`plot_reliability`: the reliability diagram of a calibration metric, with the samples
  per bin below it.

Fonts are sized for the image TensorBoard shrinks into a card (about 350 pixels wide); the
loggers pass a title that names the tag and the epoch.

:func:`plot_metric` picks one from the value's shape and the metric's attributes, so no metric
class carries plotting code. :func:`render_image` turns a value into an RGB image for the
loggers: an off-screen Agg figure (``matplotlib.figure.Figure`` on a ``FigureCanvasAgg``),
cleared after use and never registered with pyplot.

The private modules: :mod:`._data` (what a figure is made of: value shapes, curve lines and
scores, normalized matrices, calibration bins; no drawing), :mod:`._figure` (figures and font
sizes), :mod:`._matrix`, :mod:`._curves` and :mod:`._methods` (the ``plot`` methods of the
metric classes). matplotlib is imported inside the functions that draw, on the first figure,
never when ``lightning_metrics`` is imported.

>>> import torch
>>> value_kind(torch.tensor(0.5)), value_kind(torch.tensor([0.2, 0.8])), value_kind(torch.eye(2))
('scalar', 'vector', 'matrix')
>>> image = render_image("confusion_matrix", torch.tensor([[3, 1], [0, 4]]))
>>> image.ndim, image.shape[2], str(image.dtype)
(3, 3, 'uint8')
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

import torch
from torch import Tensor

from lightning_metrics.plotting._curves import plot_curves, plot_reliability
from lightning_metrics.plotting._data import (
    COLOR_SCALES,
    NORMALIZATIONS,
    _as_tensor,
    _is_scalar,
    _labels,
    area,
    average_precision,
    curve_kind,
    curve_lines,
    curve_scores,
    format_count,
    format_values,
    normalize_confusion,
    reliability_bins,
    value_kind,
)
from lightning_metrics.plotting._figure import OFFSCREEN as _OFFSCREEN
from lightning_metrics.plotting._figure import points
from lightning_metrics.plotting._figure import subplots as _subplots
from lightning_metrics.plotting._matrix import plot_confusion_matrix
from lightning_metrics.utilities.checks import check_choice

RENDER_KINDS = ("scalars", "bars", "confusion_matrix", "curves", "reliability")


# -------------------------------------------------------------------- drawing
def _series(values: Any, name: Optional[str]) -> dict[str, Tensor]:
    """Named 1-D series from a scalar, a sequence of scalars, a dict or a sequence of dicts."""
    label = name or ""
    if _is_scalar(values):
        return {label: _as_tensor(values).double().reshape(1)}
    if isinstance(values, Mapping):
        return {
            str(k): _as_tensor(
                v if not isinstance(v, (list, tuple)) else torch.stack([_as_tensor(x) for x in v])
            )
            .double()
            .flatten()
            for k, v in values.items()
        }
    if isinstance(values, (list, tuple)) and values and all(isinstance(v, Mapping) for v in values):
        return {
            str(k): torch.stack([_as_tensor(v[k]).double().reshape(()) for v in values]) for k in values[0]
        }
    if isinstance(values, (list, tuple)) and values:
        stacked = torch.stack([_as_tensor(v).double() for v in values])
        if stacked.ndim == 1:
            return {label: stacked}
        return {f"{label} {i}".strip(): column for i, column in enumerate(stacked.reshape(len(values), -1).T)}
    if isinstance(values, Tensor) and values.ndim == 1:
        return {label: values.detach().cpu().double()}
    raise ValueError(
        f"Argument `values` must be scalars, a sequence or a dict of them, got {type(values).__name__}"
    )


def plot_scalars(
    values: Any,
    ax: Any = None,
    name: Optional[str] = None,
    lower_bound: Optional[float] = None,
    upper_bound: Optional[float] = None,
    higher_is_better: Optional[bool] = None,
) -> tuple[Any, Any]:
    """A value, or values over steps (one line per name), with the metric's bounds dashed.

    >>> import torch
    >>> values = [torch.tensor(0.5), torch.tensor(0.7)]
    >>> fig, ax = plot_scalars(values, name="acc", lower_bound=0.0, upper_bound=1.0)
    >>> [round(float(y), 4) for y in ax.get_lines()[0].get_ydata()]
    [0.5, 0.7]
    """
    series = _series(values, name)
    fig, ax = _subplots(ax)
    for label, ys in series.items():
        ax.plot(
            range(len(ys)),
            ys.tolist(),
            marker="o",
            linestyle="-" if len(ys) > 1 else "None",
            label=label or None,
        )
        if len(ys) == 1 and len(series) == 1:
            ax.annotate(
                format_count(float(ys[0])) if ys[0] == ys[0].round() else f"{float(ys[0]):.4f}",
                (0, float(ys[0])),
                textcoords="offset points",
                xytext=(8, 8),
            )
    for bound in (lower_bound, upper_bound):
        if bound is not None:
            ax.axhline(bound, linestyle="--", color="black", linewidth=0.8)
    if lower_bound is not None and upper_bound is not None:
        pad = 0.1 * (upper_bound - lower_bound)
        ax.set_ylim(lower_bound - pad, upper_bound + pad)
    ax.set_xlabel("Step")
    ax.set_ylabel(name or "value")
    if higher_is_better is not None:
        ax.set_title(f"{name or 'value'} ({'higher' if higher_is_better else 'lower'} is better)")
    if len(series) > 1:
        ax.legend()
    ax.grid(True, alpha=0.3)
    return fig, ax


def plot_bars(
    values: Any,
    class_names: Optional[Sequence[Any]] = None,
    ax: Any = None,
    name: Optional[str] = None,
    lower_bound: Optional[float] = None,
    upper_bound: Optional[float] = None,
    title: Optional[str] = None,
) -> tuple[Any, Any]:
    """One bar per class (or per key of a dict of scalars), with the values on the bars.

    The values are written with one number of decimals for all bars (``1.00`` beside ``0.97``);
    ``name`` labels the y axis, ``title`` the chart.

    >>> import torch
    >>> fig, ax = plot_bars(torch.tensor([0.25, 1.0]), class_names=["cat", "dog"], title="val/f1 · epoch 2")
    >>> [t.get_text() for t in ax.get_xticklabels()], [t.get_text() for t in ax.texts], ax.get_title()
    (['cat', 'dog'], ['0.25', '1.00'], 'val/f1 · epoch 2')
    """
    if isinstance(values, Mapping):
        class_names = [str(k) for k in values]
        values = torch.stack([_as_tensor(v).double().reshape(()) for v in values.values()])
    values = _as_tensor(values).double().flatten()
    labels = _labels(values.numel(), class_names)
    fig, ax = _subplots(ax, figsize=(max(4.6, 0.32 * len(labels) + 1.6), 3.8))
    positions = list(range(len(labels)))
    ax.bar(positions, values.nan_to_num(0.0).tolist(), color="tab:blue", width=0.8)
    crowded = len(labels) > 8 or max(len(t) for t in labels) * len(labels) > 40
    ax.set_xticks(positions, labels, rotation=90 if crowded else 0, fontsize=points(11))
    finite = values[torch.isfinite(values)]
    high = float(finite.max()) if finite.numel() else 1.0
    low = min(float(finite.min()) if finite.numel() else 0.0, 0.0)
    if len(labels) <= 30:
        for x, v, text in zip(positions, values.tolist(), format_values(values.tolist())):
            ax.text(
                x,
                0 if v != v else v,
                "n/a" if v != v else text,  # NaN: no value for that class (mAP's -1 as the loggers pass it)
                ha="center",
                va="bottom",
                fontsize=points(10 if len(labels) <= 12 else 8),
                rotation=0 if len(labels) <= 12 else 90,
            )
    if lower_bound is not None and upper_bound is not None:
        low, high = min(lower_bound, low), max(upper_bound, high)
    ax.set_ylim(low, high + 0.12 * (high - low if high > low else 1.0))  # room for the labels
    ax.set_ylabel(name or "value", fontsize=points(12))
    ax.tick_params(axis="y", labelsize=points(11))
    ax.grid(True, axis="y", alpha=0.3)
    if title:
        ax.set_title(title, fontsize=points(13))
    return fig, ax


# ------------------------------------------------------------------- dispatch
def _metric_class_names(metric: Any) -> Optional[Sequence[Any]]:
    for attribute in ("class_names", "labels"):
        names = getattr(metric, attribute, None)
        if isinstance(names, (list, tuple)) and names and all(isinstance(n, str) for n in names):
            return names
    return None


def plot_metric(metric: Any, val: Any = None, ax: Any = None) -> tuple[Any, Any]:
    """Draw ``val`` (default: ``metric.compute()``) as its shape asks; what ``Metric.plot`` calls.

    Scalars and series are drawn with the metric's ``plot_lower_bound``/``plot_upper_bound`` and
    ``higher_is_better``; vectors as per-class bars; matrices as confusion matrices; curves as ROC
    or precision-recall curves (from the metric's class name); dicts of scalars as bars by key.

    >>> import torch
    >>> from lightning_metrics.aggregation import MeanMetric
    >>> metric = MeanMetric()
    >>> metric.update(torch.tensor([1.0, 2.0]))
    >>> fig, ax = metric.plot()
    >>> [float(y) for y in ax.get_lines()[0].get_ydata()]
    [1.5]
    """
    if val is None:
        val = metric.compute()
    kind = value_kind(val)
    names = _metric_class_names(metric)
    label = type(metric).__name__
    bounds = dict(
        lower_bound=getattr(metric, "plot_lower_bound", None),
        upper_bound=getattr(metric, "plot_upper_bound", None),
    )
    if kind in ("scalar", "series", "series_of_mappings"):
        return plot_scalars(
            val, ax=ax, name=label, higher_is_better=getattr(metric, "higher_is_better", None), **bounds
        )
    if kind == "mapping" and all(_is_scalar(v) for v in val.values()):
        return plot_bars(val, ax=ax, name=label, **bounds)
    if kind == "vector":
        return plot_bars(val, class_names=names, ax=ax, name=label, **bounds)
    if kind in ("matrix", "multilabel_matrix"):
        return plot_confusion_matrix(val, class_names=names, ax=ax, title=label)
    if kind == "curve":
        return plot_curves(val, kind=curve_kind(metric), class_names=names, ax=ax, title=label)
    shape = tuple(val.shape) if isinstance(val, Tensor) else type(val).__name__
    raise ValueError(f"Argument `val`: cannot draw a value of {type(metric).__name__} shaped {shape}")


def plot_collection(collection: Any, val: Any = None, ax: Any = None, together: bool = False) -> Any:
    """``MetricCollection.plot``: one figure per metric, or all scalar values on one axis."""
    if not isinstance(together, bool):
        raise ValueError(f"Argument `together` must be a bool, got {together!r}")
    items = list(collection.items(keep_base=False, copy_state=False))
    if ax is not None and not together and (not isinstance(ax, Sequence) or len(ax) != len(items)):
        raise ValueError(
            f"Argument `ax` must be a sequence of {len(items)} axes (one per metric), got {ax!r}"
        )
    if val is None:
        val = collection.compute()
    if together:
        return plot_scalars(val, ax=ax)
    out = []
    for i, (name, metric) in enumerate(items):
        if isinstance(val, Mapping):
            value = val.get(name)
        else:
            value = [v[name] for v in val]
        out.append(metric.plot(value, ax=ax[i] if ax is not None else None))
    return out


# ------------------------------------------------------------------ rendering
_DRAW = {
    "scalars": lambda value, o: plot_scalars(
        value, name=o.get("title"), lower_bound=o.get("lower_bound"), upper_bound=o.get("upper_bound")
    ),
    "bars": lambda value, o: plot_bars(
        value,
        class_names=o.get("class_names"),
        name=o.get("name"),
        title=o.get("title"),
        lower_bound=o.get("lower_bound"),
        upper_bound=o.get("upper_bound"),
    ),
    "confusion_matrix": lambda value, o: plot_confusion_matrix(
        value,
        o.get("class_names"),
        o.get("normalize"),
        title=o.get("title"),
        color_scale=o.get("color_scale") or "linear",
    ),
    "curves": lambda value, o: plot_curves(
        value,
        o.get("curve_kind"),
        o.get("class_names"),
        title=o.get("title"),
        x_scale=o.get("x_scale") or "auto",
    ),
    "reliability": lambda value, o: plot_reliability(value, title=o.get("title")),
}


def matplotlib_available() -> bool:
    """Whether matplotlib can be imported (a dependency of the package: false only in a broken
    environment)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def render_image(kind: str, value: Any, **options: Any) -> Any:
    """An ``(H, W, 3)`` uint8 numpy image of ``value`` drawn as ``kind`` (see ``RENDER_KINDS``).

    Options: ``title`` (e.g. ``"val/roc · epoch 3"``), ``class_names``, ``name`` (the y label of
    bars), ``normalize``, ``color_scale`` (``"linear"``, ``"log"``, ``"row"``), ``curve_kind``,
    ``x_scale`` (``"auto"``, ``"linear"``, ``"log"``), ``lower_bound``, ``upper_bound``. The
    figure is an off-screen Agg figure that pyplot never sees, cleared once its pixels are read.
    """
    check_choice("kind", kind, RENDER_KINDS)
    check_choice("color_scale", options.get("color_scale") or "linear", COLOR_SCALES)
    token = _OFFSCREEN.set(True)
    fig = None
    try:
        fig, _ = _DRAW[kind](value, options)
        if fig.get_layout_engine() is None:
            fig.tight_layout()
        fig.canvas.draw()
        import numpy as np

        return np.array(fig.canvas.buffer_rgba(), dtype=np.uint8)[..., :3].copy()
    finally:
        _OFFSCREEN.reset(token)
        if fig is not None:
            fig.clear()


__all__ = [
    "COLOR_SCALES",
    "NORMALIZATIONS",
    "area",
    "average_precision",
    "curve_kind",
    "curve_lines",
    "curve_scores",
    "matplotlib_available",
    "normalize_confusion",
    "plot_bars",
    "plot_collection",
    "plot_confusion_matrix",
    "plot_curves",
    "plot_metric",
    "plot_reliability",
    "plot_scalars",
    "reliability_bins",
    "render_image",
    "value_kind",
]
