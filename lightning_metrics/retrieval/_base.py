"""The retrieval metric base: (query id, score, target) triples in, one ranking of every query out.

Every retrieval metric keeps the same state, the documents it saw as three ``cat`` lists
(``indexes`` int64, ``preds`` float32, ``target`` float32: 16 bytes per document, where
torchmetrics keeps 20; ``compute_on_cpu=True`` moves them to the CPU after every update). Its
``statistic_spec`` says so, so a ``MetricCollection`` of retrieval metrics with the same
``ignore_index`` holds the documents once and ranks them once per ``compute``: the ranking is
derived from the shared state through :func:`lightning_metrics.utilities.memo.derived`, and every
member reads its per-query values from it in a few vectorised kernels
(:mod:`lightning_metrics.functional.retrieval._measures`).

The state is the same under DDP: the fused sync gathers the documents of every rank, so a query
whose documents are spread over ranks is ranked as a whole, as in one process.

The class is also torchmetrics' ``RetrievalMetric`` (served at ``lightning_metrics.retrieval.base``):
a subclass written for torchmetrics overrides ``_metric(preds, target)``, the value of one query,
and gets torchmetrics' per-query loop (:meth:`RetrievalMetric._compute_by_metric`): the documents
grouped by query as torchmetrics groups them, the target as the caller gave it (int64 for integer
and bool targets, float32 for floats), ``empty_target_action`` and ``aggregation`` applied as
torchmetrics applies them.
"""

from __future__ import annotations

from typing import Any, Callable, Hashable, Literal, Optional, Union

import torch
from torch import Tensor

from lightning_metrics._additive_score import AdditiveScore
from lightning_metrics.functional.retrieval._grouping import RankedQueries, rank_queries
from lightning_metrics.functional.retrieval._inputs import (
    aggregate,
    check_metric_arguments,
    drop_ignored,
    format_batch,
)
from lightning_metrics.metric import Metric
from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics.utilities.checks import check_type
from lightning_metrics.utilities.data import dim_zero_cat
from lightning_metrics.utilities.memo import derived


class RetrievalMetric(AdditiveScore):
    """Base of the retrieval metrics: ``update(preds, target, indexes)`` appends documents; ``compute``
    aggregates one value per query.

    Our measures keep torchmetrics' explicit constructor signature (body: ``self._configure(locals())``),
    check their own arguments in :meth:`_check_arguments` and compute the values of all queries at
    once in :meth:`_per_query`, from one ranking. A metric written for torchmetrics subclasses this
    class as it subclasses torchmetrics' and overrides :meth:`_metric` (one query's value), which
    ``compute`` calls per query with torchmetrics' semantics:

    >>> import torch
    >>> from lightning_metrics.retrieval.base import RetrievalMetric
    >>> class TopHit(RetrievalMetric):  # is the best-scored document relevant?
    ...     def __init__(self, top_k=None, **kwargs):
    ...         super().__init__(**kwargs)
    ...         self.top_k = top_k
    ...     def _metric(self, preds, target):
    ...         return target[preds.argmax()].float()
    >>> metric = TopHit(empty_target_action="skip")
    >>> metric(torch.tensor([0.9, 0.2, 0.4, 0.8, 0.1]), torch.tensor([1, 0, 1, 0, 0]),
    ...        indexes=torch.tensor([0, 0, 1, 1, 2]))
    tensor(0.5000)
    """

    allow_non_binary_target: bool = False  # graded relevance (the normalized DCG only)
    # the documents a query needs for its value to be defined; queries without go by empty_target_action
    needs: str = "positive"
    # torchmetrics takes no validate_args here: a subclass written for it may pass it through **kwargs
    _keyword_arguments = {"validate_args": True}
    # the range of a user's measure is unknown (torchmetrics' base leaves the bounds unset too), and so
    # is its result's form: Metric's plot, with torchmetrics' base signature (our measures have their own)
    plot_lower_bound: Optional[float] = None
    plot_upper_bound: Optional[float] = None
    plot = _plot_methods.plot_any
    # whether compute calls ``_metric`` per query (a subclass written for torchmetrics), set per class
    _by_metric: Optional[bool] = None

    indexes: list[Tensor]
    preds: list[Tensor]
    target: list[Tensor]

    def __init__(
        self,
        empty_target_action: str = "neg",
        ignore_index: Optional[int] = None,
        aggregation: Union[Literal["mean", "median", "min", "max"], Callable] = "mean",
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._by_metric = _overrides_metric(cls)

    def _build(self) -> None:
        if type(self)._by_metric is None:
            raise TypeError(
                f"Can't instantiate abstract class {type(self).__name__} without an implementation for "
                "abstract method '_metric' (the value of one query, from its `preds` and `target`)"
            )
        check_metric_arguments(self.empty_target_action, self.ignore_index, self.aggregation)
        check_type("validate_args", self.validate_args, bool)
        self._check_arguments()
        self.add_state("indexes", default=[], dist_reduce_fx="cat")
        self.add_state("preds", default=[], dist_reduce_fx="cat")
        self.add_state("target", default=[], dist_reduce_fx="cat")

    def _check_arguments(self) -> None:
        """Check the measure's own arguments (``top_k``, ...)."""

    @property
    def statistic_spec(self) -> Hashable:
        """``ignore_index`` and the input checks shape the documents kept; the rest is read at compute.

        A ``_metric`` subclass keeps its targets in the dtype they came in and may update in its own
        way: it shares documents only with metrics of the same update and target rule.
        """
        if self._by_metric:
            rule = bool(self.allow_non_binary_target)
            update = type(self).update
            return ("retrieval documents as given", update, self.ignore_index, self.validate_args, rule)
        return ("retrieval documents", self.ignore_index, self.validate_args)

    # ------------------------------------------------------------------ update
    def _share_states_of(self, leader: Metric) -> None:
        super()._share_states_of(leader)
        # a group that shares its documents is checked by its leader alone: if any member needs
        # binary targets, the leader's update must refuse graded ones for all of them
        if leader is not self and isinstance(leader, RetrievalMetric) and not self.allow_non_binary_target:
            leader.__dict__["_binary_for_group"] = True

    @property
    def _graded_allowed(self) -> bool:
        return self.allow_non_binary_target and not self.__dict__.get("_binary_for_group", False)

    def update(self, preds: Tensor, target: Tensor, indexes: Tensor) -> None:
        """Add documents: their scores, relevance and the id of the query each belongs to.

        All three of the same shape (flattened); ``indexes`` any integers, ``preds`` floats (not
        NaN), ``target`` 0/1 (bool, integer or float; finite non-negative grades for the normalized
        DCG). Documents whose target equals ``ignore_index`` are dropped; an empty batch adds
        nothing. A batch that breaks a rule raises, naming the argument and the value, and adds
        nothing. ``validate_args=False`` skips the value checks and reads nothing back to the host
        (ignored documents are dropped at compute).
        """
        if self._by_metric:
            self._update_as_given(preds, target, indexes)
            return
        indexes, preds, target = format_batch(
            preds,
            target,
            indexes,
            self.ignore_index,
            self._graded_allowed,
            type(self).__name__,
            self.validate_args,
        )
        if indexes.numel():
            self.indexes.append(indexes)
            self.preds.append(preds)
            self.target.append(target)

    # ----------------------------------------------------------------- compute
    def _ranked(self) -> RankedQueries:
        """Every query ranked, shared by the metrics of a collection that hold these states."""
        return derived("retrieval ranking", self.indexes, lambda _: self._rank_states())

    def _rank_states(self) -> RankedQueries:
        states = (self.indexes, self.preds, self.target)
        if isinstance(self.indexes, list) and not self.indexes:
            long, single = torch.zeros(0, dtype=torch.long), torch.zeros(0)
            return rank_queries(long.to(self.device), single.to(self.device), single.to(self.device))
        return rank_queries(*drop_ignored(*(dim_zero_cat(s) for s in states)))

    def _per_query(self, ranked: RankedQueries) -> Tensor:
        """One float64 value per query (queries without ``needs`` documents are replaced later)."""
        raise NotImplementedError

    def _undefined(self, ranked: RankedQueries) -> Tensor:
        """Per query: whether it lacks the documents its value needs (positives, or negatives)."""
        if self.needs == "negative":
            return ranked.query_sum(ranked.target == 0) == 0
        return ranked.query_sum(ranked.target.double()) == 0  # graded targets: a zero sum counts as empty

    def _raise_on_undefined(self, ranked: RankedQueries, undefined: Tensor) -> None:
        if self.empty_target_action == "error" and bool(undefined.any()):
            query = ranked.ids[undefined][0].item()
            raise ValueError(
                f"Argument `empty_target_action` is 'error' and query {query} has no {self.needs} target "
                f"({type(self).__name__}); choose 'neg', 'pos' or 'skip' to count such queries"
            )

    def compute(self) -> Tensor:
        """The aggregation over queries of the per-query values."""
        if self._by_metric:
            return self._compute_by_metric()
        ranked = self._ranked()
        values = self._per_query(ranked)
        undefined = self._undefined(ranked)
        self._raise_on_undefined(ranked, undefined)
        if self.empty_target_action == "skip":
            values = values[~undefined]
        else:
            values = torch.where(undefined, 1.0 if self.empty_target_action == "pos" else 0.0, values)
        if values.numel() == 0:
            return torch.zeros((), dtype=torch.float32, device=values.device)
        if self.aggregation == "mean":  # summed in float64, then float32 as torchmetrics returns
            return values.mean().float()
        return aggregate(values.float(), self.aggregation)

    # ------------------------------------------------- torchmetrics' per-query interface
    def _metric(self, preds: Tensor, target: Tensor) -> Tensor:
        """The value of one query from its documents' ``preds`` and ``target`` (1-D, in torchmetrics'
        order; never called for a query without the documents the measure needs).

        torchmetrics' hook: override it in a subclass. Our own measures answer it from their
        vectorised :meth:`_per_query`, so ``super()._metric(preds, target)`` works in a subclass of
        one of them as in torchmetrics.
        """
        if type(self)._per_query is RetrievalMetric._per_query:
            raise NotImplementedError(f"{type(self).__name__} must implement `_metric(preds, target)`")
        preds, target = preds.reshape(-1).float(), target.reshape(-1).float()
        query = torch.zeros(preds.numel(), dtype=torch.long, device=preds.device)
        return self._per_query(rank_queries(query, preds, target))[0].float()

    def _update_as_given(self, preds: Tensor, target: Tensor, indexes: Tensor) -> None:
        """``update`` of a ``_metric`` subclass: the documents checked and kept as torchmetrics keeps
        them (targets int64 for integer and bool inputs, float32 for floats)."""
        # grades are checked against torchmetrics' binary rule below ([0, 1], not only 0 or 1)
        indexes_kept, preds_kept, target_kept = format_batch(
            preds, target, indexes, self.ignore_index, True, type(self).__name__, self.validate_args
        )
        if not self.validate_args and self.ignore_index is not None:  # marked NaN: drop them now
            keep = ~torch.isnan(target_kept)
            indexes_kept, preds_kept, target_kept = indexes_kept[keep], preds_kept[keep], target_kept[keep]
        if not target.is_floating_point():
            flat = target.reshape(-1)
            target_kept = (flat if self.ignore_index is None else flat[flat != self.ignore_index]).long()
        if self.validate_args and not self.allow_non_binary_target and bool((target_kept > 1).any()):
            value = target_kept[target_kept > 1][0].item()
            raise ValueError(
                f"Argument `target` must hold binary values in [0, 1] for {type(self).__name__}, got "
                f"{value!r}; set `self.allow_non_binary_target = True` in its `__init__` for graded relevance"
            )
        if indexes_kept.numel():
            self.indexes.append(indexes_kept)
            self.preds.append(preds_kept)
            self.target.append(target_kept)

    def _compute_by_metric(self) -> Tensor:
        """torchmetrics' compute: ``_metric`` per query (ascending query id), the queries without the
        documents the measure needs by ``empty_target_action``, then the aggregation."""
        indexes, preds, target = (self._cat_state(name) for name in ("indexes", "preds", "target"))
        if indexes.numel() == 0:  # torchmetrics raises on concatenating no documents
            return torch.zeros((), device=preds.device)
        # torch's default sort, as torchmetrics: a query's documents reach ``_metric`` in the same order
        # (not always the order they arrived: the default sort need not be stable), so a measure that
        # reads the order of tied scores gives the same value
        order = torch.sort(indexes).indices
        indexes, preds, target = indexes[order], preds[order], target[order]
        ids, sizes = torch.unique_consecutive(indexes, return_counts=True)
        query = torch.repeat_interleave(torch.arange(ids.numel(), device=ids.device), sizes)
        needed = target if self.needs == "positive" else 1 - target  # torchmetrics: a sum of 0 is empty
        sums = torch.zeros(ids.numel(), dtype=torch.float64, device=ids.device)
        sums.index_add_(0, query, needed.double())
        empty = (sums == 0).tolist()
        if self.empty_target_action == "error" and any(empty):
            raise ValueError(
                f"Argument `empty_target_action` is 'error' and query {ids[empty.index(True)].item()} has no "
                f"{self.needs} target ({type(self).__name__}); choose 'neg', 'pos' or 'skip' to count "
                "such queries"
            )
        values = []
        groups = zip(preds.split(sizes.tolist()), target.split(sizes.tolist()), empty)
        for query_preds, query_target, is_empty in groups:
            if not is_empty:
                values.append(self._metric(query_preds, query_target))
            elif self.empty_target_action != "skip":
                values.append(torch.tensor(1.0 if self.empty_target_action == "pos" else 0.0))
        if not values:
            return torch.zeros((), dtype=preds.dtype, device=preds.device)
        return aggregate(torch.stack([value.to(preds) for value in values]), self.aggregation)


def _overrides_metric(cls: type) -> Optional[bool]:
    """Whether ``cls`` computes by ``_metric`` per query (``True``), by its own vectorised
    ``_per_query`` or ``compute`` (``False``), or by neither (``None``: abstract). The nearest class
    in the MRO that defines one of them decides, so a torchmetrics-style subclass of one of our
    measures that overrides ``_metric`` gets the per-query loop."""
    for klass in cls.__mro__:
        if klass is RetrievalMetric:
            return None
        if "_metric" in vars(klass):
            return True
        if "_per_query" in vars(klass) or "compute" in vars(klass):
            return False
    return None
