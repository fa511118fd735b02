"""The scalar retrieval metrics: one value per query, aggregated over queries.

Every class takes torchmetrics 1.9's arguments:

- ``empty_target_action``: what a query without relevant documents counts as (without
  non-relevant ones for the fall-out): ``"neg"`` 0, ``"pos"`` 1, ``"skip"`` left out (0 if every
  query is), ``"error"`` a ``ValueError`` at compute;
- ``ignore_index``: documents whose target equals it are dropped in ``update``;
- ``aggregation``: ``"mean"``, ``"median"``, ``"min"``, ``"max"`` or a callable
  ``fn(values, dim=None)`` over the per-query values (in ascending query id order);
- the measure's own (``top_k``, ``adaptive_k``, ``max_fpr``).

State: 16 bytes per document (int64 query id, float32 score, float32 target), shared by all the
retrieval metrics of a ``MetricCollection`` with the same ``ignore_index``, which also rank the
queries once per compute. Tied scores rank a non-relevant document first, so values never depend
on the order documents arrive in (torchmetrics' order among ties depends on its sort).
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

from torch import Tensor

from lightning_metrics.functional.retrieval import _measures as measures
from lightning_metrics.functional.retrieval._grouping import RankedQueries
from lightning_metrics.functional.retrieval._inputs import check_adaptive_k, check_max_fpr, check_top_k
from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics.retrieval._base import RetrievalMetric
from lightning_metrics.utilities.memo import derived

__all__ = [
    "RetrievalAUROC",
    "RetrievalFallOut",
    "RetrievalHitRate",
    "RetrievalMAP",
    "RetrievalMRR",
    "RetrievalNormalizedDCG",
    "RetrievalPrecision",
    "RetrievalRPrecision",
    "RetrievalRecall",
]

Aggregation = Union[str, Callable]


def _top_k_init(
    self: RetrievalMetric,
    empty_target_action: str = "neg",
    ignore_index: Optional[int] = None,
    top_k: Optional[int] = None,
    aggregation: Aggregation = "mean",
    validate_args: bool = True,
    **kwargs: Any,
) -> None:
    """The constructor (torchmetrics' signature) of the measures at a cut-off without arguments of their own."""
    self._configure(locals())


class _Score(RetrievalMetric):
    """A measure whose per-query values lie in ``[0, 1]`` (plots bounded so, as torchmetrics')."""

    plot = _plot_methods.plot_value
    plot_lower_bound: Optional[float] = 0.0
    plot_upper_bound: Optional[float] = 1.0


class _TopKMetric(_Score):
    """A measure at a cut-off ``top_k`` (``None``: every document)."""

    top_k_zero_means_all = False  # torchmetrics' MAP and MRR read ``top_k=0`` as every document

    def _check_arguments(self) -> None:
        check_top_k(self.top_k, allow_zero=self.top_k_zero_means_all)

    @property
    def _k(self) -> Optional[int]:
        return self.top_k or None


class RetrievalMAP(_TopKMetric):
    """Mean average precision: per query, the mean precision at the ranks of the relevant documents
    retrieved in the top ``top_k`` (as in torchmetrics 1.9, a score ``<= 0`` is not retrieved).

    State: 16 bytes per document, shared by the retrieval metrics of a collection.

    >>> import torch
    >>> from lightning_metrics.retrieval import RetrievalMAP
    >>> indexes = torch.tensor([0, 0, 0, 1, 1, 1])
    >>> preds = torch.tensor([0.9, 0.2, 0.6, 0.4, 0.8, 0.3])
    >>> target = torch.tensor([1, 1, 0, 0, 1, 0])
    >>> RetrievalMAP()(preds, target, indexes=indexes)
    tensor(0.9167)
    >>> RetrievalMAP(top_k=2)(preds, target, indexes=indexes)
    tensor(1.)
    """

    top_k_zero_means_all = True

    __init__ = _top_k_init

    def _per_query(self, ranked: RankedQueries) -> Tensor:
        return measures.average_precision(ranked, self._k)


class RetrievalMRR(_TopKMetric):
    """Mean reciprocal rank: per query, 1 / the rank of the first relevant document retrieved in the
    top ``top_k`` (0 without one; a score ``<= 0`` is not retrieved, as in torchmetrics 1.9).

    State: 16 bytes per document, shared by the retrieval metrics of a collection.

    >>> import torch
    >>> from lightning_metrics.retrieval import RetrievalMRR
    >>> indexes = torch.tensor([0, 0, 0, 1, 1, 1])
    >>> preds = torch.tensor([0.9, 0.2, 0.6, 0.4, 0.8, 0.3])
    >>> target = torch.tensor([0, 1, 0, 0, 1, 0])
    >>> RetrievalMRR()(preds, target, indexes=indexes)
    tensor(0.6667)
    """

    top_k_zero_means_all = True

    __init__ = _top_k_init

    def _per_query(self, ranked: RankedQueries) -> Tensor:
        return measures.reciprocal_rank(ranked, self._k)


class RetrievalPrecision(_TopKMetric):
    """Precision at ``top_k``: relevant documents among the top k of a query, divided by k
    (``adaptive_k=True``: by the query's size when k exceeds it).

    State: 16 bytes per document, shared by the retrieval metrics of a collection.

    >>> import torch
    >>> from lightning_metrics.retrieval import RetrievalPrecision
    >>> indexes = torch.tensor([0, 0, 0, 1, 1, 1])
    >>> preds = torch.tensor([0.9, 0.2, 0.6, 0.4, 0.8, 0.3])
    >>> target = torch.tensor([1, 1, 0, 0, 1, 0])
    >>> RetrievalPrecision(top_k=2)(preds, target, indexes=indexes)
    tensor(0.5000)
    """

    def __init__(self, empty_target_action: str = "neg", ignore_index: Optional[int] = None,
                 top_k: Optional[int] = None, adaptive_k: bool = False, aggregation: Aggregation = "mean",
                 validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())

    def _check_arguments(self) -> None:
        super()._check_arguments()
        check_adaptive_k(self.adaptive_k)

    def _per_query(self, ranked: RankedQueries) -> Tensor:
        return measures.precision(ranked, self.top_k, self.adaptive_k)


class RetrievalRecall(_TopKMetric):
    """Recall at ``top_k``: relevant documents among the top k of a query, divided by all its
    relevant documents.

    State: 16 bytes per document, shared by the retrieval metrics of a collection.

    >>> import torch
    >>> from lightning_metrics.retrieval import RetrievalRecall
    >>> indexes = torch.tensor([0, 0, 0, 1, 1, 1])
    >>> preds = torch.tensor([0.9, 0.2, 0.6, 0.4, 0.8, 0.3])
    >>> target = torch.tensor([1, 1, 0, 0, 1, 0])
    >>> RetrievalRecall(top_k=2)(preds, target, indexes=indexes)
    tensor(0.7500)
    """

    __init__ = _top_k_init

    def _per_query(self, ranked: RankedQueries) -> Tensor:
        return measures.recall(ranked, self.top_k)


class RetrievalFallOut(_TopKMetric):
    """Fall-out at ``top_k``: non-relevant documents among the top k of a query, divided by all its
    non-relevant documents (lower is better). A query without non-relevant documents goes by
    ``empty_target_action`` (default ``"pos"``).

    State: 16 bytes per document, shared by the retrieval metrics of a collection.

    >>> import torch
    >>> from lightning_metrics.retrieval import RetrievalFallOut
    >>> indexes = torch.tensor([0, 0, 0, 1, 1, 1])
    >>> preds = torch.tensor([0.9, 0.2, 0.6, 0.4, 0.8, 0.3])
    >>> target = torch.tensor([1, 1, 0, 0, 1, 0])
    >>> RetrievalFallOut(top_k=2)(preds, target, indexes=indexes)
    tensor(0.7500)
    """

    higher_is_better = False
    needs = "negative"

    def __init__(self, empty_target_action: str = "pos", ignore_index: Optional[int] = None,
                 top_k: Optional[int] = None, aggregation: Aggregation = "mean", validate_args: bool = True,
                 **kwargs: Any) -> None:
        self._configure(locals())

    def _per_query(self, ranked: RankedQueries) -> Tensor:
        return measures.fall_out(ranked, self.top_k)


class RetrievalHitRate(_TopKMetric):
    """Hit rate at ``top_k``: the share of queries with a relevant document among their top k.

    State: 16 bytes per document, shared by the retrieval metrics of a collection.

    >>> import torch
    >>> from lightning_metrics.retrieval import RetrievalHitRate
    >>> indexes = torch.tensor([0, 0, 0, 1, 1, 1])
    >>> preds = torch.tensor([0.9, 0.2, 0.6, 0.4, 0.8, 0.3])
    >>> target = torch.tensor([0, 1, 0, 0, 1, 0])
    >>> RetrievalHitRate(top_k=1)(preds, target, indexes=indexes)
    tensor(0.5000)
    """

    __init__ = _top_k_init

    def _per_query(self, ranked: RankedQueries) -> Tensor:
        return measures.hit_rate(ranked, self.top_k)


class RetrievalNormalizedDCG(_TopKMetric):
    """Normalized discounted cumulative gain at ``top_k``, with graded relevance (finite
    non-negative grades as targets: with ``validate_args`` a negative, NaN or infinite one raises,
    as scikit-learn's ``ndcg_score`` refuses negative grades, where torchmetrics takes them; tied
    scores share their mean gain, as scikit-learn's ``ndcg_score``). A query whose targets sum to 0
    goes by ``empty_target_action``.

    State: 16 bytes per document, shared by the retrieval metrics of a collection.

    >>> import torch
    >>> from lightning_metrics.retrieval import RetrievalNormalizedDCG
    >>> indexes = torch.tensor([0, 0, 0, 1, 1, 1])
    >>> preds = torch.tensor([0.9, 0.2, 0.6, 0.4, 0.8, 0.3])
    >>> target = torch.tensor([3, 0, 1, 0, 2, 1])
    >>> RetrievalNormalizedDCG()(preds, target, indexes=indexes)
    tensor(0.9751)
    """

    allow_non_binary_target = True

    __init__ = _top_k_init

    def _per_query(self, ranked: RankedQueries) -> Tensor:
        # the ideal DCG at one cut-off is shared by the NDCGs of a collection that hold these states
        ideal = derived(
            f"retrieval ideal dcg @{self.top_k}",
            self.indexes,
            lambda _: measures.ideal_dcg(ranked, self.top_k),
        )
        return measures.normalized_dcg(ranked, self.top_k, ideal)


class RetrievalRPrecision(_Score):
    """R-precision: per query, the precision at R, its number of relevant documents.

    State: 16 bytes per document, shared by the retrieval metrics of a collection.

    >>> import torch
    >>> from lightning_metrics.retrieval import RetrievalRPrecision
    >>> indexes = torch.tensor([0, 0, 0, 1, 1, 1])
    >>> preds = torch.tensor([0.9, 0.2, 0.6, 0.4, 0.8, 0.3])
    >>> target = torch.tensor([1, 1, 0, 0, 1, 0])
    >>> RetrievalRPrecision()(preds, target, indexes=indexes)
    tensor(0.7500)
    """

    def __init__(self, empty_target_action: str = "neg", ignore_index: Optional[int] = None,
                 aggregation: Aggregation = "mean", validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())

    def _per_query(self, ranked: RankedQueries) -> Tensor:
        return measures.r_precision(ranked)


class RetrievalAUROC(_TopKMetric):
    """Area under the ROC curve of each query's top ``top_k`` documents (0 for a query that has only
    relevant ones), aggregated over queries; ``max_fpr`` gives the McClish-standardised partial area.

    State: 16 bytes per document, shared by the retrieval metrics of a collection.

    >>> import torch
    >>> from lightning_metrics.retrieval import RetrievalAUROC
    >>> indexes = torch.tensor([0, 0, 0, 1, 1, 1])
    >>> preds = torch.tensor([0.9, 0.2, 0.6, 0.4, 0.8, 0.3])
    >>> target = torch.tensor([1, 1, 0, 0, 1, 0])
    >>> RetrievalAUROC()(preds, target, indexes=indexes)
    tensor(0.7500)
    """

    def __init__(self, empty_target_action: str = "neg", ignore_index: Optional[int] = None,
                 top_k: Optional[int] = None, max_fpr: Optional[float] = None,
                 aggregation: Aggregation = "mean", validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())

    def _check_arguments(self) -> None:
        super()._check_arguments()
        check_max_fpr(self.max_fpr)

    def _per_query(self, ranked: RankedQueries) -> Tensor:
        return measures.auroc(ranked, self.top_k, self.max_fpr)
