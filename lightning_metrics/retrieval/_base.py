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
"""

from __future__ import annotations

from typing import Hashable

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
from lightning_metrics.utilities.checks import check_type
from lightning_metrics.utilities.data import dim_zero_cat
from lightning_metrics.utilities.memo import derived


class RetrievalMetric(AdditiveScore):
    """Base of the retrieval metrics: ``update(preds, target, indexes)`` appends documents; ``compute``
    ranks every query once and aggregates one value per query.

    Subclasses keep torchmetrics' explicit constructor signature (body: ``self._configure(locals())``),
    check their own arguments in :meth:`_check_arguments` and compute their per-query values in
    :meth:`_per_query`.
    """

    allow_non_binary_target: bool = False  # graded relevance (the normalized DCG only)
    # the documents a query needs for its value to be defined; queries without go by empty_target_action
    needs: str = "positive"

    indexes: list[Tensor]
    preds: list[Tensor]
    target: list[Tensor]

    def _build(self) -> None:
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
        """``ignore_index`` and the input checks shape the documents kept; the rest is read at compute."""
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

        All three of the same shape (flattened); ``indexes`` any integers, ``target`` 0/1 (bool,
        integer or float; graded for the normalized DCG). Documents whose target equals
        ``ignore_index`` are dropped; an empty batch adds nothing. ``validate_args=False`` skips the
        value checks and reads nothing back to the host (ignored documents are dropped at compute).
        """
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
