"""Scores of one clustering of embedded data (intrinsic clustering scores).

All three read the same geometry, computed once in float64 with one pass over the samples (no loop
over clusters): the cluster of each sample, the cluster sizes and the centroids
(:func:`cluster_geometry`). Calinski-Harabasz compares the spread of the centroids with the spread
inside the clusters, Davies-Bouldin the mean distance to the centroid with the distance between
centroids, Dunn the closest pair of centroids with the widest cluster.
"""

from __future__ import annotations

from numbers import Real
from functools import cached_property
from typing import Any

import torch
from torch import Tensor

_PAIR_CHUNK = 1 << 22  # elements of the (rows, clusters, dim) centroid differences held at once


class ClusterGeometry:
    """Embedded samples and their clusters, relabelled ``0..K-1``, in float64; what the scores derive
    from them (each sample's offset from its centroid and its length) is computed once."""

    def __init__(self, data: Tensor, cluster: Tensor, sizes: Tensor, centroids: Tensor) -> None:
        self.data = data  # (N, d)
        self.cluster = cluster  # (N,) index of each sample's cluster
        self.sizes = sizes  # (K,) samples per cluster
        self.centroids = centroids  # (K, d)

    @property
    def num_clusters(self) -> int:
        return int(self.sizes.numel())

    @property
    def num_samples(self) -> int:
        return int(self.data.shape[0])

    @cached_property
    def offsets(self) -> Tensor:
        """Each sample minus its centroid."""
        return self.data - self.centroids[self.cluster]

    @cached_property
    def distances(self) -> Tensor:
        """The Euclidean length of each offset."""
        return torch.linalg.vector_norm(self.offsets, dim=1)

    def norms(self, p: float) -> Tensor:
        return self.distances if p == 2 else torch.linalg.vector_norm(self.offsets, ord=p, dim=1)


def check_embeddings(data: Any, labels: Any) -> None:
    """``data`` a float ``(N, d)`` tensor, ``labels`` ``N`` integer cluster ids (no value is read)."""
    for name, value in (("data", data), ("labels", labels)):
        if not isinstance(value, Tensor):
            raise TypeError(f"Argument `{name}` must be a torch.Tensor, got {type(value).__name__}")
    if data.ndim != 2:
        raise ValueError(
            f"Argument `data` must be a 2-D tensor (samples, features), got shape {tuple(data.shape)}"
        )
    if not data.is_floating_point():
        raise ValueError(f"Argument `data` must be floating point, got dtype {data.dtype}")
    if labels.ndim != 1:
        raise ValueError(f"Argument `labels` must be a 1-D tensor, got shape {tuple(labels.shape)}")
    if labels.is_floating_point() or labels.is_complex():
        raise ValueError(
            f"Argument `labels` must hold integer cluster labels, got dtype {labels.dtype}; "
            "convert it with `.long()` if the values are whole numbers"
        )
    if labels.shape[0] != data.shape[0]:
        raise ValueError(
            f"Arguments `data` and `labels` must have the same number of samples, got {data.shape[0]} and "
            f"{labels.shape[0]}"
        )


def check_p(p: Any) -> None:
    if isinstance(p, bool) or not isinstance(p, Real):
        raise ValueError(f"Argument `p` must be a real number (the order of the norm), got {p!r}")


def cluster_geometry(data: Tensor, labels: Tensor) -> ClusterGeometry:
    """Relabel the clusters ``0..K-1`` and compute their sizes and centroids."""
    x = data.double()
    _, cluster = torch.unique(labels, return_inverse=True)
    num_clusters = int(cluster.max()) + 1 if cluster.numel() else 0
    sizes = torch.bincount(cluster, minlength=num_clusters)
    sums = torch.zeros(num_clusters, x.shape[1], dtype=x.dtype, device=x.device).index_add_(0, cluster, x)
    return ClusterGeometry(x, cluster, sizes, sums / sizes.unsqueeze(1))


def checked_geometry(data: Tensor, labels: Tensor) -> ClusterGeometry:
    """The :func:`cluster_geometry` of inputs that pass :func:`check_embeddings`."""
    check_embeddings(data, labels)
    return cluster_geometry(data, labels)


def _check_cluster_count(geometry: ClusterGeometry) -> None:
    if not 1 < geometry.num_clusters < geometry.num_samples:
        raise ValueError(
            "Number of detected clusters must be greater than one and less than the number of samples, "
            f"got {geometry.num_clusters} clusters and {geometry.num_samples} samples"
        )


def calinski_harabasz_from(geometry: ClusterGeometry) -> Tensor:
    """The variance ratio criterion of a :class:`ClusterGeometry` (float32)."""
    _check_cluster_count(geometry)
    n, k = geometry.num_samples, geometry.num_clusters
    spread = ((geometry.centroids - geometry.data.mean(0)) ** 2).sum(1)
    between = (geometry.sizes * spread).sum()
    within = (geometry.distances**2).sum()
    if within == 0:
        return torch.ones((), dtype=torch.float32, device=geometry.data.device)
    return (between * (n - k) / (within * (k - 1))).float()


def davies_bouldin_from(geometry: ClusterGeometry) -> Tensor:
    """The Davies-Bouldin index of a :class:`ClusterGeometry` (float32; lower is better)."""
    _check_cluster_count(geometry)
    k = geometry.num_clusters
    distance = geometry.distances
    scatter = torch.zeros(k, dtype=distance.dtype, device=distance.device).index_add_(
        0, geometry.cluster, distance
    )
    scatter = scatter / geometry.sizes
    separation = torch.cdist(
        geometry.centroids.unsqueeze(0),
        geometry.centroids.unsqueeze(0),
        compute_mode="donot_use_mm_for_euclid_dist",
    )[0]
    zeros = torch.zeros((), dtype=scatter.dtype, device=scatter.device)
    if torch.allclose(scatter, zeros.expand_as(scatter)) or torch.allclose(
        separation, zeros.expand_as(separation)
    ):
        return torch.zeros((), dtype=torch.float32, device=scatter.device)
    separation = separation.masked_fill(separation == 0, float("inf"))
    ratio = (scatter.unsqueeze(0) + scatter.unsqueeze(1)) / separation
    return ratio.max(dim=1).values.mean().float()


def dunn_from(geometry: ClusterGeometry, p: float, dtype: torch.dtype) -> Tensor:
    """The Dunn index of a :class:`ClusterGeometry`: closest centroids over widest cluster (``p``-norm)."""
    if geometry.num_clusters < 2:
        raise ValueError(
            f"The Dunn index needs at least two clusters in `labels`, got {geometry.num_clusters}"
        )
    widest = geometry.norms(p).max()
    return (_closest_centroids(geometry.centroids, p) / widest).to(dtype)


def _closest_centroids(centroids: Tensor, p: float) -> Tensor:
    """The smallest ``p``-norm distance between two different centroids, in row blocks."""
    k, dim = centroids.shape
    rows_per_block = max(1, _PAIR_CHUNK // max(1, k * dim))
    columns = torch.arange(k, device=centroids.device)
    best = torch.full((), float("inf"), dtype=centroids.dtype, device=centroids.device)
    for begin in range(0, k - 1, rows_per_block):
        block = centroids[begin : begin + rows_per_block]
        distance = torch.linalg.vector_norm(block.unsqueeze(1) - centroids.unsqueeze(0), ord=p, dim=-1)
        rows = torch.arange(begin, begin + block.shape[0], device=centroids.device)
        later = columns.unsqueeze(0) > rows.unsqueeze(1)  # each unordered pair once, as torchmetrics
        best = torch.minimum(best, distance.masked_fill(~later, float("inf")).min())
    return best


# ------------------------------------------------------------------ the functions
def calinski_harabasz_score(data: Tensor, labels: Tensor) -> Tensor:
    """Calinski-Harabasz score (variance ratio criterion): higher means denser, better separated clusters.

    >>> import torch
    >>> data = torch.tensor([[0.0, 0.0], [0.0, 1.0], [4.0, 4.0], [4.0, 5.0], [9.0, 0.0], [9.0, 1.5]])
    >>> calinski_harabasz_score(data, torch.tensor([0, 0, 1, 1, 2, 2]))
    tensor(71.5882)
    """
    return calinski_harabasz_from(checked_geometry(data, labels))


def davies_bouldin_score(data: Tensor, labels: Tensor) -> Tensor:
    """Davies-Bouldin score: the mean, over clusters, of the worst ratio of within-cluster scatter to
    centroid separation (lower is better).

    >>> import torch
    >>> data = torch.tensor([[0.0, 0.0], [0.0, 1.0], [4.0, 4.0], [4.0, 5.0], [9.0, 0.0], [9.0, 1.5]])
    >>> davies_bouldin_score(data, torch.tensor([0, 0, 1, 1, 2, 2]))
    tensor(0.1923)
    """
    return davies_bouldin_from(checked_geometry(data, labels))


def dunn_index(data: Tensor, labels: Tensor, p: float = 2) -> Tensor:
    """Dunn index: the smallest distance between centroids over the largest distance of a sample to
    its centroid, in the ``p``-norm (higher is better). Returned in the dtype of ``data``.

    >>> import torch
    >>> data = torch.tensor([[0.0, 0.0], [0.0, 1.0], [4.0, 4.0], [4.0, 5.0], [9.0, 0.0], [9.0, 1.5]])
    >>> dunn_index(data, torch.tensor([0, 0, 1, 1, 2, 2]))
    tensor(7.5425)
    """
    check_p(p)
    return dunn_from(checked_geometry(data, labels), p, data.dtype)


__all__ = ["calinski_harabasz_score", "davies_bouldin_score", "dunn_index"]
