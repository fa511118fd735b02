"""Mergeable first and second moments of (preds, target, residual), accumulated in float64.

One moment tensor of shape ``(NUM_ROWS, num_columns)`` holds, per output column, everything the
moment-based regression measures need (MSE, NRMSE, R2, explained variance, RSE, Pearson, concordance).
Batches and ranks are combined with the parallel update of Chan, Golub and LeVeque: means are merged as
weighted averages and centred co-moments as ``sum_i M_i + sum_i n_i (mean_i - mean)(mean_i - mean)^T``.
Nothing is ever a raw running sum of squares, so the measures stay accurate at large offsets
(``1e6 + N(0, 1)``) where float32 sums of ``y**2`` lose every significant digit.

The three tracked variables are ``x = preds``, ``y = target`` and ``e = target - preds``. The residual is
tracked explicitly (rather than derived from the ``x``/``y`` co-moments) so that near-perfect predictions
do not suffer cancellation.

>>> import torch
>>> m = batch_moments(torch.tensor([[1.0], [2.0]]), torch.tensor([[1.0], [3.0]]))
>>> m2 = batch_moments(torch.tensor([[3.0]]), torch.tensor([[5.0]]))
>>> merged = merge_moments(torch.stack([m, m2]))
>>> whole = batch_moments(torch.tensor([[1.0], [2.0], [3.0]]), torch.tensor([[1.0], [3.0], [5.0]]))
>>> bool(torch.allclose(merged, whole))
True
>>> float(count(merged)[0]), float(mean(merged, Y)[0]), float(comoment(merged, Y, Y)[0])
(3.0, 3.0, 8.0)
"""

from __future__ import annotations

import torch
from torch import Tensor

from lightning_metrics.utilities.exceptions import MetricInputError

X, Y, E = 0, 1, 2  # preds, target, residual (target - preds)
_NUM_VARS = 3
_COUNT = 0
_MEANS = slice(1, 4)
_COMOMENTS = slice(4, 13)  # the 3x3 co-moment matrix, row-major over (x, y, e)
_MINS = slice(13, 15)  # min of x and y
_MAXS = slice(15, 17)  # max of x and y
_SAW_FLOAT64 = 17  # 1.0 once a float64 batch was seen (decides the result dtype of some metrics)
_FLATTENED = 18  # 1.0 once an input with more than two dimensions was flattened into one column
NUM_ROWS = 19


def empty_moments(num_columns: int = 1, device: torch.device | None = None) -> Tensor:
    """The moments of no data: zero counts, means and co-moments, ``+inf``/``-inf`` extremes."""
    m = torch.zeros(NUM_ROWS, num_columns, dtype=torch.float64, device=device)
    m[_MINS] = float("inf")
    m[_MAXS] = float("-inf")
    return m


def _batch_statistics(preds: Tensor, target: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Means ``(3, d)``, co-moments ``(9, d)``, mins and maxs ``(2, d)`` of a non-empty ``(N, d)`` batch."""
    x = preds.t().to(torch.float64)
    y = target.t().to(torch.float64)
    z = torch.stack([x, y, y - x], dim=0)  # (3, d, N): observations innermost, so reductions are contiguous
    means = z.mean(dim=-1)
    centred = (z - means.unsqueeze(-1)).transpose(0, 1)  # (d, 3, N)
    comoments = torch.bmm(centred, centred.transpose(1, 2))  # (d, 3, 3): one BLAS call, two-pass accurate
    if z.requires_grad:  # torch before 2.5 has no derivative for aminmax; amin and amax have one
        mins, maxs = z[:2].amin(dim=-1), z[:2].amax(dim=-1)
    else:
        mins, maxs = torch.aminmax(z[:2], dim=-1)
    return means, comoments.reshape(-1, _NUM_VARS * _NUM_VARS).t(), mins, maxs


def _flags(preds: Tensor, target: Tensor, flattened: bool) -> Tensor:
    saw_float64 = float(preds.dtype == torch.float64 or target.dtype == torch.float64)
    return torch.tensor([[saw_float64], [float(flattened)]], dtype=torch.float64, device=preds.device)


def batch_moments(
    preds: Tensor, target: Tensor, flattened: bool = False, weight: Tensor | None = None
) -> Tensor:
    """Moments of one batch of ``(N, d)`` columns, computed in float64 with a two-pass (centred) scheme.

    ``weight`` (float64, ``(N, d)``, checked: see :mod:`lightning_metrics.utilities.sample_weight`) turns the
    count into the total weight and the means and co-moments into weighted ones (frequency weights: an
    integer weight repeats its sample, a zero weight drops it, extremes included).
    """
    if weight is None:
        n, d = preds.shape
        if n == 0:
            return empty_moments(d, device=preds.device)
        means, comoments, mins, maxs = _batch_statistics(preds, target)
        head = torch.full((1, d), float(n), dtype=torch.float64, device=preds.device)
    else:
        head, means, comoments, mins, maxs = _weighted_batch_statistics(preds, target, weight)
    d = preds.shape[1]
    return torch.cat(
        [head, means, comoments, mins, maxs, _flags(preds, target, flattened).expand(2, d)], dim=0
    )


def _weighted_batch_statistics(preds: Tensor, target: Tensor, weight: Tensor) -> tuple[Tensor, ...]:
    """Total weight ``(1, d)``, weighted means ``(3, d)`` and co-moments ``(9, d)``, and the extremes ``(2, d)``
    of the samples of positive weight, of an ``(N, d)`` batch (two passes, as the unweighted one)."""
    x = preds.t().to(torch.float64)
    y = target.t().to(torch.float64)
    w = weight.t()  # (d, N)
    z = torch.stack([x, y, y - x], dim=0)  # (3, d, N)
    total = w.sum(dim=-1)  # (d,)
    safe_total = torch.where(total > 0, total, torch.ones_like(total))
    means = (z * w).sum(dim=-1) / safe_total
    centred = (z - means.unsqueeze(-1)).transpose(0, 1)  # (d, 3, N)
    comoments = torch.bmm(centred * w.unsqueeze(1), centred.transpose(1, 2))  # (d, 3, 3)
    kept = (w > 0).unsqueeze(0)  # a zero weight drops its sample from the extremes too
    if z.shape[-1]:
        mins = torch.where(kept, z[:2], float("inf")).amin(dim=-1)
        maxs = torch.where(kept, z[:2], float("-inf")).amax(dim=-1)
    else:
        mins, maxs = torch.full_like(means[:2], float("inf")), torch.full_like(means[:2], float("-inf"))
    return total.unsqueeze(0), means, comoments.reshape(-1, _NUM_VARS * _NUM_VARS).t(), mins, maxs


def merge_moments(stacked: Tensor) -> Tensor:
    """Chan merge of moment tensors stacked along dim 0: ``(k, NUM_ROWS, d) -> (NUM_ROWS, d)``.

    This is the ``dist_reduce_fx`` of the moment state: ranks (or the two sides of ``merge_state``) are
    merged exactly, in float64. Entries with a zero count are neutral, so zero-padded states merge safely.
    """
    stacked = stacked.to(torch.float64)
    counts = stacked[:, _COUNT]  # (k, d)
    total = counts.sum(dim=0)
    safe_total = torch.where(total > 0, total, torch.ones_like(total))
    means = stacked[:, _MEANS]  # (k, 3, d)
    grand_mean = (counts.unsqueeze(1) * means).sum(dim=0) / safe_total
    deviation = means - grand_mean
    between = torch.einsum("kid,kjd,kd->ijd", deviation, deviation, counts)
    comoments = stacked[:, _COMOMENTS].sum(dim=0) + between.reshape(_NUM_VARS * _NUM_VARS, -1)
    present = (counts > 0).unsqueeze(1)
    mins = torch.where(present, stacked[:, _MINS], float("inf")).amin(dim=0)
    maxs = torch.where(present, stacked[:, _MAXS], float("-inf")).amax(dim=0)
    flags = stacked[:, _SAW_FLOAT64:].amax(dim=0)
    return torch.cat([total.unsqueeze(0), grand_mean, comoments, mins, maxs, flags], dim=0)


# The readers below take a moment tensor, or a lazy view of a statistic that computes only the rows read
# (``_statistics.MomentRows``: indexed by row, with ``shape``, ``pool_columns``, ``sum_squared_error`` and the
# two flags).


def pool_columns(moments: Tensor) -> Tensor:
    """Merge all output columns into one, as if the inputs had been flattened: ``(R, d) -> (R, 1)``."""
    if moments.shape[1] == 1:
        return moments
    if not isinstance(moments, Tensor):
        return moments.pool_columns()
    return merge_moments(moments.t().unsqueeze(-1))


def count(moments: Tensor) -> Tensor:
    """Number of observations per column."""
    return moments[_COUNT]


def mean(moments: Tensor, var: int) -> Tensor:
    """Mean of ``X``, ``Y`` or ``E`` per column."""
    return moments[_MEANS.start + var]


def comoment(moments: Tensor, a: int, b: int) -> Tensor:
    """Centred co-moment ``sum (a - mean_a)(b - mean_b)`` per column (``a == b``: the M2 of ``a``)."""
    return moments[_COMOMENTS.start + a * _NUM_VARS + b]


def minimum(moments: Tensor, var: int) -> Tensor:
    """Minimum of ``X`` or ``Y`` per column."""
    return moments[_MINS.start + var]


def maximum(moments: Tensor, var: int) -> Tensor:
    """Maximum of ``X`` or ``Y`` per column."""
    return moments[_MAXS.start + var]


def sum_squared_error(moments: Tensor) -> Tensor:
    """``sum (target - preds)^2`` per column, from the residual's mean and M2 (a view may keep it)."""
    if not isinstance(moments, Tensor):
        return moments.sum_squared_error()
    return comoment(moments, E, E) + count(moments) * mean(moments, E) ** 2


def saw_float64(moments: Tensor) -> bool:
    """Whether any accumulated batch was float64 (host sync; used only in ``compute``)."""
    if not isinstance(moments, Tensor):
        return moments.saw_float64()
    return bool(moments[_SAW_FLOAT64].any())


def was_flattened(moments: Tensor) -> bool:
    """Whether an input with more than two dimensions was flattened into the statistic (host sync)."""
    if not isinstance(moments, Tensor):
        return moments.was_flattened()
    return bool(moments[_FLATTENED].any())


def as_columns(preds: Tensor, target: Tensor) -> tuple[Tensor, Tensor, bool]:
    """View inputs as ``(N, d)`` columns: 1D -> one column, 2D -> its columns, >2D flattened to one column."""
    if preds.ndim == 2:
        return preds, target, False
    if preds.ndim <= 1:
        return preds.reshape(-1, 1), target.reshape(-1, 1), False
    return preds.reshape(-1, 1), target.reshape(-1, 1), True


def moments_of(preds: Tensor, target: Tensor, weight: Tensor | None = None) -> Tensor:
    """Moments of ``preds``/``target`` laid out by :func:`as_columns`; ``weight``: checked sample weights of the
    inputs' shape (``as_sample_weight``), laid out alike."""
    p, t, flattened = as_columns(preds, target)
    w = None if weight is None else (weight.reshape(-1, 1) if preds.ndim != 2 else weight)
    return batch_moments(p, t, flattened, w)


def merge_pair(current: Tensor, incoming: Tensor) -> Tensor:
    """Merge two moment tensors; an empty single-column side widens to the other's column count.

    Metrics that infer their outputs from the data (R2, explained variance) start with one empty column.

    >>> import torch
    >>> wide = moments_of(torch.tensor([[1.0, 2.0], [3.0, 5.0]]), torch.tensor([[1.0, 2.0], [2.0, 4.0]]))
    >>> merge_pair(empty_moments(1), wide).shape
    torch.Size([19, 2])
    >>> merge_pair(moments_of(torch.tensor([1.0]), torch.tensor([1.0])), wide)
    Traceback (most recent call last):
    ...
    lightning_metrics.utilities.exceptions.MetricInputError: Expected inputs with 1 output column(s) as in earlier batches, got 2 (from `preds`)
    """
    if current.shape != incoming.shape:
        wide_current, wide_incoming = current.shape[1], incoming.shape[1]
        if wide_current == 1 and not bool(count(current).any()):
            current = current.expand(-1, wide_incoming)
        elif wide_incoming == 1 and not bool(count(incoming).any()):
            incoming = incoming.expand(-1, wide_current)
        else:
            raise MetricInputError(
                f"Expected inputs with {wide_current} output column(s) as in earlier batches,"
                f" got {wide_incoming} (from `preds`)"
            )
    return merge_moments(torch.stack([current, incoming]))
