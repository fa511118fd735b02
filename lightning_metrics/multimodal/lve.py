"""Modular lip vertex error: a float64 sum and a count of the per-frame errors of
:func:`~lightning_metrics.functional.multimodal.lip_vertex_error`."""

from __future__ import annotations

from typing import Any, Optional

from torch import Tensor

from lightning_metrics._per_sample import PerSampleMetric
from lightning_metrics.functional.multimodal.lve import check_mouth_map, check_vertices, frame_errors


class LipVertexError(PerSampleMetric):
    """Mean lip vertex error over every frame seen: per frame, the largest squared distance between
    a predicted and a ground-truth vertex listed in ``mouth_map``. Each update takes vertices
    ``(T, V, 3)`` and ``(T', V, 3)`` and scores their first ``min(T, T')`` frames. The state is a
    float64 sum and a count of the frame errors (torchmetrics keeps every vertex of every frame).

    >>> import torch
    >>> from lightning_metrics.multimodal import LipVertexError
    >>> gt = torch.zeros(2, 4, 3)
    >>> lve = LipVertexError(mouth_map=[1, 2])
    >>> lve.update(gt + 1.0, gt)
    >>> lve.update(gt[:1] + 2.0, gt)  # one frame in common
    >>> lve.compute()
    tensor(6.)
    """

    is_differentiable = True
    higher_is_better = False
    plot_lower_bound: Optional[float] = 0.0
    plot_upper_bound: Optional[float] = None
    _result_follows_input = True  # torchmetrics returns the mean in the vertices' dtype

    def __init__(self, mouth_map: list[int], validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())

    def _check_args(self) -> None:
        check_mouth_map(self.mouth_map)

    def update(self, vertices_pred: Tensor, vertices_gt: Tensor) -> None:  # type: ignore[override]
        """Add the errors of the frames the two sequences have in common (with ``validate_args``,
        wrong shapes, lip indices and NaN or infinite coordinates raise)."""
        if self.validate_args:
            check_vertices(vertices_pred, vertices_gt, self.mouth_map)
            frames = min(vertices_pred.shape[0], vertices_gt.shape[0])
            pred, gt = vertices_pred[:frames], vertices_gt[:frames]
            self._check_finite(("vertices_pred", pred), ("vertices_gt", gt))
        self._accumulate(frame_errors(vertices_pred, vertices_gt, self.mouth_map))
