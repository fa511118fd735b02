"""Confusion matrices drawn with matplotlib: legible when TensorBoard shrinks them into a card.

The image is about 540 x 500 pixels whatever the number of classes, and its fonts are sized in
pixels of that image from the size of a cell, so the counts of up to about 20 classes still
read once the card scales the image to about 350 pixels. Zero cells are blank (white, no text)
so that the errors stand out; with more classes than the values can be written for, the title
says so. ``color_scale="log"`` or ``"row"`` lets off-diagonal errors of 1-3 show next to a
diagonal of hundreds. Normalized matrices print shares such as ``.83`` and ``<.01`` (never
scientific notation) and say in the title what they are normalized over.

>>> import torch
>>> fig, ax = plot_confusion_matrix(torch.tensor([[5, 0], [2, 7]]), class_names=["no", "yes"])
>>> sorted(t.get_text() for t in ax.texts)  # the zero cell is blank
['2', '5', '7']
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import torch
from torch import Tensor

from lightning_metrics.plotting._data import (
    NORMALIZED_OVER,
    _as_tensor,
    _labels,
    format_count,
    format_fraction,
    normalize_confusion,
)
from lightning_metrics.plotting._figure import DPI, ink_for, points, subplots
from lightning_metrics.utilities.checks import check_choice

WIDTH, HEIGHT = 5.4, 5.0  # inches at DPI: the image TensorBoard shrinks into a card
SMALLEST_VALUE_PX = 8.0  # below this the values are not written (the title says so)
SMALLEST_LABEL_PX = 9.0


def cell_texts(values: Tensor, normalized: bool) -> list[list[str]]:
    """The text of each cell: blank for zeros, shares for a normalized matrix, counts otherwise.

    >>> import torch
    >>> cell_texts(torch.tensor([[0.8, 0.004], [0.0, 1.0]]), normalized=True)
    [['.80', '<.01'], ['', '1']]
    """
    fmt = format_fraction if normalized else format_count
    return [["" if v == 0 else fmt(v) for v in row] for row in values.double().tolist()]


def _norm(values: Tensor, color_scale: str) -> tuple[Any, Any, str]:
    """(the array to colour, its matplotlib norm, the colour bar's label)."""
    import numpy as np
    from matplotlib.colors import LogNorm, Normalize

    magnitude = values.double().abs()
    shown = magnitude
    if color_scale == "row":
        shown = magnitude / magnitude.sum(dim=-1, keepdim=True).clamp(min=1e-300)
    finite = shown[torch.isfinite(shown) & (shown > 0)]
    high = float(finite.max()) if finite.numel() else 1.0
    if color_scale == "log":
        low = float(finite.min()) if finite.numel() else 1.0
        norm, label = LogNorm(low, max(high, low * (1 + 1e-9))), "log scale"
    elif color_scale == "row":
        norm, label = Normalize(0.0, 1.0), "share of the row"
    else:
        norm, label = Normalize(0.0, high), "linear"
    array = np.ma.masked_where(~np.isfinite(shown.numpy()) | (shown.numpy() == 0), shown.numpy())
    return array, norm, label


def _colormap(cmap: Any) -> Any:
    from matplotlib import colormaps

    chosen = colormaps[cmap] if isinstance(cmap, str) else (cmap or colormaps["viridis"])
    return chosen.with_extremes(bad="white")  # zero cells: blank, so that any error stands out


def _colour_bar(bar: Any, color_scale: str, label: str) -> None:
    """Plain tick labels (``1``, ``10``, ``.05``), none on the minor ticks of a log scale."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    bar.ax.tick_params(labelsize=points(10))
    if color_scale == "log":
        bar.ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        bar.ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: format_count(v)))
        bar.ax.yaxis.set_minor_formatter(NullFormatter())
    if color_scale != "linear":
        bar.set_label(label, fontsize=points(10))


def _value_font_px(texts: list[list[str]], cell_px: float) -> float:
    longest = max((len(t) for row in texts for t in row), default=1) or 1
    # a digit is about 0.62 of the font size wide; keep a margin on each side of the cell
    return min(16.0, 0.48 * cell_px, 0.85 * cell_px / (0.62 * longest))


def plot_confusion_matrix(
    matrix: Tensor,
    class_names: Optional[Sequence[Any]] = None,
    normalize: Optional[str] = None,
    ax: Any = None,
    title: Optional[str] = None,
    add_text: bool = True,
    cmap: Any = None,
    color_scale: str = "linear",
) -> tuple[Any, Any]:
    """A heat-map with the values in the cells, true classes down and predicted across.

    ``add_text=False`` leaves the cells blank; ``cmap`` is a matplotlib colour map (``viridis``);
    ``color_scale`` colours the cells by value (``"linear"``), on a log scale (``"log"``) or by
    their share of the row (``"row"``: each true class on its own scale). Zero cells are white.

    A stack ``(L, 2, 2)`` (multilabel) is drawn as a grid of 2x2 matrices on one colour scale,
    one per label (``class_names`` name the labels); ``ax`` is then a sequence of at least ``L``
    axes.

    >>> import torch
    >>> fig, ax = plot_confusion_matrix(torch.tensor([[5, 1], [2, 7]]), class_names=["no", "yes"])
    >>> sorted(t.get_text() for t in ax.texts), [t.get_text() for t in ax.get_yticklabels()]
    (['1', '2', '5', '7'], ['no', 'yes'])
    >>> fig, ax = plot_confusion_matrix(torch.tensor([[5, 1], [2, 7]]), normalize="true", title="cm")
    >>> ax.get_title()
    'cm\\nnormalized over the true class: rows sum to 1'
    """
    check_choice("color_scale", color_scale, ("linear", "log", "row"))
    matrix = _as_tensor(matrix)
    if matrix.ndim == 3:
        return _plot_confusion_grid(matrix, class_names, normalize, ax, title, add_text, cmap, color_scale)
    if matrix.ndim != 2:
        raise ValueError(
            f"Argument `matrix` must be 2-D or a stack of 2x2 matrices, got shape {tuple(matrix.shape)}"
        )
    values = normalize_confusion(matrix, normalize).double()
    rows, cols = values.shape
    square = rows == cols
    fig, ax = subplots(ax, figsize=(WIDTH, HEIGHT))
    y_names = _labels(rows, class_names)
    x_names = _labels(cols, class_names if square else None)
    longest = max(len(n) for n in x_names + y_names)
    # the heat-map's side in pixels once the labels (guessed at 11 px) and title have their room
    side_px = min(WIDTH * DPI - 90, HEIGHT * DPI - 70) - 6.8 * min(longest, 14)
    cell_px = side_px / max(rows, cols)
    label_px = max(min(13.0, 0.6 * cell_px), SMALLEST_LABEL_PX)
    every = max(1, math.ceil(label_px * 1.15 / cell_px))  # label every k-th class when they crowd

    array, norm, scale_label = _norm(values, color_scale)
    image = ax.imshow(array, cmap=_colormap(cmap), norm=norm, interpolation="nearest")
    _colour_bar(fig.colorbar(image, ax=ax, fraction=0.046, pad=0.03), color_scale, scale_label)
    ax.set_xticks(range(0, cols, every), x_names[::every], fontsize=points(label_px))
    ax.set_yticks(range(0, rows, every), y_names[::every], fontsize=points(label_px))
    wide = 0.6 * label_px * max(len(n) for n in x_names) > 0.9 * cell_px * every
    if wide:
        ax.tick_params(axis="x", labelrotation=90)
    ax.tick_params(length=2, pad=2)
    ax.set_xlabel("Predicted" if square else "column", fontsize=points(12), labelpad=2)
    ax.set_ylabel("True" if square else "row", fontsize=points(12), labelpad=2)
    engine = fig.get_layout_engine()
    if engine is not None and hasattr(engine, "set"):  # constrained layout: room for the y label at the edge
        engine.set(w_pad=6 / 72, h_pad=4 / 72)

    lines = [title] if title else []
    if normalize is not None:
        lines.append(NORMALIZED_OVER[normalize])
    texts = cell_texts(values, normalized=normalize is not None)
    font_px = _value_font_px(texts, cell_px)
    if add_text and font_px >= SMALLEST_VALUE_PX and rows * cols <= 4096:
        colours = image.cmap(image.norm(array))
        for r in range(rows):
            for c in range(cols):
                if texts[r][c]:
                    ax.text(
                        c,
                        r,
                        texts[r][c],
                        ha="center",
                        va="center",
                        fontsize=points(font_px),
                        color=ink_for(colours[r, c]),
                    )
    elif add_text:
        lines.append(f"{rows} x {cols}: too many cells to write the values (see the table)")
    if lines:
        ax.set_title("\n".join(lines), fontsize=points(13))
    return fig, ax


def _plot_confusion_grid(
    matrices: Tensor,
    names: Optional[Sequence[Any]],
    normalize: Optional[str],
    ax: Any,
    title: Optional[str],
    add_text: bool = True,
    cmap: Any = None,
    color_scale: str = "linear",
) -> tuple[Any, Any]:
    """One 2x2 panel per label on one colour scale, ticks ``neg``/``pos``, one colour bar."""
    count = matrices.shape[0]
    columns = math.ceil(math.sqrt(count))
    rows = -(-count // columns)
    if ax is None:
        fig, axes = subplots(None, rows, columns, figsize=(2.5 * columns + 0.8, 2.5 * rows + 0.5))
        flat = list(axes.flat) if hasattr(axes, "flat") else [axes]
    else:
        flat = list(ax.flat) if hasattr(ax, "flat") else list(ax)
        if len(flat) < count:
            raise ValueError(
                f"Argument `ax` must hold at least {count} axes for {count} labels, got {len(flat)}"
            )
        fig = flat[0].get_figure()
    values = normalize_confusion(matrices, normalize).double()
    _, norm, scale_label = _norm(values.reshape(-1, 2) if color_scale == "row" else values, color_scale)
    colormap = _colormap(cmap)
    image = None
    for i, (axis, label) in enumerate(zip(flat, _labels(count, names))):
        array, _, _ = _norm(values[i], color_scale)
        image = axis.imshow(array, cmap=colormap, norm=norm, interpolation="nearest")
        axis.set_xticks([0, 1], ["neg", "pos"], fontsize=points(11))
        axis.set_yticks([0, 1], ["neg", "pos"], fontsize=points(11))
        axis.tick_params(length=2, pad=2)
        axis.set_title(label, fontsize=points(13), pad=3)
        if i % columns == 0:
            axis.set_ylabel("True", fontsize=points(11), labelpad=1)
        if i + columns >= count:
            axis.set_xlabel("Predicted", fontsize=points(11), labelpad=1)
        if add_text:
            texts = cell_texts(values[i], normalized=normalize is not None)
            colours = image.cmap(image.norm(array))
            for r in range(2):
                for c in range(2):
                    if texts[r][c]:
                        axis.text(
                            c,
                            r,
                            texts[r][c],
                            ha="center",
                            va="center",
                            fontsize=points(15),
                            color=ink_for(colours[r, c]),
                        )
    for axis in flat[count:]:
        axis.set_visible(False)
    if image is not None and ax is None:
        _colour_bar(fig.colorbar(image, ax=flat[:count], fraction=0.03, pad=0.03), color_scale, scale_label)
    lines = [title] if title else []
    if normalize is not None:
        lines.append(NORMALIZED_OVER[normalize])
    if lines:
        fig.suptitle("\n".join(lines), fontsize=points(14))
    return fig, (ax if ax is not None else axes)
