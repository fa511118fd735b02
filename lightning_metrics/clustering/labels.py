"""Modular scores comparing a predicted clustering with a target one (torchmetrics 1.9 names and values).

Cluster ids are arbitrary integers whose range is not known up front, so these metrics keep every
label pair: two ``cat`` states, ``preds`` and ``target``, appended per batch and gathered across
processes at sync. Memory: ``preds.element_size() + target.element_size()`` bytes per sample (16 for
int64 labels) until ``reset``. ``compute`` concatenates the batches once (in place, so a second
``compute`` does not again), relabels each labeling with ``torch.unique`` and counts the dense
contingency table, then reads the score from it.

All of them declare the same ``statistic_spec``: in a ``MetricCollection`` they share one pair of
states and one update, and within one ``compute`` one table and its derived statistics (entropies,
mutual information, pair counts). ``ClusterAccuracy`` takes ``num_classes`` and keeps a fixed
``num_classes x num_classes`` table instead (constant memory).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Literal

import torch
from torch import Tensor

from lightning_metrics._additive_score import AdditiveScore
from lightning_metrics.clustering._samples import KeptSamples
from lightning_metrics.functional._contingency import (
    check_label_range,
    check_num_classes,
    dense_table,
    fixed_table,
    stats_of_state,
)
from lightning_metrics.functional._contingency_measures import MEASURES
from lightning_metrics.functional.clustering.labels import check_cluster_labels, check_label_options


def _average_method_init(
    self: ClusterLabelMetric,
    average_method: Literal["min", "geometric", "arithmetic", "max"] = "arithmetic",
    **kwargs: Any,
) -> None:
    """The constructor (torchmetrics' signature) of the normalised and the adjusted mutual information."""
    self._configure(locals())


class ClusterLabelMetric(KeptSamples):
    """Keeps the label pairs and computes the score ``MEASURES[_measure]`` of their contingency table.

    A score takes no argument of its own unless it says so: the constructor is the family's.
    """

    is_differentiable = True  # torchmetrics' declaration
    _measure = ""

    def _build(self) -> None:
        check_label_options(**self._measure_options)
        super()._build()

    @property
    def _measure_options(self) -> dict[str, Any]:
        """The score's own arguments (``average_method``, ``beta``), as this metric holds them."""
        return {option: getattr(self, option) for option in MEASURES[self._measure].options}

    @property
    def statistic_spec(self) -> Hashable:
        """Every label-pair score keeps the same states: a collection of them updates once."""
        return ("cluster_label_pairs",)

    def update(self, preds: Tensor, target: Tensor) -> None:
        """Append one batch of 1-D integer labels (shapes and dtypes are checked; no value is read)."""
        check_cluster_labels(preds, target)
        self._keep(preds, target)

    def compute(self) -> Tensor:
        """The score over every pair seen (and gathered from the other processes)."""
        preds, target = self._joined()
        if preds is None or target is None:
            preds = target = torch.zeros(0, dtype=torch.int64, device=self.device)
        stats = stats_of_state("cluster_label_table", preds, lambda p: dense_table(p, target))
        return MEASURES[self._measure](stats, **self._measure_options)


class MutualInfoScore(ClusterLabelMetric):
    """Mutual information (nats) between the predicted and the target clustering.

    >>> import torch
    >>> metric = MutualInfoScore()
    >>> metric.update(torch.tensor([2, 1, 0, 1, 0]), torch.tensor([0, 2, 1, 1, 0]))
    >>> metric.compute()
    tensor(0.5004)
    """

    plot_upper_bound = None
    _measure = "mutual_info_score"


class NormalizedMutualInfoScore(ClusterLabelMetric):
    """Mutual information divided by a mean of the two entropies (``average_method``).

    >>> import torch
    >>> metric = NormalizedMutualInfoScore(average_method="geometric")
    >>> metric.update(torch.tensor([2, 1, 0, 1, 0]), torch.tensor([0, 2, 1, 1, 0]))
    >>> metric.compute()
    tensor(0.4744)
    """

    higher_is_better = None
    _measure = "normalized_mutual_info_score"

    __init__ = _average_method_init


class AdjustedMutualInfoScore(ClusterLabelMetric):
    """Mutual information adjusted for chance, normalised by a mean of the entropies (``average_method``).

    The expected mutual information is summed in float64, vectorised over every cell and count.

    >>> import torch
    >>> metric = AdjustedMutualInfoScore()
    >>> metric.update(torch.tensor([2, 1, 0, 1, 0]), torch.tensor([0, 2, 1, 1, 0]))
    >>> metric.compute()
    tensor(-0.2500)
    """

    higher_is_better = None
    _measure = "adjusted_mutual_info_score"

    __init__ = _average_method_init


class RandScore(ClusterLabelMetric):
    """The share of sample pairs on which the two clusterings agree.

    >>> import torch
    >>> metric = RandScore()
    >>> metric.update(torch.tensor([0, 0, 1, 2]), torch.tensor([0, 0, 1, 1]))
    >>> metric.compute()
    tensor(0.8333)
    """

    higher_is_better = None
    plot_upper_bound = None
    _measure = "rand_score"


class AdjustedRandScore(ClusterLabelMetric):
    """The Rand score adjusted for chance (exact integer pair counts: no overflow at any size).

    >>> import torch
    >>> metric = AdjustedRandScore()
    >>> metric.update(torch.tensor([0, 0, 1, 2]), torch.tensor([0, 0, 1, 1]))
    >>> metric.compute()
    tensor(0.5714)
    """

    higher_is_better = None
    plot_lower_bound = -0.5
    _measure = "adjusted_rand_score"


class FowlkesMallowsIndex(ClusterLabelMetric):
    """The geometric mean of pair precision and pair recall.

    >>> import torch
    >>> metric = FowlkesMallowsIndex()
    >>> metric.update(torch.tensor([2, 2, 0, 1, 0]), torch.tensor([2, 2, 1, 1, 0]))
    >>> metric.compute()
    tensor(0.5000)
    """

    _measure = "fowlkes_mallows_index"


class HomogeneityScore(ClusterLabelMetric):
    """Whether each predicted cluster holds members of a single target class (``MI / H(target)``).

    >>> import torch
    >>> metric = HomogeneityScore()
    >>> metric.update(torch.tensor([0, 0, 1, 2]), torch.tensor([0, 0, 1, 1]))
    >>> metric.compute()
    tensor(1.)
    """

    _measure = "homogeneity_score"


class CompletenessScore(ClusterLabelMetric):
    """Whether the members of each target class fall in a single predicted cluster (``MI / H(preds)``).

    >>> import torch
    >>> metric = CompletenessScore()
    >>> metric.update(torch.tensor([0, 0, 1, 2]), torch.tensor([0, 0, 1, 1]))
    >>> metric.compute()
    tensor(0.6667)
    """

    _measure = "completeness_score"


class VMeasureScore(ClusterLabelMetric):
    """The harmonic mean of homogeneity and completeness, homogeneity weighted by ``beta``.

    >>> import torch
    >>> metric = VMeasureScore(beta=2.0)
    >>> metric.update(torch.tensor([0, 0, 1, 2]), torch.tensor([0, 0, 1, 1]))
    >>> metric.compute()
    tensor(0.7500)
    """

    _measure = "v_measure_score"

    def __init__(self, beta: float = 1.0, **kwargs: Any) -> None:
        self._configure(locals())


class ClusterAccuracy(AdditiveScore):
    """Accuracy after the best one-to-one mapping of predicted clusters to target classes.

    Labels lie in ``[0, num_classes)`` (checked on every update, as torchmetrics does); the state is a
    ``num_classes x num_classes`` int64 table (constant memory). The mapping is a linear sum
    assignment solved in torch at ``compute``: no extra package is needed.

    >>> import torch
    >>> metric = ClusterAccuracy(num_classes=3)
    >>> metric.update(torch.tensor([1, 1, 0, 0, 2]), torch.tensor([0, 0, 1, 1, 1]))
    >>> metric.compute()
    tensor(0.8000)
    """

    def __init__(self, num_classes: int, **kwargs: Any) -> None:
        self._configure(locals())

    def _build(self) -> None:
        check_num_classes(self.num_classes)
        shape = (self.num_classes, self.num_classes)
        self.add_state("confmat", torch.zeros(shape, dtype=torch.int64), dist_reduce_fx="sum")

    @property
    def statistic_spec(self) -> Hashable:
        return ("cluster_confusion_matrix", self.num_classes)

    def update(self, preds: Tensor, target: Tensor) -> None:
        """Count one batch of labels into the table."""
        check_cluster_labels(preds, target)
        check_label_range(preds, target, self.num_classes)
        self.confmat.add_(fixed_table(preds, target, self.num_classes))

    def compute(self) -> Tensor:
        """The accuracy of the best matching of the whole table."""
        return MEASURES["cluster_accuracy"](stats_of_state("contingency_stats", self.confmat))


__all__ = [
    "AdjustedMutualInfoScore",
    "AdjustedRandScore",
    "ClusterAccuracy",
    "CompletenessScore",
    "FowlkesMallowsIndex",
    "HomogeneityScore",
    "MutualInfoScore",
    "NormalizedMutualInfoScore",
    "RandScore",
    "VMeasureScore",
]
