"""Retrieval precision-recall curve over k, and the recall at a fixed precision.

Both aggregate, at every k from 1 to ``max_k`` (default: the size of the largest query), the
precision and recall of each query's top k. The mean, the default aggregation, is computed from
histograms of ranks in O(documents + max_k) without a (queries x max_k) table; the other
aggregations need the table and build it once.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

import torch
from torch import Tensor

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics.functional.retrieval import _measures as measures
from lightning_metrics.functional.retrieval._grouping import RankedQueries
from lightning_metrics.functional.retrieval._inputs import (
    aggregate,
    check_adaptive_k,
    check_min_precision,
    check_top_k,
)
from lightning_metrics.retrieval._base import RetrievalMetric

__all__ = ["RetrievalPrecisionRecallCurve", "RetrievalRecallAtFixedPrecision"]

Aggregation = Union[str, Callable]
F64 = torch.float64


def _mean_curves(ranked: RankedQueries, kept: Tensor, max_k: int, adaptive_k: bool) -> tuple[Tensor, Tensor]:
    """Sums over the ``kept`` queries of their precision and recall at each k, from rank histograms."""
    device = ranked.rank.device
    doc_kept = ranked.per_document(kept) & (ranked.rank < max_k)
    ranks = ranked.rank[doc_kept]
    relevance = ranked.target[doc_kept].to(F64)
    totals = ranked.query_sum(ranked.target.to(F64))
    found = torch.bincount(ranks, weights=relevance, minlength=max_k).cumsum(0)  # sum of found@k
    share = relevance / ranked.per_document(totals)[doc_kept]
    recall = torch.bincount(ranks, weights=share, minlength=max_k).cumsum(0)
    k = torch.arange(1, max_k + 1, device=device, dtype=F64)
    if not adaptive_k:
        return found / k, recall
    # a query of n < k documents divides by n at k: it has found all of its relevant documents by then
    small = kept & (ranked.sizes < max_k)
    sizes = ranked.sizes[small]
    done = torch.bincount(sizes, weights=totals[small], minlength=max_k + 1)[:max_k].cumsum(0)
    done_ratio = torch.bincount(sizes, weights=totals[small] / sizes.to(F64), minlength=max_k + 1)[
        :max_k
    ].cumsum(0)
    return (found - done) / k + done_ratio, recall


class RetrievalPrecisionRecallCurve(RetrievalMetric):
    """Precision and recall at every k from 1 to ``max_k``, aggregated over queries:
    ``(precision, recall, top_k)``.

    ``max_k=None`` takes the size of the largest query; ``adaptive_k=True`` divides the precision
    of a query by its size at the ks beyond it. A query without relevant documents goes by
    ``empty_target_action`` (a row of zeros, of ones, left out, or an error).

    State: 16 bytes per document, shared by the retrieval metrics of a collection.

    >>> import torch
    >>> from lightning_metrics.retrieval import RetrievalPrecisionRecallCurve
    >>> indexes = torch.tensor([0, 0, 0, 1, 1, 1])
    >>> preds = torch.tensor([0.9, 0.2, 0.6, 0.4, 0.8, 0.3])
    >>> target = torch.tensor([1, 1, 0, 0, 1, 0])
    >>> precision, recall, top_k = RetrievalPrecisionRecallCurve(max_k=3)(preds, target, indexes=indexes)
    >>> precision, recall, top_k
    (tensor([1.0000, 0.5000, 0.5000]), tensor([0.7500, 0.7500, 1.0000]), tensor([1, 2, 3]))
    """

    plot = _plot_methods.plot_curve_without_score
    plot_lower_bound = plot_upper_bound = None

    higher_is_better = True

    def __init__(
        self,
        max_k: Optional[int] = None,
        adaptive_k: bool = False,
        empty_target_action: str = "neg",
        ignore_index: Optional[int] = None,
        aggregation: Aggregation = "mean",
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _check_arguments(self) -> None:
        check_top_k(self.max_k, name="max_k")
        check_adaptive_k(self.adaptive_k)

    def _curves(self) -> tuple[Tensor, Tensor, Tensor]:
        ranked = self._ranked()
        device = ranked.rank.device
        max_k = self.max_k if self.max_k is not None else int(ranked.sizes.max()) if ranked.num_queries else 0
        top_k = torch.arange(1, max_k + 1, device=device)
        undefined = self._undefined(ranked)
        self._raise_on_undefined(ranked, undefined)
        fill = 1.0 if self.empty_target_action == "pos" else 0.0
        counted = ~undefined if self.empty_target_action == "skip" else torch.ones_like(undefined)
        rows = int(counted.sum())
        if rows == 0:
            zeros = torch.zeros(max_k, dtype=torch.float32, device=device)
            return zeros, zeros.clone(), top_k
        if self.aggregation == "mean":
            precision, recall = _mean_curves(ranked, counted & ~undefined, max_k, self.adaptive_k)
            filled = (counted & undefined).sum().to(F64) * fill
            return ((precision + filled) / rows).float(), ((recall + filled) / rows).float(), top_k
        precision, recall = measures.precision_recall_at_each_k(ranked, max_k, self.adaptive_k)
        if self.empty_target_action == "skip":
            precision, recall = precision[counted], recall[counted]
        else:
            blank = undefined.unsqueeze(1)
            precision, recall = torch.where(blank, fill, precision), torch.where(blank, fill, recall)
        return (
            aggregate(precision.float(), self.aggregation, dim=0),
            aggregate(recall.float(), self.aggregation, dim=0),
            top_k,
        )

    def compute(self) -> tuple[Tensor, Tensor, Tensor]:  # type: ignore[override]
        """``(precision, recall, top_k)``: float32, float32 and int64 vectors of length ``max_k``."""
        return self._curves()


class RetrievalRecallAtFixedPrecision(RetrievalPrecisionRecallCurve):
    """The largest aggregated recall among the ks whose aggregated precision is at least
    ``min_precision``, and that k (the largest k of equal recall): ``(recall, k)``.

    Without such a k, or when the best recall is 0, the result is ``(0, max_k)``. ``aggregation``
    (keyword only, as torchmetrics passes it through its ``**kwargs``) is the curve's.

    State: 16 bytes per document, shared by the retrieval metrics of a collection.

    >>> import torch
    >>> from lightning_metrics.retrieval import RetrievalRecallAtFixedPrecision
    >>> indexes = torch.tensor([0, 0, 0, 1, 1, 1])
    >>> preds = torch.tensor([0.9, 0.2, 0.6, 0.4, 0.8, 0.3])
    >>> target = torch.tensor([1, 1, 0, 0, 1, 0])
    >>> RetrievalRecallAtFixedPrecision(min_precision=0.6, max_k=3)(preds, target, indexes=indexes)
    (tensor(0.7500), tensor(1))
    """

    plot = _plot_methods.plot_value

    result_names = ("value", "top_k")

    def __init__(
        self,
        min_precision: float = 0.0,
        max_k: Optional[int] = None,
        adaptive_k: bool = False,
        empty_target_action: str = "neg",
        ignore_index: Optional[int] = None,
        aggregation: Aggregation = "mean",
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _check_arguments(self) -> None:
        super()._check_arguments()
        check_min_precision(self.min_precision)

    def compute(self) -> tuple[Tensor, Tensor]:  # type: ignore[override]
        """``(recall, k)``: a float32 and an int64 scalar."""
        precision, recall, top_k = self._curves()
        allowed = precision >= self.min_precision
        none = torch.tensor(len(top_k), device=top_k.device)
        if not bool(allowed.any()):
            return torch.zeros((), dtype=recall.dtype, device=recall.device), none
        best = recall[allowed].max()
        if best == 0:
            return best, none
        position = torch.nonzero(allowed & (recall == best)).max()
        return best, top_k[position]
