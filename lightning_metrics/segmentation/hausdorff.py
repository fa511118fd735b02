"""Modular Hausdorff distance: a running sum and count of the per-sample, per-class distances."""

from __future__ import annotations

from typing import Any, Hashable, Optional, Sequence, Union

import torch
from torch import Tensor

from lightning_metrics._additive_score import AdditiveScore
from lightning_metrics.functional.segmentation._inputs import class_masks, format_pair
from lightning_metrics.functional.segmentation.hausdorff import check_hausdorff_args, hausdorff_of_masks


class HausdorffDistance(AdditiveScore):
    """Hausdorff distance between predicted and target boundaries (torchmetrics' ``HausdorffDistance``).

    The mean, over samples and classes, of the Hausdorff distance between the boundary pixels of
    the predicted and target masks of each class (see
    :func:`~lightning_metrics.functional.segmentation.hausdorff_distance` for the metrics,
    ``spacing``, ``directed``, 2-D and 3-D inputs). A class present in only one of preds and
    target gives ``inf`` (as in torchmetrics, so the mean is ``inf``); a class absent from both
    has no distance and is left out of the mean (torchmetrics raises there). Extension:
    ``validate_args``. State: a float64 sum and an int64 count.

    >>> import torch
    >>> from lightning_metrics.segmentation import HausdorffDistance
    >>> preds = torch.zeros(2, 2, 5, 5, dtype=torch.long); target = torch.zeros_like(preds)
    >>> preds[:, 1, 1:3, 1:3] = 1; target[:, 1, 1:4, 1:4] = 1
    >>> HausdorffDistance(num_classes=2)(preds, target)
    tensor(1.4142)
    >>> HausdorffDistance(num_classes=2, distance_metric="chessboard", spacing=[2.0, 0.5])(preds, target)
    tensor(2.)
    """

    is_differentiable = True  # as torchmetrics declares
    higher_is_better = False
    plot_upper_bound = None

    def __init__(
        self,
        num_classes: int,
        include_background: bool = False,
        distance_metric: str = "euclidean",
        spacing: Optional[Union[Tensor, Sequence[float]]] = None,
        directed: bool = False,
        input_format: str = "one-hot",
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _build(self) -> None:
        self._spacing = check_hausdorff_args(
            self.num_classes,
            self.include_background,
            self.distance_metric,
            self.spacing,
            self.directed,
            self.input_format,
            self.validate_args,
        )
        self.add_state("score", torch.zeros((), dtype=torch.float64), dist_reduce_fx="sum")
        self.add_state("total", torch.zeros((), dtype=torch.long), dist_reduce_fx="sum")

    @property
    def statistic_spec(self) -> Hashable:
        """Everything the distances depend on: equal specs share one state and one update."""
        return (
            "hausdorff",
            self.num_classes,
            self.include_background,
            self.distance_metric,
            self._spacing,
            self.directed,
            self.input_format,
            self.validate_args,
        )

    def update(self, preds: Tensor, target: Tensor) -> None:
        """Add the distances of every sample and class of one batch."""
        p, t, classes = format_pair(
            preds, target, self.num_classes, self.input_format, validate=self.validate_args
        )
        pred_masks, target_masks = class_masks(p, classes), class_masks(t, classes)
        if not self.include_background and classes > 1:
            pred_masks, target_masks = pred_masks[:, 1:], target_masks[:, 1:]
        distances = hausdorff_of_masks(
            pred_masks, target_masks, self.distance_metric, self._spacing, self.directed
        )
        defined = ~distances.isnan()
        self.score += torch.where(defined, distances, 0).sum(dtype=torch.float64)
        self.total += defined.sum()

    def compute(self) -> Tensor:
        """The mean distance over the (sample, class) pairs seen."""
        return (self.score / self.total).to(torch.get_default_dtype())
