"""SSIM (2-D and 3-D), multi-scale SSIM and the universal image quality index, on one moments core.

All three are formulas over the windowed moments of :mod:`._moments`, with torchmetrics' window,
border and crop conventions (which this module reproduces exactly, quirks included):

- SSIM pads the borders by reflection (half the Gaussian's length, which ``sigma`` sets:
  ``2 * int(3.5 * sigma + 0.5) + 1`` taps; ``kernel_size`` only sizes a uniform window, and the
  border of the third dim of a 3-D volume) and averages the whole same-size SSIM map. scikit-image
  instead averages the map's interior only, so the two means differ by a few 1e-4; the interior
  values agree.
- The contrast-sensitivity term is averaged over the map without its padded border.
- UQI pads, filters with a ``kernel_size`` Gaussian and crops the border again.
- Half-precision inputs are filtered in float32 (their sums of squares lose every digit in
  float16); values come back in the input's dtype, as torchmetrics returns them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple, Optional, Sequence, Union

import torch
import torch.nn.functional as F
from torch import Tensor

from lightning_metrics.functional.image._checks import (
    DataRange,
    check_bool,
    check_data_range,
    check_images,
    check_reduction,
    check_spatial_fits,
    check_window_args,
    clamp_to_range,
    range_value,
    result_dtype,
    working_dtype,
)
from lightning_metrics.functional.image._filters import (
    SeparableWindow,
    gaussian_window,
    reflect_pad,
    uniform_window,
)
from lightning_metrics.functional.image._moments import local_moments
from lightning_metrics.utilities.distributed import reduce

MS_SSIM_BETAS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)
NORMALIZATIONS = ("relu", "simple", None)


class SSIMGeometry(NamedTuple):
    """The window of an SSIM configuration and its reflect border per spatial dim."""

    window: SeparableWindow
    pads: tuple[int, ...]


@lru_cache(maxsize=64)
def ssim_geometry(
    gaussian_kernel: bool, sizes: tuple[int, ...], sigmas: tuple[float, ...]
) -> SSIMGeometry:
    """The (shared, cached) window and borders of one SSIM configuration."""
    if gaussian_kernel:
        lengths = tuple(int(3.5 * s + 0.5) * 2 + 1 for s in sigmas)
        window = gaussian_window(lengths, sigmas)
    else:
        lengths = sizes
        window = uniform_window(sizes)
    pads = [(n - 1) // 2 for n in lengths[:2]]
    if len(sizes) == 3:  # torchmetrics pads the third dim by the uniform size, whatever the window
        pads.append((sizes[2] - 1) // 2)
    return SSIMGeometry(window, tuple(pads))


def _crop(x: Tensor, pads: Sequence[int]) -> Tensor:
    # torchmetrics' ``x[p:-p]`` per dim: empty for a zero border (then the mean is NaN, as there)
    index = (Ellipsis, *(slice(p, -p) for p in pads))
    return x[index]


def _check_ssim_inputs(preds: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
    check_images(preds, target, ndims=(4, 5))
    return preds, target.to(preds.dtype)


def ssim_per_image(
    preds: Tensor,
    target: Tensor,
    geometry: SSIMGeometry,
    data_range: DataRange,
    k1: float,
    k2: float,
    extra: Optional[str] = None,
) -> tuple[Tensor, Optional[Tensor]]:
    """Per-image SSIM ``(N,)`` of checked inputs, and the full map (``extra="full"``) or the
    per-image contrast sensitivity (``extra="cs"``)."""
    dtype = result_dtype(preds.dtype)
    work = working_dtype(dtype)
    p = clamp_to_range(preds, data_range).to(work)
    t = clamp_to_range(target, data_range).to(work)
    check_spatial_fits(p.shape, geometry.pads, geometry.window.sizes, "The SSIM window (`sigma`/`kernel_size`)")
    if not p.shape[0]:  # an empty batch has no range to read
        empty = p.new_zeros(0, dtype=dtype)
        return empty, (p.to(dtype) if extra == "full" else empty if extra == "cs" else None)
    value = range_value(data_range, p, t)
    c1, c2 = (k1 * value) ** 2, (k2 * value) ** 2
    pads = [(pad, pad) for pad in geometry.pads]
    m = local_moments(reflect_pad(p, pads), reflect_pad(t, pads), geometry.window)
    upper = 2 * m.cov + c2
    lower = m.var_p + m.var_t + c2
    ssim_map = ((2 * m.mean_p * m.mean_t + c1) * upper) / ((m.mean_p.pow(2) + m.mean_t.pow(2) + c1) * lower)
    n = p.shape[0]
    per_image = ssim_map.reshape(n, -1).mean(-1).to(dtype)
    if extra == "full":
        return per_image, ssim_map.to(dtype)
    if extra == "cs":
        contrast = _crop(upper / lower, geometry.pads)
        return per_image, contrast.reshape(n, -1).mean(-1).to(dtype)
    return per_image, None


def check_ssim_args(
    gaussian_kernel: object, sigma: object, kernel_size: object, data_range: object, k1: object, k2: object
) -> None:
    check_bool("gaussian_kernel", gaussian_kernel)
    check_window_args(kernel_size, sigma)
    check_data_range(data_range)
    for name, value in (("k1", k1), ("k2", k2)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ValueError(f"Argument `{name}` must be a non-negative number, got {value!r}")


class SSIMConfig(NamedTuple):
    """The window and constant arguments of SSIM and MS-SSIM, as the function and the metric take them."""

    gaussian_kernel: bool
    sigma: float | Sequence[float]
    kernel_size: int | Sequence[int]
    data_range: DataRange
    k1: float
    k2: float


def check_ssim_config(
    reduction: object, config: SSIMConfig, return_full_image: object = False, return_contrast_sensitivity: object = False
) -> str | None:
    """Check the arguments of SSIM (function and metric alike); the second output they ask for:
    ``"full"`` (the maps), ``"cs"`` (the contrast terms) or ``None``."""
    check_reduction(reduction)
    check_ssim_args(*config)
    if return_full_image and return_contrast_sensitivity:
        raise ValueError(
            "Arguments `return_full_image` and `return_contrast_sensitivity` are mutually exclusive, got both True"
        )
    return "full" if return_full_image else "cs" if return_contrast_sensitivity else None


def ssim_window(
    gaussian_kernel: bool, kernel_size: int | Sequence[int], sigma: float | Sequence[float], ndim: int
) -> tuple[tuple[int, ...], SSIMGeometry]:
    """The window sizes per spatial dim and the (cached) geometry for ``ndim``-D inputs."""
    sizes, sigmas = check_window_args(kernel_size, sigma, ndim=ndim)
    return sizes, ssim_geometry(gaussian_kernel, sizes, sigmas)


def ssim_values(
    preds: Tensor, target: Tensor, config: SSIMConfig, extra: str | None = None
) -> tuple[Tensor, Tensor | None]:
    """Check one batch and give its per-image SSIM (and the second output ``extra`` names)."""
    preds, target = _check_ssim_inputs(preds, target)
    _, geometry = ssim_window(config.gaussian_kernel, config.kernel_size, config.sigma, preds.ndim - 2)
    return ssim_per_image(preds, target, geometry, config.data_range, config.k1, config.k2, extra)


def structural_similarity_index_measure(
    preds: Tensor,
    target: Tensor,
    gaussian_kernel: bool = True,
    sigma: Union[float, Sequence[float]] = 1.5,
    kernel_size: Union[int, Sequence[int]] = 11,
    reduction: Optional[str] = "elementwise_mean",
    data_range: Optional[Union[float, tuple[float, float]]] = None,
    k1: float = 0.01,
    k2: float = 0.03,
    return_full_image: bool = False,
    return_contrast_sensitivity: bool = False,
) -> Union[Tensor, tuple[Tensor, Tensor]]:
    """Structural similarity of ``(N, C, H, W)`` images or ``(N, C, D, H, W)`` volumes.

    ``data_range``: the value range (a number), a ``(min, max)`` pair (inputs are clamped to it) or
    ``None`` (the larger range of ``preds`` and ``target``). ``return_full_image`` also returns
    the SSIM map, ``return_contrast_sensitivity`` the per-image contrast term (exclusive).

    >>> import torch
    >>> from lightning_metrics.functional.image import structural_similarity_index_measure
    >>> preds = torch.linspace(0, 1, 2 * 3 * 16 * 16).reshape(2, 3, 16, 16)
    >>> structural_similarity_index_measure(preds, preds * 0.75, data_range=1.0)
    tensor(0.9503)
    """
    config = SSIMConfig(gaussian_kernel, sigma, kernel_size, data_range, k1, k2)
    extra = check_ssim_config(reduction, config, return_full_image, return_contrast_sensitivity)
    per_image, second = ssim_values(preds, target, config, extra)
    value = reduce(per_image, reduction)
    return (value, second) if second is not None else value


def check_ms_ssim_args(kernel_size: object, betas: object, normalize: object) -> None:
    if not isinstance(betas, tuple) or not betas or not all(isinstance(b, float) for b in betas):
        raise ValueError(f"Argument `betas` must be a non-empty tuple of floats, got {betas!r}")
    if normalize not in NORMALIZATIONS:
        raise ValueError(f"Argument `normalize` must be one of {NORMALIZATIONS}, got {normalize!r}")
    ok_int = isinstance(kernel_size, int) and not isinstance(kernel_size, bool)
    ok_seq = isinstance(kernel_size, Sequence) and len(kernel_size) in (2, 3) and all(
        isinstance(k, int) and not isinstance(k, bool) for k in kernel_size
    )
    if not (ok_int or ok_seq):
        raise ValueError(
            f"Argument `kernel_size` must be an int or a sequence of 2 or 3 ints, got {kernel_size!r}"
        )


def _check_scales(shape: Sequence[int], sizes: Sequence[int], geometry: SSIMGeometry, scales: int) -> None:
    """torchmetrics' size rules for the number of scales, and every scale's border fits."""
    height, width = shape[-2], shape[-1]
    if width < 2**scales or height < 2**scales:
        raise ValueError(
            f"Argument `betas` has {scales} scales: the image height and width must be at least "
            f"{2**scales}, got spatial size {tuple(shape[2:])}"
        )
    divisor = max(1, scales - 1) ** 2
    for length, size, name in ((height, sizes[0], "height"), (width, sizes[1], "width")):
        if length // divisor <= size - 1:
            raise ValueError(
                f"Argument `betas` has {scales} scales and `kernel_size` is {size}: the image {name} must "
                f"be larger than {(size - 1) * divisor}, got {length}"
            )
    spatial = list(shape[2:])
    for scale in range(scales):
        try:
            check_spatial_fits(spatial, geometry.pads, geometry.window.sizes, "The SSIM window")
        except ValueError:
            raise ValueError(
                f"Argument `betas` has {scales} scales: at scale {scale + 1} the image is {tuple(spatial)}, "
                f"smaller than the SSIM window {geometry.window.sizes}; use fewer scales or larger images"
            ) from None
        spatial = [n // 2 for n in spatial]


def ms_ssim_values(
    preds: Tensor, target: Tensor, config: SSIMConfig, betas: tuple[float, ...], normalize: str | None
) -> Tensor:
    """Check one batch and give its per-image multi-scale SSIM ``(N,)``."""
    preds, target = _check_ssim_inputs(preds, target)
    sizes, geometry = ssim_window(config.gaussian_kernel, config.kernel_size, config.sigma, preds.ndim - 2)
    _check_scales(preds.shape, sizes, geometry, len(betas))
    dtype = result_dtype(preds.dtype)
    p, t = preds.to(working_dtype(dtype)), target.to(working_dtype(dtype))
    pool = F.avg_pool2d if p.ndim == 4 else F.avg_pool3d
    terms = []
    for scale in range(len(betas)):
        sim, contrast = ssim_per_image(p, t, geometry, config.data_range, config.k1, config.k2, extra="cs")
        if normalize == "relu":
            sim, contrast = torch.relu(sim), torch.relu(contrast)
        terms.append(contrast)
        if scale + 1 < len(betas):
            p, t = pool(p, 2), pool(t, 2)
    terms[-1] = sim
    stack = torch.stack(terms).to(p.dtype)
    if normalize == "simple":
        stack = (stack + 1) / 2
    exponents = torch.tensor(betas, device=stack.device, dtype=stack.dtype).view(-1, 1)
    out_dtype = torch.promote_types(dtype, torch.get_default_dtype())  # torchmetrics' betas tensor
    return torch.prod(stack**exponents, dim=0).to(out_dtype)


def multiscale_structural_similarity_index_measure(
    preds: Tensor,
    target: Tensor,
    gaussian_kernel: bool = True,
    sigma: Union[float, Sequence[float]] = 1.5,
    kernel_size: Union[int, Sequence[int]] = 11,
    reduction: Optional[str] = "elementwise_mean",
    data_range: Optional[Union[float, tuple[float, float]]] = None,
    k1: float = 0.01,
    k2: float = 0.03,
    betas: tuple[float, ...] = MS_SSIM_BETAS,
    normalize: Optional[str] = "relu",
) -> Tensor:
    """Multi-scale SSIM: the contrast terms of ``len(betas)`` halvings and the last scale's SSIM,
    raised to ``betas`` and multiplied; ``normalize`` (``"relu"``, ``"simple"`` or ``None``)
    keeps the terms positive for training.

    >>> import torch
    >>> from lightning_metrics.functional.image import multiscale_structural_similarity_index_measure
    >>> preds = torch.linspace(0, 1, 180 * 180).reshape(1, 1, 180, 180)
    >>> multiscale_structural_similarity_index_measure(preds, preds * 0.75, data_range=1.0)
    tensor(0.9694)
    """
    config = SSIMConfig(gaussian_kernel, sigma, kernel_size, data_range, k1, k2)
    check_ssim_config(reduction, config)
    check_ms_ssim_args(kernel_size, betas, normalize)
    per_image = ms_ssim_values(preds, target, config, betas, normalize)
    return reduce(per_image, reduction)


# --------------------------------------------------------------------------------------- UQI
def uqi_pads(sizes: Sequence[int]) -> tuple[list[tuple[int, int]], tuple[int, int]]:
    """torchmetrics' UQI borders: the height is padded by the width kernel's half-size and the
    width by the height kernel's (the same for square kernels); the crop uses each dim's own."""
    half = [(k - 1) // 2 for k in sizes]
    return [(half[1], half[1]), (half[0], half[0])], (half[0], half[1])


def check_uqi_args(kernel_size: object, sigma: object) -> tuple[tuple[int, ...], tuple[float, ...]]:
    for name, value in (("kernel_size", kernel_size), ("sigma", sigma)):
        if not isinstance(value, Sequence) or len(value) != 2:
            raise ValueError(f"Argument `{name}` must be a sequence of two values, got {value!r}")
    return check_window_args(kernel_size, sigma, ndim=2)


def uqi_from_moments(mean_p: Tensor, mean_t: Tensor, var_p: Tensor, var_t: Tensor, cov: Tensor, eps: float) -> Tensor:
    """The UQI map ``4 mu_p mu_t cov / ((mu_p^2 + mu_t^2)(var_p + var_t) + eps)``."""
    mean_pt = mean_p * mean_t
    return 2 * mean_pt * (2 * cov) / ((mean_p.pow(2) + mean_t.pow(2)) * (var_p + var_t) + eps)


def uqi_map(preds: Tensor, target: Tensor, sizes: tuple[int, ...], sigmas: tuple[float, ...]) -> Tensor:
    """The cropped UQI map ``(N, C, h, w)`` of checked ``(N, C, H, W)`` inputs, in their dtype."""
    dtype = result_dtype(preds.dtype)
    work = working_dtype(dtype)
    pads, crop = uqi_pads(sizes)
    window = gaussian_window(sizes, sigmas)
    check_spatial_fits(preds.shape, [p for p, _ in pads], sizes, "The UQI window (`kernel_size`)")
    m = local_moments(reflect_pad(preds.to(work), pads), reflect_pad(target.to(work), pads), window)
    values = uqi_from_moments(*m, eps=torch.finfo(dtype).eps)
    return _crop(values, crop).to(dtype)


def uqi_values(preds: Tensor, target: Tensor, sizes: tuple[int, ...], sigmas: tuple[float, ...]) -> Tensor:
    """Check one batch of ``(N, C, H, W)`` images and give its cropped UQI map."""
    check_images(preds, target, ndims=(4,), same_dtype=True)
    return uqi_map(preds, target, sizes, sigmas)


def universal_image_quality_index(
    preds: Tensor,
    target: Tensor,
    kernel_size: Sequence[int] = (11, 11),
    sigma: Sequence[float] = (1.5, 1.5),
    reduction: Optional[str] = "elementwise_mean",
) -> Tensor:
    """Universal image quality index of ``(N, C, H, W)`` images (SSIM without its constants), over
    the map without its border; ``reduction="none"`` returns the map.

    >>> import torch
    >>> from lightning_metrics.functional.image import universal_image_quality_index
    >>> preds = torch.linspace(0, 1, 2 * 3 * 16 * 16).reshape(2, 3, 16, 16)
    >>> universal_image_quality_index(preds, preds * 0.75)
    tensor(0.9158)
    """
    check_reduction(reduction)
    sizes, sigmas = check_uqi_args(kernel_size, sigma)
    return reduce(uqi_values(preds, target, sizes, sigmas), reduction)
