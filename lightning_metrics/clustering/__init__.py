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
"""

from lightning_metrics.clustering import embeddings as _embeddings
from lightning_metrics.clustering import labels as _labels
from lightning_metrics.clustering.embeddings import *  # noqa: F403
from lightning_metrics.clustering.labels import *  # noqa: F403

__all__ = [*_embeddings.__all__, *_labels.__all__]
