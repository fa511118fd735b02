"""The box IoU family as metrics: IoU, generalized, distance and complete IoU over lists of images.

Each image's predictions are compared with its targets (all pairs, or pairs of equal labels with
``respect_labels``); the result is the mean of the valid values over every image seen, and with
``class_metrics`` the mean per class of the values in the columns of that class's targets.
"""

from __future__ import annotations

from numbers import Real
from typing import Any, Hashable, Optional

import torch
from torch import Tensor

from lightning_metrics._additive_score import AdditiveScore
from lightning_metrics._input_checks import ValidatedInputs
from lightning_metrics.functional.detection._inputs import (
    _boxes,
    _labels,
    check_box_format,
    check_finite_boxes,
    check_image_lists,
)
from lightning_metrics.functional.detection.iou import iou_batch_statistic, iou_of_statistic
from lightning_metrics.utilities.checks import check_bool


class BoxIoUMetric(ValidatedInputs, AdditiveScore):
    """The family base: per batch the sums of :func:`~lightning_metrics.functional.detection.iou.iou_batch_statistic`.

    State: two scalar sums (the valid values and their number) and, per ground-truth box, its
    label and the sum and number of the valid values of its column (24 bytes), plus the predicted
    labels (8 bytes per box) for the list of classes. A batch with a NaN or infinite coordinate
    raises, naming the image and the value, and leaves the state as it was (one host read); the
    keyword argument ``validate_args=False`` (ours: torchmetrics' classes have none) skips that
    check, and then ``update`` reads nothing back from the device.
    """

    # additive: per-image values, so one update of joined batches holds the same states
    plot_lower_bound = plot_upper_bound = None

    _measure = "iou"
    _invalid_val = -1.0  # torchmetrics' marker of an invalid value (kept for compatibility)

    box_format: str
    iou_threshold: Optional[float]
    class_metrics: bool
    respect_labels: bool

    def _build(self) -> None:
        check_box_format(self.box_format)
        threshold = self.iou_threshold
        if threshold is not None and (isinstance(threshold, bool) or not isinstance(threshold, Real)):
            raise ValueError(f"Argument `iou_threshold` must be None or a float, got {threshold!r}")
        for name in ("class_metrics", "respect_labels"):
            check_bool(name, getattr(self, name))
        self.add_state("total", torch.tensor(0.0, dtype=torch.float64), dist_reduce_fx="sum")
        self.add_state("count", torch.tensor(0), dist_reduce_fx="sum")
        for name in ("gt_labels", "column_sum", "column_count", "pred_labels"):
            self.add_state(name, [], dist_reduce_fx="cat")

    exact_dtype_states = ("total",)

    @property
    def statistic_spec(self) -> Hashable:
        """The measure and what shapes its sums (box format, threshold, label pairing)."""
        return ("box_iou", self._measure, self.box_format, self.iou_threshold, self.respect_labels,
                self.validate_args)  # the leader's update checks the batch for the group

    def update(self, preds: list[dict[str, Tensor]], target: list[dict[str, Tensor]]) -> None:
        """Add the valid values of each image's (predictions x targets) matrix."""
        check_image_lists(preds, target)
        parts: dict[str, list[Tensor]] = {"det_boxes": [], "det_labels": [], "gt_boxes": [], "gt_labels": []}
        det_counts, gt_counts = [], []
        for i, (p, t) in enumerate(zip(preds, target)):
            for side, item, name, counts in (("det", p, "preds", det_counts), ("gt", t, "target", gt_counts)):
                boxes, labels = _boxes(item, name, i), _labels(item, name, i)
                if boxes.shape[0] != labels.shape[0]:
                    raise ValueError(
                        f"Argument `{name}[{i}]['boxes']` holds {boxes.shape[0]} boxes but 'labels' has "
                        f"{labels.shape[0]} entries: one box per label"
                    )
                parts[f"{side}_boxes"].append(boxes)
                parts[f"{side}_labels"].append(labels)
                counts.append(boxes.shape[0])
        if self.validate_args:
            check_finite_boxes({"preds": parts["det_boxes"], "target": parts["gt_boxes"]})
        device = self.device
        flat = {k: (torch.cat(v) if v else torch.zeros((0, 4) if "boxes" in k else (0,), device=device)) for k, v
                in parts.items()}
        stat = iou_batch_statistic(self._measure, flat["det_boxes"], flat["det_labels"].long(), det_counts,
                                   flat["gt_boxes"], flat["gt_labels"].long(), gt_counts, self.box_format,
                                   self.iou_threshold, self.respect_labels)
        self.total = self.total + stat["total"]
        self.count = self.count + stat["count"]
        self.gt_labels.append(flat["gt_labels"].long())
        self.column_sum.append(stat["column_sum"])
        self.column_count.append(stat["column_count"])
        self.pred_labels.append(flat["det_labels"].long())

    def _cat(self, name: str, dtype: torch.dtype) -> Tensor:
        value = getattr(self, name)
        if isinstance(value, Tensor):
            return value
        return torch.cat(value) if value else torch.zeros(0, dtype=dtype, device=self.device)

    def compute(self) -> dict[str, Tensor]:
        """The mean over all images (and per class with ``class_metrics``)."""
        labels = self._cat("gt_labels", torch.int64)
        seen = torch.cat([labels, self._cat("pred_labels", torch.int64)])
        return iou_of_statistic(self._measure, self.total, self.count, labels, self._cat("column_sum", torch.float64),
                                self._cat("column_count", torch.int64), seen, self.class_metrics)


class IntersectionOverUnion(BoxIoUMetric):
    """Mean intersection over union of predicted and target boxes (torchmetrics' ``IntersectionOverUnion``).

    Per image, every predicted box is compared with every target box of the same label
    (``respect_labels=True``, the default) or with all of them; values under ``iou_threshold`` are
    left out. The result is ``{"iou": mean}`` over all images, and with ``class_metrics`` also
    ``{"iou/cl_<c>": mean}`` over the values of class ``c``'s target boxes (0 for a class without
    any). An image without predictions counts one 0 per target (torchmetrics' zero matrix).
    Inputs: lists of per-image dicts with ``boxes`` (in ``box_format``) and ``labels``.

    >>> import torch
    >>> from lightning_metrics.detection import IntersectionOverUnion
    >>> preds = [{"boxes": torch.tensor([[296.55, 93.96, 314.97, 152.79], [298.55, 98.96, 314.97, 151.79]]),
    ...           "labels": torch.tensor([4, 5])}]
    >>> target = [{"boxes": torch.tensor([[300.00, 100.00, 315.00, 150.00]]), "labels": torch.tensor([5])}]
    >>> IntersectionOverUnion()(preds, target)
    {'iou': tensor(0.8614)}
    >>> IntersectionOverUnion(class_metrics=True, respect_labels=False)(preds, target)
    {'iou': tensor(0.7756), 'iou/cl_4': tensor(0.), 'iou/cl_5': tensor(0.7756)}
    """

    def __init__(self, box_format: str = "xyxy", iou_threshold: Optional[float] = None,
                 class_metrics: bool = False, respect_labels: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


class GeneralizedIntersectionOverUnion(BoxIoUMetric):
    """Mean generalized IoU of predicted and target boxes (torchmetrics' ``GeneralizedIntersectionOverUnion``).

    As :class:`IntersectionOverUnion`, with GIoU (IoU minus the share of the enclosing box that
    the union leaves empty, in ``[-1, 1]``); keys ``giou`` and ``giou/cl_<c>``.

    >>> import torch
    >>> from lightning_metrics.detection import GeneralizedIntersectionOverUnion
    >>> preds = [{"boxes": torch.tensor([[0.0, 0.0, 2.0, 2.0]]), "labels": torch.tensor([1])}]
    >>> target = [{"boxes": torch.tensor([[1.0, 1.0, 3.0, 3.0]]), "labels": torch.tensor([1])}]
    >>> GeneralizedIntersectionOverUnion()(preds, target)
    {'giou': tensor(-0.0794)}
    """

    _measure = "giou"

    def __init__(self, box_format: str = "xyxy", iou_threshold: Optional[float] = None,
                 class_metrics: bool = False, respect_labels: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


class DistanceIntersectionOverUnion(BoxIoUMetric):
    """Mean distance IoU of predicted and target boxes (torchmetrics' ``DistanceIntersectionOverUnion``).

    As :class:`IntersectionOverUnion`, with DIoU (IoU minus the squared distance of the centres
    over the squared diagonal of the enclosing box); keys ``diou`` and ``diou/cl_<c>``.

    >>> import torch
    >>> from lightning_metrics.detection import DistanceIntersectionOverUnion
    >>> preds = [{"boxes": torch.tensor([[0.0, 0.0, 2.0, 2.0]]), "labels": torch.tensor([1])}]
    >>> target = [{"boxes": torch.tensor([[1.0, 1.0, 3.0, 3.0]]), "labels": torch.tensor([1])}]
    >>> DistanceIntersectionOverUnion()(preds, target)
    {'diou': tensor(0.0317)}
    """

    _measure = "diou"

    def __init__(self, box_format: str = "xyxy", iou_threshold: Optional[float] = None,
                 class_metrics: bool = False, respect_labels: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


class CompleteIntersectionOverUnion(BoxIoUMetric):
    """Mean complete IoU of predicted and target boxes (torchmetrics' ``CompleteIntersectionOverUnion``).

    As :class:`DistanceIntersectionOverUnion`, minus a weighted disagreement of the aspect ratios;
    keys ``ciou`` and ``ciou/cl_<c>``.

    >>> import torch
    >>> from lightning_metrics.detection import CompleteIntersectionOverUnion
    >>> preds = [{"boxes": torch.tensor([[0.0, 0.0, 2.0, 4.0]]), "labels": torch.tensor([1])}]
    >>> target = [{"boxes": torch.tensor([[1.0, 1.0, 3.0, 3.0]]), "labels": torch.tensor([1])}]
    >>> CompleteIntersectionOverUnion()(preds, target)
    {'ciou': tensor(0.1579)}
    """

    _measure = "ciou"
    _invalid_val = -2.0

    def __init__(self, box_format: str = "xyxy", iou_threshold: Optional[float] = None,
                 class_metrics: bool = False, respect_labels: bool = True, **kwargs: Any) -> None:
        self._configure(locals())
