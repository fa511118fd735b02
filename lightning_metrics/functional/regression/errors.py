"""Error measures that are sums over observations: MAE, MSLE, log-cosh, Minkowski, MAPE, SMAPE, WMAPE,
Tweedie deviance, critical success index and CRPS.

Each measure has a ``*_sums`` function that validates one batch and returns its float64 sums (what a
modular metric accumulates) and a public function that turns one batch into the value.

MAE, MSLE, log-cosh, Minkowski, MAPE, SMAPE, WMAPE and Tweedie deviance take ``sample_weight=None`` (the rules:
:mod:`lightning_metrics.utilities.sample_weight`): each term is multiplied by its sample's weight and the
count becomes the total weight (float64), so a mean is a weighted mean (scikit-learn's ``sample_weight``),
a zero weight drops the sample and integer weights repeat it. Per-output measures (``num_outputs > 1``) take
one weight per sample (``(N,)`` or a scalar), as scikit-learn.

>>> import torch
>>> mean_absolute_error(torch.tensor([0.0, 1, 2, 3]), torch.tensor([0.0, 1, 2, 2]))
tensor(0.2500)
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import Tensor

from lightning_metrics.functional.regression._checks import (
    check_columns,
    check_num_outputs_arg,
    check_same_shape,
)
from lightning_metrics.functional.regression._statistics import difference
from lightning_metrics.functional.regression.moment_measures import result_dtype
from lightning_metrics.utilities.exceptions import MetricArgumentError, MetricInputError
from lightning_metrics.utilities.sample_weight import as_sample_weight

EPSILON = 1.17e-06  # torchmetrics' (and scikit-learn's) lower bound for percentage-error denominators


def _f64(*tensors: Tensor) -> tuple[Tensor, ...]:
    return tuple(t.to(torch.float64) for t in tensors)


def _wide(*tensors: Tensor) -> tuple[Tensor, ...]:
    """The inputs as they are when all are float32 or float64, else in float64 (no half-precision
    arithmetic, no integer wrap-around): the dtype of the element-wise terms of a sum whose terms are
    non-negative, so that each term is within a few ulps and the float64 sum (``_sum64``) adds no more."""
    if all(t.dtype in _WIDE for t in tensors):
        return tensors
    return _f64(*tensors)


_WIDE = (torch.float32, torch.float64)


def _sum64(terms: Tensor, dim: int | None = None) -> Tensor:
    return terms.sum(dtype=torch.float64) if dim is None else terms.sum(dim=dim, dtype=torch.float64)


def _same_shape_wide(preds: Tensor, target: Tensor) -> tuple[Tensor, ...]:
    """Both inputs in their element-wise dtype (``_wide``), after checking they have the same shape."""
    check_same_shape(preds, target)
    return _wide(preds, target)


def _weight(sample_weight: Any, target: Tensor, num_outputs: int = 1, validate: bool = True) -> Tensor | None:
    """The ``sample_weight`` broadcast to ``target`` (float64; its values checked with ``validate``: the
    ``*_sums`` functions take it, the modular classes pass their ``validate_args``), or ``None``; one weight
    per sample where the outputs are kept apart (their counts are one per batch)."""
    if sample_weight is None:
        return None
    if num_outputs > 1 and isinstance(sample_weight, Tensor) and sample_weight.ndim > 1:
        raise MetricInputError(
            f"Argument `sample_weight` must hold one weight per sample, shape ({target.shape[0]},), with"
            f" num_outputs={num_outputs}, got shape {tuple(sample_weight.shape)}"
        )
    return as_sample_weight(sample_weight, target.shape, device=target.device, validate=validate)


def _weighted_sum(terms: Tensor, weight: Tensor | None, dim: int | None = None) -> tuple[Tensor, Tensor | int]:
    """``sum terms`` (float64) and the count, or with ``weight`` ``sum weight * terms`` and ``sum weight``."""
    if weight is None:
        return _sum64(terms, dim), terms.numel() if dim is None else terms.shape[dim]
    weighted = terms * weight  # float64: the weight is
    if dim is None:
        return weighted.sum(dtype=torch.float64), weight.sum()
    # per-output sums: one weight per sample (``_weight``), so the count is that of any column
    count = weight.select(1, 0).sum() if weight.ndim > 1 else weight.sum()
    return weighted.sum(dim=dim, dtype=torch.float64), count


def _mean(sums: tuple[Tensor, Tensor | int], preds: Tensor, target: Tensor) -> Tensor:
    """A batch's ``(total, count)`` as their mean, in the dtype the functional forms return."""
    total, n = sums
    return (total / n).to(result_dtype(preds, target))


def mean_absolute_error_sums(
    preds: Tensor, target: Tensor, num_outputs: int = 1, sample_weight: Any = None, validate: bool = True
) -> tuple[Tensor, Tensor | int]:
    """Per-output ``sum |preds - target|`` and the number of observations (weighted: see the module)."""
    check_same_shape(preds, target)
    check_columns(preds, num_outputs, strict_single=False)
    weight = _weight(sample_weight, target, num_outputs, validate=validate)
    diff = difference(target, preds)
    if num_outputs == 1:
        diff = diff.reshape(-1)
        weight = None if weight is None else weight.reshape(-1)
    if weight is None:
        return diff.abs().sum(dim=0, dtype=torch.float64), diff.shape[0]
    return _weighted_sum(diff.abs(), weight, dim=0)


def mean_absolute_error(
    preds: Tensor, target: Tensor, num_outputs: int = 1, *, sample_weight: Any = None
) -> Tensor:
    """Mean absolute error (a weighted mean with ``sample_weight``).

    >>> import torch
    >>> mean_absolute_error(torch.tensor([[1.0, 2], [3, 4]]), torch.tensor([[1.0, 4], [3, 1]]), num_outputs=2)
    tensor([0.0000, 2.5000])
    >>> mean_absolute_error(torch.tensor([0.0, 1, 2, 3]), torch.tensor([0.0, 1, 2, 2]), sample_weight=[1, 1, 0, 2])
    tensor(0.5000)
    """
    check_num_outputs_arg(num_outputs)
    return _mean(mean_absolute_error_sums(preds, target, num_outputs, sample_weight), preds, target)


def mean_squared_log_error_sums(
    preds: Tensor, target: Tensor, sample_weight: Any = None, validate: bool = True
) -> tuple[Tensor, Tensor | int]:
    """``sum (log1p(preds) - log1p(target))^2`` and the element count; negative inputs are rejected."""
    check_same_shape(preds, target)
    if preds.numel() and float(torch.minimum(preds, target).min()) < 0:  # one check for both, then name the culprit
        name, tensor = ("preds", preds) if bool(preds.lt(0).any()) else ("target", target)
        raise MetricInputError(
            f"Mean squared log error needs non-negative `{name}`, got a minimum of {tensor.min().item()!r}"
        )
    p, t = _wide(preds, target)
    # log1p(p) - log1p(t) as log1p((p - t) / (1 + t)): within a few ulps even where p and t are close,
    # where the difference of the two logarithms would cancel
    weight = _weight(sample_weight, target, validate=validate)
    return _weighted_sum(torch.log1p((p - t) / (1 + t)).square(), weight)


def mean_squared_log_error(preds: Tensor, target: Tensor, *, sample_weight: Any = None) -> Tensor:
    """Mean squared logarithmic error ``mean (log(1 + preds) - log(1 + target))^2``.

    >>> import torch
    >>> mean_squared_log_error(torch.tensor([0.0, 1, 2, 3]), torch.tensor([0.0, 1, 2, 2]))
    tensor(0.0207)
    """
    return _mean(mean_squared_log_error_sums(preds, target, sample_weight), preds, target)


def log_cosh_error_sums(
    preds: Tensor, target: Tensor, num_outputs: int, sample_weight: Any = None, validate: bool = True
) -> tuple[Tensor, Tensor | int]:
    """Per-output ``sum log(cosh(preds - target))`` (overflow-free form) and the observation count."""
    check_same_shape(preds, target)
    if preds.ndim > 2:
        raise MetricInputError(f"Expected 1D or 2D `preds`/`target`, got preds.shape={tuple(preds.shape)}")
    check_columns(preds, num_outputs, strict_single=True)
    # the difference in the inputs' dtype (within half an ulp of itself: see ``difference``), the rest in float64:
    # log(cosh(d)) = log(exp(d) + exp(-d)) - log(2), one logaddexp kernel that never overflows; float64 keeps the
    # digits that subtracting log(2) from each term cancels for small |d|
    weight = _weight(sample_weight, target, num_outputs, validate=validate)
    d = difference(preds, target).to(torch.float64)
    if d.ndim < 2:
        d = d.reshape(-1, 1)
        weight = None if weight is None else weight.reshape(-1, 1)
    terms = torch.logaddexp(d, -d) - math.log(2.0)
    if weight is None:
        return terms.sum(dim=0), d.shape[0]
    return _weighted_sum(terms, weight, dim=0)


def log_cosh_error(preds: Tensor, target: Tensor, *, sample_weight: Any = None) -> Tensor:
    """Mean of ``log(cosh(preds - target))``, per column for ``(N, d)`` inputs.

    >>> import torch
    >>> log_cosh_error(torch.tensor([3.0, 5.0, 2.5, 7.0]), torch.tensor([2.5, 5.0, 4.0, 8.0]))
    tensor(0.3523)
    """
    num_outputs = 1 if preds.ndim < 2 else preds.shape[-1]
    total, n = log_cosh_error_sums(preds, target, num_outputs, sample_weight)
    return (total / n).squeeze().to(result_dtype(preds, target))


def check_minkowski_p(p: object) -> None:
    """``p`` must be a real number >= 1 (else a ``TorchMetricsUserError``, as torchmetrics raises)."""
    if isinstance(p, bool) or not isinstance(p, (float, int)) or not p >= 1:
        raise MetricArgumentError(f"Argument `p` must be a float or int >= 1, got {p!r}")


def minkowski_distance_sum(
    preds: Tensor, targets: Tensor, p: float, sample_weight: Any = None, validate: bool = True
) -> Tensor:
    """``sum |preds - targets|^p`` over all elements (``sum w |preds - targets|^p`` with ``sample_weight``)."""
    check_same_shape(preds, targets, names=("preds", "targets"))
    check_minkowski_p(p)
    a, b = _wide(preds, targets)
    return _weighted_sum((a - b).abs() ** p, _weight(sample_weight, targets, validate=validate))[0]


def minkowski_distance(preds: Tensor, targets: Tensor, p: float, *, sample_weight: Any = None) -> Tensor:
    """Minkowski distance ``(sum |preds - targets|^p)^(1/p)``.

    >>> import torch
    >>> minkowski_distance(torch.tensor([1.0, 2.8, 3.5, 4.5]), torch.tensor([6.1, 2.11, 3.1, 5.6]), p=3)
    tensor(5.1220)
    """
    return (minkowski_distance_sum(preds, targets, p, sample_weight) ** (1.0 / p)).to(result_dtype(preds, targets))


def mean_absolute_percentage_error_sums(
    preds: Tensor, target: Tensor, sample_weight: Any = None, validate: bool = True
) -> tuple[Tensor, Tensor | int]:
    """``sum |preds - target| / max(|target|, eps)`` and the element count."""
    p, t = _same_shape_wide(preds, target)
    weight = _weight(sample_weight, target, validate=validate)
    return _weighted_sum((p - t).abs() / t.abs().clamp(min=EPSILON), weight)


def mean_absolute_percentage_error(preds: Tensor, target: Tensor, *, sample_weight: Any = None) -> Tensor:
    """Mean absolute percentage error (a fraction, not a percentage).

    >>> import torch
    >>> mean_absolute_percentage_error(torch.tensor([0.9, 15, 1.2e6]), torch.tensor([1, 10, 1e6]))
    tensor(0.2667)
    """
    return _mean(mean_absolute_percentage_error_sums(preds, target, sample_weight), preds, target)


def symmetric_mean_absolute_percentage_error_sums(
    preds: Tensor, target: Tensor, sample_weight: Any = None, validate: bool = True
) -> tuple[Tensor, Tensor | int]:
    """``sum 2 |preds - target| / max(|target| + |preds|, eps)`` and the element count."""
    p, t = _same_shape_wide(preds, target)
    terms = (p - t).abs() / (t.abs() + p.abs()).clamp(min=EPSILON)
    total, count = _weighted_sum(terms, _weight(sample_weight, target, validate=validate))
    return 2 * total, count


def symmetric_mean_absolute_percentage_error(
    preds: Tensor, target: Tensor, *, sample_weight: Any = None
) -> Tensor:
    """Symmetric mean absolute percentage error, in ``[0, 2]``.

    >>> import torch
    >>> symmetric_mean_absolute_percentage_error(torch.tensor([0.9, 15, 1.2e6]), torch.tensor([1, 10, 1e6]))
    tensor(0.2290)
    """
    return _mean(symmetric_mean_absolute_percentage_error_sums(preds, target, sample_weight), preds, target)


def weighted_mean_absolute_percentage_error_sums(
    preds: Tensor, target: Tensor, sample_weight: Any = None, validate: bool = True
) -> tuple[Tensor, Tensor]:
    """``sum |preds - target|`` and ``sum |target|`` (each term times its sample's weight with ``sample_weight``)."""
    p, t = _same_shape_wide(preds, target)
    weight = _weight(sample_weight, target, validate=validate)
    return _weighted_sum((p - t).abs(), weight)[0], _weighted_sum(t.abs(), weight)[0]


def weighted_mean_absolute_percentage_error(
    preds: Tensor, target: Tensor, *, sample_weight: Any = None
) -> Tensor:
    """Weighted MAPE ``sum |preds - target| / sum |target|``.

    (Its own "weights" are the absolute targets.) ``sample_weight`` multiplies a sample's absolute error and
    its absolute target alike: ``sum w |preds - target| / sum w |target|``, so a zero weight drops the
    sample, integer weights repeat it and a constant weight changes nothing.

    >>> import torch
    >>> weighted_mean_absolute_percentage_error(torch.tensor([1.0, 2, 4]), torch.tensor([2.0, 2, 4]))
    tensor(0.1250)
    """
    abs_error, scale = weighted_mean_absolute_percentage_error_sums(preds, target, sample_weight)
    return (abs_error / scale.clamp(min=EPSILON)).to(result_dtype(preds, target))


def check_tweedie_power(power: object) -> None:
    """Tweedie deviance is undefined for ``0 < power < 1``."""
    if isinstance(power, bool) or not isinstance(power, (int, float)) or 0 < power < 1:
        raise ValueError(f"Argument `power` must be a real number outside (0, 1), got {power!r}")


def _require(condition: Tensor, message: str) -> None:
    if condition.numel() and not bool(condition.all()):
        raise MetricInputError(message)


def tweedie_deviance_sums(
    preds: Tensor, targets: Tensor, power: float = 0.0, sample_weight: Any = None, validate: bool = True
) -> tuple[Tensor, Tensor | int]:
    """``sum`` of unit Tweedie deviances for ``power`` and the element count."""
    check_same_shape(preds, targets, names=("preds", "targets"))
    check_tweedie_power(power)
    weight = _weight(sample_weight, targets, validate=validate)
    p, y = _f64(preds, targets)
    if power == 0:
        deviance = (y - p) ** 2
    elif power == 1:
        _require((p > 0) & (y >= 0), f"For power={power}, `preds` must be > 0 and `targets` >= 0")
        deviance = 2 * (torch.xlogy(y, y / p) + p - y)
    elif power == 2:
        _require((p > 0) & (y > 0), f"For power={power}, `preds` and `targets` must be > 0")
        deviance = 2 * (torch.log(p / y) + y / p - 1)
    else:
        if power < 0:
            _require(p > 0, f"For power={power}, `preds` must be > 0")
        elif power < 2:
            _require((p > 0) & (y >= 0), f"For power={power}, `preds` must be > 0 and `targets` >= 0")
        else:
            _require((p > 0) & (y > 0), f"For power={power}, `preds` and `targets` must be > 0")
        deviance = 2 * (
            y.clamp(min=0) ** (2 - power) / ((1 - power) * (2 - power))
            - y * p ** (1 - power) / (1 - power)
            + p ** (2 - power) / (2 - power)
        )
    return _weighted_sum(deviance, weight)


def tweedie_deviance_score(
    preds: Tensor, targets: Tensor, power: float = 0.0, *, sample_weight: Any = None
) -> Tensor:
    """Mean Tweedie deviance (``power`` 0: squared error, 1: Poisson, 2: Gamma, ...).

    >>> import torch
    >>> tweedie_deviance_score(torch.tensor([4.0, 3.0, 2.0, 1.0]), torch.tensor([1.0, 2.0, 3.0, 4.0]), power=2)
    tensor(1.2083)
    """
    return _mean(tweedie_deviance_sums(preds, targets, power, sample_weight), preds, targets)


def critical_success_index_counts(
    preds: Tensor, target: Tensor, threshold: float, keep_sequence_dim: int | None = None
) -> tuple[Tensor, Tensor, Tensor]:
    """Hits, misses and false alarms after thresholding (``>= threshold`` is an event)."""
    check_same_shape(preds, target)
    if keep_sequence_dim is None:
        dims: tuple[int, ...] | None = None
    elif not 0 <= keep_sequence_dim < preds.ndim:
        raise ValueError(
            f"Argument `keep_sequence_dim` must be in [0, {preds.ndim}), got {keep_sequence_dim!r}"
        )
    else:
        dims = tuple(i for i in range(preds.ndim) if i != keep_sequence_dim)
    p, t = preds >= threshold, target >= threshold

    def count(x: Tensor) -> Tensor:
        return (x.sum() if dims is None else x.sum(dim=dims)).to(torch.int64)

    return count(p & t), count(~p & t), count(p & ~t)


def critical_success_index_compute(hits: Tensor, misses: Tensor, false_alarms: Tensor) -> Tensor:
    """``hits / (hits + misses + false_alarms)``, 0 where the denominator is 0."""
    denom = (hits + misses + false_alarms).to(torch.get_default_dtype())
    value = hits.to(denom.dtype) / denom
    return torch.where(denom == 0, torch.zeros_like(value), value)


def critical_success_index(
    preds: Tensor, target: Tensor, threshold: float, keep_sequence_dim: int | None = None
) -> Tensor:
    """Critical success index (threat score) of thresholded predictions.

    >>> import torch
    >>> critical_success_index(torch.tensor([0.2, 0.7, 0.9, 0.1]), torch.tensor([0.6, 0.8, 0.3, 0.2]), 0.5)
    tensor(0.3333)
    """
    return critical_success_index_compute(
        *critical_success_index_counts(preds, target, threshold, keep_sequence_dim)
    )


def crps_sum(preds: Tensor, target: Tensor) -> tuple[Tensor, int]:
    """``sum`` over the batch of the ensemble CRPS and the batch size; ``preds`` is ``(N, members)``."""
    if preds.ndim != 2 or target.ndim != 1 or preds.shape[0] != target.shape[0]:
        raise MetricInputError(
            "Expected `preds` of shape (N, ensemble_members) and `target` of shape (N,),"
            f" got preds.shape={tuple(preds.shape)} and target.shape={tuple(target.shape)}"
        )
    members = preds.shape[1]
    if members < 2:
        raise MetricInputError(f"CRPS needs at least 2 ensemble members, got preds.shape={tuple(preds.shape)}")
    p, t = _f64(preds, target)
    spread_to_target = (p - t.unsqueeze(1)).abs().mean(dim=1)
    # sum_ij |x_i - x_j| over sorted members = 2 sum_i (2i - M - 1) x_(i) (i 1-based): O(M log M), no M^2 memory.
    ranks = torch.arange(1, members + 1, dtype=torch.float64, device=p.device)
    pairwise = 2 * (p.sort(dim=1).values * (2 * ranks - members - 1)).sum(dim=1)
    return (spread_to_target - pairwise / (2 * members * members)).sum(), preds.shape[0]


def continuous_ranked_probability_score(preds: Tensor, target: Tensor) -> Tensor:
    """Continuous ranked probability score of an ensemble forecast ``preds`` (``(N, members)``).

    >>> import torch
    >>> continuous_ranked_probability_score(torch.tensor([[0.0, 1.0], [2.0, 4.0]]), torch.tensor([0.5, 2.0]))
    tensor(0.3750)
    """
    return _mean(crps_sum(preds, target), preds, target)


__all__ = [
    "continuous_ranked_probability_score",
    "critical_success_index",
    "log_cosh_error",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_squared_log_error",
    "minkowski_distance",
    "symmetric_mean_absolute_percentage_error",
    "tweedie_deviance_score",
    "weighted_mean_absolute_percentage_error",
]
