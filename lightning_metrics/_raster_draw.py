"""Drawing primitives of the package's own renderer: canvas, colours, boxes, lines, text, axes.

Everything is a torch ``(H, W, 3)`` uint8 image drawn in place; coordinates are pixels, rows
down. Text is the 5x7 font of :mod:`._raster_font` at an integer scale (2 for anything a reader
must read once TensorBoard shrinks the image into its card).

>>> import torch
>>> image = canvas(40, 60)
>>> axes = Axes(left=10, top=5, width=40, height=30, x_range=(0.0, 1.0), y_range=(0.0, 1.0))
>>> int(axes.px(torch.tensor([0.5]))[0]), int(axes.py(torch.tensor([1.0]))[0])
(29, 5)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence

import torch
from torch import Tensor

from lightning_metrics._raster_font import draw_text, draw_text_vertical, fit_text, text_height, text_width

WHITE, BLACK, GRID, FAINT, GREY = (255, 255, 255), (0, 0, 0), (64, 64, 64), (200, 200, 200), (150, 150, 150)
BLUE, RED = (31, 119, 180), (214, 39, 40)
# viridis at nine stops: readable in grey scale and for colour-blind readers
_VIRIDIS = torch.tensor(
    [
        [68, 1, 84],
        [71, 44, 122],
        [59, 81, 139],
        [44, 113, 142],
        [33, 144, 141],
        [39, 173, 129],
        [92, 200, 99],
        [170, 220, 50],
        [253, 231, 37],
    ],
    dtype=torch.float32,
)
# matplotlib's "tab10" colours, one per curve or class
PALETTE = [
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
]
LARGE = 2  # text scale of titles, labels and legends: 14 px tall


def colormap(levels: Tensor) -> Tensor:
    """Map levels in [0, 1] to viridis RGB ``(..., 3)`` uint8; NaN (a blank cell) is white."""
    levels = levels.double()
    scaled = levels.nan_to_num(0.0).clamp(0, 1) * (len(_VIRIDIS) - 1)
    low = scaled.floor().long().clamp(max=len(_VIRIDIS) - 2)
    frac = (scaled - low).unsqueeze(-1).float()
    colours = (_VIRIDIS[low] * (1 - frac) + _VIRIDIS[low + 1] * frac).round().to(torch.uint8)
    colours[torch.isnan(levels)] = torch.tensor(WHITE, dtype=torch.uint8)
    return colours


def ink_on(colour: Tensor) -> tuple:
    """Black or white text, whichever reads better on ``colour``."""
    luminance = float(colour.float() @ torch.tensor([0.299, 0.587, 0.114])) / 255
    return BLACK if luminance > 0.5 else WHITE


def canvas(height: int, width: int) -> Tensor:
    return torch.full((int(height), int(width), 3), 255, dtype=torch.uint8)


def fill(image: Tensor, top: int, left: int, bottom: int, right: int, colour: Sequence[int]) -> None:
    """Fill rows ``top..bottom`` and columns ``left..right`` (inclusive), clipped to the image."""
    top, left = max(int(top), 0), max(int(left), 0)
    bottom, right = min(int(bottom), image.shape[0] - 1), min(int(right), image.shape[1] - 1)
    if bottom >= top and right >= left:
        image[top : bottom + 1, left : right + 1] = torch.tensor(colour, dtype=torch.uint8)


def outline(
    image: Tensor, top: int, left: int, bottom: int, right: int, colour: Sequence[int], thickness: int = 1
) -> None:
    for t in range(thickness):
        fill(image, top + t, left, top + t, right, colour)
        fill(image, bottom - t, left, bottom - t, right, colour)
        fill(image, top, left + t, bottom, left + t, colour)
        fill(image, top, right - t, bottom, right - t, colour)


def polyline(
    image: Tensor, xs: Tensor, ys: Tensor, colour: Sequence[int], thickness: int = 2, dash: int = 0
) -> None:
    """Connected segments through pixel coordinates (vectorised); ``dash`` > 0 draws that many
    pixels on, then as many off."""
    xs, ys = torch.as_tensor(xs).double().flatten(), torch.as_tensor(ys).double().flatten()
    if xs.numel() == 0:
        return
    if xs.numel() > 1:
        x0, y0, dx, dy = xs[:-1], ys[:-1], xs[1:] - xs[:-1], ys[1:] - ys[:-1]
        steps = torch.maximum(dx.abs(), dy.abs()).ceil().long().clamp(min=1)
        segment = torch.repeat_interleave(torch.arange(steps.numel()), steps)
        start = torch.cumsum(steps, 0) - steps
        t = (torch.arange(segment.numel()) - start[segment]).double() / steps[segment]
        px = torch.cat([x0[segment] + dx[segment] * t, xs[-1:]])
        py = torch.cat([y0[segment] + dy[segment] * t, ys[-1:]])
    else:
        px, py = xs, ys
    if dash > 0:
        keep = (torch.arange(px.numel()) // dash) % 2 == 0
        px, py = px[keep], py[keep]
    px, py = px.round().long(), py.round().long()
    ink = torch.tensor(colour, dtype=torch.uint8)
    for ox in range(thickness):
        for oy in range(thickness):
            x, y = px + ox - thickness // 2, py + oy - thickness // 2
            inside = (x >= 0) & (x < image.shape[1]) & (y >= 0) & (y < image.shape[0])
            image[y[inside], x[inside]] = ink


def text(
    image: Tensor,
    x: int,
    y: int,
    label: str,
    scale: int = LARGE,
    colour: Sequence[int] = BLACK,
    align: str = "left",
    max_width: Optional[int] = None,
) -> int:
    """Write ``label`` with its top at ``y``, its left, centre or right at ``x``; returns its width."""
    label, left, width = _placed(label, x, scale, align, max_width, ("left", "center", "right"))
    draw_text(image, left, int(y), label, scale, colour)
    return width


def vertical_text(
    image: Tensor,
    x: int,
    y: int,
    label: str,
    scale: int = LARGE,
    colour: Sequence[int] = BLACK,
    align: str = "top",
    max_height: Optional[int] = None,
) -> None:
    """Write ``label`` read bottom to top, its left at ``x``; ``align="top"`` puts its end at
    ``y``, ``"center"`` its middle, ``"bottom"`` its start."""
    label, top, _ = _placed(label, y, scale, align, max_height, ("top", "center", "bottom"))
    draw_text_vertical(image, int(x), top, label, scale, colour)


def _placed(
    label: str, at: int, scale: int, align: str, room: int | None, names: tuple[str, str, str]
) -> tuple[str, int, int]:
    """``label`` shortened to ``room`` (if given), where it starts along its line of writing when
    ``at`` is its start, middle or end (``align`` one of ``names``, in that order), and its length."""
    if room is not None:
        label = fit_text(label, room, scale)
    length = text_width(label, scale)
    start = {names[0]: at, names[1]: at - length // 2, names[2]: at - length}[align]
    return label, int(start), length


def _wrap(line: str, width: int, scale: int) -> list[str]:
    """``line`` broken at its " · " separators, else after a colon, else at spaces, into lines
    that fit ``width``.

    >>> _wrap("normalized over the true class: rows sum to 1", 400, 2)
    ['normalized over the true class:', 'rows sum to 1']
    """
    if text_width(line, scale) <= width:
        return [line]
    for separator, keep in ((" · ", ""), (": ", ":"), (" ", "")):
        parts = line.split(separator)
        if len(parts) > 1:
            parts = [p + keep for p in parts[:-1]] + parts[-1:]
            joiner = " " if keep else separator
            out, current = [], parts[0]
            for part in parts[1:]:
                joined = current + joiner + part
                if text_width(joined, scale) <= width:
                    current = joined
                else:
                    out.append(current)
                    current = part
            out.append(current)
            if all(text_width(o, scale) <= width for o in out):
                return out
    return [line]


def title_band(width: int, lines: Sequence[str]) -> tuple[list[tuple[str, int]], int]:
    """The title lines (wrapped at " · " to stay large, else small) with their scale, and the
    height of the band they take."""
    placed, height = [], 6
    for line in lines:
        wrapped = _wrap(line, width - 12, LARGE)
        scale = LARGE if all(text_width(w, LARGE) <= width - 12 for w in wrapped) else 1
        for part in wrapped if scale == LARGE else [line]:
            placed.append((part, scale))
            height += text_height(scale) + 5
    return placed, height + (4 if lines else 0)


def draw_title(image: Tensor, placed: Sequence[tuple[str, int]]) -> None:
    y = 6
    for line, scale in placed:
        text(image, image.shape[1] // 2, y, line, scale, align="center", max_width=image.shape[1] - 8)
        y += text_height(scale) + 5


def tick_text(value: float) -> str:
    """Short tick labels: ``0``, ``.5``, ``1``, ``0.001``, ``250``."""
    if value == int(value) and abs(value) < 1e6:
        return str(int(value))
    if abs(value) < 0.01:
        return f"{value:.0e}".replace("e-0", "e-")
    text_ = f"{value:.3g}"
    return text_[1:] if text_.startswith("0.") else text_


@dataclass
class Axes:
    """A plot area in an image and the data ranges it maps (optionally a log x axis)."""

    left: int
    top: int
    width: int
    height: int
    x_range: tuple
    y_range: tuple
    x_log: bool = False

    def px(self, x: Tensor) -> Tensor:
        x = torch.as_tensor(x).double()
        low, high = self.x_range
        if self.x_log:
            x, low, high = x.clamp(min=low).log10(), math.log10(low), math.log10(high)
        return self.left + (x - low) / (high - low) * (self.width - 1)

    def py(self, y: Tensor) -> Tensor:
        low, high = self.y_range
        return self.top + (high - torch.as_tensor(y).double()) / (high - low) * (self.height - 1)

    def frame(
        self,
        image: Tensor,
        x_ticks: Sequence[float] = (),
        y_ticks: Sequence[float] = (),
        x_label: str = "",
        y_label: str = "",
        grid: bool = True,
    ) -> None:
        """The box, light grid lines and labelled ticks (large text) left and below."""
        right, bottom = self.left + self.width - 1, self.top + self.height - 1
        for value in x_ticks:
            x = int(round(float(self.px(torch.tensor([value]))[0])))
            if grid:
                fill(image, self.top, x, bottom, x, (232, 232, 232))
            fill(image, bottom, x, bottom + 4, x, GRID)
            text(image, x, bottom + 7, tick_text(value), align="center")
        for value in y_ticks:
            y = int(round(float(self.py(torch.tensor([value]))[0])))
            if grid:
                fill(image, y, self.left, y, right, (232, 232, 232))
            fill(image, y, self.left - 4, y, self.left, GRID)
            text(image, self.left - 7, y - text_height(LARGE) // 2, tick_text(value), align="right")
        outline(image, self.top, self.left, bottom, right, GRID)
        if x_label:
            text(
                image,
                self.left + self.width // 2,
                bottom + 7 + text_height(LARGE) + 5,
                x_label,
                align="center",
                max_width=self.width,
            )
        if y_label:
            vertical_text(
                image, 4, self.top + self.height // 2, y_label, align="center", max_height=self.height
            )


def _mark(image: Tensor, left: int, y: int, colour: Sequence[int], mark: str) -> None:
    """The legend's sample of a line (``"line"``, ``"dash"``), a filled or an outlined box."""
    bottom, middle = y + text_height(LARGE) - 1, y + text_height(LARGE) // 2
    if mark == "box":
        fill(image, y + 1, left, bottom, left + 18, colour)
    elif mark == "outline":
        outline(image, y + 1, left, bottom, left + 18, colour, thickness=2)
    else:
        fill(image, middle - 1, left, middle + 1, left + 18, colour)
        if mark == "dash":
            fill(image, middle - 1, left + 6, middle + 1, left + 11, WHITE)


def legend(
    image: Tensor,
    left: int,
    top: int,
    entries: Sequence[tuple[str, Sequence[int], str]],
    header: Optional[str] = None,
    max_width: int = 10**6,
) -> None:
    """A boxed legend at (left, top): (label, colour, ``"line"``/``"box"``/``"outline"``/``"dash"``)."""
    row = text_height(LARGE) + 4
    lines = ([header] if header else []) + [e[0] for e in entries]
    width = min(max(text_width(s, LARGE) for s in lines) + 34, max_width)
    height = row * len(lines) + 6
    fill(image, top, left, top + height, left + width, WHITE)
    outline(image, top, left, top + height, left + width, FAINT)
    y = top + 4
    if header:
        text(image, left + 6, y, header, max_width=width - 10)
        y += row
    for label, colour, mark in entries:
        _mark(image, left + 6, y, colour, mark)
        text(image, left + 30, y, label, max_width=width - 34)
        y += row


def legend_rows(width: int, entries: Sequence[tuple[str, Sequence[int], str]]) -> list[list[tuple]]:
    """The entries of a legend laid out in rows across ``width`` pixels (a band above a chart)."""
    rows: list[list[tuple]] = [[]]
    used = 0
    for entry in entries:
        size = text_width(entry[0], LARGE) + 40
        if rows[-1] and used + size > width:
            rows.append([])
            used = 0
        rows[-1].append(entry)
        used += size
    return rows


def draw_legend_rows(image: Tensor, left: int, top: int, rows: Sequence[Sequence[tuple]]) -> None:
    y = top
    for row in rows:
        x = left
        for label, colour, mark in row:
            _mark(image, x, y, colour, mark)
            x += 24 + text(image, x + 24, y, label) + 16
        y += text_height(LARGE) + 6
