"""Clustering metrics with torchmetrics 1.9's names, arguments and values.

Label-based scores (mutual information, Rand, Fowlkes-Mallows, homogeneity, ...) keep the label pairs
and share them in a ``MetricCollection``; ``ClusterAccuracy`` keeps a fixed table; the embedding-based
scores (Calinski-Harabasz, Davies-Bouldin, Dunn) keep the samples.

>>> import torch
>>> from lightning_metrics import MetricCollection
>>> from lightning_metrics.clustering import AdjustedRandScore, RandScore
>>> scores = MetricCollection({"rand": RandScore(), "ari": AdjustedRandScore()})
>>> scores.update(torch.tensor([0, 0, 1, 2]), torch.tensor([0, 0, 1, 1]))
>>> {k: round(v.item(), 4) for k, v in sorted(scores.compute().items())}
{'ari': 0.5714, 'rand': 0.8333}

Notes and differences from torchmetrics (clustering)
----------------------------------------------------

Every label-based score is one formula over one contingency table whose statistics are computed
in float64 once per compute: a collection of nine clustering scores updates one pair of states and
builds one table. Memory: the label pairs (16 bytes per sample for int64 labels: cluster ids are
arbitrary integers), a ``num_classes x num_classes`` int64 table for ``ClusterAccuracy`` (its
assignment is solved in torch, no extra package), the samples for the embedding scores.
Differences: the tables are exact int64 (torchmetrics: float32, inexact past 2^24 counts); adjusted
mutual information sums its expected value in float64 (torchmetrics' float32 loop drifts at large
N) and returns 1.0 where MI, its expectation and the normaliser coincide, as scikit-learn; adjusted
Rand uses exact integer pair counts (torchmetrics' int64 products overflow from about 300k samples);
computing before any update returns the empty-input value after the usual warning (torchmetrics
raises).
"""

from lightning_metrics.clustering import embeddings as _embeddings
from lightning_metrics.clustering import labels as _labels
from lightning_metrics.clustering.embeddings import *  # noqa: F403
from lightning_metrics.clustering.labels import *  # noqa: F403

__all__ = [*_embeddings.__all__, *_labels.__all__]
