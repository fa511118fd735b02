"""Modular Procrustes disparity: a float64 sum and a count of the per-pair disparities of
:func:`~lightning_metrics.functional.shape.procrustes_disparity`."""

from __future__ import annotations

from typing import Any, Literal, Optional

from torch import Tensor

from lightning_metrics._per_sample import PerSampleMetric
from lightning_metrics.functional.shape.procrustes import procrustes_disparity
from lightning_metrics.utilities.checks import check_choice


class ProcrustesDisparity(PerSampleMetric):
    """The Procrustes disparity of pairs of point clouds ``(N, M, D)``: their mean over every pair
    seen (``reduction="mean"``) or their sum (``"sum"``). The per-pair values are those of
    :func:`~lightning_metrics.functional.shape.procrustes_disparity`.

    >>> import torch
    >>> from lightning_metrics.shape import ProcrustesDisparity
    >>> square = torch.tensor([[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]])
    >>> metric = ProcrustesDisparity()
    >>> metric.update(square, torch.tensor([[[0.0, 0.0], [2.0, 0.0], [1.0, 1.0], [0.0, 1.0]]]))
    >>> metric.update(square, square * 2 + 1)
    >>> metric.compute()
    tensor(0.0667)
    """

    is_differentiable = False
    higher_is_better = False
    plot_lower_bound: Optional[float] = 0.0
    plot_upper_bound: Optional[float] = 1.0
    _mean_reductions = ("mean",)

    def __init__(self, reduction: Literal["mean", "sum"] = "mean", **kwargs: Any) -> None:
        self._configure(locals())

    def _check_args(self) -> None:
        check_choice("reduction", self.reduction, ("mean", "sum"))

    def update(self, point_cloud1: Tensor, point_cloud2: Tensor) -> None:  # type: ignore[override]
        """Add the disparities of one batch of pairs (NaN or infinite coordinates raise, with
        ``validate_args``)."""
        self._check_finite(("point_cloud1", point_cloud1), ("point_cloud2", point_cloud2))
        self._accumulate(procrustes_disparity(point_cloud1, point_cloud2))  # type: ignore[arg-type]
