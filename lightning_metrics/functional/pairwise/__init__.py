"""Pairwise similarities and distances between the rows of two matrices (torchmetrics' names).

>>> import torch
>>> from lightning_metrics.functional.pairwise import pairwise_euclidean_distance
>>> pairwise_euclidean_distance(torch.tensor([[0.0, 0.0], [3.0, 4.0]]))
tensor([[0., 5.],
        [5., 0.]])
"""

from lightning_metrics.functional.pairwise.distances import (
    pairwise_cosine_similarity,
    pairwise_euclidean_distance,
    pairwise_linear_similarity,
    pairwise_manhattan_distance,
    pairwise_minkowski_distance,
)

__all__ = [
    "pairwise_cosine_similarity",
    "pairwise_euclidean_distance",
    "pairwise_linear_similarity",
    "pairwise_manhattan_distance",
    "pairwise_minkowski_distance",
]
