"""Lip vertex error (LVE) of 3D talking-head animations: per frame, the largest squared distance
between a predicted and a ground-truth lip vertex; the mean of those over the frames."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from lightning_metrics.utilities.checks import check_bool


def check_mouth_map(mouth_map: object) -> None:
    """A non-empty sequence of integer vertex indices."""
    if isinstance(mouth_map, Tensor):
        mouth_map = mouth_map.tolist()
    if not isinstance(mouth_map, Sequence) or isinstance(mouth_map, str) or not len(mouth_map):
        message = f"Argument `mouth_map` must be a non-empty list of vertex indices, got {mouth_map!r}"
        raise ValueError(message)
    bad = [i for i in mouth_map if isinstance(i, bool) or not isinstance(i, int)]
    if bad:
        raise ValueError(f"Argument `mouth_map` must hold integer vertex indices, got {bad[0]!r}")


def check_vertices(vertices_pred: object, vertices_gt: object, mouth_map: Sequence[int]) -> None:
    """Two tensors ``(T, V, 3)`` and ``(T', V, 3)`` and lip indices below ``V``."""
    for name, value in (("vertices_pred", vertices_pred), ("vertices_gt", vertices_gt)):
        if not isinstance(value, Tensor):
            raise TypeError(f"Argument `{name}` must be a tensor, got {type(value).__name__}")
        if value.ndim != 3:
            raise ValueError(
                f"Argument `{name}` must have the shape (frames, vertices, coordinates), got {value.ndim} "
                f"dimensions: {tuple(value.shape)}"
            )
    if vertices_pred.shape[1:] != vertices_gt.shape[1:]:  # type: ignore[union-attr]
        raise ValueError(
            "`vertices_pred` and `vertices_gt` must have the same numbers of vertices and coordinates, got "
            f"shapes {tuple(vertices_pred.shape)} and {tuple(vertices_gt.shape)}"  # type: ignore[union-attr]
        )
    check_mouth_map(mouth_map)
    count = vertices_pred.shape[1]  # type: ignore[union-attr]
    indices = mouth_map.tolist() if isinstance(mouth_map, Tensor) else mouth_map
    outside = [i for i in indices if not -count <= i < count]
    if outside:
        raise ValueError(
            f"Argument `mouth_map` holds the vertex index {outside[0]}, outside the {count} vertices of the "
            "meshes"
        )


def frame_errors(vertices_pred: Tensor, vertices_gt: Tensor, mouth_map: Sequence[int]) -> Tensor:
    """Per frame of the common length, the largest squared lip-vertex distance ``(min(T, T'),)``."""
    frames = min(vertices_pred.shape[0], vertices_gt.shape[0])
    index = torch.as_tensor(mouth_map, dtype=torch.long, device=vertices_pred.device)
    # advanced indexing: negative indices count from the end
    diff = vertices_gt[:frames][:, index] - vertices_pred[:frames][:, index]
    return diff.square().sum(dim=-1).amax(dim=1)


def lip_vertex_error(
    vertices_pred: Tensor,
    vertices_gt: Tensor,
    mouth_map: list[int],
    validate_args: bool = True,
) -> Tensor:
    """Lip vertex error of predicted vertices ``(T, V, 3)`` against ground-truth ones ``(T', V, 3)``:
    the mean over the first ``min(T, T')`` frames of the largest squared distance between
    corresponding vertices listed in ``mouth_map``. ``validate_args=False`` skips the checks of the
    shapes and indices.

    >>> import torch
    >>> from lightning_metrics.functional.multimodal import lip_vertex_error
    >>> gt = torch.zeros(2, 4, 3)
    >>> pred = gt.clone()
    >>> pred[0, 1, 0], pred[1, 2] = 2.0, torch.tensor([1.0, 1.0, 1.0])
    >>> lip_vertex_error(pred, gt, mouth_map=[1, 2])
    tensor(3.5000)
    """
    check_bool("validate_args", validate_args)
    if validate_args:
        check_vertices(vertices_pred, vertices_gt, mouth_map)
    return frame_errors(vertices_pred, vertices_gt, mouth_map).mean()
