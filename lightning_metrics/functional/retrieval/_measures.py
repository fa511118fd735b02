"""Per-query retrieval measures over one :class:`RankedQueries`, each a handful of vectorised kernels.

Every function returns one float64 value per query: the value torchmetrics' functional gives for
that query alone (its own convention for a query without relevant documents included). The
modular metrics then replace the queries without positives (or negatives) by
``empty_target_action`` and aggregate.

``top_k`` is ``None`` (all documents) or a positive int here; the public functions resolve
torchmetrics' conventions (``top_k=0`` meaning all for some measures, ``adaptive_k``) first.

As in torchmetrics 1.9, average precision, reciprocal rank, precision and recall count a relevant
document as retrieved only if its score is positive (``preds > 0``); hit rate, fall-out,
R-precision, NDCG, AUROC and the precision-recall curve count every document.
"""

from __future__ import annotations

from typing import Optional

import torch
from torch import Tensor

from lightning_metrics.functional.retrieval._grouping import RankedQueries, rank_by_target

F64 = torch.float64


def _within(ranked: RankedQueries, k: Optional[Tensor | int]) -> Tensor:
    """Whether each document is among the first ``k`` of its query (``k`` an int or per query)."""
    if k is None:
        return torch.ones_like(ranked.rank, dtype=torch.bool)
    if isinstance(k, Tensor):
        return ranked.rank < ranked.per_document(k)
    return ranked.rank < k


def _retrieved_relevant(ranked: RankedQueries, top_k: Optional[Tensor | int]) -> Tensor:
    """Relevant, positively scored and within the top k (torchmetrics 1.9's hits for AP/MRR/P/R)."""
    hits = ranked.relevant & ranked.positively_scored
    return hits if top_k is None else hits & _within(ranked, top_k)


def _ratio(numerator: Tensor, denominator: Tensor) -> Tensor:
    """``numerator / denominator``, 0 where the denominator is 0."""
    numerator, denominator = numerator.to(F64), denominator.to(F64)
    return torch.where(denominator != 0, numerator / torch.where(denominator != 0, denominator, 1.0), 0.0)


def average_precision(ranked: RankedQueries, top_k: Optional[int]) -> Tensor:
    """Mean over the retrieved relevant documents of the precision at their rank."""
    hits = _retrieved_relevant(ranked, top_k)
    precision_at_hit = ranked.cumulative(hits).to(F64) / (ranked.rank + 1)
    return _ratio(ranked.query_sum(torch.where(hits, precision_at_hit, 0.0)), ranked.query_sum(hits))


def reciprocal_rank(ranked: RankedQueries, top_k: Optional[int]) -> Tensor:
    """1 / rank of the first retrieved relevant document, 0 without one."""
    hits = _retrieved_relevant(ranked, top_k)
    first = hits & (ranked.cumulative(hits) == 1)
    return ranked.query_sum(torch.where(first, 1.0 / (ranked.rank + 1).to(F64), 0.0))


def precision_divisor(ranked: RankedQueries, top_k: Optional[int], adaptive_k: bool) -> Tensor:
    """The k each query's precision divides by: all documents for ``None``, ``min(k, size)`` if adaptive."""
    if top_k is None:
        return ranked.sizes
    k = torch.full_like(ranked.sizes, top_k)
    return torch.minimum(k, ranked.sizes) if adaptive_k else k


def precision(ranked: RankedQueries, top_k: Optional[int], adaptive_k: bool) -> Tensor:
    """Retrieved relevant documents among the top k, divided by k."""
    k = precision_divisor(ranked, top_k, adaptive_k)
    return ranked.query_sum(_retrieved_relevant(ranked, k)).to(F64) / k


def recall(ranked: RankedQueries, top_k: Optional[int]) -> Tensor:
    """Retrieved relevant documents among the top k, divided by all relevant documents."""
    return _ratio(
        ranked.query_sum(_retrieved_relevant(ranked, top_k)), ranked.query_sum(ranked.target.to(F64))
    )


def fall_out(ranked: RankedQueries, top_k: Optional[int]) -> Tensor:
    """Non-relevant documents among the top k, divided by all non-relevant documents."""
    negative = ~ranked.relevant
    return _ratio(ranked.query_sum(negative & _within(ranked, top_k)), ranked.query_sum(negative))


def hit_rate(ranked: RankedQueries, top_k: Optional[int]) -> Tensor:
    """1 if a relevant document is among the top k, else 0."""
    return (ranked.query_sum(ranked.relevant & _within(ranked, top_k)) > 0).to(F64)


def r_precision(ranked: RankedQueries) -> Tensor:
    """Precision at R, the number of relevant documents of the query."""
    relevant = ranked.relevant
    count = ranked.query_sum(relevant)
    return _ratio(ranked.query_sum(relevant & _within(ranked, count)), count)


def _discounts(ranked: RankedQueries, top_k: Optional[int], position: Optional[Tensor] = None) -> Tensor:
    if position is None:
        position, discount = ranked.rank, ranked.discount
    else:
        discount = 1.0 / torch.log2(position.to(F64) + 2.0)
    return torch.where(position < top_k, discount, 0.0) if top_k is not None else discount


_MAX_GRADE_LEVELS = 64  # integer grades spanning at most this many levels: counted, not sorted


def ideal_dcg(ranked: RankedQueries, top_k: Optional[int]) -> Tensor:
    """The DCG of each query's targets in descending order.

    Integer grades over a small range (binary ones included) need no sort: in the ideal order a
    query's documents of grade g fill the positions after all of its higher-graded ones, so its
    ideal DCG is the sum over grades of g times the discounts of those positions (differences of
    one prefix sum of the discounts). Other targets are sorted within each query.
    """
    target = ranked.target
    if target.numel() == 0:
        return torch.zeros(ranked.num_queries, dtype=F64, device=target.device)
    low, high = torch.aminmax(target)
    low, high, integral = torch.stack([low, high, (target == target.round()).all().to(low)]).tolist()
    levels = int(high - low) + 1 if integral and high - low < _MAX_GRADE_LEVELS else 0
    # the (query, grade) table must stay small against the documents, or the sort is cheaper
    if not (levels and ranked.num_queries * levels <= 4 * target.numel()):
        return ranked.query_sum(rank_by_target(ranked).to(F64) * _discounts(ranked, top_k))
    level = (target - low).long()
    counts = torch.bincount(ranked.query * levels + level, minlength=ranked.num_queries * levels)
    counts = counts.view(ranked.num_queries, levels)
    higher = counts.flip(1).cumsum(1).flip(1) - counts  # documents of a higher grade, per query and grade
    longest = int(ranked.sizes.max())
    positions = torch.arange(longest, device=target.device)
    discount = 1.0 / torch.log2(positions.to(F64) + 2.0)
    if top_k is not None:
        discount = torch.where(positions < top_k, discount, 0.0)
    prefix = torch.cat([discount.new_zeros(1), discount.cumsum(0)])  # prefix[m]: the first m discounts
    grades = torch.arange(levels, device=target.device, dtype=F64) + low
    return ((prefix[higher + counts] - prefix[higher]) * grades).sum(1)


def dcg(ranked: RankedQueries, top_k: Optional[int]) -> Tensor:
    """DCG with tied scores averaged: each document of a tie group gains the group's mean target.

    NaN scores rank last here (first everywhere else, as ``torch.sort``): torchmetrics groups the
    ties of the NDCG with ``torch.unique``, which puts NaN last.
    """
    position = ranked.rank
    nan = torch.isnan(ranked.preds)
    if bool(nan.any()):  # they lead their query in the ranking: move them behind the others
        count = ranked.per_document(ranked.query_sum(nan))
        position = torch.where(nan, position + ranked.per_document(ranked.sizes) - count, position - count)
    group, first = ranked.tie_groups(ranked.preds)
    totals = torch.zeros(first.numel(), dtype=F64, device=group.device).index_add_(
        0, group, ranked.target.to(F64)
    )
    counts = torch.bincount(group, minlength=first.numel()).to(F64)
    return ranked.query_sum((totals / counts)[group] * _discounts(ranked, top_k, position))


def normalized_dcg(ranked: RankedQueries, top_k: Optional[int], ideal: Optional[Tensor] = None) -> Tensor:
    """DCG / ideal DCG, 0 where the ideal DCG is 0."""
    ideal = ideal_dcg(ranked, top_k) if ideal is None else ideal
    return _ratio(dcg(ranked, top_k), ideal)


def auroc(ranked: RankedQueries, top_k: Optional[int], max_fpr: Optional[float]) -> Tensor:
    """Area under the ROC curve of each query's top k documents (0 unless both classes are there).

    Ties count as half (the trapezoid over distinct scores). Scores of a query whose top k leave
    ``[0, 1]`` pass through a sigmoid first, as torchmetrics' binary AUROC does: a float32 sigmoid
    can merge large logits into ties, and the value follows. With ``max_fpr`` the partial area up
    to that false positive rate is McClish-standardised.
    """
    selected = _within(ranked, top_k)
    relevant = ranked.relevant
    positive, negative = relevant & selected, ~relevant & selected
    pos_total, neg_total = ranked.query_sum(positive).to(F64), ranked.query_sum(negative).to(F64)
    outside = selected & ~((ranked.preds >= 0) & (ranked.preds <= 1))
    logits = ranked.per_document(ranked.query_sum(outside) > 0)
    scores = torch.where(logits, ranked.preds.sigmoid(), ranked.preds)
    group, first = ranked.tie_groups(scores)
    num_groups = first.numel()
    group_pos = torch.zeros(num_groups, dtype=F64, device=group.device).index_add_(0, group, positive.to(F64))
    group_neg = torch.zeros(num_groups, dtype=F64, device=group.device).index_add_(0, group, negative.to(F64))
    pos_before = (ranked.cumulative(positive) - positive.long())[first].to(F64)  # ranked above the group
    neg_before = (ranked.cumulative(negative) - negative.long())[first].to(F64)
    group_query = ranked.query[first]
    pos_scale = torch.where(pos_total > 0, pos_total, 1.0)[group_query]
    neg_scale = torch.where(neg_total > 0, neg_total, 1.0)[group_query]
    tpr0, tpr1 = pos_before / pos_scale, (pos_before + group_pos) / pos_scale
    fpr0, fpr1 = neg_before / neg_scale, (neg_before + group_neg) / neg_scale
    if max_fpr is not None and max_fpr != 1:
        # the segment that crosses max_fpr ends there, at the interpolated tpr; later ones add nothing
        end = fpr1.clamp(max=max_fpr)
        width = (end - fpr0).clamp(min=0.0)
        slope = torch.where(fpr1 > fpr0, (tpr1 - tpr0) / torch.where(fpr1 > fpr0, fpr1 - fpr0, 1.0), 0.0)
        tpr1 = tpr0 + slope * width
    else:
        width = fpr1 - fpr0
    area = torch.zeros_like(pos_total).index_add_(0, group_query, width * (tpr0 + tpr1) / 2)
    if max_fpr is not None and max_fpr != 1:
        min_area = 0.5 * max_fpr**2
        area = 0.5 * (1 + (area - min_area) / (max_fpr - min_area))
    return torch.where((pos_total > 0) & (neg_total > 0), area, 0.0)


def relevant_at_each_k(ranked: RankedQueries, max_k: int) -> Tensor:
    """(Q, max_k) float64: relevant documents among each query's first 1..max_k."""
    counts = torch.zeros(ranked.num_queries, max_k, dtype=F64, device=ranked.query.device)
    kept = ranked.rank < max_k
    counts[ranked.query[kept], ranked.rank[kept]] = ranked.target[kept].to(F64)
    return counts.cumsum(1)


def precision_recall_at_each_k(ranked: RankedQueries, max_k: int, adaptive_k: bool) -> tuple[Tensor, Tensor]:
    """(Q, max_k) precision and recall at k = 1..max_k of every query (0 for a query without
    relevant documents). With ``adaptive_k`` the precision at k past a query's size divides by
    its size."""
    found = relevant_at_each_k(ranked, max_k)
    k = torch.arange(1, max_k + 1, device=found.device, dtype=F64).expand_as(found)
    if adaptive_k:
        k = torch.minimum(k, ranked.sizes.to(F64).unsqueeze(1))
    total = ranked.query_sum(ranked.target.to(F64)).unsqueeze(1)
    return found / k, _ratio(found, total.expand_as(found))
