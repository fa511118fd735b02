"""RMSE in a sliding window (RMSE-SW) and the relative average spectral error (RASE).

Both filter the squared error with a square box window (edge-repeating borders, SciPy's
convention). RMSE-SW averages per image; RASE combines the error and target maps summed over
every image, so its state is two image-sized sums whatever the number of images (torchmetrics
keeps every image for RASE).
"""

from __future__ import annotations

from typing import Optional, Union

import torch
from torch import Tensor

from lightning_metrics.functional.image._checks import (
    check_images,
    check_positive_int,
    result_dtype,
    working_dtype,
)
from lightning_metrics.functional.image._filters import box_filter_same


def _border(window_size: int) -> int:
    return round(window_size / 2)  # torchmetrics' crop (Python rounds halves to even)


def check_window_inputs(preds: Tensor, target: Tensor, window_size: int) -> None:
    check_images(preds, target, same_dtype=True)
    border = _border(window_size)
    if border >= preds.shape[2] or border >= preds.shape[3]:
        raise ValueError(
            f"Argument `window_size`={window_size} is too large for images of spatial size "
            f"{tuple(preds.shape[2:])}: round(window_size / 2) must be smaller than {min(preds.shape[2:])}"
        )


def rmse_map(preds: Tensor, target: Tensor, window_size: int) -> Tensor:
    """The windowed RMSE of every pixel ``(N, C, H, W)``, in the working dtype."""
    work = working_dtype(preds.dtype)
    error = (target.to(work) - preds.to(work)) ** 2
    return torch.sqrt(box_filter_same(error, window_size))


def rmse_sw_per_image(preds: Tensor, target: Tensor, window_size: int) -> tuple[Tensor, Tensor]:
    """Per-image mean windowed RMSE over the map without its border ``(N,)``, and the map summed
    over the batch ``(C, H, W)``."""
    full = rmse_map(preds, target, window_size)
    b = _border(window_size)
    per_image = full[:, :, b:-b, b:-b].mean(dim=(1, 2, 3))
    return per_image.to(result_dtype(preds.dtype)), full.sum(0)


def root_mean_squared_error_using_sliding_window(
    preds: Tensor,
    target: Tensor,
    window_size: int = 8,
    return_rmse_map: bool = False,
) -> Union[Optional[Tensor], tuple[Optional[Tensor], Tensor]]:
    """Mean over images of the RMSE in a ``window_size`` box around each pixel (the border of
    ``round(window_size / 2)`` pixels left out); ``return_rmse_map`` also returns the mean map.

    >>> import torch
    >>> from lightning_metrics.functional.image import root_mean_squared_error_using_sliding_window
    >>> target = torch.zeros(2, 1, 8, 8)
    >>> root_mean_squared_error_using_sliding_window(target + 0.5, target, window_size=3)
    tensor(0.5000)
    """
    check_positive_int("window_size", window_size)
    check_window_inputs(preds, target, window_size)
    per_image, map_sum = rmse_sw_per_image(preds, target, window_size)
    n = preds.shape[0]
    rmse = per_image.sum() / n
    if return_rmse_map:
        return rmse, (map_sum / n).to(result_dtype(preds.dtype))
    return rmse


def rase_sums(preds: Tensor, target: Tensor, window_size: int) -> tuple[Tensor, Tensor]:
    """The windowed RMSE map and the windowed target mean map, each summed over the batch ``(C, H, W)``."""
    work = working_dtype(target.dtype)
    errors = rmse_map(preds, target, window_size).sum(0)
    # torchmetrics divides the already normalised box filter by the window area once more
    means = (box_filter_same(target.to(work), window_size) / window_size**2).sum(0)
    return errors, means


def rase_from_sums(error_sum: Tensor, mean_sum: Tensor, count: Union[int, Tensor], window_size: int) -> Tensor:
    """RASE from the summed maps of ``count`` images."""
    errors = error_sum / count
    target_mean = (mean_sum / count).mean(0)
    rase_map = 100 / target_mean * torch.sqrt(torch.mean(errors**2, 0))
    b = _border(window_size)
    return torch.mean(rase_map[b:-b, b:-b])


def relative_average_spectral_error(preds: Tensor, target: Tensor, window_size: int = 8) -> Tensor:
    """Relative average spectral error of ``(N, C, H, W)`` images: the windowed RMSE relative to
    the windowed target mean, over the bands. Lower is better.

    >>> import torch
    >>> from lightning_metrics.functional.image import relative_average_spectral_error
    >>> target = torch.full((2, 3, 16, 16), 0.5)
    >>> relative_average_spectral_error(target * 1.1, target, window_size=4)
    tensor(160.0000)
    """
    check_positive_int("window_size", window_size)
    check_window_inputs(preds, target, window_size)
    error_sum, mean_sum = rase_sums(preds, target, window_size)
    return rase_from_sums(error_sum, mean_sum, preds.shape[0], window_size).to(result_dtype(target.dtype))
