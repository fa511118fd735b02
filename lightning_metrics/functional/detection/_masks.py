"""Instance masks as runs of pixels: a memory footprint proportional to the object, exact overlaps.

A boolean ``(H, W)`` mask is stored as its runs of set pixels along the row-major flattened image:
``(start, end)`` pairs (int32, end exclusive), one or two per image row the object crosses, plus
the number of runs of each mask. That is the information of COCO's run-length encoding (which
runs along columns), so the areas and overlaps computed from it are pycocotools' exactly:

- the area of a mask is the sum of its run lengths;
- the intersection of two masks is, for every run ``[s, e)`` of the first, ``F(e) - F(s)`` where
  ``F(x)`` is the length of the second mask's runs before position ``x`` (one ``searchsorted``
  over all runs of all second masks at once, keyed by mask so that masks never mix);
- the COCO IoU is ``inter / union``, or ``inter / area(detection)`` for a crowd region, and 0
  without overlap (pycocotools' ``rleIou``).

>>> import torch
>>> masks = torch.zeros(2, 3, 4, dtype=torch.bool)
>>> masks[0, :2, 1:3] = True      # 4 pixels
>>> masks[1, 1:, 2:] = True       # 4 pixels, 1 shared
>>> runs, counts = encode_masks(masks)
>>> runs.tolist(), counts.tolist()
([[1, 3], [5, 7], [6, 8], [10, 12]], [2, 2])
>>> masks_area(runs, counts).tolist()
[4, 4]
>>> pair_intersections(runs, counts, runs, counts, torch.tensor([0]), torch.tensor([1])).tolist()
[1]
"""

from __future__ import annotations

import torch
from torch import Tensor

# pixels of masks encoded at once (bounds the temporaries of ``encode_masks``)
_ENCODE_CHUNK = 1 << 25
# (pair, run) items intersected at once (bounds the temporaries of ``pair_intersections``)
_ITEMS_CHUNK = 1 << 22


def encode_masks(masks: Tensor) -> tuple[Tensor, Tensor]:
    """The runs ``(R, 2)`` (int32 start, end in the flattened mask) and run counts ``(N,)`` of ``(N, H, W)`` masks.

    Any nonzero pixel is set. Finding the runs reads their number back from the device (one
    ``nonzero`` per chunk of masks): the size of the result depends on the data.
    """
    n = masks.shape[0]
    flat = masks.reshape(n, int(torch.tensor(masks.shape[1:]).prod()) if masks.ndim > 1 else 0)
    per_chunk = max(1, _ENCODE_CHUNK // max(flat.shape[1], 1))
    runs, counts = [], []
    for lo in range(0, n, per_chunk):
        part = (flat[lo : lo + per_chunk] != 0).to(torch.int8)
        edges = torch.nn.functional.pad(part, (1, 1)).diff(dim=1)  # +1 at a run's start, -1 at its end
        where = edges.nonzero()  # row-major: each mask's edges in order, start and end alternating
        runs.append(where[:, 1].view(-1, 2).to(torch.int32))
        counts.append(torch.bincount(where[0::2, 0], minlength=part.shape[0]))
    if not runs:
        return torch.zeros(0, 2, dtype=torch.int32, device=masks.device), torch.zeros(0, dtype=torch.int64,
                                                                                     device=masks.device)
    return torch.cat(runs), torch.cat(counts)


def _offsets(counts: Tensor) -> Tensor:
    return torch.cumsum(counts, 0) - counts


def masks_area(runs: Tensor, counts: Tensor) -> Tensor:
    """The number of set pixels of each encoded mask (int64)."""
    lengths = (runs[:, 1] - runs[:, 0]).to(torch.int64)
    owner = torch.repeat_interleave(torch.arange(counts.numel(), device=counts.device), counts)
    return torch.zeros(counts.numel(), dtype=torch.int64, device=counts.device).index_add_(0, owner, lengths)


def _spans(runs: Tensor, counts: Tensor) -> tuple[Tensor, Tensor]:
    """First set pixel and one past the last of each mask (0, 0 for an empty mask)."""
    offsets = _offsets(counts)
    nonempty = counts > 0
    first = runs[offsets.clamp(max=max(runs.shape[0] - 1, 0)), 0].to(torch.int64) if runs.numel() else offsets
    last = runs[(offsets + counts - 1).clamp(min=0), 1].to(torch.int64) if runs.numel() else offsets
    return torch.where(nonempty, first, 0), torch.where(nonempty, last, 0)


def pair_intersections(
    det_runs: Tensor, det_counts: Tensor, gt_runs: Tensor, gt_counts: Tensor, det: Tensor, gt: Tensor
) -> Tensor:
    """The number of pixels shared by masks ``det[e]`` and ``gt[e]`` of each pair ``e`` (int64).

    The two masks of a pair come from one image (their flattened positions are comparable).
    Pairs whose spans of flattened positions do not meet are 0 without looking at their runs.
    """
    out = torch.zeros(det.numel(), dtype=torch.int64, device=det.device)
    if det.numel() == 0 or gt_runs.numel() == 0 or det_runs.numel() == 0:
        return out
    det_first, det_last = _spans(det_runs, det_counts)
    gt_first, gt_last = _spans(gt_runs, gt_counts)
    meets = (det_first[det] < gt_last[gt]) & (gt_first[gt] < det_last[det])
    pairs = meets.nonzero().squeeze(1)
    if pairs.numel() == 0:
        return out
    det_offsets, gt_offsets = _offsets(det_counts), _offsets(gt_counts)
    # beyond any position of either side: keys of different masks never mix
    stride = int(torch.maximum(gt_runs[:, 1].max(), det_runs[:, 1].max())) + 1
    gt_owner = torch.repeat_interleave(torch.arange(gt_counts.numel(), device=det.device), gt_counts)
    gt_start, gt_end = gt_runs[:, 0].to(torch.int64), gt_runs[:, 1].to(torch.int64)
    keys = gt_owner * stride + gt_start  # sorted: masks in order, runs in order within a mask
    before = torch.cumsum(gt_end - gt_start, 0) - (gt_end - gt_start)  # run lengths before each run

    def covered(mask: Tensor, x: Tensor) -> Tensor:  # pixels of gt ``mask`` before position ``x``
        j = torch.searchsorted(keys, mask * stride + x, right=True) - 1
        inside = j >= gt_offsets[mask]
        j = j.clamp(min=0)
        length = before[j] - before[gt_offsets[mask].clamp(max=max(keys.numel() - 1, 0))]
        return torch.where(inside, length + torch.minimum(x, gt_end[j]) - gt_start[j], 0)

    items = det_counts[det[pairs]]
    bounds = torch.cumsum(items, 0)
    marks = torch.arange(_ITEMS_CHUNK, max(int(bounds[-1]), _ITEMS_CHUNK), _ITEMS_CHUNK, device=det.device)
    cuts = [0, *torch.searchsorted(bounds, marks, right=True).tolist(), pairs.numel()]
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        if hi <= lo:
            continue
        chunk, sizes = pairs[lo:hi], items[lo:hi]
        owner = torch.repeat_interleave(torch.arange(chunk.numel(), device=det.device), sizes)
        local = torch.arange(owner.numel(), device=det.device) - (torch.cumsum(sizes, 0) - sizes)[owner]
        run = det_offsets[det[chunk]][owner] + local
        g = gt[chunk][owner]
        shared = covered(g, det_runs[run, 1].to(torch.int64)) - covered(g, det_runs[run, 0].to(torch.int64))
        out[chunk] = torch.zeros(chunk.numel(), dtype=torch.int64, device=det.device).index_add_(0, owner, shared)
    return out


def coco_mask_iou(inter: Tensor, det_area: Tensor, gt_area: Tensor, crowd: Tensor) -> Tensor:
    """pycocotools' mask IoU from pixel counts (float64): 0 without overlap, crowd over the detection.

    >>> import torch
    >>> coco_mask_iou(torch.tensor([1, 1, 0]), torch.tensor([4, 4, 4]), torch.tensor([4, 4, 0]),
    ...               torch.tensor([False, True, False]))
    tensor([0.1429, 0.2500, 0.0000], dtype=torch.float64)
    """
    union = torch.where(crowd, det_area, det_area + gt_area - inter)
    value = inter.double() / torch.where(inter > 0, union, 1).double()
    return torch.where(inter > 0, value, 0.0)
