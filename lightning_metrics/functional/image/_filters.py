"""Separable windows and the border paddings that torchmetrics' image metrics use around them.

Every window of the image metrics (Gaussian, uniform, VIF's Gaussian) is an outer product of 1-D
taps, one per spatial dim, so it is applied as one 1-D pass per dim: ``k`` multiply-adds per pixel
and dim instead of ``k**2`` (``k**3`` in 3-D) for the full kernel. The passes run as depthwise
convolutions with every image and channel as a channel of one batch (the fastest layout for large
float32 images), or with every image as a batch item of one channel (small images, float64).

A :class:`SeparableWindow` computes its taps once, in float64, and keeps one copy per (device,
dtype) it has been applied on: a metric builds its window in ``__init__`` and never rebuilds it;
the functions share one window per argument set (:func:`gaussian_window`, :func:`uniform_window`).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Sequence

import torch
import torch.nn.functional as F
from torch import Tensor

Pads = Sequence[tuple[int, int]]  # (before, after) per spatial dim, in dim order
_GROUPED_FROM = 64 * 64  # pixels per image from which the depthwise layout is faster (measured on CPU)


def gaussian_taps(size: int, sigma: float) -> tuple[float, ...]:
    """The normalised 1-D Gaussian of ``size`` taps centred on the middle one.

    >>> [round(t, 4) for t in gaussian_taps(3, 1.0)]
    [0.2741, 0.4519, 0.2741]
    """
    centre = (size - 1) / 2
    weights = [math.exp(-(((i - centre) / sigma) ** 2) / 2) for i in range(size)]
    total = math.fsum(weights)
    return tuple(w / total for w in weights)


def uniform_taps(size: int) -> tuple[float, ...]:
    """``size`` equal taps summing to one.

    >>> uniform_taps(4)
    (0.25, 0.25, 0.25, 0.25)
    """
    return (1.0 / size,) * size


class SeparableWindow:
    """A window that is the outer product of 1-D ``taps`` (one tuple per spatial dim).

    :meth:`apply` filters the trailing ``len(taps)`` dims of a tensor without padding (the output
    is ``size - taps + 1`` long per dim); callers pad first.

    >>> import torch
    >>> window = SeparableWindow((uniform_taps(2), uniform_taps(2)))
    >>> window.apply(torch.arange(9.0).reshape(1, 1, 3, 3))
    tensor([[[[2., 3.],
              [5., 6.]]]])
    """

    def __init__(self, taps: Sequence[Sequence[float]]) -> None:
        self.taps = tuple(tuple(float(t) for t in axis) for axis in taps)
        self._kernels: dict[tuple[torch.device, torch.dtype], list[Tensor]] = {}

    @property
    def sizes(self) -> tuple[int, ...]:
        """The number of taps per spatial dim."""
        return tuple(len(axis) for axis in self.taps)

    def __repr__(self) -> str:
        return f"SeparableWindow(sizes={self.sizes})"

    def __getstate__(self) -> dict:  # the kernel copies are rebuilt where the window is used
        return {"taps": self.taps, "_kernels": {}}

    def kernels(self, device: torch.device, dtype: torch.dtype) -> list[Tensor]:
        """One ``(1, 1, ..., k, ..., 1)`` kernel per spatial dim (``None`` for a single unit tap)."""
        key = (device, dtype)
        cached = self._kernels.get(key)
        if cached is None:
            ndim = len(self.taps)
            cached = []
            for axis, taps in enumerate(self.taps):
                if taps == (1.0,):
                    cached.append(None)
                    continue
                shape = [1, 1] + [1] * ndim
                shape[2 + axis] = len(taps)
                cached.append(torch.tensor(taps, dtype=torch.float64).to(device=device, dtype=dtype).reshape(shape))
            self._kernels[key] = cached
        return cached

    def apply(self, x: Tensor) -> Tensor:
        """Filter the trailing spatial dims of ``x`` (any leading dims), without padding."""
        ndim = len(self.taps)
        lead, spatial = x.shape[:-ndim], x.shape[-ndim:]
        channels = math.prod(lead)
        conv = F.conv2d if ndim == 2 else F.conv3d
        kernels = [k for k in self.kernels(x.device, x.dtype) if k is not None]
        if x.dtype == torch.float64 or math.prod(spatial) < _GROUPED_FROM:
            # every image a batch item of one channel: the fast layout of float64 and small images
            y = x.reshape(channels, 1, *spatial)
            for kernel in kernels:
                y = conv(y, kernel)
        else:  # every image a channel of one batch item, depthwise: the fast layout of large images
            y = x.reshape(1, channels, *spatial)
            for kernel in kernels:
                y = conv(y, kernel.expand(channels, *kernel.shape[1:]), groups=channels)
        return y.reshape(*lead, *y.shape[2:])


@lru_cache(maxsize=64)
def gaussian_window(sizes: tuple[int, ...], sigmas: tuple[float, ...]) -> SeparableWindow:
    """The shared Gaussian window of these sizes and standard deviations (one per dim)."""
    return SeparableWindow([gaussian_taps(k, s) for k, s in zip(sizes, sigmas)])


@lru_cache(maxsize=64)
def uniform_window(sizes: tuple[int, ...]) -> SeparableWindow:
    """The shared uniform (box) window of these sizes (one per dim)."""
    return SeparableWindow([uniform_taps(k) for k in sizes])


# ---------------------------------------------------------------------------------- paddings
def reflect_pad(x: Tensor, pads: Pads) -> Tensor:
    """Mirror the borders without repeating the edge (``torch``'s ``"reflect"``), per spatial dim."""
    flat = [p for before_after in reversed(list(pads)) for p in before_after]
    if not any(flat):
        return x
    return F.pad(x, flat, mode="reflect")


def zero_pad(x: Tensor, pads: Pads) -> Tensor:
    """Pad the borders with zeros, per spatial dim."""
    flat = [p for before_after in reversed(list(pads)) for p in before_after]
    return F.pad(x, flat) if any(flat) else x


def _symmetric_index(length: int, before: int, after: int, device: torch.device) -> Tensor:
    left = torch.arange(before - 1, -1, -1)
    right = torch.arange(length - 1, length - 1 - after, -1)
    return torch.cat([left, torch.arange(length), right]).to(device)


def symmetric_pad(x: Tensor, pads: Pads) -> Tensor:
    """Mirror the borders repeating the edge (SciPy's ``"reflect"``), per spatial dim.

    >>> symmetric_pad(torch.tensor([[1, 2, 3]]), [(0, 0), (2, 1)])
    tensor([[2, 1, 1, 2, 3, 3]])
    """
    first = x.ndim - len(pads)
    for axis, (before, after) in enumerate(pads):
        if before or after:
            dim = first + axis
            x = x.index_select(dim, _symmetric_index(x.shape[dim], before, after, x.device))
    return x


def box_filter_same(x: Tensor, window_size: int) -> Tensor:
    """Uniform filter of a square window, same size out: torchmetrics' ``_uniform_filter``.

    Edge-repeating borders of ``window_size // 2`` before and the rest after (one less for an
    even window), as SciPy's ``uniform_filter`` centres an even window.
    """
    before = window_size // 2
    after = window_size - 1 - before
    padded = symmetric_pad(x, [(before, after), (before, after)])
    return uniform_window((window_size, window_size)).apply(padded)
