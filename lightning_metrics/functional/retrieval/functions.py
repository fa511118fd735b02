"""The ten ``retrieval_*`` functions: one query's documents in, one value (or one curve) out.

Each function checks and flattens its input (all elements are the documents of one query), ranks
the documents once and reads its measure from the per-query kernels that the modular metrics use
for many queries at a time. Names, arguments and values are torchmetrics 1.9's; the returned
tensors are float32 (``top_k`` of the curve int64) on the device of ``preds``.

Tied scores: the ranking puts a non-relevant document before a relevant one with the same score,
so values never depend on the input order; torchmetrics' order among ties depends on its sort
implementation.
"""

from __future__ import annotations

from typing import Optional

import torch
from torch import Tensor

from lightning_metrics.functional.retrieval import _measures as measures
from lightning_metrics.functional.retrieval._grouping import RankedQueries, rank_queries
from lightning_metrics.functional.retrieval._inputs import (
    check_adaptive_k,
    check_max_fpr,
    check_top_k,
    format_query,
)

__all__ = [
    "retrieval_auroc",
    "retrieval_average_precision",
    "retrieval_fall_out",
    "retrieval_hit_rate",
    "retrieval_normalized_dcg",
    "retrieval_precision",
    "retrieval_precision_recall_curve",
    "retrieval_r_precision",
    "retrieval_recall",
    "retrieval_reciprocal_rank",
]


def _rank_one(preds: Tensor, target: Tensor) -> RankedQueries:
    return rank_queries(torch.zeros_like(preds, dtype=torch.long), preds, target)


def _value(per_query: Tensor) -> Tensor:
    return per_query[0].float()


def retrieval_average_precision(preds: Tensor, target: Tensor, top_k: Optional[int] = None) -> Tensor:
    """Average precision of one query: the mean, over the relevant documents retrieved in the top
    ``top_k``, of the precision at their rank (0 if none is retrieved).

    As in torchmetrics 1.9, a document with a score ``<= 0`` is never counted as retrieved;
    ``top_k=None`` or ``0`` considers every document.

    >>> import torch
    >>> preds = torch.tensor([0.9, 0.3, 0.6, 0.1])
    >>> target = torch.tensor([1, 1, 0, 0])
    >>> retrieval_average_precision(preds, target)
    tensor(0.8333)
    >>> retrieval_average_precision(preds, target, top_k=2)
    tensor(1.)
    """
    preds, target = format_query(preds, target, name="retrieval_average_precision")
    check_top_k(top_k, allow_zero=True)
    return _value(measures.average_precision(_rank_one(preds, target), top_k or None))


def retrieval_reciprocal_rank(preds: Tensor, target: Tensor, top_k: Optional[int] = None) -> Tensor:
    """Reciprocal rank of one query: 1 / the rank of the first relevant document retrieved in the
    top ``top_k`` (0 if none; scores ``<= 0`` are not retrieved, as in torchmetrics 1.9).

    >>> import torch
    >>> retrieval_reciprocal_rank(torch.tensor([0.9, 0.3, 0.6]), torch.tensor([False, True, False]))
    tensor(0.3333)
    """
    preds, target = format_query(preds, target, name="retrieval_reciprocal_rank")
    check_top_k(top_k, allow_zero=True)
    return _value(measures.reciprocal_rank(_rank_one(preds, target), top_k or None))


def retrieval_precision(
    preds: Tensor, target: Tensor, top_k: Optional[int] = None, adaptive_k: bool = False
) -> Tensor:
    """Precision at ``top_k`` of one query: relevant documents among the top k, divided by k.

    ``top_k=None`` takes every document; ``adaptive_k=True`` divides by the number of documents
    when k exceeds it. Scores ``<= 0`` are not retrieved (torchmetrics 1.9).

    >>> import torch
    >>> preds, target = torch.tensor([0.9, 0.3, 0.6]), torch.tensor([1, 1, 0])
    >>> retrieval_precision(preds, target, top_k=2)
    tensor(0.5000)
    >>> retrieval_precision(preds, target, top_k=5)
    tensor(0.4000)
    >>> retrieval_precision(preds, target, top_k=5, adaptive_k=True)
    tensor(0.6667)
    """
    preds, target = format_query(preds, target, name="retrieval_precision")
    check_adaptive_k(adaptive_k)
    check_top_k(top_k)
    return _value(measures.precision(_rank_one(preds, target), top_k, adaptive_k))


def retrieval_recall(preds: Tensor, target: Tensor, top_k: Optional[int] = None) -> Tensor:
    """Recall at ``top_k`` of one query: relevant documents among the top k, divided by all relevant
    documents (0 without relevant documents; scores ``<= 0`` are not retrieved, torchmetrics 1.9).

    >>> import torch
    >>> retrieval_recall(torch.tensor([0.9, 0.3, 0.6]), torch.tensor([1, 1, 0]), top_k=2)
    tensor(0.5000)
    """
    preds, target = format_query(preds, target, name="retrieval_recall")
    check_top_k(top_k)
    return _value(measures.recall(_rank_one(preds, target), top_k))


def retrieval_fall_out(preds: Tensor, target: Tensor, top_k: Optional[int] = None) -> Tensor:
    """Fall-out at ``top_k`` of one query: non-relevant documents among the top k, divided by all
    non-relevant documents (0 without non-relevant documents). Lower is better.

    >>> import torch
    >>> retrieval_fall_out(torch.tensor([0.9, 0.3, 0.6, 0.2]), torch.tensor([1, 1, 0, 0]), top_k=2)
    tensor(0.5000)
    """
    preds, target = format_query(preds, target, name="retrieval_fall_out")
    check_top_k(top_k)
    return _value(measures.fall_out(_rank_one(preds, target), top_k))


def retrieval_hit_rate(preds: Tensor, target: Tensor, top_k: Optional[int] = None) -> Tensor:
    """Hit rate at ``top_k`` of one query: 1 if a relevant document is among the top k, else 0.

    >>> import torch
    >>> preds, target = torch.tensor([0.9, 0.3, 0.6]), torch.tensor([0, 1, 0])
    >>> retrieval_hit_rate(preds, target, top_k=2), retrieval_hit_rate(preds, target, top_k=3)
    (tensor(0.), tensor(1.))
    """
    preds, target = format_query(preds, target, name="retrieval_hit_rate")
    check_top_k(top_k)
    return _value(measures.hit_rate(_rank_one(preds, target), top_k))


def retrieval_r_precision(preds: Tensor, target: Tensor) -> Tensor:
    """R-precision of one query: the precision at R, the number of relevant documents (0 if R = 0).

    >>> import torch
    >>> retrieval_r_precision(torch.tensor([0.9, 0.3, 0.6, 0.5]), torch.tensor([1, 1, 0, 0]))
    tensor(0.5000)
    """
    preds, target = format_query(preds, target, name="retrieval_r_precision")
    return _value(measures.r_precision(_rank_one(preds, target)))


def retrieval_normalized_dcg(preds: Tensor, target: Tensor, top_k: Optional[int] = None) -> Tensor:
    """Normalized discounted cumulative gain of one query, with graded relevance.

    The gain of a document is its target (a finite non-negative grade: a negative one raises, as in
    scikit-learn's ``ndcg_score``, where torchmetrics takes it); tied scores share the mean gain of
    their group (as scikit-learn's ``ndcg_score``); the result is divided by the DCG of the ideal
    order (0 where that is 0). ``top_k`` keeps the first k ranks.

    >>> import torch
    >>> preds = torch.tensor([0.1, 0.8, 0.4, 0.4])
    >>> target = torch.tensor([3, 0, 1, 2])
    >>> retrieval_normalized_dcg(preds, target)
    tensor(0.6276)
    >>> retrieval_normalized_dcg(preds, target, top_k=2)
    tensor(0.2221)
    """
    preds, target = format_query(preds, target, allow_non_binary_target=True, name="retrieval_normalized_dcg")
    check_top_k(top_k)
    return _value(measures.normalized_dcg(_rank_one(preds, target), top_k))


def retrieval_auroc(
    preds: Tensor, target: Tensor, top_k: Optional[int] = None, max_fpr: Optional[float] = None
) -> Tensor:
    """Area under the ROC curve of one query's top ``top_k`` documents (0 unless both relevant and
    non-relevant documents are among them); ``max_fpr`` gives the McClish-standardised partial area.

    Scores outside ``[0, 1]`` are read as logits (sigmoid), as torchmetrics' binary AUROC does.

    >>> import torch
    >>> preds, target = torch.tensor([0.9, 0.3, 0.6, 0.2]), torch.tensor([1, 0, 0, 1])
    >>> retrieval_auroc(preds, target)
    tensor(0.5000)
    >>> retrieval_auroc(preds, target, top_k=3)
    tensor(1.)
    """
    preds, target = format_query(preds, target, name="retrieval_auroc")
    check_top_k(top_k, allow_zero=True)
    check_max_fpr(max_fpr)
    return _value(measures.auroc(_rank_one(preds, target), top_k or None, max_fpr))


def retrieval_precision_recall_curve(
    preds: Tensor, target: Tensor, max_k: Optional[int] = None, adaptive_k: bool = False
) -> tuple[Tensor, Tensor, Tensor]:
    """Precision and recall of one query at every k from 1 to ``max_k`` (default: the number of
    documents): ``(precision, recall, top_k)``. Both are 0 for a query without relevant documents.

    With ``adaptive_k=True`` and ``max_k`` above the number of documents n, the ks past n are
    reported as n (and the precision divides by n).

    >>> import torch
    >>> preds, target = torch.tensor([0.9, 0.3, 0.6]), torch.tensor([1, 1, 0])
    >>> retrieval_precision_recall_curve(preds, target)
    (tensor([1.0000, 0.5000, 0.6667]), tensor([0.5000, 0.5000, 1.0000]), tensor([1, 2, 3]))
    >>> retrieval_precision_recall_curve(preds, target, max_k=4, adaptive_k=True)[2]
    tensor([1, 2, 3, 3])
    """
    preds, target = format_query(preds, target, name="retrieval_precision_recall_curve")
    check_adaptive_k(adaptive_k)
    check_top_k(max_k, name="max_k")
    n = preds.numel()
    max_k = n if max_k is None else max_k
    top_k = torch.arange(1, max_k + 1, device=preds.device)
    if adaptive_k:
        top_k = top_k.clamp(max=n)
    precision, recall = measures.precision_recall_at_each_k(_rank_one(preds, target), max_k, adaptive_k)
    return precision[0].float(), recall[0].float(), top_k
