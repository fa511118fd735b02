"""Generated COCO-like detection data: overlapping boxes of all three area ranges, crowd regions,
images without ground truth or without detections, classes only in the predictions, crowded images
with more than 100 detections, tied scores, and masks drawn inside the boxes."""

from __future__ import annotations

from typing import Optional

import torch
from torch import Tensor

from lightning_metrics.functional.detection._boxes import convert_boxes


def _boxes(gen: torch.Generator, n: int, side: float) -> Tensor:
    """``n`` xyxy boxes in a ``side`` x ``side`` image, sizes from a few pixels to most of the image."""
    scale = torch.exp(torch.empty(n).uniform_(2.0, 5.5, generator=gen))  # ~7 to ~245 px
    wh = scale[:, None] * torch.empty(n, 2).uniform_(0.5, 1.5, generator=gen)
    wh = wh.clamp(max=side * 0.9)
    xy = torch.rand(n, 2, generator=gen) * (side - wh)
    return torch.cat([xy, xy + wh], 1)


def _jitter(gen: torch.Generator, boxes: Tensor, amount: float) -> Tensor:
    wh = (boxes[:, 2:] - boxes[:, :2]).repeat(1, 2)
    out = boxes + amount * wh * torch.randn(boxes.shape, generator=gen)
    lo = torch.minimum(out[:, :2], out[:, 2:])
    hi = torch.maximum(out[:, :2], out[:, 2:])
    return torch.cat([lo, hi + 0.5], 1)


def detection_data(
    seed: int,
    num_images: int = 12,
    num_classes: int = 4,
    side: float = 300.0,
    crowd_rate: float = 0.1,
    tie_rate: float = 0.3,
    crowded_image: bool = True,
    masks: bool = False,
    mask_side: int = 48,
    with_area: bool = False,
    box_format: str = "xyxy",
) -> tuple[list[dict], list[dict]]:
    """``(preds, target)`` lists of dicts as torchmetrics takes them.

    Image 0 has no ground truth, image 1 no detection; class ``num_classes`` appears only in the
    predictions; with ``crowded_image`` the last image has 130 detections of few classes. Scores are
    rounded to 0.1 for a share of the detections (ties within and across images). With ``masks``
    the images are ``mask_side`` pixels wide and each object gets a mask (a filled ellipse or
    rectangle inside its box, some empty).
    """
    gen = torch.Generator().manual_seed(seed)
    if masks:
        side = float(mask_side)
    preds, target = [], []
    for i in range(num_images):
        m = 0 if i == 0 else int(torch.randint(1, 9, (1,), generator=gen))
        gt = _boxes(gen, m, side) if not masks else _boxes(gen, m, side) * 0.25 + side * 0.05
        gt_labels = torch.randint(0, num_classes, (m,), generator=gen)
        crowd = (torch.rand(m, generator=gen) < crowd_rate).long()
        matched = torch.rand(m, generator=gen) < 0.8
        det = [_jitter(gen, gt[matched], 0.08), _jitter(gen, gt[matched][: max(0, int(matched.sum()) // 2)], 0.3)]
        det_labels = [gt_labels[matched], gt_labels[matched][: max(0, int(matched.sum()) // 2)]]
        extra = int(torch.randint(0, 5, (1,), generator=gen))
        if crowded_image and i == num_images - 1:
            extra = 130
        det.append(_boxes(gen, extra, side) if not masks else _boxes(gen, extra, side) * 0.25)
        det_labels.append(torch.randint(0, num_classes + 1 if i % 3 == 0 else num_classes, (extra,),
                                        generator=gen) if extra < 100 else torch.randint(0, 2, (extra,), generator=gen))
        det, det_labels = torch.cat(det), torch.cat(det_labels)
        if i == 1:
            det, det_labels = det[:0], det_labels[:0]
        scores = torch.rand(det.shape[0], generator=gen)
        tied = torch.rand(det.shape[0], generator=gen) < tie_rate
        scores = torch.where(tied, (scores * 10).round() / 10, scores)
        perm = torch.randperm(det.shape[0], generator=gen)
        det, det_labels, scores = det[perm], det_labels[perm], scores[perm]
        p = {"scores": scores, "labels": det_labels}
        t = {"labels": gt_labels, "iscrowd": crowd}
        if with_area and m:
            area = torch.rand(m, generator=gen) * 12000
            area[torch.rand(m, generator=gen) < 0.3] = 0.0  # 0: computed from the geometry
            t["area"] = area
        if masks:
            size = int(side)
            p["masks"] = _draw(gen, det, size)
            t["masks"] = _draw(gen, gt, size)
        p["boxes"] = convert_boxes(det, "xyxy", box_format) if box_format != "xyxy" else det
        t["boxes"] = convert_boxes(gt, "xyxy", box_format) if box_format != "xyxy" else gt
        preds.append(p)
        target.append(t)
    return preds, target


def _draw(gen: torch.Generator, boxes: Tensor, size: int, empty: bool = True) -> Tensor:
    ys = torch.arange(size, dtype=torch.float32)[:, None] + 0.5
    xs = torch.arange(size, dtype=torch.float32)[None, :] + 0.5
    out = torch.zeros(boxes.shape[0], size, size, dtype=torch.bool)
    for k, (x1, y1, x2, y2) in enumerate(boxes.tolist()):
        kind = int(torch.randint(0 if empty else 1, 5, (1,), generator=gen))
        if kind == 0:
            continue  # an empty mask
        if kind == 1:
            out[k] = (xs >= x1) & (xs < x2) & (ys >= y1) & (ys < y2)
        else:
            cx, cy, rx, ry = (x1 + x2) / 2, (y1 + y2) / 2, max((x2 - x1) / 2, 0.6), max((y2 - y1) / 2, 0.6)
            out[k] = ((xs - cx) / rx) ** 2 + ((ys - cy) / ry) ** 2 <= 1
    return out


def shard(items: list, rank: int, world: int, idle_rank: Optional[int] = None) -> list:
    """A rank's images, contiguous (so the merged order is the single-process order)."""
    if idle_rank is not None:
        return [] if rank == idle_rank else items
    per = [len(items) // world + (r < len(items) % world) for r in range(world)]
    start = sum(per[:rank])
    return items[start : start + per[rank]]


def ordinary_data(
    seed: int,
    num_images: int = 300,
    num_classes: int = 80,
    detections: int = 100,
    side: float = 500.0,
    masks: bool = False,
) -> tuple[list[dict], list[dict]]:
    """``(preds, target)`` of ordinary detector output (issue 36's kind): no crowds, no tied scores.

    Each image has 1-19 ground truths of random sizes (all three area ranges) and classes, and
    ``detections`` jittered copies of them (jitter from 2% to 40% of the size; 70% keep the class,
    the others get a random one) with ``torch.rand`` scores. Many classes with a handful of ground
    truths each make recalls land exactly on recall thresholds (3 of 5 is 0.6), where float32
    thresholds read another precision. With ``masks`` each object also gets a mask (a filled ellipse
    or rectangle inside its box; ``side`` is then the image's size in pixels).
    """
    gen = torch.Generator().manual_seed(seed)
    preds, target = [], []
    for _ in range(num_images):
        m = int(torch.randint(1, 20, (1,), generator=gen))
        gt = _boxes(gen, m, side)
        gt_labels = torch.randint(0, num_classes, (m,), generator=gen)
        source = torch.randint(0, m, (detections,), generator=gen)
        wh = (gt[source, 2:] - gt[source, :2]).repeat(1, 2)
        amount = torch.empty(detections, 1).uniform_(0.02, 0.4, generator=gen)
        det = gt[source] + amount * wh * torch.randn(detections, 4, generator=gen)
        det = torch.cat([torch.minimum(det[:, :2], det[:, 2:]), torch.maximum(det[:, :2], det[:, 2:])], 1)
        det = det.clamp(0, side)
        keep = torch.rand(detections, generator=gen) < 0.7
        det_labels = torch.where(keep, gt_labels[source], torch.randint(0, num_classes, (detections,), generator=gen))
        p = {"boxes": det, "scores": torch.rand(detections, generator=gen), "labels": det_labels}
        t = {"boxes": gt, "labels": gt_labels}
        if masks:
            p["masks"], t["masks"] = _draw(gen, det, int(side), empty=False), _draw(gen, gt, int(side), empty=False)
        preds.append(p)
        target.append(t)
    return preds, target
