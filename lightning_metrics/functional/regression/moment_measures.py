"""Measures over the shared float64 moments: MSE, NRMSE, R2, explained variance, RSE, Pearson, concordance.

Each ``*_from_moments`` function maps a moment tensor (see :mod:`._moments`) to per-column float64 values;
the public functions compute the moments of one batch and call them, the modular classes call them on their
accumulated state. Values and edge cases follow torchmetrics 1.9 (e.g. R2's ``atol=1e-4`` near-zero rule,
Pearson's NaN for near-constant inputs).

Every public function takes ``sample_weight=None`` (the rules: :mod:`lightning_metrics.utilities.sample_weight`):
the moments become weighted ones, their count the total weight. The weights are frequency weights: an integer
weight equals repeating the sample and a zero weight dropping it; a constant weight leaves every measure
unchanged except those that count observations (adjusted R2's ``n`` and concordance's ``n - 1``: they read
the total weight), as scikit-learn's ``sample_weight`` and ``np.cov(..., fweights=...)``.

>>> import torch
>>> preds, target = torch.tensor([2.5, 0.0, 2.0, 8.0]), torch.tensor([3.0, -0.5, 2.0, 7.0])
>>> r2_score(preds, target)
tensor(0.9486)
>>> pearson_corrcoef(preds, target)
tensor(0.9849)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Literal

import torch
from torch import Tensor

from lightning_metrics.functional.regression import _moments as mo
from lightning_metrics.functional.regression._checks import (
    check_at_most_2d,
    check_columns,
    check_floating,
    check_multioutput,
    check_num_outputs_arg,
    check_same_shape,
)
from lightning_metrics.utilities.exceptions import MetricInputError
from lightning_metrics.utilities.prints import warn_at_caller
from lightning_metrics.utilities.sample_weight import as_sample_weight

NORMALIZATIONS = ("mean", "range", "std", "l2")


def result_dtype(*tensors: Tensor) -> torch.dtype:
    """The dtype torchmetrics' functional forms return: the inputs' floating dtype, else the default."""
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = torch.promote_types(dtype, t.dtype)
    return dtype if dtype.is_floating_point else torch.get_default_dtype()


# --------------------------------------------------------------------------- from moments (float64)


def mse_from_moments(m: Tensor, squared: bool, num_outputs: int) -> Tensor:
    """Mean squared error (or its root); ``num_outputs == 1`` pools all columns like a flattened input."""
    if num_outputs == 1:
        m = mo.pool_columns(m)
    value = mo.sum_squared_error(m) / mo.count(m)
    return value if squared else value.sqrt()


def nrmse_from_moments(m: Tensor, normalization: str, num_outputs: int) -> Tensor:
    """Root mean squared error divided by the target's mean, range, std or L2 norm."""
    if num_outputs == 1:
        m = mo.pool_columns(m)
    n = mo.count(m)
    rmse = (mo.sum_squared_error(m) / n).sqrt()
    mean_y, m2_y = mo.mean(m, mo.Y), mo.comoment(m, mo.Y, mo.Y)
    if normalization == "mean":
        denom = mean_y
    elif normalization == "range":
        denom = mo.maximum(m, mo.Y) - mo.minimum(m, mo.Y)
    elif normalization == "std":
        denom = (m2_y / n).sqrt()
    else:
        denom = (m2_y + n * mean_y**2).sqrt()
    return rmse / denom


def _column_mean(scores: Tensor) -> Tensor:
    """The mean over output columns; one column's own value (the same number, without a reduction kernel)."""
    return scores.reshape(()) if scores.numel() == 1 else scores.mean()


def _average(scores: Tensor, weights: Tensor, multioutput: str) -> Tensor:
    if multioutput == "raw_values":
        return scores
    if multioutput == "uniform_average":
        return _column_mean(scores)
    return (weights / weights.sum() * scores).sum()


def r2_from_moments(m: Tensor, adjusted: int, multioutput: str, weighted: bool = False) -> Tensor:
    """R2 per column, averaged by ``multioutput``, optionally adjusted for ``adjusted`` regressors.

    ``weighted``: the count is a total weight (it must be positive; adjusted R2 reads it as ``n``)."""
    num_obs = float(mo.count(m)[0].item()) if m.shape[1] else 0.0  # whole without weights
    if weighted and not num_obs > 0:
        raise ValueError(f"R2 score needs a positive total `sample_weight`, got {num_obs}")
    if not weighted and num_obs < 2:
        raise ValueError(f"R2 score needs at least two samples, got {int(num_obs)}")
    rss, tss = mo.sum_squared_error(m), mo.comoment(m, mo.Y, mo.Y)
    # torchmetrics treats |rss| or |tss| <= 1e-4 (absolute) as zero: perfect fit -> 1, constant target -> 0.
    # written as "not close to zero", so that NaN counts as nonzero and propagates (not a silent 1.0)
    rss_nonzero, tss_nonzero = ~(rss.abs() <= 1e-4), ~(tss.abs() <= 1e-4)
    scores = torch.where(rss_nonzero & tss_nonzero, 1 - rss / tss, torch.ones_like(rss))
    scores = torch.where(rss_nonzero & ~tss_nonzero, torch.zeros_like(rss), scores)
    r2 = _average(scores, tss, multioutput)
    if adjusted != 0:
        if adjusted > num_obs - 1:
            warn_at_caller(
                "More independent regressions than data points in adjusted r2 score. Falls back to standard r2 score.",
                UserWarning,
            )
        elif adjusted == num_obs - 1:
            warn_at_caller(
                "Division by zero in adjusted r2 score. Falls back to standard r2 score.",
                UserWarning,
            )
        else:
            return 1 - (1 - r2) * (num_obs - 1) / (num_obs - adjusted - 1)
    return r2


def explained_variance_from_moments(m: Tensor, multioutput: str) -> Tensor:
    """``1 - Var(target - preds) / Var(target)`` per column, averaged by ``multioutput``."""
    n = mo.count(m)
    numerator = mo.comoment(m, mo.E, mo.E) / n
    denominator = mo.comoment(m, mo.Y, mo.Y) / n
    num_nonzero, den_nonzero = numerator != 0, denominator != 0
    scores = torch.where(num_nonzero & den_nonzero, 1 - numerator / denominator, torch.ones_like(numerator))
    scores = torch.where(num_nonzero & ~den_nonzero, torch.zeros_like(scores), scores)
    return _average(scores, denominator, multioutput)


def rse_from_moments(m: Tensor, squared: bool, eps: float) -> Tensor:
    """Relative squared error ``SSE / SST`` (root if not ``squared``), averaged over columns."""
    n = mo.count(m)
    # no sample: 0 / 0 is undefined, as in torchmetrics; n / n is NaN there and exactly 1 elsewhere (a where's work
    # in one kernel)
    rse = mo.sum_squared_error(m) / mo.comoment(m, mo.Y, mo.Y).clamp(min=eps) * (n / n)
    return _column_mean(rse if squared else rse.sqrt())


def _max_abs_deviation(m: Tensor, var: int) -> Tensor:
    centre = mo.mean(m, var)
    return torch.maximum(mo.maximum(m, var) - centre, centre - mo.minimum(m, var))


def _unbiased(m2: Tensor, n: Tensor) -> Tensor:
    """``m2 / (n - 1)``; ``m2 / n`` for a count (a total weight) below 2, where ``n - 1`` would flip or vanish
    (without weights such a column has no variance either way: it stays degenerate)."""
    return m2 / torch.where(n >= 2, n - 1, n)


def pearson_from_moments(m: Tensor, dtype: torch.dtype) -> Tensor:
    """Pearson correlation per column; NaN (with a warning) where either variance is numerically zero.

    "Numerically zero" follows torchmetrics: the variance relative to the squared maximum absolute deviation
    is below ``sqrt(eps)`` of the result dtype, or is not finite, or the variance itself is below the
    smallest normal number of the result dtype (torchmetrics, which accumulates in that dtype, sees zero
    there: e.g. float32 inputs of scale ``1e-32``).
    """
    n = mo.count(m)
    m2_x, m2_y, c_xy = mo.comoment(m, mo.X, mo.X), mo.comoment(m, mo.Y, mo.Y), mo.comoment(m, mo.X, mo.Y)
    var_x, var_y = _unbiased(m2_x, n), _unbiased(m2_y, n)
    rel_var_x = var_x / _max_abs_deviation(m, mo.X) ** 2
    rel_var_y = var_y / _max_abs_deviation(m, mo.Y) ** 2
    corr = c_xy / (m2_x * m2_y).sqrt()
    info = torch.finfo(dtype)
    bound = math.sqrt(info.eps)
    degenerate = (
        (rel_var_x < bound)
        | (rel_var_y < bound)
        | ~rel_var_x.isfinite()
        | ~rel_var_y.isfinite()
        | ~corr.isfinite()
        | (var_x < info.tiny)
        | (var_y < info.tiny)
    )
    if bool(degenerate.any()):
        warn_at_caller(
            "The variance of predictions or target is close to zero. This can cause instability in Pearson"
            f" correlation coefficient; it is set to NaN for those outputs (result dtype {dtype}).",
            UserWarning,
        )
    return torch.where(degenerate, torch.full_like(corr, float("nan")), corr.clamp(-1.0, 1.0))


def concordance_from_moments(m: Tensor, dtype: torch.dtype) -> Tensor:
    """Lin's concordance ``2 rho s_x s_y / (s_x^2 + s_y^2 + (mean_x - mean_y)^2)`` with unbiased variances."""
    n = mo.count(m)
    var_x = _unbiased(mo.comoment(m, mo.X, mo.X), n)
    var_y = _unbiased(mo.comoment(m, mo.Y, mo.Y), n)
    rho = pearson_from_moments(m, dtype)
    return 2.0 * rho * var_x.sqrt() * var_y.sqrt() / (var_x + var_y + mo.mean(m, mo.E) ** 2)


# --------------------------------------------------------------------------- functional forms


def _weight(sample_weight: Any, target: Tensor) -> Tensor | None:
    """The checked ``sample_weight`` broadcast to ``target``'s shape (float64), or ``None``."""
    return as_sample_weight(sample_weight, target.shape, device=target.device)


def _pooled(
    from_moments: Callable[[Tensor, Any, int], Tensor],
    preds: Tensor,
    target: Tensor,
    arg: Any,
    num_outputs: int,
    sample_weight: Any = None,
) -> Tensor:
    """``from_moments(moments, arg, num_outputs)`` of one batch whose columns are ``num_outputs`` outputs (one
    output: everything pooled, any shape), a scalar for one output, in the functional forms' dtype."""
    check_same_shape(preds, target)
    check_num_outputs_arg(num_outputs)
    check_columns(preds, num_outputs, strict_single=False)
    value = from_moments(mo.moments_of(preds, target, _weight(sample_weight, target)), arg, num_outputs)
    value = value.squeeze(0) if num_outputs == 1 else value
    return value.to(result_dtype(preds, target))


def mean_squared_error(
    preds: Tensor, target: Tensor, squared: bool = True, num_outputs: int = 1, *, sample_weight: Any = None
) -> Tensor:
    """Mean squared error (``squared=False``: root mean squared error); ``sample_weight``: a weighted mean.

    >>> import torch
    >>> mean_squared_error(torch.tensor([0.0, 1, 2, 3]), torch.tensor([0.0, 1, 2, 2]))
    tensor(0.2500)
    >>> mean_squared_error(torch.tensor([[1.0, 2], [3, 4]]), torch.tensor([[1.0, 4], [3, 1]]), num_outputs=2)
    tensor([0.0000, 6.5000])
    >>> mean_squared_error(torch.tensor([0.0, 1, 2, 3]), torch.tensor([0.0, 1, 2, 2]), sample_weight=[1, 1, 1, 3])
    tensor(0.5000)
    """
    return _pooled(mse_from_moments, preds, target, squared, num_outputs, sample_weight)


def normalized_root_mean_squared_error(
    preds: Tensor,
    target: Tensor,
    normalization: Literal["mean", "range", "std", "l2"] = "mean",
    num_outputs: int = 1,
    *, sample_weight: Any = None,
) -> Tensor:
    """RMSE normalised by the target's ``mean``, ``range``, ``std`` (population) or ``l2`` norm; with
    ``sample_weight`` all four are weighted (the range spans the samples of positive weight).

    >>> import torch
    >>> preds, target = torch.tensor([0.0, 1, 2, 3]), torch.tensor([0.0, 1, 2, 2])
    >>> normalized_root_mean_squared_error(preds, target, normalization="range")
    tensor(0.2500)
    """
    if normalization not in NORMALIZATIONS:
        raise ValueError(f"Argument `normalization` must be one of {NORMALIZATIONS}, got {normalization!r}")
    return _pooled(nrmse_from_moments, preds, target, normalization, num_outputs, sample_weight)


def _check_adjusted(adjusted: object) -> None:
    if isinstance(adjusted, bool) or not isinstance(adjusted, int) or adjusted < 0:
        raise ValueError(f"Argument `adjusted` must be an integer >= 0, got {adjusted!r}")


def r2_score(
    preds: Tensor,
    target: Tensor,
    adjusted: int = 0,
    multioutput: str = "uniform_average",
    *, sample_weight: Any = None,
) -> Tensor:
    """Coefficient of determination ``1 - SS_res / SS_tot`` (``adjusted``: number of regressors).

    With ``sample_weight`` both sums are weighted (scikit-learn's ``r2_score``; ``variance_weighted`` weighs
    the outputs by their weighted variances) and adjusted R2 reads the total weight as the number of samples.

    >>> import torch
    >>> target = torch.tensor([[0.5, 1], [-1, 1], [7, -6]])
    >>> preds = torch.tensor([[0.0, 2], [-1, 2], [8, -5]])
    >>> r2_score(preds, target, multioutput="raw_values")
    tensor([0.9654, 0.9082])
    """
    check_same_shape(preds, target)
    check_at_most_2d(preds, "r2_score")
    check_multioutput(multioutput)
    _check_adjusted(adjusted)
    weight = _weight(sample_weight, target)
    value = r2_from_moments(mo.moments_of(preds, target, weight), adjusted, multioutput, weight is not None)
    value = value.squeeze(0) if preds.ndim < 2 and value.ndim else value
    return value.to(result_dtype(preds, target))


def explained_variance(
    preds: Tensor,
    target: Tensor,
    multioutput: Literal["raw_values", "uniform_average", "variance_weighted"] = "uniform_average",
    *, sample_weight: Any = None,
) -> Tensor:
    """Explained variance ``1 - Var(target - preds) / Var(target)`` (weighted variances with ``sample_weight``).

    >>> import torch
    >>> explained_variance(torch.tensor([2.5, 0.0, 2, 8]), torch.tensor([3, -0.5, 2, 7]))
    tensor(0.9572)
    """
    check_multioutput(multioutput)
    check_same_shape(preds, target)
    check_at_most_2d(preds, "explained_variance")
    value = explained_variance_from_moments(
        mo.moments_of(preds, target, _weight(sample_weight, target)), multioutput
    )
    value = value.squeeze(0) if preds.ndim < 2 and value.ndim else value
    return value.to(result_dtype(preds, target))


def relative_squared_error(
    preds: Tensor, target: Tensor, squared: bool = True, *, sample_weight: Any = None
) -> Tensor:
    """Relative squared error ``sum (y - y_hat)^2 / sum (y - mean(y))^2`` (mean over outputs; weighted sums
    and mean with ``sample_weight``).

    >>> import torch
    >>> relative_squared_error(torch.tensor([2.5, 0.0, 2, 8]), torch.tensor([3, -0.5, 2, 7]))
    tensor(0.0514)
    """
    check_same_shape(preds, target)
    check_at_most_2d(preds, "relative_squared_error")
    dtype = result_dtype(preds, target)
    moments = mo.moments_of(preds, target, _weight(sample_weight, target))
    return rse_from_moments(moments, squared, torch.finfo(dtype).eps).to(dtype)


def _check_correlation_inputs(preds: Tensor, target: Tensor) -> None:
    check_floating("preds", preds)
    check_floating("target", target)
    check_same_shape(preds, target)
    if preds.ndim > 2:
        raise MetricInputError(f"Expected 1D or 2D `preds`/`target`, got preds.shape={tuple(preds.shape)}")


def pearson_corrcoef(preds: Tensor, target: Tensor, *, sample_weight: Any = None) -> Tensor:
    """Pearson correlation coefficient, per column for ``(N, d)`` inputs (weighted with ``sample_weight``, as
    ``np.cov(..., aweights=...)`` or ``fweights`` give it: the normalisation cancels).

    >>> import torch
    >>> pearson_corrcoef(torch.tensor([[2.5, 0.0], [2, 8], [1, 1]]), torch.tensor([[3, -0.5], [2, 7], [0, 2]]))
    tensor([1.0000, 0.9762])
    """
    _check_correlation_inputs(preds, target)
    dtype = result_dtype(preds, target)
    value = pearson_from_moments(mo.moments_of(preds, target, _weight(sample_weight, target)), dtype)
    return value.squeeze().to(dtype)


def concordance_corrcoef(preds: Tensor, target: Tensor, *, sample_weight: Any = None) -> Tensor:
    """Lin's concordance correlation coefficient (shape ``(1,)`` for 1D inputs, as in torchmetrics).

    With ``sample_weight``: weighted means, and variances and covariance over ``total weight - 1``
    (frequency weights, ``np.cov(..., fweights=...)``: integer weights equal repeated samples).

    >>> import torch
    >>> concordance_corrcoef(torch.tensor([2.5, 0.0, 2, 8]), torch.tensor([3, -0.5, 2, 7]))
    tensor([0.9777])
    """
    _check_correlation_inputs(preds, target)
    dtype = result_dtype(preds, target)
    moments = mo.moments_of(preds, target, _weight(sample_weight, target))
    return concordance_from_moments(moments, dtype).to(dtype)


__all__ = [
    "concordance_corrcoef",
    "explained_variance",
    "mean_squared_error",
    "normalized_root_mean_squared_error",
    "pearson_corrcoef",
    "r2_score",
    "relative_squared_error",
]
