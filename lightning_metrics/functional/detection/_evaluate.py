"""COCO's per-image evaluation (pycocotools' ``evaluateImg``), vectorised over images and classes.

pycocotools evaluates each (image, category) on its own: detections sorted by score (a stable
sort), the top ``maxDets[-1]`` kept, ground truths that are crowd regions or outside the area
range marked *ignored*; then, at each IoU threshold and for each detection in order, the best
still-free ground truth with IoU at or above the threshold is matched (ties go to the later one;
a regular ground truth always wins over an ignored one; a crowd region is never used up).

Here all (image, class) pairs are evaluated at once:

1. one stable sort orders every detection by (image, class, score) and gives its rank in its pair;
2. every (detection, ground truth) pair of the same image and class is one *entry* with its IoU
   (a flat list, so an image with many objects costs what it holds, nothing is padded);
3. matching runs over detection ranks (at most ``maxDets[-1]`` steps), each step handling the
   detections of that rank in every pair, every area range and every IoU threshold in one set
   of tensor operations. Within a step no two detections share a ground truth, so the greedy
   order of pycocotools is kept exactly.

The result says, for each kept detection, area range and threshold, whether it is a true
positive, a false positive, or ignored (matched to an ignored ground truth, or unmatched and
outside the area range), and how many non-ignored ground truths each class has per area range.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import torch
from torch import Tensor

# pycocotools' area ranges: all, small, medium, large (bounds inclusive)
AREA_RANGES = ((0.0, 1e10), (0.0, 32.0**2), (32.0**2, 96.0**2), (96.0**2, 1e10))
AREA_NAMES = ("all", "small", "medium", "large")


class Evaluation(NamedTuple):
    """Per kept detection (ordered by image, class, score) and per ground truth of the evaluation."""

    det: Tensor  # (D,) index of the detection in the input
    det_class: Tensor  # (D,) class index
    det_image: Tensor  # (D,)
    det_score: Tensor  # (D,) float64
    det_rank: Tensor  # (D,) rank by score within its (image, class)
    true_positive: Tensor  # (D, A, T) bool
    false_positive: Tensor  # (D, A, T) bool
    positives: Tensor  # (K, A) int64: non-ignored ground truths per class and area range
    entry_det: Tensor  # (E,) position in the kept detections of each (detection, ground truth) entry
    entry_gt: Tensor  # (E,) index of the ground truth in the input
    entry_iou: Tensor  # (E,) float64


def _first_of_run(keys: Tensor) -> Tensor:
    """For a sorted ``keys``: the index of the first element equal to each element."""
    return torch.searchsorted(keys, keys, right=False)


def evaluate(
    det_image: Tensor,
    det_class: Tensor,
    det_score: Tensor,
    det_area: Tensor,
    gt_image: Tensor,
    gt_class: Tensor,
    gt_crowd: Tensor,
    gt_area: Tensor,
    num_classes: int,
    pair_iou: Callable[[Tensor, Tensor], Tensor],
    iou_thresholds: Tensor,
    max_detections: int,
    area_ranges: Tensor,
) -> Evaluation:
    """Match detections to ground truths as pycocotools' ``evaluate`` does, for all images and classes.

    ``pair_iou(det, gt)`` gives the COCO IoU (crowd regions included) of detection ``det[e]`` with
    ground truth ``gt[e]``; ``iou_thresholds`` are the thresholds as given (pycocotools matches at
    ``min(t, 1 - 1e-10)``); ``area_ranges`` is ``(A, 2)``.
    """
    device = det_score.device
    # 1. detections by (image, class), then score descending; stable: equal scores keep input order
    by_score = torch.sort(det_score, descending=True, stable=True).indices
    det_pair = det_image * num_classes + det_class
    order = by_score[torch.sort(det_pair[by_score], stable=True).indices]
    pair = det_pair[order]
    rank = torch.arange(pair.numel(), device=device) - _first_of_run(pair)
    kept = rank < max_detections
    det, pair, rank = order[kept], pair[kept], rank[kept]

    # 2. entries: every ground truth of each detection's (image, class), in input order
    gt_order = torch.sort(gt_image * num_classes + gt_class, stable=True)
    gt_pair, gt_sorted = gt_order.values, gt_order.indices
    first = torch.searchsorted(gt_pair, pair, right=False)
    count = torch.searchsorted(gt_pair, pair, right=True) - first
    entry_det = torch.repeat_interleave(torch.arange(det.numel(), device=device), count)
    position = torch.arange(entry_det.numel(), device=device) - (torch.cumsum(count, 0) - count)[entry_det]
    entry_slot = first[entry_det] + position  # the ground truth's place in ``gt_sorted``
    entry_gt = gt_sorted[entry_slot]
    entry_iou = pair_iou(det[entry_det], entry_gt)

    # 3. greedy matching, one detection rank at a time
    crowd = gt_crowd[gt_sorted]
    area = gt_area[gt_sorted]
    ignored = crowd[:, None] | (area[:, None] < area_ranges[:, 0]) | (area[:, None] > area_ranges[:, 1])
    thresholds = iou_thresholds.clamp(max=1 - 1e-10).to(torch.float64)
    matched, matched_ignored = _match(entry_det, entry_slot, position, entry_iou, rank, ignored, crowd,
                                      thresholds, det.numel())

    d_area = det_area[det]
    outside = (d_area[:, None] < area_ranges[:, 0]) | (d_area[:, None] > area_ranges[:, 1])
    true_positive = matched & ~matched_ignored
    false_positive = ~matched & ~outside[:, :, None]
    positives = torch.zeros(num_classes, area_ranges.shape[0], dtype=torch.int64, device=device)
    positives.index_add_(0, gt_class[gt_sorted], (~ignored).to(torch.int64))
    return Evaluation(det, det_class[det], det_image[det], det_score[det], rank, true_positive,
                      false_positive, positives, entry_det, entry_gt, entry_iou)


def _match(
    entry_det: Tensor,
    entry_slot: Tensor,
    position: Tensor,
    iou: Tensor,
    rank: Tensor,
    ignored: Tensor,
    crowd: Tensor,
    thresholds: Tensor,
    num_dets: int,
) -> tuple[Tensor, Tensor]:
    """Whether each detection is matched, and to an ignored ground truth, per area range and threshold."""
    device = iou.device
    areas, steps = ignored.shape[1], thresholds.numel()
    matched = torch.zeros(num_dets, areas, steps, dtype=torch.bool, device=device)
    matched_ignored = torch.zeros_like(matched)
    if entry_det.numel() == 0:
        return matched, matched_ignored
    taken = torch.zeros(ignored.shape[0], areas, steps, dtype=torch.bool, device=device)
    # entries grouped by their detection's rank; within a rank, by detection (entries stay contiguous)
    entry_rank = rank[entry_det]
    by_rank = torch.sort(entry_rank, stable=True).indices
    sizes = torch.bincount(entry_rank).tolist()
    start = 0
    for size in sizes:
        if size == 0:
            continue
        step = by_rank[start : start + size]
        start += size
        dets, local = torch.unique_consecutive(entry_det[step], return_inverse=True)
        slot, pos, value = entry_slot[step], position[step], iou[step]
        regular = ~ignored[slot][:, :, None]  # (n, A, 1)
        free = ~taken[slot] | crowd[slot][:, None, None]
        candidate = free & (value[:, None, None] >= thresholds)  # (n, A, T)
        has_regular = _segment_any(candidate & regular, local, dets.numel())
        pool = candidate & (regular == has_regular[local])
        spread = local[:, None, None].expand(-1, areas, steps)
        best = torch.full((dets.numel(), areas, steps), -1.0, dtype=value.dtype, device=device)
        best.scatter_reduce_(0, spread, torch.where(pool, value[:, None, None], -1.0), "amax")
        winner = pool & (value[:, None, None] == best[local])
        last = torch.full((dets.numel(), areas, steps), -1, dtype=torch.int64, device=device)
        last.scatter_reduce_(0, spread, torch.where(winner, pos[:, None, None], -1), "amax")
        chosen = winner & (pos[:, None, None] == last[local])  # one entry per matched (det, area, threshold)
        taken[slot] |= chosen & ~crowd[slot][:, None, None]
        matched[dets] = last >= 0
        matched_ignored[dets] = _segment_any(chosen & ~regular, local, dets.numel())
    return matched, matched_ignored


def _segment_any(flags: Tensor, segment: Tensor, num_segments: int) -> Tensor:
    counts = torch.zeros((num_segments, *flags.shape[1:]), dtype=torch.int32, device=flags.device)
    return counts.index_add_(0, segment, flags.to(torch.int32)) > 0
