"""The box IoU family (IoU, generalized, distance and complete IoU), torchmetrics' functions and the
per-batch statistic of the modular metrics.

The functions take two ``(N, 4)`` and ``(M, 4)`` corner-box tensors, as torchmetrics': the ``(N, M)``
matrix (``aggregate=False``) or the mean of its diagonal; values under ``iou_threshold`` are
replaced by ``replacement_val``; with no predictions (or no targets) the matrix is the
``(M, M)`` (``(N, N)``) zero matrix, as in torchmetrics.

:func:`iou_batch_statistic` is what the modular metrics keep per batch: over the images, the sum
and the number of the valid matrix entries (at or above the threshold, of equal labels with
``respect_labels``), and per ground-truth box the sum and number of the valid entries of its
column, so that ``compute`` gives the global mean and the per-class means without the matrices.
"""

from __future__ import annotations

from typing import Any, Optional

import torch
from torch import Tensor

from lightning_metrics.functional.detection._boxes import ROW_MEASURES, _upcast, convert_boxes, pairwise


def _check_boxes(preds: Tensor, target: Tensor) -> None:
    for name, boxes in (("preds", preds), ("target", target)):
        if not isinstance(boxes, Tensor):
            raise TypeError(f"Argument `{name}` must be a tensor of boxes, got {type(boxes).__name__}")
        if boxes.ndim != 2 or boxes.shape[-1] != 4:
            raise ValueError(f"Argument `{name}` must have shape (N, 4), got {tuple(boxes.shape)}")


def _matrix(measure: str, preds: Tensor, target: Tensor, iou_threshold: Optional[float],
            replacement_val: float) -> Tensor:
    _check_boxes(preds, target)
    if preds.numel() == 0:
        return torch.zeros(target.shape[0], target.shape[0], device=target.device, dtype=torch.float32)
    if target.numel() == 0:
        return torch.zeros(preds.shape[0], preds.shape[0], device=preds.device, dtype=torch.float32)
    values = pairwise(measure, preds, target)
    if iou_threshold is not None:
        values = torch.where(values < iou_threshold, torch.as_tensor(replacement_val, dtype=values.dtype), values)
    return values


def _reduce(values: Tensor, aggregate: bool) -> Tensor:
    if not aggregate:
        return values
    return values.diag().mean() if values.numel() > 0 else torch.tensor(0.0, device=values.device)


def intersection_over_union(preds: Tensor, target: Tensor, iou_threshold: Optional[float] = None,
                            replacement_val: float = 0, aggregate: bool = True) -> Tensor:
    """Intersection over union between two sets of ``(x1, y1, x2, y2)`` boxes (torchmetrics' function).

    >>> import torch
    >>> preds = torch.tensor([[296.55, 93.96, 314.97, 152.79], [298.55, 98.96, 314.97, 151.79]])
    >>> target = torch.tensor([[300.00, 100.00, 315.00, 150.00], [300.00, 100.00, 315.00, 150.00]])
    >>> intersection_over_union(preds, target)
    tensor(0.7756)
    >>> intersection_over_union(preds, target, aggregate=False)
    tensor([[0.6898, 0.6898],
            [0.8614, 0.8614]])
    """
    return _reduce(_matrix("iou", preds, target, iou_threshold, replacement_val), aggregate)


def generalized_intersection_over_union(preds: Tensor, target: Tensor, iou_threshold: Optional[float] = None,
                                        replacement_val: float = 0, aggregate: bool = True) -> Tensor:
    """Generalized IoU between two sets of ``(x1, y1, x2, y2)`` boxes (torchmetrics' function).

    >>> import torch
    >>> preds = torch.tensor([[0.0, 0.0, 2.0, 2.0]])
    >>> target = torch.tensor([[1.0, 1.0, 3.0, 3.0]])
    >>> generalized_intersection_over_union(preds, target)
    tensor(-0.0794)
    """
    return _reduce(_matrix("giou", preds, target, iou_threshold, replacement_val), aggregate)


def distance_intersection_over_union(preds: Tensor, target: Tensor, iou_threshold: Optional[float] = None,
                                     replacement_val: float = 0, aggregate: bool = True) -> Tensor:
    """Distance IoU between two sets of ``(x1, y1, x2, y2)`` boxes (torchmetrics' function).

    >>> import torch
    >>> preds = torch.tensor([[0.0, 0.0, 2.0, 2.0]])
    >>> target = torch.tensor([[1.0, 1.0, 3.0, 3.0]])
    >>> distance_intersection_over_union(preds, target)
    tensor(0.0317)
    """
    return _reduce(_matrix("diou", preds, target, iou_threshold, replacement_val), aggregate)


def complete_intersection_over_union(preds: Tensor, target: Tensor, iou_threshold: Optional[float] = None,
                                     replacement_val: float = 0, aggregate: bool = True) -> Tensor:
    """Complete IoU between two sets of ``(x1, y1, x2, y2)`` boxes (torchmetrics' function).

    >>> import torch
    >>> preds = torch.tensor([[0.0, 0.0, 2.0, 4.0]])
    >>> target = torch.tensor([[1.0, 1.0, 3.0, 3.0]])
    >>> complete_intersection_over_union(preds, target)
    tensor(0.1579)
    """
    return _reduce(_matrix("ciou", preds, target, iou_threshold, replacement_val), aggregate)


def iou_batch_statistic(
    measure: str,
    det_boxes: Tensor,
    det_labels: Tensor,
    det_counts: list[int],
    gt_boxes: Tensor,
    gt_labels: Tensor,
    gt_counts: list[int],
    box_format: str,
    iou_threshold: Optional[float],
    respect_labels: bool,
) -> dict[str, Tensor]:
    """The sums of valid entries of the per-image matrices of one batch (see the module docstring).

    ``det_boxes``/``gt_boxes`` hold every image's boxes one after the other (``det_counts`` and
    ``gt_counts`` per image, as Python ints: nothing is read back from the device). Returns
    ``total`` (float64) and ``count`` (int64) scalars and per ground truth ``column_sum`` and
    ``column_count``. An image without predictions adds zeros (one per ground truth, or ``M`` per
    ground truth without ``respect_labels``), one without targets zeros to the total only, as
    torchmetrics' zero matrices do.
    """
    device = gt_boxes.device
    det = _upcast(convert_boxes(det_boxes, box_format, "xyxy"))
    gt = _upcast(convert_boxes(gt_boxes, box_format, "xyxy"))
    sizes = [n * m for n, m in zip(det_counts, gt_counts)]
    total = sum(sizes)
    images = len(sizes)
    counts = torch.tensor([det_counts, gt_counts, sizes], dtype=torch.int64, device=device)
    det_off = torch.cumsum(counts[0], 0) - counts[0]
    gt_off = torch.cumsum(counts[1], 0) - counts[1]
    image = torch.repeat_interleave(torch.arange(images, device=device), counts[2], output_size=total)
    local = torch.arange(total, device=device) - (torch.cumsum(counts[2], 0) - counts[2])[image]
    width = counts[1][image].clamp(min=1)
    d = det_off[image] + local // width
    g = gt_off[image] + local % width
    values = ROW_MEASURES[measure](det[d], gt[g]).to(torch.float64)
    valid = torch.ones_like(values, dtype=torch.bool)
    if iou_threshold is not None:
        valid &= ~(values < iou_threshold)
    if respect_labels:
        valid &= det_labels[d] == gt_labels[g]
    kept = torch.where(valid, values, 0.0)
    column_sum = torch.zeros(gt.shape[0], dtype=torch.float64, device=device).index_add_(0, g, kept)
    column_count = torch.zeros(gt.shape[0], dtype=torch.int64, device=device).index_add_(0, g, valid.long())
    # torchmetrics' zero matrices of images with one side empty
    no_preds = [0 if n else (1 if respect_labels else m) for n, m in zip(det_counts, gt_counts)]
    no_targets = sum(0 if m else (n if respect_labels else n * n) for n, m in zip(det_counts, gt_counts))
    column_count += torch.repeat_interleave(torch.tensor(no_preds, dtype=torch.int64, device=device), counts[1],
                                            output_size=gt.shape[0])
    zeros = sum(p * m for p, m in zip(no_preds, gt_counts)) + no_targets
    return {"total": kept.sum(), "count": valid.sum() + zeros, "column_sum": column_sum, "column_count": column_count}


def iou_of_statistic(
    prefix: str,
    total: Tensor,
    count: Tensor,
    column_labels: Tensor,
    column_sum: Tensor,
    column_count: Tensor,
    seen_labels: Tensor,
    class_metrics: bool,
) -> dict[str, Any]:
    """torchmetrics' result: ``{prefix: mean}`` and with ``class_metrics`` ``{prefix/cl_<c>: mean}``
    for every label seen in predictions or targets (0 where a class has no valid entry)."""
    mean = torch.where(count > 0, total / count.clamp(min=1), 0.0).to(torch.float32)
    result: dict[str, Any] = {prefix: mean}
    if class_metrics:
        classes = torch.unique(seen_labels)
        index = torch.searchsorted(classes, column_labels)
        sums = torch.zeros(classes.numel(), dtype=torch.float64, device=total.device).index_add_(0, index, column_sum)
        nums = torch.zeros(classes.numel(), dtype=torch.int64, device=total.device).index_add_(0, index, column_count)
        means = torch.where(nums > 0, sums / nums.clamp(min=1), 0.0).to(torch.float32)
        for c, value in zip(classes.tolist(), means):
            result[f"{prefix}/cl_{c}"] = value
    return result
