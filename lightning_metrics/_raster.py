"""Images drawn by the package itself, for when matplotlib is not installed.

Logging a confusion matrix or a curve must not depend on an optional extra, so this module
draws plain RGB images (``(H, W, 3)`` uint8 tensors) with torch alone: heat-maps with a cell
grid and the values written in a 3x5 pixel digit font, bar charts, line charts and reliability
diagrams. No titles or axis labels: the tag names the image. :func:`encode_png` writes PNG bytes
with ``zlib`` when PIL is not there either.

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
from typing import Optional, Sequence

import torch
from torch import Tensor

WHITE, BLACK, GRID, FAINT = (255, 255, 255), (0, 0, 0), (64, 64, 64), (200, 200, 200)
# viridis at five stops: readable in grey scale and for colour-blind readers
_VIRIDIS = torch.tensor(
    [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]], dtype=torch.float32
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
# 3x5 glyphs, rows top to bottom: enough for counts, rates and nan/inf
_GLYPHS = {
    "0": "111101101101111",
    "1": "010110010010111",
    "2": "111001111100111",
    "3": "111001111001111",
    "4": "101101111001001",
    "5": "111100111001111",
    "6": "111100111101111",
    "7": "111001001001001",
    "8": "111101111101111",
    "9": "111101111001111",
    ".": "000000000000010",
    "-": "000000111000000",
    "+": "000010111010000",
    "e": "000111111100111",
    "n": "000110101101101",
    "a": "000011101101011",
    "i": "010000010010010",
    "f": "011010111010010",
}
_MARGIN = 8


def colormap(values: Tensor) -> Tensor:
    """Map values in [0, 1] (NaN as 0) to viridis RGB, shape ``(..., 3)`` uint8."""
    scaled = values.double().nan_to_num(0.0).clamp(0, 1) * (len(_VIRIDIS) - 1)
    low = scaled.floor().long().clamp(max=len(_VIRIDIS) - 2)
    frac = (scaled - low).unsqueeze(-1).float()
    return (_VIRIDIS[low] * (1 - frac) + _VIRIDIS[low + 1] * frac).round().to(torch.uint8)


def format_number(value: float) -> str:
    """Short text of a cell value: integers as they are, other values with 2 decimals or 2 digits."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "-inf" if value < 0 else "inf"
    if value == int(value) and abs(value) < 1e9:
        return str(int(value))
    return f"{value:.2f}" if 0.01 <= abs(value) < 1000 else f"{value:.1e}"


def text_width(text: str, scale: int) -> int:
    return (4 * len(text) - 1) * scale


def draw_text(image: Tensor, x: int, y: int, text: str, scale: int, color: Sequence[int]) -> None:
    """Write ``text`` with its top-left corner at (x, y); unknown characters leave a gap."""
    ink = torch.tensor(color, dtype=torch.uint8)
    for i, char in enumerate(text):
        glyph = _GLYPHS.get(char)
        if glyph is None:
            continue
        mask = torch.tensor([c == "1" for c in glyph]).reshape(5, 3)
        mask = mask.repeat_interleave(scale, 0).repeat_interleave(scale, 1)
        left = x + 4 * i * scale
        region = image[y : y + mask.shape[0], left : left + mask.shape[1]]
        region[mask[: region.shape[0], : region.shape[1]]] = ink


def _canvas(height: int, width: int) -> Tensor:
    return torch.full((height + 2 * _MARGIN, width + 2 * _MARGIN, 3), 255, dtype=torch.uint8)


def _frame(image: Tensor, color: Sequence[int] = GRID) -> None:
    ink = torch.tensor(color, dtype=torch.uint8)
    top, left, bottom, right = _MARGIN - 1, _MARGIN - 1, image.shape[0] - _MARGIN, image.shape[1] - _MARGIN
    image[top, left : right + 1] = ink
    image[bottom, left : right + 1] = ink
    image[top : bottom + 1, left] = ink
    image[top : bottom + 1, right] = ink


def heatmap(matrix: Tensor, max_side: int = 480, values: bool = True) -> Tensor:
    """A heat-map of a 2-D tensor with a cell grid and, where cells are large enough, the values."""
    matrix = torch.as_tensor(matrix).detach().cpu().double()
    rows, cols = matrix.shape
    cell = int(max(3, min(48, max_side // max(rows, cols, 1))))
    finite = matrix[torch.isfinite(matrix)]
    low, high = (finite.min(), finite.max()) if finite.numel() else (torch.tensor(0.0), torch.tensor(1.0))
    scaled = (matrix - low) / (high - low) if high > low else torch.full_like(matrix, 0.5)
    colors = colormap(scaled)
    body = colors.repeat_interleave(cell, 0).repeat_interleave(cell, 1)
    image = _canvas(rows * cell + 1, cols * cell + 1)
    image[_MARGIN : _MARGIN + rows * cell, _MARGIN : _MARGIN + cols * cell] = body
    grid = torch.tensor(GRID, dtype=torch.uint8)
    for r in range(rows + 1):
        image[_MARGIN + r * cell, _MARGIN : _MARGIN + cols * cell + 1] = grid
    for c in range(cols + 1):
        image[_MARGIN : _MARGIN + rows * cell + 1, _MARGIN + c * cell] = grid
    if values and cell >= 9:
        luminance = (colors.float() @ torch.tensor([0.299, 0.587, 0.114])) / 255
        for r in range(rows):
            for c in range(cols):
                text = format_number(float(matrix[r, c]))
                # the value fills at most ~70% of the cell's width and ~40% of its height
                scale = max(1, min(int(cell * 0.7) // text_width(text, 1), int(cell * 0.4) // 5))
                width = text_width(text, scale)
                if width > cell - 3:
                    continue
                x = _MARGIN + c * cell + (cell - width) // 2 + 1
                y = _MARGIN + r * cell + (cell - 5 * scale) // 2 + 1
                draw_text(image, x, y, text, scale, BLACK if luminance[r, c] > 0.5 else WHITE)
    return image


def heatmap_grid(matrices: Tensor, max_side: int = 600) -> Tensor:
    """Heat-maps of a stack ``(L, R, C)`` (e.g. multilabel 2x2 matrices) tiled in a square-ish grid."""
    matrices = torch.as_tensor(matrices).detach().cpu()
    count = matrices.shape[0]
    columns = math.ceil(math.sqrt(count))
    tile_side = max(24, max_side // max(columns, 1))
    tiles = [heatmap(m, max_side=tile_side) for m in matrices]
    height, width = max(t.shape[0] for t in tiles), max(t.shape[1] for t in tiles)
    rows = math.ceil(count / columns)
    image = torch.full((rows * height, columns * width, 3), 255, dtype=torch.uint8)
    for i, tile in enumerate(tiles):
        top, left = (i // columns) * height, (i % columns) * width
        image[top : top + tile.shape[0], left : left + tile.shape[1]] = tile
    return image


def bars(
    values: Tensor, lower: Optional[float] = None, upper: Optional[float] = None, height: int = 200
) -> Tensor:
    """A bar chart of a 1-D tensor (one bar per class), with a zero line; NaN bars are left empty."""
    values = torch.as_tensor(values).detach().cpu().double().flatten()
    count = max(values.numel(), 1)
    width = int(max(4, min(40, 480 // count)))
    finite = values[torch.isfinite(values)]
    low = min(
        [0.0] + ([float(finite.min())] if finite.numel() else []) + ([lower] if lower is not None else [])
    )
    high = max(
        [0.0] + ([float(finite.max())] if finite.numel() else []) + ([upper] if upper is not None else [])
    )
    high = high if high > low else low + 1.0
    image = _canvas(height, count * width)

    def row(v: float) -> int:
        return _MARGIN + int(round((high - v) / (high - low) * (height - 1)))

    zero = row(0.0)
    for i, value in enumerate(values.tolist()):
        if not math.isfinite(value):
            continue
        top, bottom = sorted((row(value), zero))
        left = _MARGIN + i * width + 1
        image[top : bottom + 1, left : left + max(width - 2, 1)] = torch.tensor(PALETTE[0], dtype=torch.uint8)
    image[zero, _MARGIN : _MARGIN + count * width] = torch.tensor(GRID, dtype=torch.uint8)
    _frame(image)
    return image


def _polyline(image: Tensor, xs: Tensor, ys: Tensor, color: Sequence[int], thickness: int = 2) -> None:
    """Draw connected segments through pixel coordinates (vectorised: one pass over all pixels)."""
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
    px, py = px.round().long(), py.round().long()
    ink = torch.tensor(color, dtype=torch.uint8)
    for ox in range(thickness):
        for oy in range(thickness):
            image[(py + oy).clamp(0, image.shape[0] - 1), (px + ox).clamp(0, image.shape[1] - 1)] = ink


def lines(
    curves: Sequence[tuple[Tensor, Tensor]],
    x_range: Optional[tuple[float, float]] = None,
    y_range: Optional[tuple[float, float]] = None,
    diagonal: bool = False,
    size: int = 256,
) -> Tensor:
    """A line chart of ``(x, y)`` pairs, one palette colour each, optionally with the y = x diagonal."""
    curves = [
        (torch.as_tensor(x).double().flatten(), torch.as_tensor(y).double().flatten()) for x, y in curves
    ]
    x_range = x_range or _extent([x for x, _ in curves])
    y_range = y_range or _extent([y for _, y in curves])
    image = _canvas(size, size)

    def to_pixels(x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
        px = _MARGIN + (x - x_range[0]) / (x_range[1] - x_range[0]) * (size - 1)
        py = _MARGIN + (y_range[1] - y) / (y_range[1] - y_range[0]) * (size - 1)
        return px, py

    if diagonal:
        low, high = max(x_range[0], y_range[0]), min(x_range[1], y_range[1])
        diag = torch.linspace(low, high, 2, dtype=torch.float64)
        _polyline(image, *to_pixels(diag, diag), color=FAINT, thickness=1)
    for i, (x, y) in enumerate(curves):
        keep = torch.isfinite(x) & torch.isfinite(y)
        _polyline(image, *to_pixels(x[keep], y[keep]), color=PALETTE[i % len(PALETTE)])
    _frame(image)
    return image


def reliability(confidence: Tensor, accuracy: Tensor, count: Tensor, size: int = 256) -> Tensor:
    """Reliability diagram: accuracy per confidence bin as bars over [0, 1], and the diagonal."""
    image = lines([], x_range=(0.0, 1.0), y_range=(0.0, 1.0), size=size)
    n_bins = max(int(torch.as_tensor(count).numel()), 1)
    width = size / n_bins
    for i, (acc, n) in enumerate(zip(torch.as_tensor(accuracy).tolist(), torch.as_tensor(count).tolist())):
        if n <= 0 or not math.isfinite(acc):
            continue
        left, right = _MARGIN + int(i * width) + 1, _MARGIN + int((i + 1) * width) - 1
        top = _MARGIN + int(round((1 - acc) * (size - 1)))
        image[top : _MARGIN + size, left : max(right, left + 1)] = torch.tensor(PALETTE[0], dtype=torch.uint8)
    diag = torch.linspace(0, 1, 2, dtype=torch.float64)
    px, py = _MARGIN + diag * (size - 1), _MARGIN + (1 - diag) * (size - 1)
    _polyline(image, px, py, color=PALETTE[3], thickness=1)
    _frame(image)
    return image


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
