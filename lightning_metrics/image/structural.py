"""Modular SSIM, MS-SSIM and UQI: a sum and a count of per-image values (the values for ``"none"``).

Arguments are checked and each batch computed by the code of the functions
(:mod:`lightning_metrics.functional.image.structural`); the window of a configuration (per 2-D /
3-D input) is built once there and kept with its device copies, so an update only pads, filters
and applies the formula.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from torch import Tensor

from lightning_metrics._per_sample import PerSampleMetric
from lightning_metrics.functional.image._checks import check_reduction
from lightning_metrics.functional.image.structural import (
    MS_SSIM_BETAS,
    SSIMConfig,
    check_ms_ssim_args,
    check_ssim_config,
    check_uqi_args,
    ms_ssim_values,
    ssim_values,
    uqi_values,
)
from lightning_metrics.utilities.data import dim_zero_cat


class _SSIMFamily(PerSampleMetric):
    higher_is_better = True
    plot_lower_bound: Optional[float] = 0.0
    plot_upper_bound: Optional[float] = 1.0

    gaussian_kernel: bool
    sigma: Union[float, Sequence[float]]
    kernel_size: Union[int, Sequence[int]]
    data_range: Any
    k1: float
    k2: float
    # only SSIM has a second output; MS-SSIM reads these class defaults
    return_full_image: bool = False
    return_contrast_sensitivity: bool = False

    def _check_args(self) -> None:
        self._config = SSIMConfig(self.gaussian_kernel, self.sigma, self.kernel_size, self.data_range, self.k1, self.k2)
        self._extra = check_ssim_config(
            self.reduction, self._config, self.return_full_image, self.return_contrast_sensitivity
        )
        # the range of the data seen is the range of each batch (as in torchmetrics): another split
        # of the same images into batches gives other constants
        self.additive_update = self.data_range is not None


class StructuralSimilarityIndexMeasure(_SSIMFamily):
    """Structural similarity (SSIM) of ``(N, C, H, W)`` images or ``(N, C, D, H, W)`` volumes.

    Arguments as in :func:`~lightning_metrics.functional.image.structural_similarity_index_measure`.
    The mean and the sum keep a float64 sum and a count; ``reduction="none"`` keeps one value per
    image, ``return_full_image`` / ``return_contrast_sensitivity`` also every SSIM map / contrast
    value (then ``compute`` returns a pair). ``data_range=None`` takes each batch's range, as in
    torchmetrics.

    >>> import torch
    >>> from lightning_metrics.image import StructuralSimilarityIndexMeasure
    >>> preds = torch.linspace(0, 1, 2 * 3 * 16 * 16).reshape(2, 3, 16, 16)
    >>> ssim = StructuralSimilarityIndexMeasure(data_range=1.0)
    >>> ssim(preds, preds * 0.75)
    tensor(0.9503)
    """

    def __init__(
        self,
        gaussian_kernel: bool = True,
        sigma: Union[float, Sequence[float]] = 1.5,
        kernel_size: Union[int, Sequence[int]] = 11,
        reduction: Optional[str] = "elementwise_mean",
        data_range: Optional[Union[float, tuple[float, float]]] = None,
        k1: float = 0.01,
        k2: float = 0.03,
        return_full_image: bool = False,
        return_contrast_sensitivity: bool = False,
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _add_states(self) -> None:
        if self._extra is not None:
            self.add_state("image_return", [], dist_reduce_fx="cat")

    def update(self, preds: Tensor, target: Tensor) -> None:
        """Add the per-image SSIM of one batch (and its maps or contrast terms when asked)."""
        self._check_finite(("preds", preds), ("target", target))
        per_image, extra = ssim_values(preds, target, self._config, self._extra)
        if extra is not None:
            self.image_return.append(extra)
        self._accumulate(per_image)

    def compute(self) -> Union[Tensor, tuple[Tensor, Tensor]]:
        """The reduced SSIM (and every map or contrast value, concatenated)."""
        value = self._reduced()
        if self._extra is None:
            return value
        return value, dim_zero_cat(self.image_return)


class MultiScaleStructuralSimilarityIndexMeasure(_SSIMFamily):
    """Multi-scale SSIM of ``(N, C, H, W)`` images or ``(N, C, D, H, W)`` volumes.

    Arguments as in
    :func:`~lightning_metrics.functional.image.multiscale_structural_similarity_index_measure`;
    state: a float64 sum and a count (``reduction="none"``: one value per image).

    >>> import torch
    >>> from lightning_metrics.image import MultiScaleStructuralSimilarityIndexMeasure
    >>> preds = torch.linspace(0, 1, 180 * 180).reshape(1, 1, 180, 180)
    >>> ms_ssim = MultiScaleStructuralSimilarityIndexMeasure(data_range=1.0)
    >>> ms_ssim(preds, preds * 0.75)
    tensor(0.9694)
    """

    def __init__(
        self,
        gaussian_kernel: bool = True,
        kernel_size: Union[int, Sequence[int]] = 11,
        sigma: Union[float, Sequence[float]] = 1.5,
        reduction: Optional[str] = "elementwise_mean",
        data_range: Optional[Union[float, tuple[float, float]]] = None,
        k1: float = 0.01,
        k2: float = 0.03,
        betas: tuple[float, ...] = MS_SSIM_BETAS,
        normalize: Optional[str] = "relu",
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _check_args(self) -> None:
        super()._check_args()
        check_ms_ssim_args(self.kernel_size, self.betas, self.normalize)

    def _values(self, preds: Tensor, target: Tensor) -> Tensor:
        return ms_ssim_values(preds, target, self._config, self.betas, self.normalize)


class UniversalImageQualityIndex(PerSampleMetric):
    """Universal image quality index of ``(N, C, H, W)`` images (mean over every pixel of the
    cropped UQI map; ``reduction="none"``: every map).

    Arguments as in :func:`~lightning_metrics.functional.image.universal_image_quality_index`;
    state: a float64 sum and a pixel count (torchmetrics' count: ``N C (H - k + 1) (W - k + 1)``).

    >>> import torch
    >>> from lightning_metrics.image import UniversalImageQualityIndex
    >>> preds = torch.linspace(0, 1, 2 * 3 * 16 * 16).reshape(2, 3, 16, 16)
    >>> UniversalImageQualityIndex()(preds, preds * 0.75)
    tensor(0.9158)
    """

    higher_is_better = True
    plot_lower_bound: Optional[float] = 0.0
    plot_upper_bound: Optional[float] = 1.0

    def __init__(
        self,
        kernel_size: Sequence[int] = (11, 11),
        sigma: Sequence[float] = (1.5, 1.5),
        reduction: Optional[str] = "elementwise_mean",
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _check_args(self) -> None:
        check_reduction(self.reduction)
        self._window_args = check_uqi_args(self.kernel_size, self.sigma)

    def update(self, preds: Tensor, target: Tensor) -> None:
        """Add the UQI map of one batch (its sum and pixel count, or the map for ``"none"``)."""
        self._check_finite(("preds", preds), ("target", target))
        values = uqi_values(preds, target, *self._window_args)
        (k0, k1), (n, c, h, w) = self._window_args[0], preds.shape
        self._accumulate(values, count=n * c * (h - k0 + 1) * (w - k1 + 1))
