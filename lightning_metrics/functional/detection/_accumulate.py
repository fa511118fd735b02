"""COCO's accumulation and summary (pycocotools' ``accumulate`` and ``summarize``), vectorised.

For each class, area range, IoU threshold and detection cap ``m``, pycocotools concatenates the
top-``m`` detections of every image, sorts them by score (stable: ties keep image order), takes
cumulative true/false positive counts, recall ``tp / positives`` and precision
``tp / (tp + fp + eps)``, makes precision non-increasing from the right, and reads it at the
first position whose recall reaches each recall threshold (0 past the last recall). Classes
without a non-ignored ground truth get -1.

Here every class, area range and threshold is one row of one pass per detection cap:

- the detections of all classes lie in one array ordered by (class, score), a class being a
  contiguous segment; cumulative counts are one ``cumsum`` minus each segment's offset;
- "first position whose recall reaches ``r``" becomes "first position whose true-positive count
  reaches ``c``", where ``c`` is the smallest integer with ``c / positives >= r`` in float64 (so
  the comparison is pycocotools' own), found for all classes and thresholds with one
  ``searchsorted`` over integer keys ``class * stride + count``;
- the precision envelope at those positions is a maximum over the positions up to the next one,
  one ``scatter_reduce``, then a running maximum over the recall thresholds.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor

from lightning_metrics.functional.detection._evaluate import Evaluation

_EPS = float(torch.finfo(torch.float64).eps)  # numpy's spacing(1)
_ROW_ELEMENTS = 1 << 23  # (row, detection) elements per chunk of rows


class Accumulation(NamedTuple):
    precision: Tensor  # (T, R, K, A, M) float64
    recall: Tensor  # (T, K, A, M) float64
    scores: Tensor  # (T, R, K, A, M) float64


def accumulate(result: Evaluation, num_classes: int, rec_thresholds: Tensor, max_detections: list[int]) -> Accumulation:
    """pycocotools' ``precision``, ``recall`` and ``scores`` arrays from an :class:`Evaluation`."""
    device = result.det_score.device
    areas, steps = result.true_positive.shape[1:]
    recs = rec_thresholds.to(torch.float64)
    rec_order = torch.argsort(recs)
    recs = recs[rec_order]
    # (class, score descending, image, rank): the evaluation order is (image, class, rank)
    by_score = torch.sort(result.det_score, descending=True, stable=True).indices
    order = by_score[torch.sort(result.det_class[by_score], stable=True).indices]
    positives = result.positives.t().contiguous()  # (A, K)
    needed = _counts_needed(positives, recs)  # (A, K, R)
    # rows (area, threshold), columns detections
    rows = areas * steps
    tp_rows = result.true_positive.permute(1, 2, 0).reshape(rows, -1)
    fp_rows = result.false_positive.permute(1, 2, 0).reshape(rows, -1)
    row_area = torch.arange(rows, device=device) // steps
    per_cap: list[tuple[Tensor, ...]] = []
    previous = -1
    for cap in max_detections:
        sel = order[result.det_rank[order] < cap]
        if sel.numel() == previous:  # the caps are nested: the same detections, the same values
            per_cap.append(per_cap[-1])
            continue
        previous = sel.numel()
        cls, score = result.det_class[sel], result.det_score[sel]
        tp, fp = tp_rows.index_select(1, sel), fp_rows.index_select(1, sel)
        chunk = max(1, _ROW_ELEMENTS // max(sel.numel(), 1))
        parts = [
            _rows(tp[lo : lo + chunk], fp[lo : lo + chunk], cls, score, positives[row_area[lo : lo + chunk]],
                  needed[row_area[lo : lo + chunk]], num_classes)
            for lo in range(0, rows, chunk)
        ]
        per_cap.append(tuple(torch.cat(p) for p in zip(*parts)))
    # (rows, K, R, M) and (rows, K, M)
    precision, recall, scores, reached = (torch.stack(parts, -1) for parts in zip(*per_cap))
    back = torch.argsort(rec_order)
    # pycocotools fills the recall thresholds in the order given and stops at the first one not reached
    reached = reached[:, :, back].to(torch.uint8).cummin(2).values.bool()
    absent = (result.positives == 0).t()[row_area][:, :, None]  # (rows, K, 1)
    precision = torch.where(absent[..., None], -1.0, torch.where(reached, precision[:, :, back], 0.0))
    scores = torch.where(absent[..., None], -1.0, torch.where(reached, scores[:, :, back], 0.0))
    recall = torch.where(absent, -1.0, recall)
    k, r, m = num_classes, recs.numel(), len(max_detections)
    return Accumulation(
        precision.view(areas, steps, k, r, m).permute(1, 3, 2, 0, 4).contiguous(),
        recall.view(areas, steps, k, m).permute(1, 2, 0, 3).contiguous(),
        scores.view(areas, steps, k, r, m).permute(1, 3, 2, 0, 4).contiguous(),
    )


def _counts_needed(positives: Tensor, recs: Tensor) -> Tensor:
    """The smallest integer ``c >= 0`` with ``float64(c / n) >= r``, for ``n`` positives and recall ``r``."""
    n = positives.to(torch.float64)[..., None].clamp(min=1)
    c = (torch.floor(recs * n) - 2).clamp(min=0)
    for _ in range(6):  # the estimate is at most a few counts low; each pass adds at most one
        c = c + (c / n < recs).to(c.dtype)
    return c.to(torch.int64)


def _rows(
    tp: Tensor, fp: Tensor, cls: Tensor, score: Tensor, positives: Tensor, needed: Tensor, num_classes: int
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Precision ``(rows, K, R)``, recall ``(rows, K)``, scores ``(rows, K, R)`` and whether each recall
    threshold is reached ``(rows, K, R)``, for some (area, threshold) rows."""
    device = tp.device
    rows, n = tp.shape
    recs = needed.shape[-1]
    count = torch.bincount(cls, minlength=num_classes)
    end = torch.cumsum(count, 0)
    start = end - count
    tp_cum = torch.cumsum(tp, 1, dtype=torch.int32)
    fp_cum = torch.cumsum(fp, 1, dtype=torch.int32)
    if n:  # subtract the counts of the earlier classes: cumulative counts within each class
        before = (start - 1).clamp(min=0)
        first = (start > 0)[None, :]
        tp_cum -= torch.where(first, tp_cum[:, before], 0)[:, cls]
        fp_cum -= torch.where(first, fp_cum[:, before], 0)[:, cls]
    precision = tp_cum.to(torch.float64) / ((fp_cum + tp_cum).to(torch.float64) + _EPS)

    last = (end - 1).clamp(min=0)
    final_tp = tp_cum[:, last] if n else torch.zeros(rows, num_classes, dtype=torch.int64, device=device)
    recall = torch.where(count > 0, final_tp.to(torch.float64) / positives.clamp(min=1).to(torch.float64), 0.0)

    # first position of each class whose true-positive count reaches the needed count
    stride = n + 1
    keys = cls * stride + tp_cum  # (rows, n) int64, sorted along each row
    classes = torch.arange(num_classes, device=device)
    wanted = classes[None, :, None] * stride + needed.clamp(max=stride)  # (rows, K, R)
    at = torch.searchsorted(keys, wanted.reshape(rows, -1), right=False).view(rows, num_classes, recs)
    found = at < end[None, :, None]
    picked = score[at.clamp(max=n - 1)] if n else torch.zeros(at.shape, dtype=torch.float64, device=device)
    best_score = torch.where(found, picked, 0.0)

    # precision envelope at ``at``: the maximum from there to the class's end, via one bucket per threshold;
    # a position's bucket is the last bound at or before it (bounds counted with one cumulative sum)
    bounds = torch.cat([start[None, :, None].expand(rows, -1, 1), at.clamp(max=end[None, :, None])], 2)
    hits = torch.zeros(rows, n + 1, dtype=torch.int32, device=device)
    hits.scatter_add_(1, bounds.reshape(rows, -1), torch.ones(1, 1, dtype=torch.int32, device=device).expand(
        rows, num_classes * (recs + 1)))
    bucket = torch.cumsum(hits[:, :n], 1, dtype=torch.int64) - 1
    peak = torch.zeros(rows, num_classes * (recs + 1), dtype=torch.float64, device=device)
    peak.scatter_reduce_(1, bucket, precision, "amax")
    peak = peak.view(rows, num_classes, recs + 1)[..., 1:]
    envelope = peak.flip(-1).cummax(-1).values.flip(-1)
    return torch.where(found, envelope, 0.0), recall, best_score, found


class Summary(NamedTuple):
    stats: Tensor  # (12,) pycocotools' stats, float64
    map_per_class: Tensor  # (K,)
    mar_per_class: Tensor  # (K,)


def _mean_present(values: Tensor, dims: tuple[int, ...]) -> Tensor:
    """Mean of the entries above -1 over ``dims`` (-1 where none), as pycocotools' ``_summarize``."""
    present = values > -1
    total = torch.where(present, values, 0.0).sum(dims)
    count = present.sum(dims)
    return torch.where(count > 0, total / count.clamp(min=1), -1.0)


def summarize(acc: Accumulation, iou_thresholds: Tensor) -> Summary:
    """The 12 summary numbers and the per-class mAP and mAR at the largest detection cap.

    As pycocotools' ``summarize``, except that mAP uses the largest cap rather than a fixed 100
    (pycocotools returns -1 for mAP when 100 is not a cap; faster-coco-eval uses the largest).
    ``map_50``/``map_75`` read the thresholds equal to 0.5 and 0.75 (-1 if there is none).
    """
    p, r = acc.precision, acc.recall
    thr = iou_thresholds.to(torch.float64)
    at_50, at_75 = (thr == 0.5).nonzero().flatten(), (thr == 0.75).nonzero().flatten()
    last = p.shape[-1] - 1

    def ap(area: int, cap: int, t: Tensor = None) -> Tensor:
        s = p[..., area, cap] if t is None else p[t][..., area, cap]
        return _mean_present(s, tuple(range(s.ndim)))

    def ar(area: int, cap: int) -> Tensor:
        s = r[..., area, cap]
        return _mean_present(s, tuple(range(s.ndim)))

    stats = torch.stack([
        ap(0, last), ap(0, last, at_50), ap(0, last, at_75), ap(1, last), ap(2, last), ap(3, last),
        ar(0, 0), ar(0, min(1, last)), ar(0, min(2, last)), ar(1, last), ar(2, last), ar(3, last),
    ])
    map_per_class = _mean_present(p[:, :, :, 0, last].permute(2, 0, 1), (1, 2))
    mar_per_class = _mean_present(r[:, :, 0, last].t(), (1,))
    return Summary(stats, map_per_class, mar_per_class)
