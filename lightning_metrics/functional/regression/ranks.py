"""Rank correlations: Spearman's rho and Kendall's tau (variants a, b, c, with an optional asymptotic test).

Both need every observation (ranks are global), so the modular forms keep ``cat`` states of columns.

Neither takes sample weights: there is no one standard weighted Spearman's rho or Kendall's tau (weighted
ranks, Pearson on weighted mid-ranks and scipy's ``weightedtau``, which weighs ranks rather than samples, give
different numbers, and scikit-learn has none), so ``sample_weight`` other than ``None`` raises.

>>> import torch
>>> spearman_corrcoef(torch.tensor([2.5, 0.0, 2.0, 8.0]), torch.tensor([3.0, -0.5, 2.0, 7.0]))
tensor(1.0000)
>>> kendall_rank_corrcoef(torch.tensor([2.5, 0.0, 2.0, 8.0]), torch.tensor([3.0, -0.5, 2.0, 7.0]))
tensor(1.)
"""

from __future__ import annotations

import math
from typing import Any, Literal

import torch
from torch import Tensor

from lightning_metrics.functional.regression._checks import (
    check_bool,
    check_columns,
    check_floating,
    check_same_shape,
)
from lightning_metrics.functional.regression.moment_measures import result_dtype
from lightning_metrics.utilities.exceptions import MetricInputError

KENDALL_VARIANTS = ("a", "b", "c")
KENDALL_ALTERNATIVES = ("two-sided", "less", "greater")


def refuse_sample_weight(sample_weight: Any, measure: str) -> None:
    """Raise unless ``sample_weight`` is ``None``: a rank correlation has no one standard weighted form.

    >>> refuse_sample_weight(torch.ones(3), "spearman_corrcoef")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    lightning_metrics.utilities.exceptions.MetricInputError: Argument `sample_weight` is not supported by ...
    """
    if sample_weight is not None:
        raise MetricInputError(
            f"Argument `sample_weight` is not supported by {measure}: a rank correlation has no one standard"
            " weighted definition (weighted ranks and scipy's weightedtau give different values);"
            " pass sample_weight=None"
        )


def check_correlation_columns(preds: Tensor, target: Tensor, num_outputs: int, floating: bool) -> None:
    """Shapes (and dtypes) a rank correlation accepts: ``(N,)``/``(N, 1)`` or ``(N, num_outputs)``."""
    if floating:
        check_floating("preds", preds)
        check_floating("target", target)
    check_same_shape(preds, target)
    if preds.ndim > 2:
        raise MetricInputError(f"Expected 1D or 2D `preds`/`target`, got preds.shape={tuple(preds.shape)}")
    check_columns(preds, num_outputs, strict_single=True)


def _average_ranks(x: Tensor) -> Tensor:
    """1-based ranks of a 1D tensor, ties sharing the mean of their ranks, in float64."""
    _, inverse, counts = torch.unique(x, sorted=True, return_inverse=True, return_counts=True)
    last = counts.cumsum(0).to(torch.float64)
    return (last - (counts.to(torch.float64) - 1) / 2)[inverse]


def spearman_from_columns(preds: Tensor, target: Tensor, eps: float = 1e-6) -> Tensor:
    """Spearman's rho per column of ``(N, d)`` inputs (Pearson on average ranks, ``eps`` as torchmetrics)."""
    rp = torch.stack([_average_ranks(c) for c in preds.t()], dim=1)
    rt = torch.stack([_average_ranks(c) for c in target.t()], dim=1)
    rp, rt = rp - rp.mean(0), rt - rt.mean(0)
    cov = (rp * rt).mean(0)
    std_p, std_t = (rp * rp).mean(0).sqrt(), (rt * rt).mean(0).sqrt()
    return (cov / (std_p * std_t + eps)).clamp(-1.0, 1.0)


def spearman_corrcoef(preds: Tensor, target: Tensor, *, sample_weight: Any = None) -> Tensor:
    """Spearman's rank correlation coefficient, per column for ``(N, d)`` inputs (``sample_weight``: not
    supported, see the module).

    >>> import torch
    >>> spearman_corrcoef(torch.tensor([[1.0, 2], [2, 1], [3, 3]]), torch.tensor([[1.0, 1], [3, 2], [2, 3]]))
    tensor([0.5000, 0.5000])
    """
    refuse_sample_weight(sample_weight, "spearman_corrcoef")
    check_correlation_columns(preds, target, 1 if preds.ndim < 2 else preds.shape[-1], floating=True)
    cols_p = preds.reshape(-1, 1) if preds.ndim < 2 else preds
    cols_t = target.reshape(-1, 1) if target.ndim < 2 else target
    value = spearman_from_columns(cols_p, cols_t)
    # torchmetrics ranks in the default float dtype, whatever the input dtype.
    return (value.squeeze(0) if preds.ndim < 2 else value).to(torch.get_default_dtype())


def _tie_statistics(x: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """For one column: tied pairs, the two tie terms of the tau variance, and the number of distinct values."""
    _, counts = torch.unique(x, return_counts=True)
    t = counts.to(torch.float64)
    return (
        (t * (t - 1) / 2).sum(),
        (t * (t - 1) * (t - 2)).sum(),
        (t * (t - 1) * (2 * t + 5)).sum(),
        t.new_tensor(float(counts.numel())),
    )


def _inversions(values: Tensor) -> Tensor:
    """The pairs ``i < j`` with ``values[i] > values[j]`` (int64), in O(n log^2 n).

    Bottom-up merge passes: at each width, every element of a right block counts the elements
    of its left block that exceed it (one batched ``searchsorted`` over sorted blocks), then the
    two blocks are merged by sorting. The tail is padded with +inf, which never exceeds anything.

    >>> _inversions(torch.tensor([3.0, 1.0, 2.0, 2.0]))  # 3 > 1, 3 > 2, 3 > 2; equal values do not count
    tensor(3)
    """
    n = values.numel()
    size = 1 << max(n - 1, 0).bit_length()
    merged = torch.cat([values, values.new_full((size - n,), float("inf"))])
    total = torch.zeros((), dtype=torch.int64, device=values.device)
    width = 1
    while width < size:
        blocks = merged.view(-1, 2, width)
        left, right = blocks[:, 0].contiguous(), blocks[:, 1].contiguous()
        total += (width - torch.searchsorted(left, right, right=True)).sum()
        merged = blocks.reshape(-1, 2 * width).sort(dim=1).values.reshape(-1)
        width *= 2
    return total


def _pair_counts(x: Tensor, y: Tensor, tied_x: Tensor, tied_y: Tensor) -> tuple[Tensor, Tensor]:
    """``C - D`` and ``C + D`` over all pairs of one column (float64), in O(n log^2 n) (Knight).

    Sorted by ``x`` and then ``y``, a discordant pair is exactly an inversion of ``y``; the
    pairs tied in neither column number ``P - T_x - T_y + T_xy`` (inclusion-exclusion over the
    tied pairs; ``tied_x`` and ``tied_y`` come from :func:`_tie_statistics`), so ``C - D`` is that
    minus twice the inversions. NaN anywhere gives NaN.
    """
    if bool(torch.isnan(x).any() | torch.isnan(y).any()):
        nan = x.new_full((), float("nan"), dtype=torch.float64)
        return nan, nan
    order = torch.argsort(y, stable=True)
    order = order[torch.argsort(x[order], stable=True)]
    discordant = _inversions(y[order])
    _, joint = torch.unique(torch.stack([x, y], dim=1), dim=0, return_counts=True)
    tied_both = (joint * (joint - 1) // 2).sum()
    n = x.shape[0]
    untied = n * (n - 1) // 2 - tied_x - tied_y + tied_both
    return untied - 2 * discordant, untied


def kendall_from_columns(
    preds: Tensor, target: Tensor, variant: str, alternative: str | None
) -> tuple[Tensor, Tensor | None]:
    """Kendall's tau (and the asymptotic test's p-value if ``alternative``) per column of ``(N, d)`` inputs."""
    n = float(preds.shape[0])
    taus, p_values = [], []
    for x, y in zip(preds.t(), target.t()):
        ties_x, tx1, tx2, unique_x = _tie_statistics(x)
        ties_y, ty1, ty2, unique_y = _tie_statistics(y)
        s, c_plus_d = _pair_counts(x.to(torch.float64), y.to(torch.float64), ties_x, ties_y)
        pairs = n * (n - 1) / 2
        if variant == "a":
            tau = s / c_plus_d
        elif variant == "b":
            tau = s / torch.sqrt((pairs - ties_x) * (pairs - ties_y))
        else:
            m = torch.minimum(unique_x, unique_y)
            tau = 2 * s / ((m - 1) / m * n**2)
        taus.append(tau)
        if alternative is not None:
            base = n * (n - 1) * (2 * n + 5)
            if variant == "a":
                z = 3 * s / math.sqrt(base / 2)
            else:
                m2 = n * (n - 1)
                var = (base - tx2 - ty2) / 18 + 2 * ties_x * ties_y / m2 + tx1 * ty1 / (9 * m2 * (n - 2))
                z = s / torch.sqrt(var)
            p_values.append(_p_value(torch.as_tensor(z, dtype=torch.float64), alternative))
    tau = torch.stack(taus).clamp(-1, 1)
    return tau, (torch.stack(p_values) if alternative is not None else None)


def _p_value(z: Tensor, alternative: str) -> Tensor:
    normal_cdf = lambda v: 0.5 * torch.erfc(-v / math.sqrt(2.0))
    if alternative == "two-sided":
        return 2 * normal_cdf(-z.abs())
    if alternative == "greater":
        return normal_cdf(-z)
    return normal_cdf(z)


def check_kendall_args(variant: object, t_test: object, alternative: object) -> None:
    """Validate Kendall's ``variant``, ``t_test`` and ``alternative``."""
    if variant not in KENDALL_VARIANTS:
        raise ValueError(f"Argument `variant` must be one of {KENDALL_VARIANTS}, got {variant!r}")
    check_bool("t_test", t_test)
    if t_test and alternative not in KENDALL_ALTERNATIVES:
        raise ValueError(
            f"Argument `alternative` must be one of {KENDALL_ALTERNATIVES} when `t_test=True`, got {alternative!r}"
        )


def kendall_rank_corrcoef(
    preds: Tensor,
    target: Tensor,
    variant: Literal["a", "b", "c"] = "b",
    t_test: bool = False,
    alternative: Literal["two-sided", "less", "greater"] | None = "two-sided",
    *, sample_weight: Any = None,
) -> Tensor | tuple[Tensor, Tensor]:
    """Kendall's rank correlation (``variant`` a, b or c); with ``t_test`` also the asymptotic p-value
    (``sample_weight``: not supported, see the module).

    >>> import torch
    >>> preds, target = torch.tensor([2.5, 0.0, 2.0, 8.0]), torch.tensor([3.0, -0.5, 2.0, 1.0])
    >>> kendall_rank_corrcoef(preds, target, t_test=True, alternative="greater")
    (tensor(0.3333), tensor(0.2484))
    """
    refuse_sample_weight(sample_weight, "kendall_rank_corrcoef")
    check_kendall_args(variant, t_test, alternative)
    check_correlation_columns(preds, target, 1 if preds.ndim < 2 else preds.shape[-1], floating=False)
    cols_p = preds.reshape(-1, 1) if preds.ndim < 2 else preds
    cols_t = target.reshape(-1, 1) if target.ndim < 2 else target
    tau, p_value = kendall_from_columns(cols_p, cols_t, variant, alternative if t_test else None)
    return kendall_finalize(tau, p_value, kendall_tau_dtype(variant, preds, target))


def kendall_tau_dtype(variant: str, preds: Tensor, target: Tensor) -> torch.dtype:
    """torchmetrics returns tau-c in the inputs' floating dtype, tau-a and tau-b in the default dtype."""
    return result_dtype(preds, target) if variant == "c" else torch.get_default_dtype()


def kendall_finalize(
    tau: Tensor, p_value: Tensor | None, tau_dtype: torch.dtype
) -> Tensor | tuple[Tensor, Tensor]:
    """Squeeze single-output results and cast as torchmetrics does (p-values in the default dtype)."""
    dtype = torch.get_default_dtype()
    if tau.shape[0] == 1:
        tau = tau.squeeze(0)
        p_value = p_value.squeeze(0) if p_value is not None else None
    if p_value is None:
        return tau.to(tau_dtype)
    return tau.to(tau_dtype), p_value.to(dtype)


__all__ = ["kendall_rank_corrcoef", "spearman_corrcoef"]
