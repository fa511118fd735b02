"""Row-by-row similarity and distance matrices: one input check and one reduction for all five.

Every function takes ``x`` ``(N, d)`` and optionally ``y`` ``(M, d)`` (``x`` against itself when
absent), returns the ``(N, M)`` matrix or its ``reduction`` along the last dimension (``"mean"``,
``"sum"``, ``"none"``/``None``), and zeroes the diagonal when ``zero_diagonal`` (by default: only
when ``y`` is absent), as torchmetrics does. Distances are computed in float64 and returned in the
input's dtype.
"""

from __future__ import annotations

from typing import Optional

import torch
from torch import Tensor

from lightning_metrics.utilities.checks import check_choice


def _rows(x: Tensor, y: Optional[Tensor], zero_diagonal: Optional[bool]) -> tuple[Tensor, Tensor, bool]:
    if not isinstance(x, Tensor) or x.ndim != 2:
        raise ValueError(f"Argument `x` must be a 2-D tensor (N, d), got {getattr(x, 'shape', type(x).__name__)}")
    if y is None:
        return x, x, True if zero_diagonal is None else zero_diagonal
    if not isinstance(y, Tensor) or y.ndim != 2 or y.shape[1] != x.shape[1]:
        raise ValueError(
            f"Argument `y` must be a 2-D tensor (M, {x.shape[1]}) matching `x` {tuple(x.shape)}, "
            f"got {getattr(y, 'shape', type(y).__name__)}"
        )
    return x, y, False if zero_diagonal is None else zero_diagonal


def _finish(matrix: Tensor, zero_diagonal: bool, reduction: Optional[str]) -> Tensor:
    check_choice("reduction", reduction, ("mean", "sum", "none", None))
    if zero_diagonal:
        matrix = matrix.clone() if matrix._base is not None else matrix
        matrix.fill_diagonal_(0)
    if reduction == "mean":
        return matrix.mean(dim=-1)
    if reduction == "sum":
        return matrix.sum(dim=-1)
    return matrix


def _matmul(x: Tensor, y: Tensor) -> Tensor:
    if torch.float16 in (x.dtype, y.dtype):  # no half matmul on every device: float32, then back
        return (x.float() @ y.float().T).half()
    return x @ y.T


def pairwise_cosine_similarity(
    x: Tensor, y: Optional[Tensor] = None, reduction: Optional[str] = None, zero_diagonal: Optional[bool] = None
) -> Tensor:
    """Cosine similarity of every row of ``x`` with every row of ``y``.

    >>> import torch
    >>> pairwise_cosine_similarity(torch.tensor([[1.0, 0.0], [1.0, 1.0]]), torch.tensor([[0.0, 2.0]]))
    tensor([[0.0000],
            [0.7071]])
    """
    x, y, zero_diagonal = _rows(x, y, zero_diagonal)
    return _finish(_matmul(x / x.norm(dim=1, keepdim=True), y / y.norm(dim=1, keepdim=True)), zero_diagonal, reduction)


def pairwise_linear_similarity(
    x: Tensor, y: Optional[Tensor] = None, reduction: Optional[str] = None, zero_diagonal: Optional[bool] = None
) -> Tensor:
    """Dot product of every row of ``x`` with every row of ``y``.

    >>> import torch
    >>> pairwise_linear_similarity(torch.tensor([[1.0, 2.0]]), torch.tensor([[3.0, 4.0], [1.0, 0.0]]))
    tensor([[11.,  1.]])
    """
    x, y, zero_diagonal = _rows(x, y, zero_diagonal)
    return _finish(_matmul(x, y), zero_diagonal, reduction)


def pairwise_euclidean_distance(
    x: Tensor, y: Optional[Tensor] = None, reduction: Optional[str] = None, zero_diagonal: Optional[bool] = None
) -> Tensor:
    """Euclidean distance between every row of ``x`` and every row of ``y`` (squares never below 0).

    >>> import torch
    >>> pairwise_euclidean_distance(torch.tensor([[0.0, 0.0]]), torch.tensor([[3.0, 4.0], [1.0, 0.0]]))
    tensor([[5., 1.]])
    """
    x, y, zero_diagonal = _rows(x, y, zero_diagonal)
    a, b = x.double(), y.double()
    squared = (a * a).sum(1, keepdim=True) + (b * b).sum(1) - 2 * a @ b.T
    return _finish(squared.clamp(min=0).sqrt().to(x.dtype), zero_diagonal, reduction)


def pairwise_manhattan_distance(
    x: Tensor, y: Optional[Tensor] = None, reduction: Optional[str] = None, zero_diagonal: Optional[bool] = None
) -> Tensor:
    """Sum of absolute differences between every row of ``x`` and every row of ``y``.

    >>> import torch
    >>> pairwise_manhattan_distance(torch.tensor([[0.0, 0.0]]), torch.tensor([[3.0, 4.0], [1.0, 0.0]]))
    tensor([[7., 1.]])
    """
    x, y, zero_diagonal = _rows(x, y, zero_diagonal)
    return _finish(torch.cdist(x.double(), y.double(), p=1).to(x.dtype), zero_diagonal, reduction)


def pairwise_minkowski_distance(
    x: Tensor,
    y: Optional[Tensor] = None,
    exponent: float = 2,
    reduction: Optional[str] = None,
    zero_diagonal: Optional[bool] = None,
) -> Tensor:
    """Minkowski distance of order ``exponent`` (>= 1) between every row of ``x`` and every row of ``y``.

    >>> import torch
    >>> pairwise_minkowski_distance(torch.tensor([[0.0, 0.0]]), torch.tensor([[3.0, 4.0]]), exponent=1)
    tensor([[7.]])
    """
    if isinstance(exponent, bool) or not isinstance(exponent, (int, float)) or exponent < 1:
        from lightning_metrics.utilities.exceptions import TorchMetricsUserError

        raise TorchMetricsUserError(f"Argument `exponent` must be a number >= 1, got {exponent!r}")
    x, y, zero_diagonal = _rows(x, y, zero_diagonal)
    return _finish(torch.cdist(x.double(), y.double(), p=float(exponent)).to(x.dtype), zero_diagonal, reduction)
