"""Panoptic quality and its modified form (torchmetrics' ``panoptic_quality`` and
``modified_panoptic_quality``), over a whole batch at once.

A point carries a ``(category, instance)`` pair, its *colour*; a segment is a colour within one
sample. Per sample, a predicted and a target segment of the same category match when their IoU is
above 0.5 (so a match is unique), where the IoU leaves out the points that fall on the other
side's void (unknown categories). Per category this gives the IoU sum of the matches, the true
positives, and the unmatched predicted (false positives) and target (false negatives) segments
that are not mostly void. The modified metric scores each stuff category by the IoU sum of every
overlap over the number of target segments instead.

Here every sample of a batch is handled together: colours get one index over both inputs
(``unique``), segment areas are one ``bincount`` over ``(sample, colour)``, intersections one
``unique`` over ``(sample, predicted colour, target colour)``; matching and counting are tensor
operations over those lists. Finding the segments reads their number back from the device.

>>> import torch
>>> preds = torch.tensor([[[[6, 0], [0, 0], [6, 0], [6, 0]],
...                        [[0, 0], [0, 0], [6, 0], [0, 1]],
...                        [[0, 0], [0, 0], [6, 0], [0, 1]],
...                        [[0, 0], [7, 0], [6, 0], [1, 0]],
...                        [[0, 0], [7, 0], [7, 0], [7, 0]]]])
>>> target = torch.tensor([[[[6, 0], [0, 1], [6, 0], [0, 1]],
...                         [[0, 1], [0, 1], [6, 0], [0, 1]],
...                         [[0, 1], [0, 1], [6, 0], [1, 0]],
...                         [[0, 1], [7, 0], [1, 0], [1, 0]],
...                         [[0, 1], [7, 0], [7, 0], [7, 0]]]])
>>> panoptic_quality(preds, target, things={0, 1}, stuffs={6, 7})
tensor(0.5463, dtype=torch.float64)
"""

from __future__ import annotations

from collections.abc import Collection
from typing import NamedTuple, Optional

import torch
from torch import Tensor

from lightning_metrics.utilities.prints import rank_zero_warn


class PanopticSpec(NamedTuple):
    """The categories of a panoptic metric, parsed once."""

    things: tuple[int, ...]  # sorted
    stuffs: tuple[int, ...]  # sorted
    void: tuple[int, int]  # a colour of no category: (1 + the largest category, 0)

    @property
    def categories(self) -> tuple[int, ...]:
        """The categories in result order: things sorted, then stuffs sorted."""
        return self.things + self.stuffs


def parse_categories(things: Collection[int], stuffs: Collection[int]) -> PanopticSpec:
    """Check ``things`` and ``stuffs`` as torchmetrics does (duplicates warn, overlap and emptiness raise)."""
    for name, values in (("things", things), ("stuffs", stuffs)):
        if not isinstance(values, Collection) or isinstance(values, (str, bytes)):
            raise TypeError(f"Argument `{name}` must be a collection of int categories, got {values!r}")
    things_set, stuffs_set = set(things), set(stuffs)
    for name, values, parsed in (("things", things, things_set), ("stuffs", stuffs, stuffs_set)):
        if len(parsed) < len(values):
            rank_zero_warn(f"The provided `{name}` categories contained duplicates, which have been removed.",
                           UserWarning)
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in parsed):
            raise TypeError(f"Expected argument `{name}` to contain `int` categories, but got {values!r}")
    if things_set & stuffs_set:
        raise ValueError(
            f"Expected arguments `things` and `stuffs` to have distinct keys, but got {things!r} and {stuffs!r}"
        )
    if not (things_set | stuffs_set):
        raise ValueError("At least one of `things` and `stuffs` must be non-empty.")
    void = (1 + max([0, *things_set, *stuffs_set]), 0)
    return PanopticSpec(tuple(sorted(things_set)), tuple(sorted(stuffs_set)), void)


def check_inputs(preds: Tensor, target: Tensor) -> None:
    """``(B, *spatial, 2)`` integer tensors of one shape (torchmetrics' checks and messages)."""
    if not isinstance(preds, Tensor):
        raise TypeError(f"Expected argument `preds` to be of type `torch.Tensor`, but got {type(preds)}")
    if not isinstance(target, Tensor):
        raise TypeError(f"Expected argument `target` to be of type `torch.Tensor`, but got {type(target)}")
    if preds.shape != target.shape:
        raise ValueError(
            f"Expected argument `preds` and `target` to have the same shape, but got {preds.shape} and {target.shape}"
        )
    if preds.dim() < 3:
        raise ValueError(
            f"Expected argument `preds` to have at least one spatial dimension (B, *spatial_dims, 2), got {preds.shape}"
        )
    if preds.shape[-1] != 2:
        raise ValueError(
            "Expected argument `preds` to have exactly 2 channels in the last dimension (category, instance), "
            f"got {preds.shape} instead"
        )


def _colours(spec: PanopticSpec, inputs: Tensor, allow_unknown: bool, name: str) -> Tensor:
    """``(B, P, 2)`` colours: stuff instances set to 0, unknown categories to void (or an error)."""
    points = 1
    for size in inputs.shape[1:-1]:
        points *= size
    flat = inputs.reshape(inputs.shape[0], points, 2).long()
    category, instance = flat[..., 0], flat[..., 1]
    stuff = torch.isin(category, torch.tensor(spec.stuffs, dtype=torch.long, device=flat.device))
    known = stuff | torch.isin(category, torch.tensor(spec.things, dtype=torch.long, device=flat.device))
    if not allow_unknown and not bool(known.all()):
        raise ValueError(f"Unknown categories found in `{name}`: {flat[~known].unique(dim=0).tolist()}")
    void = torch.tensor(spec.void, dtype=torch.long, device=flat.device)
    instance = torch.where(stuff, 0, instance)
    out = torch.stack([category, instance], -1)
    return torch.where(known[..., None], out, void)


class PanopticCounts(NamedTuple):
    iou_sum: Tensor  # (C,) float64
    true_positives: Tensor  # (C,) int64
    false_positives: Tensor  # (C,) int64
    false_negatives: Tensor  # (C,) int64


def panoptic_counts(
    spec: PanopticSpec, preds: Tensor, target: Tensor, allow_unknown_preds_category: bool, modified: bool
) -> PanopticCounts:
    """The per-category IoU sums and counts of a batch (``modified``: stuffs scored the modified way)."""
    device = preds.device
    num = len(spec.categories)
    if preds.numel() == 0:
        return empty_counts(num, device)
    p, t = _colours(spec, preds, allow_unknown_preds_category, "preds"), _colours(spec, target, True, "target")
    batch, points = p.shape[:2]
    palette, index = torch.unique(torch.cat([p, t], 1).reshape(-1, 2), dim=0, return_inverse=True)
    colours = palette.shape[0]
    index = index.view(batch, 2 * points)
    sample = torch.arange(batch, device=device)[:, None] * colours
    p_seg, t_seg = (sample + index[:, :points]).flatten(), (sample + index[:, points:]).flatten()
    p_area = torch.bincount(p_seg, minlength=batch * colours)
    t_area = torch.bincount(t_seg, minlength=batch * colours)
    pairs, inter = torch.unique(p_seg * colours + t_seg % colours, return_counts=True)
    pair_p, pair_t = pairs // colours, (pairs // colours) - (pairs // colours) % colours + pairs % colours

    is_void = (palette == torch.tensor(spec.void, device=device)).all(1)
    void_index = int(is_void.nonzero()[0]) if bool(is_void.any()) else -1
    # continuous category of every colour (-1 for void)
    known = torch.tensor(spec.categories, dtype=torch.long, device=device)
    order = torch.argsort(known)
    at = torch.searchsorted(known[order], palette[:, 0].contiguous()).clamp(max=num - 1)
    category = torch.where(known[order][at] == palette[:, 0], order[at], -1)
    stuff_flag = torch.zeros(num, dtype=torch.bool, device=device)
    stuff_flag[len(spec.things):] = modified

    # overlap of each segment with the other side's void
    p_void = torch.zeros(batch * colours, dtype=torch.int64, device=device)
    t_void = torch.zeros(batch * colours, dtype=torch.int64, device=device)
    if void_index >= 0:
        on_void_t = pair_t % colours == void_index
        p_void.index_add_(0, pair_p[on_void_t], inter[on_void_t])
        on_void_p = pair_p % colours == void_index
        t_void.index_add_(0, pair_t[on_void_p], inter[on_void_p])

    cat_p, cat_t = category[pair_p % colours], category[pair_t % colours]
    same = (cat_t >= 0) & (cat_p == cat_t)
    union = p_area[pair_p] - p_void[pair_p] + t_area[pair_t] - t_void[pair_t] - inter
    iou = inter.double() / union.clamp(min=1).double()
    modified_pair = same & stuff_flag[cat_t.clamp(min=0)]
    match = same & ~modified_pair & (iou > 0.5)
    overlap = modified_pair & (iou > 0)
    cat_of = cat_t.clamp(min=0)
    iou_sum = torch.zeros(num, dtype=torch.float64, device=device)
    iou_sum.index_add_(0, cat_of, torch.where(match | overlap, iou, 0.0))
    tp = torch.zeros(num, dtype=torch.int64, device=device).index_add_(0, cat_of, match.long())

    p_matched = torch.zeros(batch * colours, dtype=torch.bool, device=device)
    t_matched = torch.zeros(batch * colours, dtype=torch.bool, device=device)
    p_matched[pair_p[match]] = True
    t_matched[pair_t[match]] = True
    seg_cat = category.repeat(batch)
    scored = (seg_cat >= 0) & ~stuff_flag[seg_cat.clamp(min=0)]
    fn_seg = (t_area > 0) & scored & ~t_matched & (t_void.double() / t_area.clamp(min=1).double() <= 0.5)
    fp_seg = (p_area > 0) & scored & ~p_matched & (p_void.double() / p_area.clamp(min=1).double() <= 0.5)
    seg_cat = seg_cat.clamp(min=0)
    fn = torch.zeros(num, dtype=torch.int64, device=device).index_add_(0, seg_cat, fn_seg.long())
    fp = torch.zeros(num, dtype=torch.int64, device=device).index_add_(0, seg_cat, fp_seg.long())
    # modified: a stuff category's "true positives" are its target segments
    stuff_seg = (t_area > 0) & (category.repeat(batch) >= 0) & stuff_flag[seg_cat]
    tp.index_add_(0, seg_cat, stuff_seg.long())
    return PanopticCounts(iou_sum, tp, fp, fn)


def panoptic_of_counts(counts: PanopticCounts) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
    """Per-category PQ, SQ, RQ and their means over the categories seen (torchmetrics' formulas)."""
    iou_sum, tp, fp, fn = counts
    sq = torch.where(tp > 0, iou_sum / tp.clamp(min=1), 0.0)
    denominator = tp.double() + 0.5 * fp.double() + 0.5 * fn.double()
    rq = torch.where(denominator > 0, tp / denominator.clamp(min=0.5), 0.0)
    pq = sq * rq
    seen = denominator > 0
    return pq, sq, rq, pq[seen].mean(), sq[seen].mean(), rq[seen].mean()


def panoptic_result(counts: PanopticCounts, return_sq_and_rq: bool, return_per_class: bool) -> Tensor:
    """The value torchmetrics returns for these flags (see :func:`panoptic_quality`)."""
    pq, sq, rq, pq_avg, sq_avg, rq_avg = panoptic_of_counts(counts)
    if return_per_class:
        return torch.stack((pq, sq, rq), dim=-1) if return_sq_and_rq else pq.view(1, -1)
    return torch.stack((pq_avg, sq_avg, rq_avg), dim=0) if return_sq_and_rq else pq_avg


def panoptic_quality(
    preds: Tensor,
    target: Tensor,
    things: Collection[int],
    stuffs: Collection[int],
    allow_unknown_preds_category: bool = False,
    return_sq_and_rq: bool = False,
    return_per_class: bool = False,
) -> Tensor:
    """Panoptic quality of ``(B, *spatial, 2)`` (category, instance) maps (torchmetrics' function).

    ``PQ = IoU sum / (TP + FP / 2 + FN / 2)`` per category, averaged over the categories seen. With
    ``return_sq_and_rq`` also the segmentation (``IoU sum / TP``) and recognition
    (``TP / (TP + FP / 2 + FN / 2)``) qualities; with ``return_per_class`` the per-category values
    (``(1, C)``, or ``(C, 3)`` with both flags), things first, then stuffs, each sorted.
    Target points of unknown categories are void; predicted ones raise an error unless
    ``allow_unknown_preds_category``.

    >>> import torch
    >>> preds = torch.tensor([[[[0, 0], [0, 0]], [[1, 0], [1, 0]]]])   # things 0 (top row), stuff 1
    >>> target = torch.tensor([[[[0, 0], [1, 0]], [[1, 0], [1, 0]]]])
    >>> panoptic_quality(preds, target, things={0}, stuffs={1}, return_sq_and_rq=True)
    tensor([0.3333, 0.3333, 0.5000], dtype=torch.float64)
    """
    spec = parse_categories(things, stuffs)
    check_inputs(preds, target)
    counts = panoptic_counts(spec, preds, target, allow_unknown_preds_category, modified=False)
    return panoptic_result(counts, return_sq_and_rq, return_per_class)


def modified_panoptic_quality(
    preds: Tensor,
    target: Tensor,
    things: Collection[int],
    stuffs: Collection[int],
    allow_unknown_preds_category: bool = False,
) -> Tensor:
    """Modified panoptic quality (torchmetrics' function): stuffs scored as IoU sum / target segments.

    >>> import torch
    >>> preds = torch.tensor([[[[0, 0], [0, 0]], [[1, 0], [1, 0]]]])
    >>> target = torch.tensor([[[[0, 0], [1, 0]], [[1, 0], [1, 0]]]])
    >>> modified_panoptic_quality(preds, target, things={0}, stuffs={1})
    tensor(0.3333, dtype=torch.float64)
    """
    spec = parse_categories(things, stuffs)
    check_inputs(preds, target)
    counts = panoptic_counts(spec, preds, target, allow_unknown_preds_category, modified=True)
    return panoptic_result(counts, False, False)


def empty_counts(num_categories: int, device: Optional[torch.device] = None) -> PanopticCounts:
    """Zero sums for ``num_categories`` categories."""
    zeros = torch.zeros(num_categories, dtype=torch.int64, device=device)
    return PanopticCounts(torch.zeros(num_categories, dtype=torch.float64, device=device), zeros, zeros.clone(),
                          zeros.clone())
