"""Spectral indices of multi-band images: ERGAS and the spectral angle mapper (SAM).

ERGAS is a per-image value and SAM a per-pixel angle, so a mean over any number of images is a
sum and a count: the modular metrics keep those (torchmetrics keeps every image for ERGAS).
"""

from __future__ import annotations

from typing import Optional

import torch
from torch import Tensor

from lightning_metrics.functional.image._checks import (
    check_images,
    check_reduction,
    is_number,
    result_dtype,
    working_dtype,
)
from lightning_metrics.utilities.distributed import reduce


def check_ratio(ratio: object) -> None:
    if not is_number(ratio) or not ratio > 0:
        raise ValueError(f"Argument `ratio` must be a positive number, got {ratio!r}")


def ergas_per_image(preds: Tensor, target: Tensor, ratio: float) -> Tensor:
    """``100 / ratio * sqrt(mean over bands of (rmse_band / mean_band)^2)`` per image ``(N,)``."""
    dtype = result_dtype(preds.dtype)
    n, c, h, w = preds.shape
    p = preds.to(working_dtype(dtype)).reshape(n, c, h * w)
    t = target.to(working_dtype(dtype)).reshape(n, c, h * w)
    diff = p - t
    rmse_per_band = torch.sqrt(torch.sum(diff * diff, dim=2) / (h * w))
    relative = rmse_per_band / torch.mean(t, dim=2)
    return (100 / ratio * torch.sqrt(torch.sum(relative**2, dim=1) / c)).to(dtype)


def error_relative_global_dimensionless_synthesis(
    preds: Tensor,
    target: Tensor,
    ratio: float = 4,
    reduction: Optional[str] = "elementwise_mean",
) -> Tensor:
    """ERGAS of ``(N, C, H, W)`` images; ``ratio`` is the ratio of high to low resolution pixel
    sizes. Lower is better.

    >>> import torch
    >>> from lightning_metrics.functional.image import error_relative_global_dimensionless_synthesis
    >>> target = torch.linspace(1, 2, 2 * 3 * 8 * 8).reshape(2, 3, 8, 8)
    >>> error_relative_global_dimensionless_synthesis(target * 0.9, target)
    tensor(2.5014)
    """
    check_ratio(ratio)
    check_reduction(reduction)
    check_images(preds, target, same_dtype=True)
    return reduce(ergas_per_image(preds, target, ratio), reduction)


def check_sam_inputs(preds: Tensor, target: Tensor) -> None:
    check_images(preds, target, same_dtype=True)
    if preds.shape[1] <= 1:
        raise ValueError(f"Argument `preds` must have more than 1 band (dim 1) for SAM, got shape {tuple(preds.shape)}")


def sam_per_pixel(preds: Tensor, target: Tensor) -> Tensor:
    """The angle between the band vectors of ``preds`` and ``target`` at every pixel ``(N, H, W)``."""
    dtype = result_dtype(preds.dtype)
    p, t = preds.to(working_dtype(dtype)), target.to(working_dtype(dtype))
    cosine = (p * t).sum(dim=1) / (p.norm(dim=1) * t.norm(dim=1))
    return torch.clamp(cosine, -1, 1).acos().to(dtype)


def spectral_angle_mapper(
    preds: Tensor,
    target: Tensor,
    reduction: Optional[str] = "elementwise_mean",
) -> Tensor:
    """Spectral angle mapper of ``(N, C, H, W)`` images (``C > 1`` bands), in radians;
    ``reduction="none"`` returns the ``(N, H, W)`` angles.

    >>> import torch
    >>> from lightning_metrics.functional.image import spectral_angle_mapper
    >>> target = torch.ones(1, 2, 2, 2)
    >>> preds = torch.tensor([1.0, 0.0]).view(1, 2, 1, 1).expand(1, 2, 2, 2)
    >>> spectral_angle_mapper(preds, target)
    tensor(0.7854)
    """
    check_reduction(reduction)
    check_sam_inputs(preds, target)
    return reduce(sam_per_pixel(preds, target), reduction)
