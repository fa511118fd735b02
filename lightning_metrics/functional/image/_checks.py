"""Argument and input checks of the image metrics, and the handling of ``data_range``.

Messages name the argument and the value. Shape checks read shapes only (no host sync); the
exception types are torchmetrics' (``RuntimeError`` for shapes that differ, ``ValueError`` for the
rest) so that code catching them keeps working.
"""

from __future__ import annotations

from numbers import Real
from typing import Any, Optional, Sequence, Union

import torch
from torch import Tensor

from lightning_metrics.utilities.checks import check_bool, check_choice  # noqa: F401  (check_bool re-exported)

REDUCTIONS = ("elementwise_mean", "sum", "none", None)
DataRange = Union[float, tuple[float, float], None]


def is_number(value: Any) -> bool:
    """A real number that is not a bool."""
    return isinstance(value, Real) and not isinstance(value, bool)


def check_reduction(reduction: Any, choices: Sequence[Any] = REDUCTIONS) -> None:
    check_choice("reduction", reduction, choices)


def check_positive_int(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"Argument `{name}` must be a positive integer, got {value!r}")


def check_data_range(data_range: Any, allow_none: bool = True) -> None:
    """A positive number, a ``(min, max)`` pair with ``min < max``, or ``None``."""
    if data_range is None and allow_none:
        return
    if isinstance(data_range, tuple):
        if len(data_range) == 2 and all(is_number(v) for v in data_range) and data_range[0] < data_range[1]:
            return
        raise ValueError(f"Argument `data_range` must be a (min, max) pair with min < max, got {data_range!r}")
    if not is_number(data_range) or not data_range > 0:
        what = "a positive number, a (min, max) pair or None" if allow_none else "a positive number or a (min, max) pair"
        raise ValueError(f"Argument `data_range` must be {what}, got {data_range!r}")


def check_window_args(kernel_size: Any, sigma: Any, ndim: Optional[int] = None) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """``kernel_size`` and ``sigma`` as one value per spatial dim (2 or 3), checked.

    An int or a float stands for every dim; sequences must have one entry per dim.
    """
    dims = ndim
    for name, value in (("kernel_size", kernel_size), ("sigma", sigma)):
        if isinstance(value, Sequence) and (len(value) not in (2, 3) or (dims is not None and len(value) != dims)):
            expected = f"{dims} (the input has {dims} spatial dims)" if dims is not None else "2 or 3"
            raise ValueError(f"Argument `{name}` must have one entry per spatial dim, {expected}, got {value!r}")
        if isinstance(value, Sequence):
            dims = len(value)
    dims = dims or 2
    sizes = tuple(kernel_size) if isinstance(kernel_size, Sequence) else (kernel_size,) * dims
    sigmas = tuple(sigma) if isinstance(sigma, Sequence) else (sigma,) * dims
    if any(isinstance(k, bool) or not isinstance(k, int) or k <= 0 or k % 2 == 0 for k in sizes):
        raise ValueError(f"Argument `kernel_size` must hold odd positive integers, got {kernel_size!r}")
    if any(not is_number(s) or not s > 0 for s in sigmas):
        raise ValueError(f"Argument `sigma` must hold positive numbers, got {sigma!r}")
    return sizes, tuple(float(s) for s in sigmas)


def check_same_shape(preds: Tensor, target: Tensor, names: tuple[str, str] = ("preds", "target")) -> None:
    """``RuntimeError`` (torchmetrics' type) unless both tensors have the same shape."""
    if preds.shape != target.shape:
        a, b = names
        raise RuntimeError(
            f"`{a}` and `{b}` must have the same shape, got {a}.shape={tuple(preds.shape)} "
            f"and {b}.shape={tuple(target.shape)}"
        )


def check_tensor(name: str, value: Any) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"Argument `{name}` must be a tensor, got {type(value).__name__}")


def check_rgb_batch(name: str, img: Any) -> None:
    """``img`` is a floating tensor of RGB images ``(N, 3, H, W)`` (the input of the perceptual networks).

    >>> check_rgb_batch("img", torch.zeros(2, 1, 4, 4))
    Traceback (most recent call last):
    ...
    ValueError: Argument `img` must have shape (N, 3, H, W), got (2, 1, 4, 4)
    """
    check_tensor(name, img)
    if not (img.ndim == 4 and img.shape[1] == 3):
        raise ValueError(f"Argument `{name}` must have shape (N, 3, H, W), got {tuple(img.shape)}")
    if not img.is_floating_point():
        raise ValueError(f"Argument `{name}` must be a floating point tensor, got {img.dtype}")


def check_rgb_pair(names: tuple[str, str], first: Any, second: Any) -> None:
    """Two :func:`check_rgb_batch` batches of one shape (an image pair per row)."""
    check_rgb_batch(names[0], first)
    check_rgb_batch(names[1], second)
    if first.shape != second.shape:
        raise ValueError(
            f"Arguments `{names[0]}` and `{names[1]}` must have the same shape, got {tuple(first.shape)} and "
            f"{tuple(second.shape)}"
        )


def check_images(preds: Any, target: Any, ndims: Sequence[int] = (4,), same_dtype: bool = False) -> None:
    """Two tensors of one shape with ``ndim`` in ``ndims`` (``(N, C, H, W)``, or ``(N, C, D, H, W)``)."""
    check_tensor("preds", preds)
    check_tensor("target", target)
    if same_dtype and preds.dtype != target.dtype:
        raise TypeError(
            f"`preds` and `target` must have the same dtype, got preds.dtype={preds.dtype} and "
            f"target.dtype={target.dtype}"
        )
    check_same_shape(preds, target)
    if preds.ndim not in ndims:
        layouts = " or ".join({4: "(N, C, H, W)", 5: "(N, C, D, H, W)", 3: "(N, H, W)"}[n] for n in ndims)
        raise ValueError(
            f"Argument `preds` must have the shape {layouts} (at least 2 spatial dims), got {tuple(preds.shape)}"
        )


def working_dtype(dtype: torch.dtype) -> torch.dtype:
    """The dtype the filters run in: half precisions are widened to float32 (their sums of
    squares overflow and their variances cancel), integers become float32."""
    if dtype in (torch.float16, torch.bfloat16) or not dtype.is_floating_point:
        return torch.float32
    return dtype


def result_dtype(dtype: torch.dtype) -> torch.dtype:
    """The dtype of the values: the input's floating dtype, float32 for integer images."""
    return dtype if dtype.is_floating_point else torch.float32


def clamp_to_range(x: Tensor, data_range: DataRange) -> Tensor:
    """Clamp to ``(min, max)`` when ``data_range`` is a pair (torchmetrics' convention)."""
    if isinstance(data_range, tuple):
        return x.clamp(min=data_range[0], max=data_range[1])
    return x


def range_value(data_range: DataRange, preds: Tensor, target: Tensor) -> Union[float, Tensor]:
    """The range as a number, or for ``None`` the larger of the two tensors' ranges (a tensor:
    no host sync)."""
    if data_range is None:
        return torch.maximum(preds.max() - preds.min(), target.max() - target.min())
    if isinstance(data_range, tuple):
        return data_range[1] - data_range[0]
    return float(data_range)


def check_spatial_fits(shape: Sequence[int], pads: Sequence[int], sizes: Sequence[int], what: str) -> None:
    """Every spatial dim is longer than its reflect padding and, padded, at least as long as the
    window: otherwise a clear error instead of one from deep inside ``torch``."""
    spatial = tuple(shape[-len(pads):])
    for length, pad, size in zip(spatial, pads, sizes):
        if pad >= length or length + 2 * pad < size:
            raise ValueError(
                f"{what} is larger than the image: windows of {tuple(sizes)} (border {tuple(pads)}) "
                f"do not fit spatial size {spatial}"
            )
