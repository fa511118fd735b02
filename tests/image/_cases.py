"""Generated image batches and the table of functional cases the parity tests sweep.

Inputs are textured (a smooth pattern plus noise), so that SSIM-like indices are far from 0 and 1;
sizes are odd and non-square. Each case names a function, its keyword arguments and an input kind;
:func:`inputs` builds the positional arguments of that kind for a dtype and seed.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

FLOATS = (torch.float32, torch.float64)
HALVES = (torch.float16, torch.bfloat16)


def texture(gen: torch.Generator, shape: tuple[int, ...]) -> Tensor:
    """A smooth random pattern in [0, 1] with fine noise (float64)."""
    coarse = torch.rand((*shape[:-2], max(shape[-2] // 4, 2), max(shape[-1] // 4, 2)), generator=gen, dtype=torch.float64)
    flat = coarse.reshape(-1, 1, *coarse.shape[-2:])
    smooth = torch.nn.functional.interpolate(flat, size=shape[-2:], mode="bilinear", align_corners=False)
    smooth = smooth.reshape(*shape)
    return (0.8 * smooth + 0.2 * torch.rand(shape, generator=gen, dtype=torch.float64)).clamp(0, 1)


def pair(gen: torch.Generator, shape: tuple[int, ...], constant: bool = False) -> tuple[Tensor, Tensor]:
    """``(preds, target)`` float64: target a texture, preds a distorted copy (or both constant)."""
    if constant:
        return torch.full(shape, 0.25, dtype=torch.float64), torch.full(shape, 0.75, dtype=torch.float64)
    target = texture(gen, shape)
    preds = (0.75 * target + 0.15 + 0.1 * torch.rand(shape, generator=gen, dtype=torch.float64)).clamp(0, 1)
    return preds, target


SHAPES = {
    "rgb": (3, 3, 23, 29),
    "gray": (2, 1, 24, 40),
    "bands": (2, 4, 21, 19),
    "volume": (1, 2, 12, 13, 14),
    "large": (1, 1, 177, 181),
    "large3d": (1, 1, 30, 31, 33),
    "vif": (2, 2, 45, 43),
}


def inputs(kind: str, dtype: torch.dtype, seed: int = 0) -> tuple:
    """The positional arguments of one call of input ``kind``, in ``dtype``."""
    gen = torch.Generator().manual_seed(seed)
    if kind == "constant":
        preds, target = pair(gen, SHAPES["rgb"], constant=True)
        return preds.to(dtype), target.to(dtype)
    if kind == "identical":
        target = texture(gen, SHAPES["rgb"])
        return target.to(dtype), target.to(dtype)
    if kind == "single":  # one image, one channel
        preds, target = pair(gen, (1, 1, 25, 27))
        return preds.to(dtype), target.to(dtype)
    if kind in ("fused_ms", "pan", "pan_lr"):  # fused (N, C, 32, 32), ms (N, C, 16, 16), pan, pan_lr
        fused, pan = pair(gen, (2, 3, 32, 32))
        ms = texture(gen, (2, 3, 16, 16))
        args = [fused, ms, pan, (pan[..., ::2, ::2] + pan[..., 1::2, 1::2]) / 2]
        args = args[: {"fused_ms": 2, "pan": 3, "pan_lr": 4}[kind]]
        return tuple(a.to(dtype) for a in args)
    if kind == "vif":
        preds, target = pair(gen, SHAPES["vif"])
        return (preds * 255).to(dtype), (target * 255).to(dtype)
    if kind == "image":
        return (pair(gen, SHAPES["rgb"])[1].to(dtype),)
    preds, target = pair(gen, SHAPES[kind])
    return preds.to(dtype), target.to(dtype)


# (function, kwargs, input kind) -- every argument of every function, with the kinds it applies to
SSIM = "structural_similarity_index_measure"
MS_SSIM = "multiscale_structural_similarity_index_measure"
FUNCTIONAL_CASES: list[tuple[str, dict, str]] = [
    (SSIM, {}, "rgb"),
    (SSIM, {}, "gray"),
    (SSIM, {"data_range": 1.0}, "rgb"),
    (SSIM, {"data_range": (0.2, 0.8)}, "rgb"),
    (SSIM, {"data_range": 1.0}, "constant"),
    (SSIM, {"data_range": 1.0}, "identical"),
    (SSIM, {}, "identical"),
    (SSIM, {"sigma": 1.0}, "rgb"),
    (SSIM, {"sigma": (0.8, 2.0)}, "gray"),
    (SSIM, {"gaussian_kernel": False, "kernel_size": 7}, "rgb"),
    (SSIM, {"gaussian_kernel": False, "kernel_size": (3, 9)}, "gray"),
    (SSIM, {"reduction": "none"}, "rgb"),
    (SSIM, {"reduction": "sum"}, "rgb"),
    (SSIM, {"reduction": None}, "single"),
    (SSIM, {"k1": 0.05, "k2": 0.1, "data_range": 2.0}, "rgb"),
    (SSIM, {"return_full_image": True}, "rgb"),
    (SSIM, {"return_full_image": True, "reduction": "none", "data_range": 1.0}, "gray"),
    (SSIM, {"return_contrast_sensitivity": True}, "rgb"),
    (SSIM, {"return_contrast_sensitivity": True, "gaussian_kernel": False, "kernel_size": 5}, "gray"),
    (SSIM, {}, "volume"),
    (SSIM, {"kernel_size": 7, "sigma": 1.0}, "volume"),  # the third dim padded by kernel_size (torchmetrics)
    (SSIM, {"gaussian_kernel": False, "kernel_size": (5, 7, 3)}, "volume"),
    (SSIM, {"return_contrast_sensitivity": True, "sigma": 0.7, "kernel_size": 5}, "volume"),
    (SSIM, {"return_full_image": True, "data_range": 1.0}, "volume"),
    (MS_SSIM, {"data_range": 1.0}, "large"),
    (MS_SSIM, {}, "large"),
    (MS_SSIM, {"data_range": (0.1, 0.9), "reduction": "none"}, "large"),
    (MS_SSIM, {"normalize": None, "data_range": 1.0}, "large"),
    (MS_SSIM, {"normalize": "simple", "betas": (0.3, 0.3, 0.4), "reduction": "sum"}, "large"),
    (MS_SSIM, {"gaussian_kernel": False, "kernel_size": 9, "betas": (0.5, 0.5)}, "large"),
    (MS_SSIM, {"sigma": (1.0, 1.2), "k1": 0.02, "k2": 0.05, "data_range": 1.0}, "large"),
    (MS_SSIM, {"betas": (0.5, 0.5), "kernel_size": 7, "sigma": 1.0, "data_range": 1.0}, "large3d"),
    ("universal_image_quality_index", {}, "rgb"),
    ("universal_image_quality_index", {"kernel_size": (5, 7), "sigma": (1.0, 2.0)}, "rgb"),
    ("universal_image_quality_index", {"kernel_size": (3, 3), "sigma": (0.5, 0.5), "reduction": "none"}, "gray"),
    ("universal_image_quality_index", {"reduction": "sum"}, "bands"),
    ("universal_image_quality_index", {}, "identical"),
    ("peak_signal_noise_ratio", {"data_range": 1.0}, "rgb"),
    ("peak_signal_noise_ratio", {"data_range": (0.2, 0.7)}, "rgb"),
    ("peak_signal_noise_ratio", {"data_range": 2.0, "base": 2.0}, "gray"),
    ("peak_signal_noise_ratio", {"data_range": 1.0, "dim": (1, 2, 3), "reduction": "none"}, "rgb"),
    ("peak_signal_noise_ratio", {"data_range": 1.0, "dim": 1, "reduction": "sum"}, "rgb"),
    ("peak_signal_noise_ratio", {"data_range": 1.0, "dim": [2, 3]}, "bands"),
    ("peak_signal_noise_ratio", {"data_range": 1.0}, "identical"),  # inf, as in torchmetrics
    ("peak_signal_noise_ratio_with_blocked_effect", {"data_range": 1.0}, "gray"),
    ("peak_signal_noise_ratio_with_blocked_effect", {"data_range": (0.1, 0.9), "block_size": 4}, "gray"),
    ("peak_signal_noise_ratio_with_blocked_effect", {"data_range": 1.0, "block_size": 5}, "single"),
    ("error_relative_global_dimensionless_synthesis", {}, "rgb"),
    ("error_relative_global_dimensionless_synthesis", {"ratio": 2, "reduction": "none"}, "bands"),
    ("error_relative_global_dimensionless_synthesis", {"ratio": 0.5, "reduction": "sum"}, "gray"),
    ("spectral_angle_mapper", {}, "rgb"),
    ("spectral_angle_mapper", {"reduction": "none"}, "bands"),
    ("spectral_angle_mapper", {"reduction": "sum"}, "identical"),
    ("root_mean_squared_error_using_sliding_window", {}, "rgb"),
    ("root_mean_squared_error_using_sliding_window", {"window_size": 5, "return_rmse_map": True}, "bands"),
    ("root_mean_squared_error_using_sliding_window", {"window_size": 1}, "gray"),  # an empty crop: NaN
    ("root_mean_squared_error_using_sliding_window", {"window_size": 3}, "constant"),
    ("relative_average_spectral_error", {}, "rgb"),
    ("relative_average_spectral_error", {"window_size": 5}, "bands"),
    ("relative_average_spectral_error", {"window_size": 3}, "gray"),
    ("spatial_correlation_coefficient", {}, "rgb"),
    ("spatial_correlation_coefficient", {"window_size": 5, "reduction": "none"}, "bands"),
    ("spatial_correlation_coefficient", {"reduction": None}, "gray"),
    ("spatial_correlation_coefficient", {"hp_filter": torch.tensor([[0.0, -1.0], [-1.0, 2.0]])}, "rgb"),
    ("spatial_correlation_coefficient", {}, "constant"),
    ("total_variation", {}, "image"),
    ("total_variation", {"reduction": "mean"}, "image"),
    ("total_variation", {"reduction": "none"}, "image"),
    ("total_variation", {"reduction": None}, "image"),
    ("image_gradients", {}, "image"),
    ("visual_information_fidelity", {}, "vif"),
    ("visual_information_fidelity", {"sigma_n_sq": 0.5, "reduction": "none"}, "vif"),
    ("spectral_distortion_index", {}, "fused_ms"),
    ("spectral_distortion_index", {"p": 2, "reduction": "none"}, "bands"),
    ("spectral_distortion_index", {"p": 3, "reduction": "sum"}, "rgb"),
    ("spatial_distortion_index", {}, "pan_lr"),
    ("spatial_distortion_index", {"norm_order": 2, "window_size": 5, "reduction": "none"}, "pan_lr"),
    ("spatial_distortion_index", {"reduction": "sum"}, "pan_lr"),
    ("quality_with_no_reference", {}, "pan_lr"),
    ("quality_with_no_reference", {"alpha": 0.5, "beta": 2, "norm_order": 2, "reduction": "none"}, "pan_lr"),
]


def case_id(case: tuple[str, dict, str]) -> str:
    name, kwargs, kind = case
    text = ",".join(f"{k}={v!r}" for k, v in kwargs.items() if k != "hp_filter")
    return f"{name}({text}{',hp_filter' if 'hp_filter' in kwargs else ''})[{kind}]"


def returns_map(kwargs: dict) -> bool:
    """Whether the case returns per-pixel values (SSIM maps, UQI / SAM without reduction)."""
    return bool(kwargs.get("return_full_image")) or (
        kwargs.get("reduction", "x") in ("none", None) and "dim" not in kwargs
    )


def tolerance(dtype: torch.dtype, per_pixel: bool = False) -> dict[str, Any]:
    """Agreement with the reference per input dtype (float32: another summation order; half
    precisions: we filter in float32). Per-pixel values of float32 windows carry the rounding of
    ``E[x^2] - E[x]^2`` in a small window: torchmetrics' own float32 error there is ~1e-4."""
    if per_pixel and dtype == torch.float32:
        return dict(rtol=1e-3, atol=1e-3)
    return {
        torch.float64: dict(rtol=1e-7, atol=1e-9),
        torch.float32: dict(rtol=2e-5, atol=2e-5),
        torch.float16: dict(rtol=2e-2, atol=2e-3),
        torch.bfloat16: dict(rtol=1e-1, atol=2e-2),
    }[dtype]
