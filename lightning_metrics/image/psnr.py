"""Modular PSNR and PSNR-B: sums of squared errors and counts (PSNR-B: and of blocking factors).

With ``dim`` PSNR is a value per slice: a float64 sum and a count of those values (the values for
``reduction="none"``; torchmetrics keeps every slice's squared error). ``data_range=None`` (an
extension, as in torchmetrics before 1.9) takes the range of every target seen from min/max
states, which merge exactly.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import torch
from torch import Tensor

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics._input_checks import ValidatedInputs
from lightning_metrics._per_sample import PerSampleMetric
from lightning_metrics.functional.image._checks import check_tensor, clamp_to_range
from lightning_metrics.functional.image.psnr import (
    blocking_effect_factor,
    check_psnr_args,
    check_psnrb_args,
    psnr_from_sums,
    psnrb_from_sums,
    range_tensor,
    sum_squared_error,
    warn_reduction_without_dim,
)
from lightning_metrics.metric import Metric


class PeakSignalNoiseRatio(PerSampleMetric):
    """Peak signal-to-noise ratio of everything seen (arguments as in
    :func:`~lightning_metrics.functional.image.peak_signal_noise_ratio`).

    State: a float64 sum of squared errors and a count (and the min / max target for
    ``data_range=None``); with ``dim``, a sum and a count of the per-slice values (the values for
    ``reduction="none"``).

    >>> import torch
    >>> from lightning_metrics.image import PeakSignalNoiseRatio
    >>> psnr = PeakSignalNoiseRatio(data_range=3.0)
    >>> psnr.update(torch.tensor([[0.0, 1.0], [2.0, 3.0]]), torch.tensor([[3.0, 2.0], [1.0, 0.0]]))
    >>> psnr.compute()
    tensor(2.5527)
    """

    higher_is_better = True
    plot_lower_bound: Optional[float] = 0.0
    exact_dtype_states = ("value_sum", "sum_squared_error", "min_target", "max_target")
    _result_follows_input = True  # per-slice values: torchmetrics returns their dtype

    def __init__(
        self,
        data_range: Union[float, tuple[float, float]],
        base: float = 10.0,
        reduction: Optional[str] = "elementwise_mean",
        dim: Optional[Union[int, tuple[int, ...]]] = None,
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _build(self) -> None:
        warn_reduction_without_dim(self.reduction, self.dim)
        check_psnr_args(self.data_range, self.base, self.reduction, self.dim)
        self.dim = tuple(self.dim) if isinstance(self.dim, Sequence) else self.dim
        if self.dim is not None:
            super()._build()
            return
        self._keeps_values = False
        self.add_state("sum_squared_error", torch.zeros((), dtype=torch.float64), dist_reduce_fx="sum")
        self.add_state("total", torch.zeros((), dtype=torch.int64), dist_reduce_fx="sum")
        if self.data_range is None:
            self.add_state("min_target", torch.tensor(float("inf"), dtype=torch.float64), dist_reduce_fx="min")
            self.add_state("max_target", torch.tensor(float("-inf"), dtype=torch.float64), dist_reduce_fx="max")

    def update(self, preds: Tensor, target: Tensor) -> None:
        """Add the squared errors of one batch (with ``dim``: its per-slice PSNR values)."""
        self._check_finite(("preds", preds), ("target", target))
        preds, target = clamp_to_range(preds, self.data_range), clamp_to_range(target, self.data_range)
        sse, count, dtype = sum_squared_error(preds, target, self.dim)
        if self.dim is not None:
            values = psnr_from_sums(sse, count, range_tensor(self.data_range, target), self.base, dtype)
            self._accumulate(values.reshape(-1))
            return
        if self.data_range is None and target.numel():
            self.min_target = torch.minimum(self.min_target, target.min().double())
            self.max_target = torch.maximum(self.max_target, target.max().double())
        self.sum_squared_error = self.sum_squared_error + sse.double()
        self.total = self.total + count

    def compute(self) -> Tensor:
        """The PSNR of everything seen."""
        if self.dim is not None:
            return self._reduced()
        if self.data_range is None:
            data_range = self.max_target - self.min_target
        else:
            data_range = range_tensor(self.data_range, self.sum_squared_error).to(self.device)
        value = psnr_from_sums(self.sum_squared_error, self.total, data_range, self.base, torch.float64)
        return value.to(self.dtype)


class PeakSignalNoiseRatioWithBlockedEffect(ValidatedInputs, Metric):
    """PSNR-B of grayscale images (arguments as in
    :func:`~lightning_metrics.functional.image.peak_signal_noise_ratio_with_blocked_effect`):
    the blocking-effect factor of each batch is added up, as in torchmetrics. State: three sums.

    >>> import torch
    >>> from lightning_metrics.image import PeakSignalNoiseRatioWithBlockedEffect
    >>> target = torch.linspace(0, 1, 16 * 16).reshape(1, 1, 16, 16)
    >>> PeakSignalNoiseRatioWithBlockedEffect(data_range=1.0)(target.flip(-1), target)
    tensor(28.8366)
    """

    plot = _plot_methods.plot_value
    is_differentiable = True
    higher_is_better = True
    full_state_update = False
    additive_update = False  # the blocking factor is one per batch: another split gives another sum
    exact_dtype_states = ("sum_squared_error", "bef")

    def __init__(
        self,
        data_range: Union[float, tuple[float, float]],
        block_size: int = 8,
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _build(self) -> None:
        check_psnrb_args(self.data_range, self.block_size)
        self.add_state("sum_squared_error", torch.zeros((), dtype=torch.float64), dist_reduce_fx="sum")
        self.add_state("total", torch.zeros((), dtype=torch.int64), dist_reduce_fx="sum")
        self.add_state("bef", torch.zeros((), dtype=torch.float64), dist_reduce_fx="sum")

    def update(self, preds: Tensor, target: Tensor) -> None:
        """Add the squared errors and the blocking-effect factor of one batch."""
        self._check_finite(("preds", preds), ("target", target))
        check_tensor("preds", preds)
        if preds.ndim != 4:
            raise ValueError(f"Argument `preds` must have the shape (N, 1, H, W), got {tuple(preds.shape)}")
        preds, target = clamp_to_range(preds, self.data_range), clamp_to_range(target, self.data_range)
        sse, count, _ = sum_squared_error(preds, target)
        bef = blocking_effect_factor(preds, self.block_size) if preds.numel() else torch.zeros(())
        self.sum_squared_error = self.sum_squared_error + sse.double()
        self.total = self.total + count
        self.bef = self.bef + bef.double().to(self.device)

    def compute(self) -> Tensor:
        """The PSNR-B of everything seen."""
        data_range = range_tensor(self.data_range, self.bef).to(self.device)
        return psnrb_from_sums(self.sum_squared_error, self.total, self.bef, data_range, torch.float64).to(self.dtype)
