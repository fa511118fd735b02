"""Images drawn by the package itself, for when matplotlib is not installed.

Logging a confusion matrix or a curve must not depend on an optional extra, so this module
draws the same figures as :mod:`.plotting` as plain RGB images (``(H, W, 3)`` uint8 tensors)
with torch alone, titles included (the tag and the epoch), in a 5x7 pixel font
(:mod:`._raster_font`), with the same rules: zero cells blank, shares never in scientific
notation and the normalization named, one colour scale for a multilabel grid with ``neg``/``pos``
ticks, the average precision (not a trapezoid) in a PR legend, PR curves stopped at full recall,
a log false-positive axis for ROC curves that are all good, a reliability diagram with the
confidence drawn apart from the accuracy and the samples per bin below it, bar values with one
number of decimals. :func:`encode_png` writes PNG bytes with ``zlib`` when PIL is not there either.

>>> import torch
>>> image = heatmap(torch.tensor([[5, 1], [0, 7]]))
>>> image.shape[2], image.dtype
(3, torch.uint8)
>>> encode_png(image)[:8]
b'\\x89PNG\\r\\n\\x1a\\n'
"""

from __future__ import annotations

import math
import struct
import zlib
from typing import Any, Optional, Sequence

import torch
from torch import Tensor

from lightning_metrics._plot_data import (
    NORMALIZED_OVER,
    _labels,
    color_levels,
    curve_lines,
    curve_scores,
    format_count,
    format_fraction,
    format_values,
    mean_score,
    normalize_confusion,
)
from lightning_metrics._raster_draw import (
    BLACK,
    BLUE,
    FAINT,
    GREY,
    GRID,
    LARGE,
    PALETTE,
    RED,
    Axes,
    canvas,
    colormap,
    draw_legend_rows,
    draw_title,
    fill,
    ink_on,
    legend,
    legend_rows,
    outline,
    polyline,
    text,
    title_band,
    vertical_text,
)
from lightning_metrics._raster_font import text_height, text_width

UNIT_TICKS = (0.0, 0.5, 1.0)
HIGH_AUC = 0.95  # as in the matplotlib drawing: every ROC AUC at least this good -> log FPR axis
MIN_WIDTH = 420  # room for a title and its epoch in large text


def format_number(value: float) -> str:
    """Short text of a cell value (see :func:`~lightning_metrics._plot_data.format_count`)."""
    return format_count(value)


# ------------------------------------------------------------- heat-maps
def _cell_scale(texts: Sequence[str], cell: int) -> int:
    """The largest text scale (2, 1) at which every value fits its cell; 0 when none does."""
    longest = max((len(t) for t in texts), default=1)
    for scale in (LARGE, 1):
        if text_width("8" * longest, scale) <= cell - 4 and text_height(scale) <= cell * 0.7:
            return scale
    return 0


def _draw_cells(
    image: Tensor, top: int, left: int, cell: int, levels: Tensor, texts: list[list[str]]
) -> bool:
    """Colour the cells, grid them and write their values; False when the values did not fit."""
    rows, cols = levels.shape
    colours = colormap(levels)
    body = colours.repeat_interleave(cell, 0).repeat_interleave(cell, 1)
    image[top : top + rows * cell, left : left + cols * cell] = body
    for r in range(rows + 1):
        fill(image, top + r * cell, left, top + r * cell, left + cols * cell, FAINT)
    for c in range(cols + 1):
        fill(image, top, left + c * cell, top + rows * cell, left + c * cell, FAINT)
    scale = _cell_scale([t for row in texts for t in row], cell)
    if scale == 0:
        return False
    for r in range(rows):
        for c in range(cols):
            if texts[r][c]:
                y = top + r * cell + (cell - text_height(scale)) // 2 + 1
                text(
                    image,
                    left + c * cell + cell // 2 + 1,
                    y,
                    texts[r][c],
                    scale,
                    ink_on(colours[r, c]),
                    align="center",
                )
    return True


def _cell_texts(values: Tensor, normalized: bool) -> list[list[str]]:
    fmt = format_fraction if normalized else format_count
    return [["" if v == 0 else fmt(v) for v in row] for row in values.double().tolist()]


def heatmap(
    matrix: Tensor,
    max_side: int = 420,
    values: bool = True,
    normalized: bool = False,
    color_scale: str = "linear",
    names: Optional[Sequence[Any]] = None,
    title_lines: Sequence[str] = (),
) -> Tensor:
    """A heat-map of a 2-D tensor: white zero cells, the values where they fit, the names on the
    axes (true down, predicted across) and the title lines on top."""
    matrix = torch.as_tensor(matrix).detach().cpu().double()
    rows, cols = matrix.shape
    square = rows == cols
    y_names = _labels(rows, names)
    x_names = _labels(cols, names if square else None)
    cell = int(max(3, min(64, max_side // max(rows, cols, 1))))
    label_room = min(max(len(n) for n in x_names + y_names), 8) * 12 + 12
    show_names = cell >= text_height(LARGE) + 1
    margin_left = 22 + (label_room if show_names else 0)
    margin_bottom = 24 + (label_room if show_names else 0)
    width = max(margin_left + cols * cell + 12, MIN_WIDTH)
    texts = _cell_texts(matrix, normalized)
    lines = list(title_lines)
    levels = color_levels(matrix, color_scale)
    fits = values and _cell_scale([t for row in texts for t in row], cell) > 0
    if values and not fits:
        lines.append(f"{rows} x {cols}: too many cells to write the values")
    if color_scale != "linear":
        lines.append("colour: " + ("log scale" if color_scale == "log" else "share of the row"))
    placed, band = title_band(width, lines)
    image = canvas(band + rows * cell + margin_bottom + 1, width)
    draw_title(image, placed)
    top, left = band, margin_left
    _draw_cells(image, top, left, cell, levels, texts if fits else [[""] * cols for _ in range(rows)])
    if show_names:
        for r, name in enumerate(y_names):
            text(
                image,
                left - 6,
                top + r * cell + (cell - text_height(LARGE)) // 2 + 1,
                name,
                align="right",
                max_width=label_room - 8,
            )
        for c, name in enumerate(x_names):
            vertical_text(
                image,
                left + c * cell + (cell - text_height(LARGE)) // 2 + 1,
                top + rows * cell + 6,
                name,
                align="top",
                max_height=label_room - 8,
            )
    bottom = top + rows * cell
    text(
        image,
        left + cols * cell // 2,
        image.shape[0] - text_height(LARGE) - 4,
        "predicted" if square else "column",
        align="center",
    )
    vertical_text(image, 3, top + rows * cell // 2, "true" if square else "row", align="center")
    outline(image, top, left, bottom, left + cols * cell, GRID)
    return image


def heatmap_grid(
    matrices: Tensor,
    max_side: int = 600,
    normalized: bool = False,
    color_scale: str = "linear",
    names: Optional[Sequence[Any]] = None,
    title_lines: Sequence[str] = (),
) -> Tensor:
    """2x2 heat-maps of a stack ``(L, 2, 2)`` (multilabel) on one colour scale, ``neg``/``pos``
    ticks, each titled with its label, tiled in a square-ish grid under the title."""
    matrices = torch.as_tensor(matrices).detach().cpu().double()
    count = matrices.shape[0]
    columns = math.ceil(math.sqrt(count))
    rows = math.ceil(count / columns)
    cell = max(24, min(64, (max_side // columns - 70) // 2))
    levels = color_levels(matrices, color_scale)  # one scale for every panel
    tile_w, tile_h = 2 * cell + 70, 2 * cell + 70
    width = max(columns * tile_w + 10, MIN_WIDTH)
    placed, band = title_band(width, title_lines)
    image = canvas(band + rows * tile_h + 10, width)
    draw_title(image, placed)
    for i, label in enumerate(_labels(count, names)):
        top = band + (i // columns) * tile_h
        left = 10 + (i % columns) * tile_w + 48
        text(image, left + cell, top, label, align="center", max_width=tile_w - 8)
        grid_top = top + text_height(LARGE) + 6
        _draw_cells(image, grid_top, left, cell, levels[i], _cell_texts(matrices[i], normalized))
        outline(image, grid_top, left, grid_top + 2 * cell, left + 2 * cell, GRID)
        for k, tick in enumerate(("neg", "pos")):
            text(image, left - 5, grid_top + k * cell + (cell - text_height(LARGE)) // 2, tick, align="right")
            text(image, left + k * cell + cell // 2, grid_top + 2 * cell + 5, tick, align="center")
    return image


def confusion_image(
    matrix: Tensor,
    names: Optional[Sequence[Any]] = None,
    normalize: Optional[str] = None,
    title: Optional[str] = None,
    color_scale: str = "linear",
) -> Tensor:
    """A confusion matrix (or a multilabel stack) as :func:`heatmap`/:func:`heatmap_grid` draw it."""
    values = normalize_confusion(matrix, normalize)
    lines = ([title] if title else []) + ([NORMALIZED_OVER[normalize]] if normalize else [])
    draw = heatmap_grid if values.ndim == 3 else heatmap
    return draw(
        values, normalized=normalize is not None, color_scale=color_scale, names=names, title_lines=lines
    )


# ------------------------------------------------------------------ bars
def bars(
    values: Tensor,
    lower: Optional[float] = None,
    upper: Optional[float] = None,
    height: int = 220,
    title: Optional[str] = None,
    names: Optional[Sequence[Any]] = None,
    y_label: str = "",
) -> Tensor:
    """A bar chart of a 1-D tensor (one bar per class) with its values (one number of decimals),
    the names below and the title on top; NaN bars are left empty."""
    values = torch.as_tensor(values).detach().cpu().double().flatten()
    count = max(values.numel(), 1)
    pitch = int(max(12, min(64, 560 // count)))
    labels = _labels(values.numel(), names)
    finite = values[torch.isfinite(values)]
    low = min(
        [0.0] + ([float(finite.min())] if finite.numel() else []) + ([lower] if lower is not None else [])
    )
    high = max(
        [0.0] + ([float(finite.max())] if finite.numel() else []) + ([upper] if upper is not None else [])
    )
    high = high if high > low else low + 1.0
    label_room = min(max(len(n) for n in labels), 8) * 12 + 10
    width = max(60 + count * pitch + 12, 300)
    placed, band = title_band(width, [title] if title else [])
    room = 30  # above the tallest bar, for its value
    image = canvas(band + room + height + label_room + 8, width)
    draw_title(image, placed)
    axes = Axes(
        left=60,
        top=band + room,
        width=count * pitch,
        height=height,
        x_range=(0.0, float(count)),
        y_range=(low, high),
    )
    axes.frame(image, y_ticks=_ticks((low, high)), y_label=y_label)
    zero = int(round(float(axes.py(torch.tensor([0.0]))[0])))
    texts = format_values(values.tolist())
    for i, value in enumerate(values.tolist()):
        left = axes.left + i * pitch + 2
        if math.isfinite(value):
            top = int(round(float(axes.py(torch.tensor([value]))[0])))
            fill(image, min(top, zero), left, max(top, zero), left + pitch - 4, BLUE)
            label_top = min(top, zero) - 4
            if text_width(texts[i], LARGE) <= pitch - 8:
                text(image, left + pitch // 2 - 2, label_top - text_height(LARGE), texts[i], align="center")
            elif (
                text_height(LARGE) <= pitch - 4 and text_width(texts[i], LARGE) <= room + (top - axes.top) - 4
            ):
                vertical_text(image, left + (pitch - 4 - text_height(LARGE)) // 2, label_top, texts[i])
        if text_height(LARGE) <= pitch - 2:
            vertical_text(
                image,
                left + (pitch - 4 - text_height(LARGE)) // 2,
                axes.top + height + 4,
                labels[i],
                max_height=label_room - 8,
                align="top",
            )
    return image


# ------------------------------------------------------------- line charts
def _extent(values: Sequence[Tensor]) -> tuple[float, float]:
    finite = [v[torch.isfinite(v)] for v in values]
    finite = [v for v in finite if v.numel()]
    if not finite:
        return 0.0, 1.0
    low = min(float(v.min()) for v in finite)
    high = max(float(v.max()) for v in finite)
    if high <= low:
        return low - 0.5, high + 0.5
    pad = (high - low) * 0.05
    return low - pad, high + pad


def _chart(
    width: int, height: int, title: Optional[str], x_range: tuple, y_range: tuple, x_log: bool = False
) -> tuple[Tensor, Axes]:
    placed, band = title_band(width, [title] if title else [])
    image = canvas(band + height + 54, width)
    draw_title(image, placed)
    return image, Axes(
        left=64,
        top=band + 4,
        width=width - 64 - 14,
        height=height,
        x_range=x_range,
        y_range=y_range,
        x_log=x_log,
    )


def lines(
    curves: Sequence[tuple[Tensor, Tensor]],
    x_range: Optional[tuple[float, float]] = None,
    y_range: Optional[tuple[float, float]] = None,
    diagonal: bool = False,
    size: int = 340,
    title: Optional[str] = None,
    labels: Optional[Sequence[str]] = None,
) -> Tensor:
    """A line chart of ``(x, y)`` pairs, one palette colour each, with ticks, an optional legend
    and the y = x diagonal."""
    curves = [
        (torch.as_tensor(x).double().flatten(), torch.as_tensor(y).double().flatten()) for x, y in curves
    ]
    x_range = x_range or _extent([x for x, _ in curves])
    y_range = y_range or _extent([y for _, y in curves])
    image, axes = _chart(size + 78, size, title, x_range, y_range)
    axes.frame(image, x_ticks=_ticks(x_range), y_ticks=_ticks(y_range))
    if diagonal:
        line = torch.tensor([max(x_range[0], y_range[0]), min(x_range[1], y_range[1])], dtype=torch.float64)
        polyline(image, axes.px(line), axes.py(line), GREY, thickness=1, dash=4)
    for i, (x, y) in enumerate(curves):
        keep = torch.isfinite(x) & torch.isfinite(y)
        polyline(image, axes.px(x[keep]), axes.py(y[keep]), PALETTE[i % len(PALETTE)])
    if labels:
        legend(
            image,
            axes.left + 8,
            axes.top + 8,
            [(s, PALETTE[i % len(PALETTE)], "line") for i, s in enumerate(labels)],
        )
    return image


def _ticks(extent: tuple[float, float]) -> list[float]:
    low, high = extent
    if low >= -0.1 and high <= 1.1:
        return [t for t in UNIT_TICKS if low <= t <= high]
    step = 10 ** math.floor(math.log10((high - low) / 2 or 1.0))
    first = math.ceil(low / step) * step
    return [first + k * step for k in range(int((high - first) / step) + 1)][:6]


def _steps(x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    """The points of a step curve that holds each y over the interval to its left."""
    if x.numel() < 2:
        return x, y
    xs = torch.stack([x[:-1], x[1:]], dim=1).flatten()
    ys = torch.stack([y[1:], y[1:]], dim=1).flatten()
    return torch.cat([x[:1], xs]), torch.cat([y[:1], ys])


def curves_image(
    value: Any,
    kind: Optional[str] = None,
    names: Optional[Sequence[Any]] = None,
    title: Optional[str] = None,
    x_scale: str = "auto",
    size: int = 340,
) -> Tensor:
    """ROC, precision-recall or generic curves as :func:`~lightning_metrics.plotting.plot_curves`
    draws them: AP or AUC per class in the legend (and the macro mean), PR as steps up to full
    recall, ROC on a log false-positive axis when every AUC is high."""
    curves = curve_lines(value, kind)
    scores = curve_scores(value, kind)
    finite = [s for s in scores if s == s]
    x_log = kind == "roc" and (x_scale == "log" or (x_scale == "auto" and finite and min(finite) >= HIGH_AUC))
    score_name = "AP" if kind == "pr" else "AUC"
    if len(curves) == 1:
        entries = [f"{score_name}={scores[0]:.3f}"]
    else:
        entries = [f"{label} {s:.3f}" for label, s in zip(_labels(len(curves), names), scores)]
    header = None if len(curves) == 1 else f"{score_name} (macro {mean_score(scores):.3f})"
    if kind is None:
        return lines(curves, title=title, labels=entries, size=size)
    floor = 1.0
    if x_log:
        positive = [x[x > 0] for x, _ in curves]
        floor = max(min((float(p.min()) for p in positive if p.numel()), default=2e-3) / 2, 1e-4)
        floor = 10 ** math.floor(math.log10(floor))
    x_range = (floor, 1.0) if x_log else (0.0, 1.0)
    image, axes = _chart(size + 78, size, title, x_range, (0.0, 1.0), x_log=x_log)
    x_ticks = [10.0**k for k in range(int(round(math.log10(floor))), 1)] if x_log else UNIT_TICKS
    x_label = {"roc": "false positive rate" + (" (log)" if x_log else ""), "pr": "recall"}[kind]
    axes.frame(
        image,
        x_ticks=x_ticks,
        y_ticks=UNIT_TICKS,
        x_label=x_label,
        y_label="true positive rate" if kind == "roc" else "precision",
    )
    if kind == "roc":
        chance = (
            torch.logspace(math.log10(floor), 0, 40, dtype=torch.float64)
            if x_log
            else torch.tensor([0.0, 1.0])
        )
        polyline(image, axes.px(chance), axes.py(chance), GREY, thickness=1, dash=4)
    for i, (x, y) in enumerate(curves):
        if kind == "pr":
            x, y = _steps(x, y)
        polyline(image, axes.px(x), axes.py(y), PALETTE[i % len(PALETTE)])
    marks = [(s, PALETTE[i % len(PALETTE)], "line") for i, s in enumerate(entries)][:12]
    row = text_height(LARGE) + 4
    box_height = row * (len(marks) + (header is not None)) + 6
    legend(
        image,
        axes.left + (axes.width // 3 if kind == "roc" else 8),
        axes.top + axes.height - box_height - 8,
        marks,
        header=header,
        max_width=axes.width - 16,
    )
    return image


# ------------------------------------------------------------ reliability
def reliability(
    confidence: Tensor, accuracy: Tensor, count: Tensor, size: int = 340, title: Optional[str] = None
) -> Tensor:
    """Reliability diagram: accuracy bars, the mean confidence as a black tick, the gap as a red
    outline, the diagonal, and the samples per bin as a histogram below."""
    confidence, accuracy, count = (
        torch.as_tensor(b).detach().cpu().double().flatten() for b in (confidence, accuracy, count)
    )
    total = count.sum()
    ece = float((count * (accuracy - confidence).abs()).sum() / total) if total > 0 else float("nan")
    heading = f"{title} · ECE={ece:.4f}" if title else f"ECE={ece:.4f}"
    width = size + 78
    placed, band = title_band(width, [heading])
    keys = legend_rows(
        width - 20,
        [
            ("accuracy", BLUE, "box"),
            ("mean confidence", BLACK, "line"),
            ("gap", RED, "outline"),
            ("perfectly calibrated", GREY, "dash"),
        ],
    )
    keys_height = len(keys) * (text_height(LARGE) + 6) + 6
    hist_height = 80
    image = canvas(band + keys_height + size + 16 + hist_height + 54, width)
    draw_title(image, placed)
    draw_legend_rows(image, 12, band, keys)  # above the diagram: it never hides a bar
    top = Axes(
        left=64, top=band + keys_height + 4, width=size, height=size, x_range=(0.0, 1.0), y_range=(0.0, 1.0)
    )
    n_bins = max(count.numel(), 1)
    pitch = top.width / n_bins
    for i in range(count.numel()):
        n, acc, conf = float(count[i]), float(accuracy[i]), float(confidence[i])
        if n <= 0:
            continue
        left, right = int(top.left + i * pitch) + 1, int(top.left + (i + 1) * pitch) - 1
        y_acc = int(round(float(top.py(torch.tensor([acc]))[0])))
        y_conf = int(round(float(top.py(torch.tensor([conf]))[0])))
        fill(image, y_acc, left, top.top + top.height - 1, right, BLUE)
        low, high = sorted((y_acc, y_conf))
        outline(image, low, left + 1, high, right - 1, RED, thickness=2)
        fill(image, y_conf - 1, left + 2, y_conf + 1, right - 2, BLACK)
    polyline(
        image, top.px(torch.tensor([0.0, 1.0])), top.py(torch.tensor([0.0, 1.0])), GREY, thickness=1, dash=4
    )
    top.frame(image, y_ticks=UNIT_TICKS, y_label="accuracy", grid=False)
    highest = max(float(count.max()) if count.numel() else 1.0, 1.0)
    below = Axes(
        left=64,
        top=top.top + top.height + 16,
        width=size,
        height=hist_height,
        x_range=(0.0, 1.0),
        y_range=(0.0, highest * 1.5),
    )
    for i in range(count.numel()):
        n = float(count[i])
        left, right = int(below.left + i * pitch) + 2, int(below.left + (i + 1) * pitch) - 2
        if n > 0:
            y = int(round(float(below.py(torch.tensor([n]))[0])))
            fill(image, y, left, below.top + below.height - 1, right, GREY)
            label = str(int(n))
            scale = LARGE if text_width(label, LARGE) <= right - left + 4 else 1
            text(image, (left + right) // 2, y - text_height(scale) - 2, label, scale, align="center")
    below.frame(image, x_ticks=UNIT_TICKS, x_label="confidence", grid=False)
    text(image, below.left + 4, below.top + 3, "samples per bin", 1, GRID)
    return image


# -------------------------------------------------------------------- png
def encode_png(image: Tensor) -> bytes:
    """PNG bytes of an ``(H, W, 3)`` uint8 image (no dependency beyond zlib).

    >>> import torch
    >>> data = encode_png(torch.zeros(2, 3, 3, dtype=torch.uint8))
    >>> data[12:16], int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    (b'IHDR', 3, 2)
    """
    pixels = torch.as_tensor(image).detach().cpu().to(torch.uint8).contiguous()
    if pixels.ndim != 3 or pixels.shape[2] != 3:
        raise ValueError(f"Argument `image` must have shape (H, W, 3), got {tuple(pixels.shape)}")
    height, width, _ = pixels.shape
    # each scanline starts with filter type 0 (none)
    rows = torch.cat([torch.zeros(height, 1, dtype=torch.uint8), pixels.reshape(height, width * 3)], dim=1)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows.numpy().tobytes(), 6))
        + chunk(b"IEND", b"")
    )
