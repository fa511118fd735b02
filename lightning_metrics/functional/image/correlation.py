"""Spatial correlation coefficient (SCC) and visual information fidelity (VIF).

Both read local moments (:mod:`._moments`): SCC of high-pass filtered images in a box window,
VIF of the images themselves in four Gaussian windows at successive halvings. Both are per-image
values, so the modular metrics keep a sum and a count (torchmetrics keeps every VIF value).
"""

from __future__ import annotations

import math
from typing import Optional

import torch
import torch.nn.functional as F
from torch import Tensor

from lightning_metrics.functional.image._checks import (
    check_same_shape,
    check_tensor,
    is_number,
    result_dtype,
    working_dtype,
)
from lightning_metrics.functional.image._filters import SeparableWindow, gaussian_taps, uniform_window, zero_pad
from lightning_metrics.functional.image._moments import local_moments
from lightning_metrics.utilities.checks import check_choice

LAPLACIAN = ((-1, -1, -1), (-1, 8, -1), (-1, -1, -1))


# ---------------------------------------------------------------------------------------- SCC
def default_high_pass_filter() -> Tensor:
    return torch.tensor(LAPLACIAN)


def check_scc_window(window_size: object) -> None:
    if isinstance(window_size, bool) or not isinstance(window_size, int) or window_size <= 0:
        raise ValueError(f"Argument `window_size` must be a positive integer, got {window_size!r}")


def check_high_pass_filter(hp_filter: object) -> None:
    if not isinstance(hp_filter, Tensor) or hp_filter.ndim != 2 or not hp_filter.numel():
        raise ValueError(f"Argument `hp_filter` must be a 2-D tensor, got {hp_filter!r}")


def scc_inputs(preds: Tensor, target: Tensor, window_size: int) -> tuple[Tensor, Tensor]:
    """Checked ``(N, C, H, W)`` float32 inputs (``(N, H, W)`` grayscale batches get a channel)."""
    check_tensor("preds", preds)
    check_tensor("target", target)
    target = target.to(preds.dtype)
    check_same_shape(preds, target)
    if preds.ndim not in (3, 4):
        raise ValueError(
            f"Argument `preds` must have the shape (N, C, H, W) or (N, H, W), got {tuple(preds.shape)}"
        )
    if preds.ndim == 3:
        preds, target = preds.unsqueeze(1), target.unsqueeze(1)
    if window_size > preds.shape[2] or window_size > preds.shape[3]:
        raise ValueError(
            f"Argument `window_size`={window_size} must not exceed the image size {tuple(preds.shape[2:])}"
        )
    return preds.to(torch.float32), target.to(torch.float32)


def _mirror(x: Tensor, left: int, right: int, top: int, bottom: int) -> Tensor:
    # torchmetrics' edge-repeating pad, sliced as it slices (``x[-0:]`` is the whole image)
    x = torch.cat([x[..., :, 0:left].flip(-1), x, x[..., :, -right:].flip(-1)], dim=-1)
    return torch.cat([x[..., 0:top, :].flip(-2), x, x[..., -bottom:, :].flip(-2)], dim=-2)


def _high_pass(images: Tensor, hp_filter: Tensor) -> Tensor:
    """Twice the true convolution of every image with ``hp_filter``, with mirrored borders."""
    kh, kw = hp_filter.shape
    padded = _mirror(
        images, math.floor((kw - 1) / 2), math.ceil((kw - 1) / 2), math.floor((kh - 1) / 2), math.ceil((kh - 1) / 2)
    )
    n, c = padded.shape[:2]
    kernel = hp_filter.flip([0, 1]).to(dtype=images.dtype, device=images.device)[None, None]
    out = F.conv2d(padded.reshape(n * c, 1, *padded.shape[2:]), kernel)
    return out.reshape(n, c, *out.shape[2:]) * 2.0


def scc_map(preds: Tensor, target: Tensor, hp_filter: Tensor, window_size: int) -> Tensor:
    """The SCC of every pixel ``(N, C, h, w)`` of checked float32 inputs."""
    hp_p, hp_t = _high_pass(preds, hp_filter), _high_pass(target, hp_filter)
    before, after = math.ceil((window_size - 1) / 2), math.floor((window_size - 1) / 2)
    pads = [(before, after), (before, after)]
    m = local_moments(zero_pad(hp_p, pads), zero_pad(hp_t, pads), uniform_window((window_size, window_size)))
    den = torch.sqrt(m.var_t) * torch.sqrt(m.var_p)
    zero = den == 0
    return torch.where(zero, torch.zeros_like(den), m.cov / torch.where(zero, torch.ones_like(den), den))


def spatial_correlation_coefficient(
    preds: Tensor,
    target: Tensor,
    hp_filter: Optional[Tensor] = None,
    window_size: int = 8,
    reduction: Optional[str] = "mean",
) -> Tensor:
    """Spatial correlation coefficient of ``(N, C, H, W)`` (or ``(N, H, W)``) images: the local
    correlation of their high-pass (default: Laplacian) filtered versions in a box window;
    ``reduction="none"`` gives one value per image. Computed in float32, as torchmetrics does.

    >>> import torch
    >>> from lightning_metrics.functional.image import spatial_correlation_coefficient
    >>> target = (torch.arange(2 * 16 * 16.0).reshape(2, 1, 16, 16) * 0.37).sin()
    >>> spatial_correlation_coefficient(target + 0.3 * target.flip(-1), target)
    tensor(0.9578)
    """
    hp_filter = default_high_pass_filter() if hp_filter is None else hp_filter
    reduction = "none" if reduction is None else reduction
    check_choice("reduction", reduction, ("mean", "none"))
    check_high_pass_filter(hp_filter)
    check_scc_window(window_size)
    preds, target = scc_inputs(preds, target, window_size)
    values = scc_map(preds, target, hp_filter, window_size)
    return values.mean(dim=(1, 2, 3)) if reduction == "none" else values.mean()


# ---------------------------------------------------------------------------------------- VIF
VIF_SCALES = 4
VIF_MIN_SIZE = 41


def _vif_window(scale: int) -> SeparableWindow:
    length = 2 ** (VIF_SCALES - scale) + 1
    taps = gaussian_taps(length, length / 5)
    return SeparableWindow((taps, taps))


_VIF_WINDOWS = tuple(_vif_window(s) for s in range(VIF_SCALES))


def check_vif_args(sigma_n_sq: object) -> None:
    if not is_number(sigma_n_sq) or sigma_n_sq < 0:
        raise ValueError(f"Argument `sigma_n_sq` must be a non-negative number, got {sigma_n_sq!r}")


def check_vif_inputs(preds: Tensor, target: Tensor) -> None:
    check_tensor("preds", preds)
    check_tensor("target", target)
    for name, x in (("preds", preds), ("target", target)):
        if x.ndim != 4:
            raise ValueError(f"Argument `{name}` must have the shape (N, C, H, W), got {tuple(x.shape)}")
        if x.shape[-1] < VIF_MIN_SIZE or x.shape[-2] < VIF_MIN_SIZE:
            raise ValueError(
                f"Argument `{name}` must be at least {VIF_MIN_SIZE}x{VIF_MIN_SIZE}, got {x.shape[-2]}x{x.shape[-1]}"
            )
    if preds.shape != target.shape:
        raise ValueError(f"`preds` and `target` must have the same shape, got {tuple(preds.shape)} and {tuple(target.shape)}")


def vif_per_image(preds: Tensor, target: Tensor, sigma_n_sq: float) -> Tensor:
    """VIF of every image ``(N,)`` (the mean over channels of each channel's VIF)."""
    dtype = result_dtype(preds.dtype)
    work = working_dtype(dtype)
    n, c = preds.shape[:2]
    p, t = preds.to(work).reshape(n * c, 1, *preds.shape[2:]), target.to(work).reshape(n * c, 1, *target.shape[2:])
    eps = torch.tensor(1e-10, dtype=work, device=preds.device)
    noise = torch.tensor(sigma_n_sq, dtype=work, device=preds.device)
    zero = torch.zeros((), dtype=work, device=preds.device)
    preds_info = torch.zeros(n * c, dtype=work, device=preds.device)
    target_info = torch.zeros(n * c, dtype=work, device=preds.device)
    for scale, window in enumerate(_VIF_WINDOWS):
        if scale > 0:
            t, p = window.apply(t)[..., ::2, ::2], window.apply(p)[..., ::2, ::2]
        m = local_moments(p, t, window)
        gain = m.cov / (m.var_t + eps)
        var_v = m.var_p - gain * m.cov
        flat_target = m.var_t < eps
        gain = torch.where(flat_target, zero, gain)
        var_v = torch.where(flat_target, m.var_p, var_v)
        var_t = torch.where(flat_target, zero, m.var_t)
        flat_preds = m.var_p < eps
        gain = torch.where(flat_preds, zero, gain)
        var_v = torch.where(flat_preds, zero, var_v)
        negative = gain < 0
        var_v = torch.where(negative, m.var_p, var_v)
        gain = torch.where(negative, zero, gain)
        var_v = torch.clamp(var_v, min=eps)
        preds_info = preds_info + torch.log10(1.0 + gain**2.0 * var_t / (var_v + noise)).sum(dim=(1, 2, 3))
        target_info = target_info + torch.log10(1.0 + var_t / noise).sum(dim=(1, 2, 3))
    return (preds_info / target_info).reshape(n, c).mean(1).to(dtype)


def visual_information_fidelity(
    preds: Tensor,
    target: Tensor,
    sigma_n_sq: float = 2.0,
    reduction: str = "mean",
) -> Tensor:
    """Pixel-domain visual information fidelity of ``(N, C, H, W)`` images (at least 41x41);
    ``reduction="none"`` gives one value per image.

    >>> import torch
    >>> from lightning_metrics.functional.image import visual_information_fidelity
    >>> target = torch.linspace(0, 255, 48 * 48).reshape(1, 1, 48, 48).sin() * 100
    >>> visual_information_fidelity(target * 0.5, target)
    tensor(0.8134)
    """
    check_vif_inputs(preds, target)
    check_choice("reduction", reduction, ("mean", "none"))
    values = vif_per_image(preds, target, sigma_n_sq)
    return values.mean() if reduction == "mean" else values
