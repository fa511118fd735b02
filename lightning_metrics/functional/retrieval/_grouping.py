"""One ranking of every query: documents sorted by (query, score) once, then segment reductions.

Every retrieval measure is a reduction over the documents of each query in ranked order. Instead
of splitting the documents into one tensor per query (a Python loop, one small kernel per query),
:func:`rank_queries` sorts all documents at once so that each query is one contiguous segment,
best score first, and :class:`RankedQueries` offers the few segment operations the measures need:
per-query sums, cumulative counts that restart at each query, and groups of tied scores.

Query ids may be any int64 values, sparse and huge: they are mapped to dense ids ``0..Q-1`` by the
sort itself (a new id starts where the sorted ids change), never by allocating ``max(index)``.

Ties in score are broken the same way everywhere: a non-relevant document ranks before a relevant
one with the same score (the pessimistic order). The ranking is then a function of the documents
alone, not of the order they arrived in, so streaming, ``merge_state`` and any split across
processes give the same values. Measures that define ties themselves (NDCG averages the gain of a
tie group, AUROC counts a tie as half) read the tie groups and do not depend on this order at all.

>>> import torch
>>> ranked = rank_queries(
...     indexes=torch.tensor([7, 3, 7, 3, 7]),
...     preds=torch.tensor([0.2, 0.9, 0.8, 0.1, 0.2]),
...     target=torch.tensor([0.0, 1.0, 1.0, 0.0, 1.0]),
... )
>>> ranked.ids, ranked.sizes
(tensor([3, 7]), tensor([2, 3]))
>>> ranked.rank, ranked.preds
(tensor([0, 1, 0, 1, 2]), tensor([0.9000, 0.1000, 0.8000, 0.2000, 0.2000]))
>>> ranked.target  # the tie at 0.2: the non-relevant document first
tensor([1., 0., 1., 0., 1.])
>>> ranked.query_sum(ranked.target)
tensor([1., 2.])
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import torch
from torch import Tensor

_SCORE_BITS = 32  # a float32 score as an order-preserving unsigned 32-bit key
_MAX_QUERIES = 1 << 30  # dense query ids share an int64 sort key with the score key and a tie bit


@dataclass(eq=False)
class RankedQueries:
    """All documents in ranked order: query by query (ascending id), best score first.

    Every per-document tensor has one entry per document, in that order; every per-query tensor
    has one entry per query, in ascending order of the original query id. The few per-document
    values several measures read (relevance, discounts) are computed once per ranking, so the
    metrics of a collection that share the ranking share them too.
    """

    query: Tensor  # (N,) dense query id (0..Q-1) of each document, non-decreasing
    rank: Tensor  # (N,) position of the document within its query, 0 for the best score
    preds: Tensor  # (N,) float32 scores
    target: Tensor  # (N,) float32 relevance (binary, or graded for NDCG)
    starts: Tensor  # (Q,) position of each query's first document
    sizes: Tensor  # (Q,) number of documents of each query
    ids: Tensor  # (Q,) the original query ids

    @cached_property
    def relevant(self) -> Tensor:
        """Whether each document is relevant (target > 0)."""
        return self.target > 0

    @cached_property
    def positively_scored(self) -> Tensor:
        """Whether each document's score is > 0 (torchmetrics 1.9 retrieves only those in some measures)."""
        return self.preds > 0

    @cached_property
    def discount(self) -> Tensor:
        """float64 ``1 / log2(rank + 2)``, the DCG discount of each document's position."""
        return 1.0 / torch.log2(self.rank.to(torch.float64) + 2.0)

    @property
    def num_queries(self) -> int:
        """How many queries there are (Q)."""
        return self.sizes.numel()

    def query_sum(self, values: Tensor) -> Tensor:
        """Per-query sums of a per-document tensor (bools count as int64)."""
        if values.dtype == torch.bool:
            values = values.long()
        out = torch.zeros(self.num_queries, dtype=values.dtype, device=values.device)
        return out.index_add_(0, self.query, values)

    def cumulative(self, values: Tensor) -> Tensor:
        """Inclusive running sums that restart at each query (exact for counts: use integers)."""
        if values.dtype == torch.bool:
            values = values.long()
        running = values.cumsum(0)
        before = (running - values)[self.starts]  # the running sum just before each query begins
        return running - before[self.query]

    def per_document(self, per_query: Tensor) -> Tensor:
        """Broadcast a per-query tensor to the documents."""
        return per_query[self.query]

    def tie_groups(self, scores: Tensor) -> tuple[Tensor, Tensor]:
        """Runs of equal scores within a query: ``(group id of each document, first document of
        each group)``. ``scores`` must be in ranked order (non-increasing within each query); NaNs
        never tie, as in torchmetrics."""
        new = torch.ones_like(self.query, dtype=torch.bool)
        if scores.numel() > 1:
            new[1:] = (scores[1:] != scores[:-1]) | (self.query[1:] != self.query[:-1])
        return new.long().cumsum(0) - 1, new.nonzero().squeeze(1)


def _ordered_bits(values: Tensor) -> Tensor:
    """float32 values as int64 keys in ``[0, 2**32)`` whose ascending order is the values' descending
    order; NaN (all NaNs alike) counts as the largest value, -0.0 as 0.0, as ``torch.sort`` does."""
    values = torch.where(torch.isnan(values), torch.full_like(values, float("nan")), values + 0.0)
    bits = values.view(torch.int32).long()
    ascending = torch.where(bits >= 0, bits, bits ^ 0x7FFFFFFF)  # signed order == float order
    return (1 << 31) - 1 - ascending


def rank_queries(indexes: Tensor, preds: Tensor, target: Tensor) -> RankedQueries:
    """Sort documents by (query id, score descending, relevance ascending) and describe the queries.

    ``indexes`` (int64), ``preds`` (float32) and ``target`` (float32) are 1-D and of equal length.
    At most two sorts: the ids (skipped when they already arrive grouped in ascending order, as
    when batches hold whole queries in order) and one int64 key of (dense id, score, relevance).
    """
    device = indexes.device
    n = indexes.numel()
    if n == 0:
        empty = torch.zeros(0, dtype=torch.long, device=device)
        return RankedQueries(empty, empty, preds, target, empty, empty, empty)
    presorted = n == 1 or bool((indexes[1:] >= indexes[:-1]).all())
    if presorted:
        by_id, order = indexes, None
    else:
        by_id, order = torch.sort(indexes, stable=True)
        preds, target = preds[order], target[order]
    new_query = torch.ones(n, dtype=torch.bool, device=device)
    new_query[1:] = by_id[1:] != by_id[:-1]
    query = new_query.long().cumsum(0) - 1
    starts = new_query.nonzero().squeeze(1)
    if starts.numel() > _MAX_QUERIES:
        raise ValueError(
            f"Argument `indexes` holds {starts.numel()} distinct queries; "
            f"at most {_MAX_QUERIES} are supported"
        )
    key = (query << (_SCORE_BITS + 1)) | (_ordered_bits(preds) << 1) | (target > 0).long()
    # equal keys are equal (query, score, relevance): their order changes no measure
    within = torch.sort(key, stable=True).indices  # the stable int64 sort is the fastest on CPU
    preds, target = preds[within], target[within]
    sizes = torch.diff(starts, append=torch.tensor([n], device=device))
    rank = torch.arange(n, device=device) - starts[query]
    return RankedQueries(query, rank, preds, target, starts, sizes, by_id[starts])


def rank_by_target(ranked: RankedQueries) -> Tensor:
    """The targets of each query sorted in descending order (the ideal ranking), aligned with
    ``ranked``'s segments: position ``i`` of a query holds its ``i``-th largest target."""
    if ranked.target.numel() == 0:
        return ranked.target
    key = (ranked.query << _SCORE_BITS) | _ordered_bits(ranked.target)
    return ranked.target[torch.sort(key, stable=True).indices]
