"""Pan-sharpening quality without a reference: spectral distortion (D-lambda), spatial distortion
(D-s) and their product QNR.

Each index compares UQI values averaged over every image and pixel seen: D-lambda the UQI of
every pair of bands of the fused image against the same pair of the multispectral image, D-s the
UQI of each band against the panchromatic image at both resolutions. A mean over images and
pixels is a sum and a count, so the modular metrics keep, per band pair or band, one sum
(torchmetrics keeps every image). The UQI is torchmetrics' (an 11x11 Gaussian of sigma 1.5).

Without ``pan_lr``, the panchromatic image is degraded to the multispectral size by a box filter
of ``window_size`` and a bilinear resize (``torch.nn.functional.interpolate``, which is what
torchvision's ``resize`` runs for tensors; torchmetrics needs torchvision installed for this).
"""

from __future__ import annotations

from typing import NamedTuple, Optional

import torch
import torch.nn.functional as F
from torch import Tensor

from lightning_metrics.functional.image._checks import (
    check_positive_int,
    check_reduction,
    is_number,
    result_dtype,
    working_dtype,
)
from lightning_metrics.functional.image._filters import box_filter_same, gaussian_window, reflect_pad
from lightning_metrics.functional.image._moments import band_moments
from lightning_metrics.functional.image.structural import _crop, uqi_from_moments, uqi_map, uqi_pads
from lightning_metrics.utilities.distributed import reduce

UQI_SIZES, UQI_SIGMAS = (11, 11), (1.5, 1.5)
PANSHARPENING_REDUCTIONS = ("elementwise_mean", "sum", "none")


def _check_4d(name: str, x: object) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"Argument `{name}` must be a tensor, got {type(x).__name__}")
    if x.ndim != 4:
        raise ValueError(f"Argument `{name}` must have the shape (N, C, H, W), got {tuple(x.shape)}")


def _check_like(name: str, x: Tensor, preds: Tensor) -> None:
    _check_4d(name, x)
    if x.dtype != preds.dtype:
        raise TypeError(f"`preds` and `{name}` must have the same dtype, got {preds.dtype} and {x.dtype}")
    if x.shape[:2] != preds.shape[:2]:
        raise ValueError(
            f"`preds` and `{name}` must have the same batch and channel sizes, got preds.shape="
            f"{tuple(preds.shape)} and {name}.shape={tuple(x.shape)}"
        )


# ----------------------------------------------------------------------------------- D-lambda
def check_d_lambda_inputs(preds: Tensor, target: Tensor) -> None:
    _check_4d("preds", preds)
    _check_like("target", target, preds)


def band_pair_uqi_sums(images: Tensor) -> tuple[Tensor, int]:
    """Sum over images and pixels of the UQI of every pair of bands ``k < r``, in float64 as a
    ``(C, C)`` upper triangle, and the number of pixels summed per pair."""
    n, c = images.shape[:2]
    dtype = result_dtype(images.dtype)
    pads, crop = uqi_pads(UQI_SIZES)
    padded = reflect_pad(images.to(working_dtype(dtype)), pads)
    mean, square, cross = band_moments(padded, gaussian_window(UQI_SIZES, UQI_SIGMAS))
    first, second = torch.triu_indices(c, c, offset=1, device=images.device)
    mean_k, mean_r = mean[:, first], mean[:, second]
    var = torch.clamp(square - mean.pow(2), min=0.0)
    values = uqi_from_moments(
        mean_k, mean_r, var[:, first], var[:, second], cross - mean_k * mean_r, torch.finfo(dtype).eps
    )
    values = _crop(values, crop).to(dtype)
    sums = torch.zeros(c, c, dtype=torch.float64, device=images.device)
    sums[first, second] = values.double().sum(dim=(0, 2, 3))
    return sums, n * values.shape[-2] * values.shape[-1]


def d_lambda_from_means(target_means: Tensor, preds_means: Tensor, p: int) -> Tensor:
    """D-lambda from the mean band-pair UQI (upper triangles) of the multispectral and fused images."""
    dtype = torch.get_default_dtype()  # torchmetrics fills default-dtype matrices
    m1, m2 = target_means.to(dtype), preds_means.to(dtype)
    m1, m2 = m1 + m1.T, m2 + m2.T
    diff = torch.pow(torch.abs(m1 - m2), p)
    length = m1.shape[0]
    if length == 1:
        return torch.pow(diff, 1.0 / p)
    return torch.pow(1.0 / (length * (length - 1)) * torch.sum(diff), 1.0 / p)


def spectral_distortion_index(
    preds: Tensor,
    target: Tensor,
    p: int = 1,
    reduction: Optional[str] = "elementwise_mean",
) -> Tensor:
    """Spectral distortion index D-lambda of fused ``preds`` against multispectral ``target``
    (both ``(N, C, H, W)``; the spatial sizes may differ): how much the UQI between every two bands
    changed, as a ``p``-mean. Lower is better.

    >>> import torch
    >>> from lightning_metrics.functional.image import spectral_distortion_index
    >>> g = torch.arange(16.0)
    >>> base = (g.sin()[:, None] * (0.7 * g).cos()[None, :]).reshape(1, 1, 16, 16)
    >>> target = torch.cat([base, base.flip(-1), base.transpose(-1, -2)], dim=1) + 2
    >>> preds = torch.cat([target[:, :1].flip(-1), target[:, 1:]], dim=1)  # one band mirrored
    >>> spectral_distortion_index(preds, target)
    tensor(0.5908)
    """
    check_positive_int("p", p)
    check_reduction(reduction)
    check_d_lambda_inputs(preds, target)
    target_sums, count_t = band_pair_uqi_sums(target)
    preds_sums, count_p = band_pair_uqi_sums(preds)
    return reduce(d_lambda_from_means(target_sums / count_t, preds_sums / count_p, p), reduction)


# ---------------------------------------------------------------------------------------- D-s
class PanInputs(NamedTuple):
    preds: Tensor
    ms: Tensor
    pan: Tensor
    pan_lr: Optional[Tensor]


def check_d_s_inputs(preds: Tensor, ms: Tensor, pan: Tensor, pan_lr: Optional[Tensor], window_size: int) -> None:
    _check_4d("preds", preds)
    _check_like("ms", ms, preds)
    _check_like("pan", pan, preds)
    if pan_lr is not None:
        _check_like("pan_lr", pan_lr, preds)
    (ph, pw), (mh, mw), (qh, qw) = preds.shape[-2:], ms.shape[-2:], pan.shape[-2:]
    if (ph, pw) != (qh, qw):
        raise ValueError(f"`preds` and `pan` must have the same height and width, got {(ph, pw)} and {(qh, qw)}")
    if ph % mh or pw % mw:
        raise ValueError(
            f"The height and width of `preds` must be multiples of those of `ms`, got {(ph, pw)} and {(mh, mw)}"
        )
    if pan_lr is not None and tuple(pan_lr.shape[-2:]) != (mh, mw):
        raise ValueError(
            f"`ms` and `pan_lr` must have the same height and width, got {(mh, mw)} and {tuple(pan_lr.shape[-2:])}"
        )
    if window_size >= mh or window_size >= mw:
        raise ValueError(
            f"Argument `window_size` must be smaller than the height and width of `ms` {(mh, mw)}, got {window_size}"
        )


def degraded_pan(pan: Tensor, size: tuple[int, int], window_size: int) -> Tensor:
    """The panchromatic image at the multispectral size: box filter, then bilinear resize."""
    work = working_dtype(pan.dtype)
    smooth = box_filter_same(pan.to(work), window_size)
    return F.interpolate(smooth, size=size, mode="bilinear", align_corners=False, antialias=False).to(result_dtype(pan.dtype))


def band_uqi_sums(preds: Tensor, ms: Tensor, pan: Tensor, pan_lr: Optional[Tensor], window_size: int) -> tuple[Tensor, Tensor, int, int]:
    """Per band, the UQI summed over images and pixels of ``ms`` against the low-resolution pan and
    of ``preds`` against ``pan`` (float64), and the pixel counts of the two."""
    low = pan_lr if pan_lr is not None else degraded_pan(pan, tuple(ms.shape[-2:]), window_size)
    low_map = uqi_map(ms, low, UQI_SIZES, UQI_SIGMAS)
    high_map = uqi_map(preds, pan, UQI_SIZES, UQI_SIGMAS)
    count_low = low_map.shape[0] * low_map.shape[2] * low_map.shape[3]
    count_high = high_map.shape[0] * high_map.shape[2] * high_map.shape[3]
    return low_map.double().sum((0, 2, 3)), high_map.double().sum((0, 2, 3)), count_low, count_high


def d_s_from_sums(low: Tensor, high: Tensor, count_low: object, count_high: object, norm_order: int,
                  reduction: Optional[str]) -> Tensor:
    dtype = torch.get_default_dtype()  # torchmetrics fills default-dtype vectors
    m1, m2 = (low / count_low).to(dtype), (high / count_high).to(dtype)
    diff = (m1 - m2).abs() ** norm_order
    return reduce(diff, reduction) ** (1 / norm_order)


def check_d_s_args(norm_order: object, window_size: object) -> None:
    check_positive_int("norm_order", norm_order)
    check_positive_int("window_size", window_size)


def spatial_distortion_index(
    preds: Tensor,
    ms: Tensor,
    pan: Tensor,
    pan_lr: Optional[Tensor] = None,
    norm_order: int = 1,
    window_size: int = 7,
    reduction: Optional[str] = "elementwise_mean",
) -> Tensor:
    """Spatial distortion index D-s of fused ``preds`` given the multispectral ``ms``, the
    panchromatic ``pan`` and optionally its low-resolution version ``pan_lr``: how much the UQI
    of each band against the pan image changed between the resolutions. Lower is better.

    >>> import torch
    >>> from lightning_metrics.functional.image import spatial_distortion_index
    >>> base = torch.linspace(0, 1, 32 * 32).reshape(1, 1, 32, 32)
    >>> preds = torch.cat([base, base.flip(-1)], dim=1)
    >>> ms, pan = preds[..., ::2, ::2], torch.cat([base.transpose(-1, -2), base.transpose(-1, -2)], dim=1)
    >>> spatial_distortion_index(preds, ms, pan, pan_lr=pan[..., ::2, ::2])
    tensor(0.0030)
    """
    check_d_s_args(norm_order, window_size)
    check_reduction(reduction)
    check_d_s_inputs(preds, ms, pan, pan_lr, window_size)
    low, high, count_low, count_high = band_uqi_sums(preds, ms, pan, pan_lr, window_size)
    return d_s_from_sums(low, high, count_low, count_high, norm_order, reduction)


# ---------------------------------------------------------------------------------------- QNR
def check_qnr_args(alpha: object, beta: object) -> None:
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not is_number(value) or value < 0:
            raise ValueError(f"Argument `{name}` must be a non-negative number, got {value!r}")


def quality_with_no_reference(
    preds: Tensor,
    ms: Tensor,
    pan: Tensor,
    pan_lr: Optional[Tensor] = None,
    alpha: float = 1,
    beta: float = 1,
    norm_order: int = 1,
    window_size: int = 7,
    reduction: Optional[str] = "elementwise_mean",
) -> Tensor:
    """Quality with no reference ``(1 - D_lambda)^alpha (1 - D_s)^beta`` of a pan-sharpened image.

    >>> import torch
    >>> from lightning_metrics.functional.image import quality_with_no_reference
    >>> base = torch.linspace(0, 1, 32 * 32).reshape(1, 1, 32, 32)
    >>> preds = torch.cat([base, base.flip(-1)], dim=1)
    >>> ms, pan = preds[..., ::2, ::2], torch.cat([base.transpose(-1, -2), base.transpose(-1, -2)], dim=1)
    >>> quality_with_no_reference(preds, ms, pan, pan_lr=pan[..., ::2, ::2])
    tensor(0.9965)
    """
    check_qnr_args(alpha, beta)
    d_lambda = spectral_distortion_index(preds, ms, norm_order, reduction)
    d_s = spatial_distortion_index(preds, ms, pan, pan_lr, norm_order, window_size, reduction)
    return (1 - d_lambda) ** alpha * (1 - d_s) ** beta
