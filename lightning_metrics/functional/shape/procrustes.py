"""Procrustes disparity of batches of point clouds, as ``scipy.spatial.procrustes`` for one pair.

Both clouds of a pair are centred and scaled to unit Frobenius norm; the second is then rotated
(or reflected) and scaled onto the first by the orthogonal Procrustes solution, from one batched
SVD of the ``D x D`` cross-covariance. The disparity is the sum of the squared differences left.
"""

from __future__ import annotations

from typing import Union

import torch
from torch import Tensor

from lightning_metrics.utilities.checks import check_bool


def check_point_clouds(point_cloud1: object, point_cloud2: object) -> None:
    """Two floating tensors ``(N, M, D)`` of one shape."""
    for name, value in (("point_cloud1", point_cloud1), ("point_cloud2", point_cloud2)):
        if not isinstance(value, Tensor):
            raise TypeError(f"Argument `{name}` must be a tensor, got {type(value).__name__}")
        if not value.is_floating_point():
            raise TypeError(f"Argument `{name}` must be a floating tensor, got dtype {value.dtype}")
    if point_cloud1.shape != point_cloud2.shape:  # type: ignore[union-attr]
        raise RuntimeError(
            "`point_cloud1` and `point_cloud2` must have the same shape, got "
            f"{tuple(point_cloud1.shape)} and {tuple(point_cloud2.shape)}"  # type: ignore[union-attr]
        )
    shape = tuple(point_cloud1.shape)  # type: ignore[union-attr]
    if len(shape) != 3:
        raise ValueError(
            "Arguments `point_cloud1` and `point_cloud2` must have the shape (N, M, D) (batch, points, "
            f"dimensions), got {len(shape)} dimensions: {shape}"
        )


def _standardised(cloud: Tensor, name: str) -> Tensor:
    """``cloud`` centred and divided by its Frobenius norm; a cloud of one repeated point raises."""
    centred = cloud - cloud.mean(dim=1, keepdim=True)
    norm = torch.linalg.vector_norm(centred, dim=(1, 2), keepdim=True)
    flat = norm.reshape(-1) == 0
    if bool(flat.any()):
        index = int(flat.nonzero()[0, 0])
        raise ValueError(
            f"Argument `{name}` must hold at least two distinct points in every cloud, got a cloud of one "
            f"repeated point at batch index {index}"
        )
    return centred / norm


def procrustes_disparity(
    point_cloud1: Tensor, point_cloud2: Tensor, return_all: bool = False
) -> Union[Tensor, tuple[Tensor, Tensor, Tensor]]:
    """The Procrustes disparity of each pair of point clouds ``(N, M, D)``: ``(N,)``, in the inputs'
    dtype; with ``return_all`` also the scale ``(N, 1)`` and the rotation ``(N, D, D)`` that map the
    standardised second cloud onto the first (``cloud2 @ rotation.T * scale``).

    A cloud whose points are all equal has no shape to match: it raises (as scipy does). A NaN or
    infinite coordinate gives a NaN disparity for its pair.

    >>> import torch
    >>> from lightning_metrics.functional.shape import procrustes_disparity
    >>> square = torch.tensor([[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]])
    >>> turned = square @ torch.tensor([[0.0, -1.0], [1.0, 0.0]]) * 3 + 5  # rotated, scaled, moved
    >>> procrustes_disparity(square, turned).abs() < 1e-6
    tensor([True])
    >>> procrustes_disparity(square, torch.tensor([[[0.0, 0.0], [2.0, 0.0], [1.0, 1.0], [0.0, 1.0]]]))
    tensor([0.1333])
    """
    check_point_clouds(point_cloud1, point_cloud2)
    check_bool("return_all", return_all)
    first, second = _standardised(point_cloud1, "point_cloud1"), _standardised(point_cloud2, "point_cloud2")
    covariance = first.transpose(1, 2) @ second
    finite = covariance.isfinite().all(dim=2, keepdim=True).all(dim=1, keepdim=True)
    u, singular, vh = torch.linalg.svd(torch.where(finite, covariance, 0.0), full_matrices=False)
    rotation = u @ vh
    scale = singular.sum(dim=1, keepdim=True)
    aligned = scale.unsqueeze(-1) * (second @ rotation.transpose(1, 2))
    disparity = (first - aligned).square().sum(dim=(1, 2))
    if return_all:
        return disparity, scale, rotation
    return disparity
