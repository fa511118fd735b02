"""Peak signal-to-noise ratio, plain and with the blocking-effect factor (PSNR-B).

Both are formulas over sums that add up across batches (squared errors and their count; PSNR-B
adds the blocking-effect factor of each batch), so the modular metrics keep those sums only.
Sums of half-precision inputs are taken in float32 (a float16 sum of squares overflows at 65504);
results have torchmetrics' dtypes.

Beyond torchmetrics 1.9 (which requires it): ``data_range=None`` means the range of ``target``,
as earlier torchmetrics releases did (for the modular metric: of every target seen, from min/max
states that merge exactly across batches and processes); it needs ``dim=None``.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence, Union

import torch
from torch import Tensor

from lightning_metrics.functional.image._checks import (
    DataRange,
    check_data_range,
    check_positive_int,
    check_reduction,
    check_same_shape,
    check_tensor,
    clamp_to_range,
    working_dtype,
)
from lightning_metrics.utilities.distributed import reduce
from lightning_metrics.utilities.prints import rank_zero_warn

Dim = Optional[Union[int, Sequence[int]]]


def check_psnr_args(data_range: DataRange, base: object, reduction: object, dim: Dim) -> None:
    check_data_range(data_range)
    if data_range is None and dim is not None:
        raise ValueError(f"Argument `data_range` must be given when `dim` is not None, got dim={dim!r}")
    if isinstance(base, bool) or not isinstance(base, (int, float)) or base <= 0 or base == 1:
        raise ValueError(f"Argument `base` must be a positive number other than 1, got {base!r}")
    check_reduction(reduction)
    ok = dim is None or (isinstance(dim, int) and not isinstance(dim, bool)) or (
        isinstance(dim, Sequence) and all(isinstance(d, int) and not isinstance(d, bool) for d in dim)
    )
    if not ok:
        raise ValueError(f"Argument `dim` must be None, an int or a sequence of ints, got {dim!r}")


def warn_reduction_without_dim(reduction: object, dim: Dim) -> None:
    if dim is None and reduction != "elementwise_mean":
        rank_zero_warn(f"The `reduction={reduction}` will not have any effect when `dim` is None.")


def sum_squared_error(preds: Tensor, target: Tensor, dim: Dim = None) -> tuple[Tensor, Tensor, torch.dtype]:
    """Squared-error sums (over everything, or over ``dim``), their counts, and the dtype
    torchmetrics keeps them in (the inputs' floating dtype, float32 for integers)."""
    check_tensor("preds", preds)
    check_tensor("target", target)
    check_same_shape(preds, target)
    dtype = torch.promote_types(preds.dtype, target.dtype)
    dtype = dtype if dtype.is_floating_point else torch.float32
    work = working_dtype(dtype)
    diff = preds.to(work) - target.to(work)
    if dim is None:
        return (diff * diff).sum(), torch.tensor(target.numel(), device=target.device), dtype
    sse = torch.sum(diff * diff, dim=dim)
    dims = [dim] if isinstance(dim, int) else list(dim)
    count = math.prod(target.shape[d] for d in dims) if dims else target.numel()
    return sse, torch.full(sse.shape, count, dtype=torch.int64, device=sse.device), dtype


def psnr_from_sums(
    sse: Tensor, count: Tensor, data_range: Tensor, base: float, dtype: torch.dtype
) -> Tensor:
    """``10 log_base(range^2 / mse)``, in the dtype torchmetrics' formula gives (a per-image
    result follows the inputs' dtype, a scalar one is at least float32)."""
    work = torch.promote_types(sse.dtype, torch.float32)
    value = 2 * torch.log(data_range.to(work)) - torch.log(sse.to(work) / count)
    value = value * (10 / math.log(base))
    if sse.ndim:  # a tensor of values keeps its dtype against torchmetrics' scalar range and base
        return value.to(dtype)
    return value.to(torch.promote_types(torch.promote_types(dtype, data_range.dtype), torch.get_default_dtype()))


def range_tensor(data_range: DataRange, target: Tensor) -> Tensor:
    """The range as torchmetrics holds it: a default-dtype scalar, or the target's own range."""
    if data_range is None:
        values = target if target.is_floating_point() else target.float()
        return values.max() - values.min()
    if isinstance(data_range, tuple):
        return torch.tensor(data_range[1] - data_range[0], dtype=torch.get_default_dtype())
    return torch.tensor(float(data_range))


def peak_signal_noise_ratio(
    preds: Tensor,
    target: Tensor,
    data_range: Union[float, tuple[float, float]],
    base: float = 10.0,
    reduction: Optional[str] = "elementwise_mean",
    dim: Dim = None,
) -> Tensor:
    """PSNR ``10 log_base(data_range^2 / mse)``; with ``dim``, one value per slice (reduced by
    ``reduction``). ``data_range``: a number, a ``(min, max)`` pair (inputs are clamped to it) or
    ``None`` (the range of ``target``; needs ``dim=None``).

    >>> import torch
    >>> from lightning_metrics.functional.image import peak_signal_noise_ratio
    >>> preds = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
    >>> target = torch.tensor([[3.0, 2.0], [1.0, 1.5]])
    >>> peak_signal_noise_ratio(preds, target, data_range=3.0)
    tensor(4.3409)
    >>> peak_signal_noise_ratio(preds, target, data_range=3.0, reduction="none", dim=1)
    tensor([2.5527, 7.4339])
    """
    warn_reduction_without_dim(reduction, dim)
    check_psnr_args(data_range, base, reduction, dim)
    preds, target = clamp_to_range(preds, data_range), clamp_to_range(target, data_range)
    sse, count, dtype = sum_squared_error(preds, target, dim)
    value = psnr_from_sums(sse, count, range_tensor(data_range, target), base, dtype)
    return reduce(value, reduction)


# ------------------------------------------------------------------------------------ PSNR-B
def blocking_effect_factor(images: Tensor, block_size: int = 8) -> Tensor:
    """The blocking-effect factor of a batch of ``(N, 1, H, W)`` images: how much more the pixel
    differences across block borders exceed those inside blocks (0 when they do not).

    >>> import torch
    >>> blocks = torch.zeros(1, 1, 8, 8); blocks[..., 4:] = 1.0
    >>> blocking_effect_factor(blocks, block_size=4)
    tensor(0.1778)
    """
    _, channels, height, width = images.shape
    if channels > 1:
        raise ValueError(f"Argument `preds` must hold grayscale images (1 channel) for PSNR-B, got {channels} channels")
    x = images.to(working_dtype(images.dtype))
    across = (x[..., :, 1:] - x[..., :, :-1]).pow(2)  # (N, 1, H, W - 1)
    down = (x[..., 1:, :] - x[..., :-1, :]).pow(2)  # (N, 1, H - 1, W)
    # 0/1 weights of the block-border columns and rows (weights, not a mask index: no host sync)
    on_column = torch.zeros(width - 1, dtype=x.dtype, device=x.device)
    on_column[block_size - 1 :: block_size] = 1
    on_row = torch.zeros(height - 1, dtype=x.dtype, device=x.device)
    on_row[block_size - 1 :: block_size] = 1
    across_cols, down_rows = across.sum((0, 1, 2)), down.sum((0, 1, 3))
    border = (across_cols * on_column).sum() + (down_rows * on_row).sum()
    inside = (across_cols * (1 - on_column)).sum() + (down_rows * (1 - on_row)).sum()
    n_border_h = height * (width / block_size) - 1
    n_border_v = width * (height / block_size) - 1
    n_inside = height * (width - 1) - n_border_h + width * (height - 1) - n_border_v
    border = border / (n_border_h + n_border_v)
    inside = inside / n_inside
    weight = math.log2(block_size) / math.log2(min(height, width))
    factor = torch.where(border > inside, weight * (border - inside), torch.zeros_like(border))
    return factor.to(images.dtype if images.is_floating_point() else torch.float32)


def check_psnrb_args(data_range: object, block_size: object) -> None:
    check_data_range(data_range, allow_none=False)
    check_positive_int("block_size", block_size)


def psnrb_from_sums(sse: Tensor, count: Tensor, bef: Tensor, data_range: Tensor, dtype: torch.dtype) -> Tensor:
    """``10 log10(range^2 / (mse + bef))``."""
    work = torch.promote_types(torch.promote_types(sse.dtype, bef.dtype), torch.float32)
    value = 10 * torch.log10(data_range.to(work) ** 2 / (sse.to(work) / count + bef.to(work)))
    return value.to(torch.promote_types(dtype, data_range.dtype))


def peak_signal_noise_ratio_with_blocked_effect(
    preds: Tensor,
    target: Tensor,
    data_range: Union[float, tuple[float, float]],
    block_size: int = 8,
) -> Tensor:
    """PSNR-B of grayscale ``(N, 1, H, W)`` images: PSNR with the blocking-effect factor of
    ``preds`` added to the mean squared error (for block-coded, e.g. JPEG, images).

    >>> import torch
    >>> from lightning_metrics.functional.image import peak_signal_noise_ratio_with_blocked_effect
    >>> target = torch.linspace(0, 1, 16 * 16).reshape(1, 1, 16, 16)
    >>> peak_signal_noise_ratio_with_blocked_effect(target.flip(-1), target, data_range=1.0)
    tensor(28.8366)
    """
    check_psnrb_args(data_range, block_size)
    check_tensor("preds", preds)
    if preds.ndim != 4:
        raise ValueError(f"Argument `preds` must have the shape (N, 1, H, W), got {tuple(preds.shape)}")
    preds, target = clamp_to_range(preds, data_range), clamp_to_range(target, data_range)
    sse, count, dtype = sum_squared_error(preds, target)
    bef = blocking_effect_factor(preds, block_size)
    return psnrb_from_sums(sse, count, bef, range_tensor(data_range, target), dtype)
