"""A 5x7 bitmap font for the package's own images (titles, axis labels, legends, cell values).

The raster fallback (:mod:`._raster`) must write titles such as ``"val/confmat · epoch 3"``
without matplotlib or PIL, so the printable ASCII characters are drawn here from 5x7 glyphs in
the style of the classic LCD character ROMs. A glyph is seven hex bytes, the rows top to
bottom, bit 4 the leftmost pixel; a character advances 6 pixels (one blank column) at scale 1.

>>> import torch
>>> image = torch.full((9, 20, 3), 255, dtype=torch.uint8)
>>> text_width("Hi", 1), text_height(1)
(11, 7)
>>> draw_text(image, 1, 1, "Hi", 1, (0, 0, 0))
>>> int((image[..., 0] == 0).sum())  # inked pixels: H has 17, i has 9
26
"""

from __future__ import annotations

from typing import Sequence

import torch
from torch import Tensor

# fmt: off
_HEX = {
    " ": "00000000000000", "!": "04040404000004", '"': "0A0A0A00000000", "#": "0A0A1F0A1F0A0A",
    "$": "040F140E051E04", "%": "18190204081303", "&": "0C121408151209", "'": "0C040800000000",
    "(": "02040808080402", ")": "08040202020408", "*": "0004150E150400", "+": "0004041F040400",
    ",": "000000000C0408", "-": "0000001F000000", ".": "00000000000C0C", "/": "00010204081000",
    "0": "0E11131519110E", "1": "040C040404040E", "2": "0E11010204081F", "3": "1F02040201110E",
    "4": "02060A121F0202", "5": "1F101E0101110E", "6": "0608101E11110E", "7": "1F010204080808",
    "8": "0E11110E11110E", "9": "0E11110F01020C", ":": "000C0C000C0C00", ";": "000C0C000C0408",
    "<": "02040810080402", "=": "00001F001F0000", ">": "08040201020408", "?": "0E110102040004",
    "@": "0E11010D15150E", "A": "0E1111111F1111", "B": "1E11111E11111E", "C": "0E11101010110E",
    "D": "1C12111111121C", "E": "1F10101E10101F", "F": "1F10101E101010", "G": "0E11101711110F",
    "H": "1111111F111111", "I": "0E04040404040E", "J": "0702020202120C", "K": "11121418141211",
    "L": "1010101010101F", "M": "111B1515111111", "N": "11111915131111", "O": "0E11111111110E",
    "P": "1E11111E101010", "Q": "0E11111115120D", "R": "1E11111E141211", "S": "0F10100E01011E",
    "T": "1F040404040404", "U": "1111111111110E", "V": "11111111110A04", "W": "1111111515150A",
    "X": "11110A040A1111", "Y": "1111110A040404", "Z": "1F01020408101F", "[": "0E08080808080E",
    "\\": "00100804020100", "]": "0E02020202020E", "^": "040A1100000000", "_": "0000000000001F",
    "`": "08040200000000", "a": "00000E010F110F", "b": "1010161911111E", "c": "00000E1010110E",
    "d": "01010D1311110F", "e": "00000E111F100E", "f": "0609081C080808", "g": "000F11110F010E",
    "h": "10101619111111", "i": "04000C0404040E", "j": "0200060202120C", "k": "10101214181412",
    "l": "0C04040404040E", "m": "00001A15151111", "n": "00001619111111", "o": "00000E1111110E",
    "p": "00001E111E1010", "q": "00000D130F0101", "r": "00001619101010", "s": "00000E100E011E",
    "t": "08081C08080906", "u": "0000111111130D", "v": "00001111110A04", "w": "0000111115150A",
    "x": "0000110A040A11", "y": "000011110F010E", "z": "00001F0204081F", "{": "02040408040402",
    "|": "04040404040404", "}": "08040402040408", "~": "00000815020000", "·": "0000040E040000",
    "−": "0000001F000000", "≤": "0204081F001F00", "≥": "0804021F001F00",
}
# fmt: on
_UNKNOWN = "1F11111111111F"  # a box for characters the font does not have


def _mask(code: str) -> Tensor:
    rows = [int(code[i : i + 2], 16) for i in range(0, 14, 2)]
    return torch.tensor([[bool(row >> (4 - c) & 1) for c in range(5)] for row in rows])


_GLYPHS = {char: _mask(code) for char, code in _HEX.items()}
_BOX = _mask(_UNKNOWN)
ADVANCE, HEIGHT = 6, 7


def text_width(text: str, scale: int) -> int:
    """Pixel width of ``text`` at ``scale`` (no trailing blank column)."""
    return max(ADVANCE * len(text) - 1, 0) * scale


def text_height(scale: int) -> int:
    return HEIGHT * scale


def text_mask(text: str, scale: int = 1) -> Tensor:
    """The inked pixels of ``text`` as a bool tensor ``(7 * scale, text_width)``."""
    width = max(text_width(text, 1), 1)
    mask = torch.zeros(HEIGHT, width, dtype=torch.bool)
    for i, char in enumerate(text):
        glyph = _GLYPHS.get(char, _BOX)
        mask[:, i * ADVANCE : i * ADVANCE + 5] = glyph
    return mask.repeat_interleave(scale, 0).repeat_interleave(scale, 1)


def draw_text(image: Tensor, x: int, y: int, text: str, scale: int, color: Sequence[int]) -> None:
    """Write ``text`` with its top-left corner at (x, y), clipped to the image."""
    mask = text_mask(text, scale)
    top, left = max(y, 0), max(x, 0)
    bottom, right = min(y + mask.shape[0], image.shape[0]), min(x + mask.shape[1], image.shape[1])
    if bottom <= top or right <= left:
        return
    region = image[top:bottom, left:right]
    region[mask[top - y : bottom - y, left - x : right - x]] = torch.tensor(color, dtype=torch.uint8)


def draw_text_vertical(image: Tensor, x: int, y: int, text: str, scale: int, color: Sequence[int]) -> None:
    """Write ``text`` rotated a quarter turn counter-clockwise (read bottom to top), its
    top-left corner at (x, y)."""
    mask = text_mask(text, scale).rot90(1)
    bottom, right = min(y + mask.shape[0], image.shape[0]), min(x + mask.shape[1], image.shape[1])
    top, left = max(y, 0), max(x, 0)
    if bottom <= top or right <= left:
        return
    region = image[top:bottom, left:right]
    region[mask[top - y : bottom - y, left - x : right - x]] = torch.tensor(color, dtype=torch.uint8)


def fit_text(text: str, width: int, scale: int = 1) -> str:
    """``text`` cut (with ``..``) to fit ``width`` pixels at ``scale``."""
    if text_width(text, scale) <= width:
        return text
    keep = max((width // scale + 1) // ADVANCE - 2, 0)
    return text[:keep] + ".." if keep else ""
