"""Image gradients and total variation: both read the differences of neighbouring pixels."""

from __future__ import annotations

from typing import Optional

import torch
from torch import Tensor

from lightning_metrics.utilities.checks import check_choice

TV_REDUCTIONS = ("mean", "sum", "none", None)


def _check_4d(name: str, img: object) -> None:
    if not isinstance(img, Tensor):
        raise TypeError(f"Argument `{name}` must be a tensor, got {type(img).__name__}")
    if img.ndim != 4:  # torchmetrics raises RuntimeError here
        raise RuntimeError(f"Argument `{name}` must be a 4-D (N, C, H, W) tensor, got shape {tuple(img.shape)}")


def image_gradients(img: Tensor) -> tuple[Tensor, Tensor]:
    """Forward differences ``(dy, dx)`` of ``(N, C, H, W)`` images, zero on the last row / column.

    >>> import torch
    >>> from lightning_metrics.functional.image import image_gradients
    >>> dy, dx = image_gradients(torch.arange(9.0).reshape(1, 1, 3, 3))
    >>> dy[0, 0]
    tensor([[3., 3., 3.],
            [3., 3., 3.],
            [0., 0., 0.]])
    >>> dx[0, 0]
    tensor([[1., 1., 0.],
            [1., 1., 0.],
            [1., 1., 0.]])
    """
    _check_4d("img", img)
    dy = torch.zeros_like(img)
    dx = torch.zeros_like(img)
    dy[..., :-1, :] = img[..., 1:, :] - img[..., :-1, :]
    dx[..., :, :-1] = img[..., :, 1:] - img[..., :, :-1]
    return dy, dx


def total_variation_per_image(img: Tensor) -> Tensor:
    """Sum of the absolute differences of vertical and horizontal neighbours, per image ``(N,)``."""
    _check_4d("img", img)
    work = torch.float32 if img.dtype in (torch.float16, torch.bfloat16) else img.dtype
    x = img.to(work)
    down = (x[..., 1:, :] - x[..., :-1, :]).abs().sum([1, 2, 3])
    across = (x[..., :, 1:] - x[..., :, :-1]).abs().sum([1, 2, 3])
    return (down + across).to(img.dtype) if img.is_floating_point() else down + across


def reduce_total_variation(score: Tensor, count: object, reduction: Optional[str]) -> Tensor:
    if reduction == "mean":
        return score.sum() / count
    if reduction == "sum":
        return score.sum()
    return score


def total_variation(img: Tensor, reduction: Optional[str] = "sum") -> Tensor:
    """Total variation of ``(N, C, H, W)`` images: summed (default), averaged over images
    (``"mean"``) or per image (``"none"`` / ``None``).

    >>> import torch
    >>> from lightning_metrics.functional.image import total_variation
    >>> total_variation(torch.arange(9.0).reshape(1, 1, 3, 3))
    tensor(24.)
    """
    check_choice("reduction", reduction, TV_REDUCTIONS)
    score = total_variation_per_image(img)
    return reduce_total_variation(score, img.shape[0], reduction)
