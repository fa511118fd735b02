"""The statistic behind mean IoU, Dice and generalized Dice: per-sample, per-class pixel counts.

One batch gives a ``(N, C, 3)`` int64 table of true positives, false positives and false negatives
(pixels per sample and class), in one pass over the pixels:

- two class maps: one histogram of ``(sample * C + pred) * C + target``, a per-sample confusion
  matrix, whose diagonal and margins are the counts (or, when ``N * C * C`` bins would outnumber
  the pixels, one histogram of the per-class hit / miss codes);
- two stacks of masks: sums over the spatial dimensions, chunk by chunk on the CPU (a
  temporary as large as the masks would cost more in fresh memory than the arithmetic);
- a class map and a stack of masks: the mask read at each pixel's class (``gather``), histograms of
  the class map, sums of the masks.

A class map is never expanded to one-hot: memory is a few int64 per pixel, not per pixel and
class. ``ignore_index`` pixels (of a class-map target) go to a discarded histogram bin and are
masked out of the mask sums, so they count nowhere, with no data-dependent shapes.

:class:`OverlapSpec` is the ``statistic_spec`` of the modular metrics: metrics with equal specs
share one state and one update in a ``MetricCollection`` (``MeanIoU``, ``DiceScore`` and
``GeneralizedDiceScore`` over the same one-hot or mixed input, say). It holds what shapes the table
(input format, classes, ignored label, how unbatched class maps are read) and nothing that only
``compute`` uses (background, averaging, weights): the table keeps every class. With class-index
input, mean IoU reads a 2-D map as one image where Dice reads its rows as samples (torchmetrics
does so), so there it keeps a table of its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterator, Optional

import torch
from torch import Tensor

from lightning_metrics.functional.classification._counts import histogram
from lightning_metrics.functional.segmentation._inputs import Operand, format_pair

_LONG = torch.long
_CHUNK_ELEMENTS = 1 << 18  # mask elements per chunk of a CPU reduction: its temporaries stay in cache


@dataclass(frozen=True)
class OverlapSpec:
    """What an overlap metric accumulates; equal specs share one state and one update.

    ``samplewise``: keep one row of counts per sample (a ``cat`` state: ``3 * C`` int64 per sample,
    e.g. 3.6 kB per image for 150 classes), else one ``(C, 3)`` sum over all samples.
    """

    num_classes: Optional[int]
    input_format: str
    ignore_index: Optional[int] = None
    samplewise: bool = True
    promote_unbatched: bool = False  # mean IoU reads a 1-D / 2-D class map as one sample
    validate_args: bool = True

    def defaults(self) -> dict[str, tuple[Any, str]]:
        """State name -> (default, reduction)."""
        if self.samplewise:
            return {"counts": ([], "cat")}
        return {"counts": (torch.zeros(self.num_classes, 3, dtype=_LONG), "sum")}

    def empty(self, device: torch.device, num_classes: Optional[int] = None) -> Tensor:
        """The table of no samples."""
        classes = num_classes or self.num_classes or 1
        return torch.zeros((0, classes, 3) if self.samplewise else (classes, 3), dtype=_LONG, device=device)

    def batch(self, preds: Tensor, target: Tensor) -> Tensor:
        """The counts of one batch: ``(N, C, 3)``, or ``(C, 3)`` when not samplewise."""
        p, t, classes = format_pair(
            preds,
            target,
            self.num_classes,
            self.input_format,
            self.ignore_index,
            self.validate_args,
            self.promote_unbatched,
        )
        counts = overlap_counts(p, t, classes, self.ignore_index)
        return counts if self.samplewise else counts.sum(0)


def overlap_counts(
    preds: Operand, target: Operand, num_classes: int, ignore_index: Optional[int] = None
) -> Tensor:
    """``(N, C, 3)`` int64 true positives, false positives and false negatives per sample and class.

    >>> p = Operand("index", torch.tensor([[0, 1, 1, 2]]))
    >>> t = Operand("index", torch.tensor([[0, 1, 2, 2]]))
    >>> overlap_counts(p, t, 3)[0]  # rows: classes; columns: tp, fp, fn
    tensor([[1, 0, 0],
            [1, 1, 0],
            [1, 0, 1]])
    """
    n = preds.value.shape[0]
    valid = None
    if ignore_index is not None and target.kind == "index":
        valid = target.value != ignore_index
    if preds.kind == "index" and target.kind == "index":
        m = math.prod(preds.value.shape[1:])  # explicit sizes: an empty batch cannot infer a -1
        return _label_label(preds.value.reshape(n, m), target.value.reshape(n, m), valid, num_classes)
    if preds.kind == "mask" and target.kind == "mask":
        return _mask_mask(preds.value, target.value)
    if preds.kind == "mask":  # masks against a class-map target
        tp, pred_sum, target_sum = _mask_label(preds.value, target.value, valid, num_classes)
    else:  # a class map against target masks
        tp, target_sum, pred_sum = _mask_label(target.value, preds.value, None, num_classes)
    return torch.stack([tp, pred_sum - tp, target_sum - tp], dim=-1)


def _label_label(pred: Tensor, target: Tensor, valid: Optional[Tensor], num_classes: int) -> Tensor:
    """Counts of two ``(N, M)`` class maps."""
    n, m = pred.shape
    c = num_classes
    if n * c * c <= max(4 * n * m, 1 << 16):
        # per-sample confusion matrices, pred-major: one code per pixel
        size = n * c * c
        offset = torch.arange(n, device=pred.device).view(n, 1) * (c * c)
        codes = torch.add(target.long(), pred.long(), alpha=c).add_(offset)
        if valid is not None:
            codes = torch.where(valid.reshape(n, m), codes, size)
        confmat = histogram(codes, size).view(n, c, c)
        tp = confmat.diagonal(dim1=1, dim2=2)
        return torch.stack([tp, confmat.sum(2) - tp, confmat.sum(1) - tp], dim=-1)
    # many classes: per class and sample, a hit (tp) or a miss (fn) at the target, a miss (fp) at the pred
    size = n * c * 3
    offset = torch.arange(n, device=pred.device).view(n, 1) * c
    hit = pred == target
    t_codes = (target.long() + offset) * 3 + torch.where(hit, 0, 2)
    p_codes = torch.where(hit, size, (pred.long() + offset) * 3 + 1)
    if valid is not None:
        keep = valid.reshape(n, m)
        t_codes, p_codes = torch.where(keep, t_codes, size), torch.where(keep, p_codes, size)
    return histogram(torch.cat([t_codes.reshape(-1), p_codes.reshape(-1)]), size).view(n, c, 3)


def _mask_label(
    masks: Tensor, labels: Tensor, valid: Optional[Tensor], num_classes: int
) -> tuple[Tensor, Tensor, Tensor]:
    """(hits, mask pixels, label pixels) per sample and class, of ``(N, C, ...)`` masks against an
    ``(N, ...)`` class map; ``valid`` (shaped like the class map) drops pixels from all three."""
    n, c = masks.shape[0], num_classes
    labels = labels.long()
    safe = labels if valid is None else torch.where(valid, labels, 0)  # ignored labels may be out of range
    hit = masks.gather(1, safe.unsqueeze(1)).squeeze(1).bool()  # the mask of each pixel's class
    size, m = n * c, math.prod(labels.shape[1:])
    codes = safe.reshape(n, m) + torch.arange(n, device=labels.device).view(n, 1) * c
    if valid is not None:
        codes = torch.where(valid.reshape(n, m), codes, size)
    hits = histogram(torch.where(hit.reshape(n, m), codes, size), size).view(n, c)
    label_sum = histogram(codes, size).view(n, c)
    mask_sum = torch.zeros(n, c, dtype=_LONG, device=masks.device)
    dims = tuple(range(2, masks.ndim))
    for samples, rows in _chunks(masks):
        chunk = masks[samples, :, rows]
        if valid is not None:
            chunk = torch.logical_and(chunk, valid[samples, rows].unsqueeze(1))
        mask_sum[samples] += chunk.sum(dims, dtype=_LONG)
    return hits, mask_sum, label_sum


def _mask_mask(preds: Tensor, target: Tensor) -> Tensor:
    """Counts of two ``(N, C, ...)`` stacks of 0/1 masks."""
    n, c = preds.shape[:2]
    dims = tuple(range(2, preds.ndim))
    counts = torch.zeros(n, c, 3, dtype=_LONG, device=preds.device)
    for samples, rows in _chunks(preds):
        p, t = preds[samples, :, rows], target[samples, :, rows]
        tp = torch.logical_and(p, t).sum(dims, dtype=_LONG)
        counts[samples] += torch.stack(
            [tp, p.sum(dims, dtype=_LONG) - tp, t.sum(dims, dtype=_LONG) - tp], dim=-1
        )
    return counts


def _chunks(masks: Tensor) -> Iterator[tuple[slice, slice]]:
    """Views of ``(N, C, S0, ...)`` masks along samples and the first spatial axis, each about
    ``_CHUNK_ELEMENTS`` (on the CPU; one chunk elsewhere)."""
    n, first = masks.shape[0], masks.shape[2]
    per_sample = masks[0:1].numel() if n else 0
    if masks.device.type != "cpu" or per_sample * n <= _CHUNK_ELEMENTS or not per_sample:
        yield slice(None), slice(None)
        return
    if per_sample <= _CHUNK_ELEMENTS:
        step = _CHUNK_ELEMENTS // per_sample
        for start in range(0, n, step):
            yield slice(start, start + step), slice(None)
        return
    rows = max(1, _CHUNK_ELEMENTS // (per_sample // first))
    for sample in range(n):
        for start in range(0, first, rows):
            yield slice(sample, sample + 1), slice(start, start + rows)
