"""Figures of metric values, drawn once here for ``Metric.plot`` and for the loggers.

Every drawing function takes a value (and an optional matplotlib ``ax``) and returns
``(fig, ax)`` as torchmetrics' plot API does:

- :func:`plot_scalars`: one value, a series of values over steps, or several named series;
- :func:`plot_bars`: one bar per class (or per key of a dict of scalars);
- :func:`plot_confusion_matrix`: a heat-map with the counts in the cells and the class names on
  the axes (optionally normalized); a stack of 2x2 matrices (multilabel) becomes a grid;
- :func:`plot_curves`: ROC or precision-recall curves, one line per class, the AUC in the legend;
- :func:`plot_reliability`: the reliability diagram of a calibration metric.

:func:`plot_metric` picks one from the value's shape and the metric's attributes, so no metric
class carries plotting code. :func:`render_image` turns a value into an RGB image for the
loggers: with matplotlib when it is installed (an off-screen Agg figure, cleared after use,
never registered with pyplot), else with the package's own renderer (:mod:`._raster`).

matplotlib is an optional extra: it is imported inside the functions that need it, never when
``lightning_metrics`` is imported.

>>> import torch
>>> value_kind(torch.tensor(0.5)), value_kind(torch.tensor([0.2, 0.8])), value_kind(torch.eye(2))
('scalar', 'vector', 'matrix')
>>> image = render_image("confusion_matrix", torch.tensor([[3, 1], [0, 4]]), backend="raster")
>>> image.ndim, image.shape[2], str(image.dtype)
(3, 3, 'uint8')
"""

from __future__ import annotations

import contextvars
from typing import Any, Mapping, Optional, Sequence

import torch
from torch import Tensor

from lightning_metrics import _raster
from lightning_metrics._plot_data import (
    NORMALIZATIONS,
    _as_tensor,
    _is_scalar,
    _labels,
    area,
    curve_kind,
    curve_lines,
    normalize_confusion,
    reliability_bins,
    value_kind,
)
from lightning_metrics.utilities.checks import check_choice

RENDER_KINDS = ("scalars", "bars", "confusion_matrix", "curves", "reliability")
# set while render_image draws: figures are then off-screen Agg figures, unknown to pyplot
_OFFSCREEN = contextvars.ContextVar("lightning_metrics_offscreen", default=False)


# ------------------------------------------------------------------ matplotlib
def _subplots(
    ax: Any = None, nrows: int = 1, ncols: int = 1, figsize: Optional[tuple] = None
) -> tuple[Any, Any]:
    """The figure of ``ax``, or a new figure: off-screen Agg inside :func:`render_image`, pyplot otherwise."""
    if ax is not None:
        return ax.get_figure(), ax
    try:
        if _OFFSCREEN.get():
            from matplotlib.backends.backend_agg import FigureCanvasAgg
            from matplotlib.figure import Figure

            fig = Figure(figsize=figsize, dpi=100)
            FigureCanvasAgg(fig)
            return fig, fig.subplots(nrows, ncols, squeeze=True)
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise ModuleNotFoundError(
            "Plotting needs matplotlib, which is not installed: `pip install 'lightning_metrics[plot]'`"
        ) from err
    return plt.subplots(nrows, ncols, figsize=figsize)


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
                _raster.format_number(float(ys[0])) if ys[0] == ys[0].round() else f"{float(ys[0]):.4f}",
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
) -> tuple[Any, Any]:
    """One bar per class (or per key of a dict of scalars), with the values on the bars.

    >>> import torch
    >>> fig, ax = plot_bars(torch.tensor([0.25, 0.75]), class_names=["cat", "dog"])
    >>> [t.get_text() for t in ax.get_xticklabels()], [round(float(p.get_height()), 2) for p in ax.patches]
    (['cat', 'dog'], [0.25, 0.75])
    """
    if isinstance(values, Mapping):
        class_names = [str(k) for k in values]
        values = torch.stack([_as_tensor(v).double().reshape(()) for v in values.values()])
    values = _as_tensor(values).double().flatten()
    labels = _labels(values.numel(), class_names)
    fig, ax = _subplots(ax, figsize=(max(4.0, 0.45 * len(labels) + 1.5), 3.6))
    positions = list(range(len(labels)))
    ax.bar(positions, values.nan_to_num(0.0).tolist(), color="tab:blue")
    ax.set_xticks(
        positions, labels, rotation=45 if len(labels) > 8 else 0, ha="right" if len(labels) > 8 else "center"
    )
    if len(labels) <= 30:
        for x, v in zip(positions, values.tolist()):
            ax.annotate(
                _raster.format_number(v), (x, 0 if v != v else v), ha="center", va="bottom", fontsize=8
            )
    if lower_bound is not None and upper_bound is not None:
        ax.set_ylim(
            min(lower_bound, float(values.nan_to_num(0).min())),
            max(upper_bound, float(values.nan_to_num(0).max())) * 1.08,
        )
    ax.set_ylabel(name or "value")
    ax.grid(True, axis="y", alpha=0.3)
    return fig, ax


def plot_confusion_matrix(
    matrix: Tensor,
    class_names: Optional[Sequence[Any]] = None,
    normalize: Optional[str] = None,
    ax: Any = None,
    title: Optional[str] = None,
    add_text: bool = True,
    cmap: Any = None,
) -> tuple[Any, Any]:
    """A heat-map with the values in the cells, true classes down and predicted across.

    ``add_text=False`` leaves the cells blank; ``cmap`` is a matplotlib colour map (``viridis``).

    A stack ``(L, 2, 2)`` (multilabel) is drawn as a grid of 2x2 matrices, one per label
    (``class_names`` name the labels); ``ax`` is then a sequence of at least ``L`` axes.

    >>> import torch
    >>> fig, ax = plot_confusion_matrix(torch.tensor([[5, 1], [2, 7]]), class_names=["no", "yes"])
    >>> sorted(t.get_text() for t in ax.texts), [t.get_text() for t in ax.get_yticklabels()]
    (['1', '2', '5', '7'], ['no', 'yes'])
    """
    matrix = _as_tensor(matrix)
    if matrix.ndim == 3:
        return _plot_confusion_grid(matrix, class_names, normalize, ax, title, add_text, cmap)
    if matrix.ndim != 2:
        raise ValueError(
            f"Argument `matrix` must be 2-D or a stack of 2x2 matrices, got shape {tuple(matrix.shape)}"
        )
    values = normalize_confusion(matrix, normalize).double()
    rows, cols = values.shape
    side = max(3.5, 0.55 * max(rows, cols) + 1.8)
    fig, ax = _subplots(ax, figsize=(side + 0.8, side))
    image = ax.imshow(values.numpy(), cmap=cmap or "viridis", interpolation="nearest")
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    square = rows == cols
    if max(rows, cols) <= 50:  # beyond that, one label per class is unreadable (and slow to lay out)
        ax.set_xticks(
            range(cols), _labels(cols, class_names if square else None), rotation=45 if cols > 6 else 0
        )
        ax.set_yticks(range(rows), _labels(rows, class_names))
    ax.set_xlabel("Predicted" if square else "column")
    ax.set_ylabel("True" if square else "row")
    if add_text and rows * cols <= 900:
        finite = values[torch.isfinite(values)]
        middle = float(finite.min() + finite.max()) / 2 if finite.numel() else 0.0
        for r in range(rows):
            for c in range(cols):
                v = float(values[r, c])
                ax.text(
                    c,
                    r,
                    _raster.format_number(v),
                    ha="center",
                    va="center",
                    fontsize=8 if rows > 10 else 10,
                    color="black" if v > middle else "white",
                )
    if title:
        ax.set_title(title)
    return fig, ax


def _plot_confusion_grid(
    matrices: Tensor,
    names: Optional[Sequence[Any]],
    normalize: Optional[str],
    ax: Any,
    title: Optional[str],
    add_text: bool = True,
    cmap: Any = None,
) -> tuple[Any, Any]:
    count = matrices.shape[0]
    columns = int(torch.tensor(count).float().sqrt().ceil())
    rows = -(-count // columns)
    if ax is None:
        fig, axes = _subplots(None, rows, columns, figsize=(3.2 * columns, 3.0 * rows))
        flat = list(axes.flat) if hasattr(axes, "flat") else [axes]
    else:
        flat = list(ax.flat) if hasattr(ax, "flat") else list(ax)
        if len(flat) < count:
            raise ValueError(
                f"Argument `ax` must hold at least {count} axes for {count} labels, got {len(flat)}"
            )
        fig = flat[0].get_figure()
    for i, (axis, label) in enumerate(zip(flat, _labels(count, names))):
        plot_confusion_matrix(
            matrices[i], class_names=["0", "1"], normalize=normalize, ax=axis, title=label, add_text=add_text, cmap=cmap
        )
    for axis in flat[count:]:
        axis.set_visible(False)
    if title:
        fig.suptitle(title)
    return fig, (ax if ax is not None else axes)


def plot_curves(
    value: Any,
    kind: Optional[str] = None,
    class_names: Optional[Sequence[Any]] = None,
    ax: Any = None,
    title: Optional[str] = None,
) -> tuple[Any, Any]:
    """ROC (``kind="roc"``), precision-recall (``"pr"``) or generic curves, one line per class.

    >>> import torch
    >>> fpr, tpr = torch.tensor([0.0, 0.0, 1.0]), torch.tensor([0.0, 1.0, 1.0])
    >>> fig, ax = plot_curves((fpr, tpr, torch.tensor([1.0, 0.5, 0.0])), kind="roc")
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['AUC=1.000']
    """
    check_choice("kind", kind, ("roc", "pr", None))
    lines = curve_lines(value, kind)
    fig, ax = _subplots(ax, figsize=(5.0, 4.5))
    single = len(lines) == 1
    for label, (x, y) in zip(_labels(len(lines), class_names), lines):
        score = area(x, y)
        text = f"AUC={score:.3f}" if single else f"{label} (AUC={score:.3f})"
        ax.plot(x.tolist(), y.tolist(), linewidth=1.5, label=text)
    if kind == "roc":
        ax.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=0.8)
        ax.set_xlabel("False positive rate")
        ax.set_ylabel("True positive rate")
    elif kind == "pr":
        ax.set_xlabel("Recall")
        ax.set_ylabel("Precision")
    if kind is not None:
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
    ax.legend(loc="lower right" if kind == "roc" else "best", fontsize=8)
    ax.grid(True, alpha=0.3)
    if title:
        ax.set_title(title)
    return fig, ax


def plot_reliability(
    bins: tuple[Tensor, Tensor, Tensor], ax: Any = None, title: Optional[str] = None
) -> tuple[Any, Any]:
    """Reliability diagram: accuracy per confidence bin against the diagonal, with the gap.

    ``bins`` is ``(mean confidence, accuracy, count)`` per bin, e.g. :func:`reliability_bins`.

    >>> import torch
    >>> bins = (torch.tensor([0.25, 0.75]), torch.tensor([0.5, 0.5]), torch.tensor([2.0, 2.0]))
    >>> fig, ax = plot_reliability(bins)
    >>> ax.get_title()
    'ECE=0.2500'
    """
    confidence, accuracy, count = (_as_tensor(b).double().flatten() for b in bins)
    n_bins = count.numel()
    centers = (torch.arange(n_bins, dtype=torch.float64) + 0.5) / n_bins
    used = count > 0
    ece = (
        float((count * (accuracy - confidence).abs()).sum() / count.sum())
        if count.sum() > 0
        else float("nan")
    )
    fig, ax = _subplots(ax, figsize=(4.8, 4.5))
    ax.bar(
        centers[used].tolist(),
        accuracy[used].tolist(),
        width=1.0 / n_bins,
        edgecolor="black",
        color="tab:blue",
        label="accuracy",
    )
    ax.bar(
        centers[used].tolist(),
        (confidence - accuracy)[used].tolist(),
        bottom=accuracy[used].tolist(),
        width=1.0 / n_bins,
        color="tab:red",
        alpha=0.3,
        hatch="//",
        label="gap",
    )
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=0.8)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("Confidence")
    ax.set_ylabel("Accuracy")
    ax.legend(loc="upper left", fontsize=8)
    ax.set_title(f"{title}: ECE={ece:.4f}" if title else f"ECE={ece:.4f}")
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
    "bars": lambda value, o: plot_bars(value, class_names=o.get("class_names"), name=o.get("title")),
    "confusion_matrix": lambda value, o: plot_confusion_matrix(
        value, o.get("class_names"), o.get("normalize"), title=o.get("title")
    ),
    "curves": lambda value, o: plot_curves(
        value, o.get("curve_kind"), o.get("class_names"), title=o.get("title")
    ),
    "reliability": lambda value, o: plot_reliability(value, title=o.get("title")),
}


def _raster_image(kind: str, value: Any, options: Mapping[str, Any]) -> Tensor:
    if kind == "confusion_matrix":
        matrix = normalize_confusion(_as_tensor(value), options.get("normalize"))
        return _raster.heatmap_grid(matrix) if matrix.ndim == 3 else _raster.heatmap(matrix)
    if kind == "bars":
        return _raster.bars(
            torch.stack([_as_tensor(v).double().reshape(()) for v in value.values()])
            if isinstance(value, Mapping)
            else _as_tensor(value)
        )
    if kind == "curves":
        style = options.get("curve_kind")
        unit = (0.0, 1.0) if style is not None else None
        return _raster.lines(curve_lines(value, style), unit, unit, diagonal=style == "roc")
    if kind == "reliability":
        return _raster.reliability(*value)
    series = _series(value, options.get("title"))
    return _raster.lines([(torch.arange(len(ys), dtype=torch.float64), ys) for ys in series.values()])


def matplotlib_available() -> bool:
    """Whether matplotlib can be imported (it is an optional extra)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def render_image(kind: str, value: Any, *, backend: str = "auto", **options: Any) -> Any:
    """An ``(H, W, 3)`` uint8 numpy image of ``value`` drawn as ``kind`` (see ``RENDER_KINDS``).

    ``backend="auto"`` uses matplotlib when installed and the package's own renderer otherwise;
    ``"matplotlib"`` or ``"raster"`` force one. Options: ``class_names``, ``normalize``,
    ``curve_kind``, ``title``, ``lower_bound``, ``upper_bound``. The matplotlib figure is an
    off-screen Agg figure that pyplot never sees, cleared once its pixels are read.
    """
    check_choice("kind", kind, RENDER_KINDS)
    check_choice("backend", backend, ("auto", "matplotlib", "raster"))
    if backend == "raster" or (backend == "auto" and not matplotlib_available()):
        return _raster_image(kind, value, options).numpy()
    token = _OFFSCREEN.set(True)
    fig = None
    try:
        fig, _ = _DRAW[kind](value, options)
        fig.tight_layout()
        fig.canvas.draw()
        import numpy as np

        return np.array(fig.canvas.buffer_rgba(), dtype=np.uint8)[..., :3].copy()
    finally:
        _OFFSCREEN.reset(token)
        if fig is not None:
            fig.clear()


__all__ = [
    "NORMALIZATIONS",
    "area",
    "curve_kind",
    "curve_lines",
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
