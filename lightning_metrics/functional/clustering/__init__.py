"""Clustering scores as functions, with torchmetrics 1.9's names, arguments and values.

Label-based scores compare two labelings through their contingency table (cluster ids may be any
integers); the embedding-based scores judge one labeling of embedded data.

>>> import torch
>>> from lightning_metrics.functional.clustering import adjusted_rand_score
>>> adjusted_rand_score(torch.tensor([0, 0, 1, 1]), torch.tensor([5, 5, 7, 7]))
tensor(1.)
"""

from lightning_metrics.functional.clustering.embeddings import (
    calinski_harabasz_score,
    davies_bouldin_score,
    dunn_index,
)
from lightning_metrics.functional.clustering.labels import (
    adjusted_mutual_info_score,
    adjusted_rand_score,
    cluster_accuracy,
    completeness_score,
    fowlkes_mallows_index,
    homogeneity_score,
    mutual_info_score,
    normalized_mutual_info_score,
    rand_score,
    v_measure_score,
)

__all__ = [
    "adjusted_mutual_info_score",
    "adjusted_rand_score",
    "calinski_harabasz_score",
    "cluster_accuracy",
    "completeness_score",
    "davies_bouldin_score",
    "dunn_index",
    "fowlkes_mallows_index",
    "homogeneity_score",
    "mutual_info_score",
    "normalized_mutual_info_score",
    "rand_score",
    "v_measure_score",
]
