"""Modular ERGAS, SAM, RMSE-SW and RASE: constant-size sums where torchmetrics keeps every image.

ERGAS and RMSE-SW are per-image values and SAM a per-pixel angle (a sum and a count; the values
for ``reduction="none"``); RASE sums two image-sized maps over every image seen.
"""

from __future__ import annotations

from typing import Any, Optional

import torch
from torch import Tensor

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics._per_sample import PerSampleMetric, dtype_code, dtype_from_code
from lightning_metrics.functional.image._checks import check_images, check_positive_int, check_reduction
from lightning_metrics.functional.image.sliding_window import (
    check_window_inputs,
    rase_from_sums,
    rase_sums,
    rmse_sw_per_image,
)
from lightning_metrics.functional.image.spectral import (
    check_ratio,
    check_sam_inputs,
    ergas_per_image,
    sam_per_pixel,
)
from lightning_metrics.image._grown import GrownSumMetric


class ErrorRelativeGlobalDimensionlessSynthesis(PerSampleMetric):
    """ERGAS of ``(N, C, H, W)`` images (arguments as in
    :func:`~lightning_metrics.functional.image.error_relative_global_dimensionless_synthesis`).
    State: a float64 sum and a count of per-image values (``"none"``: the values).

    >>> import torch
    >>> from lightning_metrics.image import ErrorRelativeGlobalDimensionlessSynthesis
    >>> target = torch.linspace(1, 2, 2 * 3 * 8 * 8).reshape(2, 3, 8, 8)
    >>> ErrorRelativeGlobalDimensionlessSynthesis()(target * 0.9, target)
    tensor(2.5014)
    """

    higher_is_better = False
    plot_lower_bound: Optional[float] = 0.0
    _result_follows_input = True

    def __init__(self, ratio: float = 4, reduction: Optional[str] = "elementwise_mean", **kwargs: Any) -> None:
        self._configure(locals())

    def _check_args(self) -> None:
        check_ratio(self.ratio)
        check_reduction(self.reduction)

    def _values(self, preds: Tensor, target: Tensor) -> Tensor:
        check_images(preds, target, same_dtype=True)
        return ergas_per_image(preds, target, self.ratio)


class SpectralAngleMapper(PerSampleMetric):
    """Spectral angle mapper of ``(N, C, H, W)`` images: the mean (or sum) angle over every pixel
    seen; ``reduction="none"`` returns the ``(N, H, W)`` angles. State: a float64 sum and a count.

    >>> import torch
    >>> from lightning_metrics.image import SpectralAngleMapper
    >>> preds = torch.tensor([1.0, 0.0]).view(1, 2, 1, 1).expand(1, 2, 2, 2)
    >>> SpectralAngleMapper()(preds, torch.ones(1, 2, 2, 2))
    tensor(0.7854)
    """

    higher_is_better = False
    plot_lower_bound: Optional[float] = 0.0
    plot_upper_bound: Optional[float] = 1.0

    def __init__(self, reduction: Optional[str] = "elementwise_mean", **kwargs: Any) -> None:
        self._configure(locals())

    def _check_args(self) -> None:
        check_reduction(self.reduction)

    def _values(self, preds: Tensor, target: Tensor) -> Tensor:
        check_sam_inputs(preds, target)
        return sam_per_pixel(preds, target)


class RootMeanSquaredErrorUsingSlidingWindow(PerSampleMetric):
    """Mean over images of the RMSE in a sliding ``window_size`` box (see
    :func:`~lightning_metrics.functional.image.root_mean_squared_error_using_sliding_window`).
    State: a float64 sum and a count.

    >>> import torch
    >>> from lightning_metrics.image import RootMeanSquaredErrorUsingSlidingWindow
    >>> target = torch.zeros(2, 1, 8, 8)
    >>> RootMeanSquaredErrorUsingSlidingWindow(window_size=3)(target + 0.5, target)
    tensor(0.5000)
    """

    higher_is_better = False
    plot_lower_bound: Optional[float] = 0.0

    def __init__(self, window_size: int = 8, **kwargs: Any) -> None:
        self._configure(locals())

    def _check_args(self) -> None:
        check_positive_int("window_size", self.window_size)

    def _values(self, preds: Tensor, target: Tensor) -> Tensor:
        check_window_inputs(preds, target, self.window_size)
        return rmse_sw_per_image(preds, target, self.window_size)[0]


class RelativeAverageSpectralError(GrownSumMetric):
    """Relative average spectral error of every image seen (see
    :func:`~lightning_metrics.functional.image.relative_average_spectral_error`).
    State: two float64 ``(C, H, W)`` sums, whatever the number of images (torchmetrics keeps them all).

    >>> import torch
    >>> from lightning_metrics.image import RelativeAverageSpectralError
    >>> target = torch.full((2, 3, 16, 16), 0.5)
    >>> RelativeAverageSpectralError(window_size=4)(target * 1.1, target)
    tensor(160.0000)
    """

    plot = _plot_methods.plot_value
    is_differentiable = True
    higher_is_better = False
    full_state_update = False
    additive_update = True
    plot_lower_bound: Optional[float] = 0.0
    exact_dtype_states = ("error_sum", "mean_sum")

    def __init__(self, window_size: int = 8, **kwargs: Any) -> None:
        self._configure(locals())

    def _build(self) -> None:
        check_positive_int("window_size", self.window_size)
        self._add_grown_state("error_sum")
        self._add_grown_state("mean_sum")
        self.add_state("total", torch.zeros((), dtype=torch.int64), dist_reduce_fx="sum")
        self.add_state("input_dtype", torch.zeros((), dtype=torch.int64), dist_reduce_fx="max")

    def update(self, preds: Tensor, target: Tensor) -> None:
        """Add one batch's windowed error and target maps."""
        self._check_finite(("preds", preds), ("target", target))
        check_window_inputs(preds, target, self.window_size)
        if not preds.shape[0]:
            return
        errors, means = rase_sums(preds, target, self.window_size)
        self._grow(error_sum=errors, mean_sum=means)
        self.total = self.total + preds.shape[0]
        self.input_dtype = torch.clamp(self.input_dtype, min=dtype_code(target.dtype))

    def compute(self) -> Tensor:
        """The RASE of everything seen."""
        dtype = dtype_from_code(self.input_dtype)
        if not self.error_sum.numel():
            return torch.tensor(float("nan"), dtype=dtype, device=self.device)
        return rase_from_sums(self.error_sum, self.mean_sum, self.total, self.window_size).to(dtype)
