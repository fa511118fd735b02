"""Boxes: format conversions and the pairwise IoU family, written here (no torchvision).

The conversions repeat torchvision's arithmetic step by step (``cxcywh`` goes through corners, as
``torchvision.ops.box_convert`` does), so a box reaches the COCO evaluation with the very same
float values it has in torchmetrics, and a match decided at an IoU threshold is decided alike.

:func:`box_iou` and friends take ``(N, 4)`` and ``(M, 4)`` corner boxes and return ``(N, M)``
matrices with torchvision's definitions: generalized IoU subtracts the empty share of the enclosing
box; distance IoU the squared centre distance over the squared enclosing diagonal (plus ``1e-7``);
complete IoU also an aspect-ratio term weighted by ``v / (1 - iou + v + 1e-7)``. Half-precision
boxes are computed in float32, as torchvision upcasts them.

>>> import torch
>>> a = torch.tensor([[0.0, 0.0, 2.0, 2.0]])
>>> b = torch.tensor([[1.0, 1.0, 3.0, 3.0], [4.0, 0.0, 5.0, 1.0]])
>>> box_iou(a, b)
tensor([[0.1429, 0.0000]])
>>> generalized_box_iou(a, b)
tensor([[-0.0794, -0.5000]])
>>> convert_boxes(torch.tensor([[1.0, 1.0, 2.0, 4.0]]), "cxcywh", "xyxy")
tensor([[ 0., -1.,  2.,  3.]])
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

BOX_FORMATS = ("xyxy", "xywh", "cxcywh")
_EPS = 1e-7


def _to_xyxy(boxes: Tensor, fmt: str) -> Tensor:
    if fmt == "xyxy":
        return boxes
    a, b, c, d = boxes.unbind(-1)
    if fmt == "xywh":
        return torch.stack((a, b, a + c, b + d), dim=-1)
    return torch.stack((a - 0.5 * c, b - 0.5 * d, a + 0.5 * c, b + 0.5 * d), dim=-1)


def convert_boxes(boxes: Tensor, in_fmt: str, out_fmt: str) -> Tensor:
    """Convert ``(..., 4)`` boxes between ``"xyxy"``, ``"xywh"`` and ``"cxcywh"`` (torchvision's steps).

    >>> import torch
    >>> convert_boxes(torch.tensor([[1.0, 2.0, 4.0, 6.0]]), "xyxy", "xywh")
    tensor([[1., 2., 3., 4.]])
    """
    if in_fmt == out_fmt:
        return boxes
    corners = _to_xyxy(boxes, in_fmt)
    if out_fmt == "xyxy":
        return corners
    x1, y1, x2, y2 = corners.unbind(-1)
    if out_fmt == "xywh":
        return torch.stack((x1, y1, x2 - x1, y2 - y1), dim=-1)
    return torch.stack(((x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1), dim=-1)


def _upcast(boxes: Tensor) -> Tensor:
    return boxes if boxes.dtype in (torch.float32, torch.float64) else boxes.float()


def _area(boxes: Tensor) -> Tensor:
    return (boxes[..., 2] - boxes[..., 0]) * (boxes[..., 3] - boxes[..., 1])


# The measures below take broadcastable ``(..., 4)`` corner boxes: ``(N, 1, 4)`` against ``(1, M, 4)``
# gives the matrix, two ``(E, 4)`` rows the values of E pairs.
def _iou_and_union(preds: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
    corner_min = torch.maximum(preds[..., :2], target[..., :2])
    corner_max = torch.minimum(preds[..., 2:], target[..., 2:])
    sides = (corner_max - corner_min).clamp(min=0)
    inter = sides[..., 0] * sides[..., 1]
    union = _area(preds) + _area(target) - inter
    return inter / union, union


def _enclosing_sides(preds: Tensor, target: Tensor) -> Tensor:
    low = torch.minimum(preds[..., :2], target[..., :2])
    high = torch.maximum(preds[..., 2:], target[..., 2:])
    return (high - low).clamp(min=0)


def _iou(preds: Tensor, target: Tensor) -> Tensor:
    return _iou_and_union(preds, target)[0]


def _giou(preds: Tensor, target: Tensor) -> Tensor:
    iou, union = _iou_and_union(preds, target)
    sides = _enclosing_sides(preds, target)
    enclosing = sides[..., 0] * sides[..., 1]
    return iou - (enclosing - union) / enclosing


def _distance_and_iou(preds: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
    iou, _ = _iou_and_union(preds, target)
    sides = _enclosing_sides(preds, target)
    diagonal = sides[..., 0] ** 2 + sides[..., 1] ** 2 + _EPS
    offset = (preds[..., :2] + preds[..., 2:]) / 2 - (target[..., :2] + target[..., 2:]) / 2
    distance = offset[..., 0] ** 2 + offset[..., 1] ** 2
    return iou - distance / diagonal, iou


def _diou(preds: Tensor, target: Tensor) -> Tensor:
    return _distance_and_iou(preds, target)[0]


def _ciou(preds: Tensor, target: Tensor) -> Tensor:
    diou, iou = _distance_and_iou(preds, target)
    ratio_p = torch.atan((preds[..., 2] - preds[..., 0]) / (preds[..., 3] - preds[..., 1]))
    ratio_t = torch.atan((target[..., 2] - target[..., 0]) / (target[..., 3] - target[..., 1]))
    v = (4 / math.pi**2) * (ratio_p - ratio_t) ** 2
    alpha = (v / (1 - iou + v + _EPS)).detach()
    return diou - alpha * v


# measure name -> the value of broadcast pairs of boxes
ROW_MEASURES = {"iou": _iou, "giou": _giou, "diou": _diou, "ciou": _ciou}


def pairwise(measure: str, preds: Tensor, target: Tensor) -> Tensor:
    """The ``(N, M)`` matrix of ``measure`` (``"iou"``, ``"giou"``, ``"diou"``, ``"ciou"``) between corner boxes."""
    preds, target = _upcast(preds), _upcast(target)
    return ROW_MEASURES[measure](preds[:, None, :], target[None, :, :])


def box_iou(preds: Tensor, target: Tensor) -> Tensor:
    """Intersection over union of every pair of corner boxes: ``(N, M)``."""
    return pairwise("iou", preds, target)


def generalized_box_iou(preds: Tensor, target: Tensor) -> Tensor:
    """Generalized IoU of every pair: IoU minus the share of the enclosing box the union leaves empty."""
    return pairwise("giou", preds, target)


def distance_box_iou(preds: Tensor, target: Tensor) -> Tensor:
    """Distance IoU of every pair: IoU minus the squared centre distance over the squared enclosing diagonal."""
    return pairwise("diou", preds, target)


def complete_box_iou(preds: Tensor, target: Tensor) -> Tensor:
    """Complete IoU of every pair: distance IoU minus a weighted aspect-ratio disagreement."""
    return pairwise("ciou", preds, target)


def coco_box_iou(det: Tensor, gt: Tensor, crowd: Tensor) -> Tensor:
    """COCO's IoU of matched rows of ``xywh`` boxes (float64), as pycocotools' ``bbIou`` computes it.

    ``det`` and ``gt`` are ``(E, 4)`` rows of detection/ground-truth pairs; a crowd region divides
    the intersection by the detection's area only. The float64 operations come in pycocotools'
    order, so a value equals pycocotools' bit for bit.

    >>> import torch
    >>> det = torch.tensor([[0.0, 0.0, 2.0, 2.0], [0.0, 0.0, 2.0, 2.0]], dtype=torch.float64)
    >>> gt = torch.tensor([[1.0, 1.0, 2.0, 2.0], [1.0, 1.0, 2.0, 2.0]], dtype=torch.float64)
    >>> coco_box_iou(det, gt, torch.tensor([False, True]))
    tensor([0.1429, 0.2500], dtype=torch.float64)
    """
    dx, dy, dw, dh = det.unbind(-1)
    gx, gy, gw, gh = gt.unbind(-1)
    det_area, gt_area = dw * dh, gw * gh
    width = torch.minimum(dw + dx, gw + gx) - torch.maximum(dx, gx)
    height = torch.minimum(dh + dy, gh + gy) - torch.maximum(dy, gy)
    inter = width * height
    union = torch.where(crowd, det_area, det_area + gt_area - inter)
    overlap = (width > 0) & (height > 0)
    return torch.where(overlap, inter / torch.where(overlap, union, 1.0), 0.0)
