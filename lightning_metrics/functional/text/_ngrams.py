"""N-gram statistics of a batch in torch: every n-gram of every document, counted once.

Documents are token-id sequences (words or characters). :func:`document_ngrams` numbers the
n-grams of each order (an order-k gram is a pair (order-(k-1) gram, next token), numbered by one
``unique`` per order, so ids are exact for any order and vocabulary). :func:`tally` counts every
distinct (sample, gram, source) — the source is the prediction (0) or reference ``r`` (``r + 1``)
— with one sort, and puts beside each the prediction's own count of that gram. BLEU's clipped
matches (against the largest count over the references), chrF's and ROUGE-N's per-reference
matches are then segment reductions over that tally.

>>> ids = torch.tensor([1, 2, 1, 2,   1, 2, 3])  # two documents: "a b a b", "a b c"
>>> doc, gram, order = document_ngrams(ids, torch.tensor([4, 3]), max_order=2)
>>> order.tolist()
[1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2]
>>> t = tally(doc, gram, order, sample=torch.tensor([0, 0]), source=torch.tensor([0, 1]), num_sources=2)
>>> clipped_matches(t, max_order=2).tolist()  # "a b", "a", "b" match; "b a" does not
[2, 1]
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from lightning_metrics.functional.text._encoding import segment_ids


def _segments(lengths: Tensor) -> tuple[Tensor, Tensor]:
    """For every flat token: its document and the tokens left in that document from it (>= 1)."""
    docs = segment_ids(lengths)
    ends = lengths.cumsum(0).index_select(0, docs)
    return docs, ends - torch.arange(docs.numel())


def document_ngrams(
    ids: Tensor, lengths: Tensor, max_order: int, min_order: int = 1
) -> tuple[Tensor, Tensor, Tensor]:
    """Every n-gram occurrence of orders ``min_order..max_order``: its document, its gram id (equal
    grams, equal ids; distinct over orders) and its order, in order then position."""
    docs, left = _segments(lengths)
    tokens = torch.unique(ids, return_inverse=True)[1] if ids.numel() else ids
    vocabulary = int(tokens.max()) + 1 if tokens.numel() else 1
    start = torch.arange(ids.numel())
    gram = tokens
    out_doc, out_gram, out_order = [], [], []
    offset = 0
    for k in range(1, max_order + 1):
        if k > 1:
            keep = torch.nonzero(left >= k).squeeze(1)
            start, gram, left = (
                start.index_select(0, keep),
                gram.index_select(0, keep),
                left.index_select(0, keep),
            )
            if not start.numel():
                break
            code = gram * vocabulary + tokens.index_select(0, start + k - 1)
            gram = torch.unique(code, return_inverse=True)[1]
        if k >= min_order and start.numel():
            out_doc.append(docs.index_select(0, start))
            out_gram.append(gram + offset)
            out_order.append(torch.full_like(gram, k))
            offset += int(gram.max()) + 1
    if not out_doc:
        empty = torch.zeros(0, dtype=torch.int64)
        return empty, empty, empty
    return torch.cat(out_doc), torch.cat(out_gram), torch.cat(out_order)


@dataclass
class Tally:
    """Distinct (sample, gram, source) triples of a batch with their counts."""

    sample: Tensor
    source: Tensor  # 0: the prediction; r + 1: the r-th reference of the sample
    order: Tensor
    count: Tensor
    pred_count: Tensor  # occurrences of the same gram in the sample's prediction
    group: Tensor  # dense id of (sample, gram), ascending


def tally(
    doc: Tensor, gram: Tensor, order: Tensor, sample: Tensor, source: Tensor, num_sources: int
) -> Tally:
    """Count the n-gram occurrences per (sample, gram, source).

    ``sample[d]``/``source[d]`` say whose text document ``d`` is (``source`` 0 for a prediction).
    """
    if not doc.numel():
        empty = torch.zeros(0, dtype=torch.int64)
        return Tally(empty, empty, empty, empty, empty, empty)
    grams = int(gram.max()) + 1
    code = (sample.index_select(0, doc) * grams + gram) * num_sources + source.index_select(0, doc)
    keys, inverse, counts = torch.unique(code, return_inverse=True, return_counts=True)
    src = keys % num_sources
    pair_gram = keys // num_sources
    starts = torch.ones_like(keys, dtype=torch.bool)
    starts[1:] = pair_gram[1:] != pair_gram[:-1]
    group = starts.cumsum(0) - 1
    first = torch.nonzero(starts).squeeze(1)  # the prediction's triple, if any, opens its group
    first_pred = torch.where(src.index_select(0, first) == 0, counts.index_select(0, first), 0)
    # an order per key: all occurrences of a key share it
    key_order = torch.zeros_like(keys).scatter_(0, inverse, order)
    return Tally(
        sample=pair_gram // grams,
        source=src,
        order=key_order,
        count=counts,
        pred_count=first_pred.index_select(0, group),
        group=group,
    )


def clipped_matches(t: Tally, max_order: int) -> Tensor:
    """BLEU's matches per order: each prediction gram counted at most as often as in the reference
    where it is most frequent (int64, ``(max_order,)``)."""
    out = torch.zeros(max_order, dtype=torch.int64)
    if not t.count.numel():
        return out
    groups = int(t.group[-1]) + 1
    ref_max = torch.zeros(groups, dtype=torch.int64).scatter_reduce_(
        0, t.group, torch.where(t.source > 0, t.count, 0), reduce="amax"
    )
    is_pred = t.source == 0
    clipped = torch.where(is_pred, torch.minimum(t.count, ref_max.index_select(0, t.group)), 0)
    return out.index_add_(0, t.order - 1, clipped)


def matches_per_source(t: Tally, num_samples: int, num_sources: int, max_order: int) -> Tensor:
    """``sum min(pred count, reference count)`` for every (sample, reference, order):
    ``(num_samples, num_sources - 1, max_order)`` int64."""
    out = torch.zeros(num_samples * max(num_sources - 1, 1) * max_order, dtype=torch.int64)
    is_ref = t.source > 0
    if not t.count.numel() or num_sources < 2:
        return out.view(num_samples, max(num_sources - 1, 1), max_order)[:, : num_sources - 1]
    index = (t.sample * (num_sources - 1) + (t.source - 1).clamp(min=0)) * max_order + t.order - 1
    value = torch.where(is_ref, torch.minimum(t.count, t.pred_count), 0)
    return out.index_add_(0, index, value).view(num_samples, num_sources - 1, max_order)


def order_totals(lengths: Tensor, max_order: int) -> Tensor:
    """Number of n-grams of each order in documents of these lengths: ``(documents, max_order)``."""
    orders = torch.arange(1, max_order + 1)
    return (lengths[:, None] - orders + 1).clamp(min=0)
