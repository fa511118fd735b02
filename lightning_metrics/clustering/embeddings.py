"""Modular scores of one clustering of embedded data (torchmetrics 1.9 names and values).

Davies-Bouldin needs each sample's distance to its cluster's final centroid and Dunn the largest
one, which no running sum gives; so these metrics keep the samples, as torchmetrics does: ``cat``
states ``data`` and ``labels``, ``d * data.element_size() + labels.element_size()`` bytes per sample
(``4d + 8`` for float32 embeddings and int64 labels) until ``reset``. The three share their
``statistic_spec``: in a ``MetricCollection`` one copy of the samples and, within one ``compute``,
one pass that finds the clusters, their sizes and centroids.

A batch whose ``data`` holds a NaN or an infinity raises, naming the argument and the value, and
leaves the state as it was: one such sample would make every later score NaN. The keyword argument
``validate_args=False`` (ours: torchmetrics' classes have none and take such values) skips that
check and its host read.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import torch
from torch import Tensor

from lightning_metrics._input_checks import ValidatedInputs
from lightning_metrics.clustering._samples import KeptSamples
from lightning_metrics.functional.clustering.embeddings import (
    ClusterGeometry,
    calinski_harabasz_from,
    check_embeddings,
    check_p,
    cluster_geometry,
    davies_bouldin_from,
    dunn_from,
)
from lightning_metrics.utilities.memo import derived


class ClusterEmbeddingMetric(ValidatedInputs, KeptSamples):
    """Keeps embedded samples and their cluster labels; subclasses score the geometry."""

    is_differentiable = True
    plot_upper_bound = None
    _inputs = ("data", "labels")

    @property
    def statistic_spec(self) -> Hashable:
        return ("cluster_embeddings", self.validate_args)  # the leader's update checks for the group

    def update(self, data: Tensor, labels: Tensor) -> None:
        """Append a batch: ``data`` of shape ``(N, d)``, ``labels`` of ``N`` integer cluster ids."""
        check_embeddings(data, labels)
        self._check_finite(("data", data))
        self._keep(data, labels)

    def _geometry(self) -> tuple[ClusterGeometry, torch.dtype]:
        data, labels = self._joined()
        if data is None or labels is None:
            data = torch.zeros(0, 0, device=self.device)
            labels = torch.zeros(0, dtype=torch.int64, device=self.device)
        return derived("cluster_geometry", data, lambda d: cluster_geometry(d, labels)), data.dtype


class CalinskiHarabaszScore(ClusterEmbeddingMetric):
    """Calinski-Harabasz score (variance ratio criterion): higher for dense, well separated clusters.

    >>> import torch
    >>> metric = CalinskiHarabaszScore()
    >>> data = torch.tensor([[0.0, 0.0], [0.0, 1.0], [4.0, 4.0], [4.0, 5.0], [9.0, 0.0], [9.0, 1.5]])
    >>> metric.update(data, torch.tensor([0, 0, 1, 1, 2, 2]))
    >>> metric.compute()
    tensor(71.5882)
    """

    def compute(self) -> Tensor:
        return calinski_harabasz_from(self._geometry()[0])


class DaviesBouldinScore(ClusterEmbeddingMetric):
    """Davies-Bouldin score: mean worst ratio of within-cluster scatter to centroid separation.

    Lower is better, so ``higher_is_better`` is ``False`` (torchmetrics 1.9 declares ``True``).

    >>> import torch
    >>> metric = DaviesBouldinScore()
    >>> data = torch.tensor([[0.0, 0.0], [0.0, 1.0], [4.0, 4.0], [4.0, 5.0], [9.0, 0.0], [9.0, 1.5]])
    >>> metric.update(data, torch.tensor([0, 0, 1, 1, 2, 2]))
    >>> metric.compute()
    tensor(0.1923)
    """

    higher_is_better = False

    def compute(self) -> Tensor:
        return davies_bouldin_from(self._geometry()[0])


class DunnIndex(ClusterEmbeddingMetric):
    """Dunn index: closest pair of centroids over the widest cluster, in the ``p``-norm.

    >>> import torch
    >>> metric = DunnIndex(p=2)
    >>> data = torch.tensor([[0.0, 0.0], [0.0, 1.0], [4.0, 4.0], [4.0, 5.0], [9.0, 0.0], [9.0, 1.5]])
    >>> metric.update(data, torch.tensor([0, 0, 1, 1, 2, 2]))
    >>> metric.compute()
    tensor(7.5425)
    """

    def __init__(self, p: float = 2, **kwargs: Any) -> None:
        self._configure(locals())

    def _build(self) -> None:
        check_p(self.p)
        super()._build()

    def compute(self) -> Tensor:
        geometry, dtype = self._geometry()
        return dunn_from(geometry, self.p, dtype)


__all__ = ["CalinskiHarabaszScore", "DaviesBouldinScore", "DunnIndex"]
