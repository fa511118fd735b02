"""Modular SCC, VIF and total variation: sums and counts of per-image values."""

from __future__ import annotations

from typing import Any, Optional

from torch import Tensor

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics._per_sample import PerSampleMetric
from lightning_metrics.functional.image.correlation import (
    check_high_pass_filter,
    check_scc_window,
    check_vif_args,
    check_vif_inputs,
    default_high_pass_filter,
    scc_inputs,
    scc_map,
    vif_per_image,
)
from lightning_metrics.functional.image.gradients import TV_REDUCTIONS, total_variation_per_image
from lightning_metrics.utilities.checks import check_choice


class SpatialCorrelationCoefficient(PerSampleMetric):
    """Mean over images of the spatial correlation coefficient (see
    :func:`~lightning_metrics.functional.image.spatial_correlation_coefficient`; the filter is
    ``high_pass_filter``, a Laplacian by default). State: a float64 sum and a count.

    >>> import torch
    >>> from lightning_metrics.image import SpatialCorrelationCoefficient
    >>> target = (torch.arange(2 * 16 * 16.0).reshape(2, 1, 16, 16) * 0.37).sin()
    >>> SpatialCorrelationCoefficient()(target + 0.3 * target.flip(-1), target)
    tensor(0.9578)
    """

    higher_is_better = True
    plot = _plot_methods.plot_any  # torchmetrics gives SCC the base class's plot signature

    def __init__(self, high_pass_filter: Optional[Tensor] = None, window_size: int = 8, **kwargs: Any) -> None:
        self._configure(locals())

    def _check_args(self) -> None:
        self._filter = default_high_pass_filter() if self.high_pass_filter is None else self.high_pass_filter
        check_high_pass_filter(self._filter)
        check_scc_window(self.window_size)

    def _values(self, preds: Tensor, target: Tensor) -> Tensor:
        preds, target = scc_inputs(preds, target, self.window_size)
        return scc_map(preds, target, self._filter, self.window_size).mean(dim=(1, 2, 3))


class VisualInformationFidelity(PerSampleMetric):
    """Visual information fidelity (see
    :func:`~lightning_metrics.functional.image.visual_information_fidelity`): the mean over images,
    or every image's value (``reduction="none"``). State: a float64 sum and a count
    (torchmetrics keeps every value).

    >>> import torch
    >>> from lightning_metrics.image import VisualInformationFidelity
    >>> target = torch.linspace(0, 255, 48 * 48).reshape(1, 1, 48, 48).sin() * 100
    >>> VisualInformationFidelity()(target * 0.5, target)
    tensor(0.8134)
    """

    higher_is_better = True
    plot = _plot_methods.plot_any  # torchmetrics gives VIF the base class's plot signature
    _result_follows_input = True

    def __init__(self, sigma_n_sq: float = 2.0, reduction: str = "mean", **kwargs: Any) -> None:
        self._configure(locals())

    def _check_args(self) -> None:
        check_vif_args(self.sigma_n_sq)
        check_choice("reduction", self.reduction, ("mean", "none"))

    def _values(self, preds: Tensor, target: Tensor) -> Tensor:
        check_vif_inputs(preds, target)
        return vif_per_image(preds, target, self.sigma_n_sq)


class TotalVariation(PerSampleMetric):
    """Total variation of every image seen: summed (default), averaged over images (``"mean"``)
    or per image (``"none"`` / ``None``). State: a float64 sum and a count.

    >>> import torch
    >>> from lightning_metrics.image import TotalVariation
    >>> TotalVariation()(torch.arange(9.0).reshape(1, 1, 3, 3))
    tensor(24.)
    """

    higher_is_better = False
    plot_lower_bound: Optional[float] = 0.0

    def __init__(self, reduction: Optional[str] = "sum", **kwargs: Any) -> None:
        self._configure(locals())

    def _check_args(self) -> None:
        check_choice("reduction", self.reduction, TV_REDUCTIONS)

    def update(self, img: Tensor) -> None:
        """Add the total variation of every image of one batch."""
        self._check_finite(("img", img))
        self._accumulate(total_variation_per_image(img))
