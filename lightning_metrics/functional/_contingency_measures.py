"""Every score of two labelings, each written once over :class:`~._contingency.TableStats`.

The nominal association measures (Cramer's V, Tschuprow's T, Pearson's contingency coefficient,
Theil's U) and the label-based clustering scores (mutual information and its normalised and adjusted
forms, Rand and adjusted Rand, Fowlkes-Mallows, homogeneity, completeness, V-measure, cluster
accuracy) are formulas over one contingency table; :data:`MEASURES` lists them with the options they
take. Where two domains compute the same quantity they read it from the same place: Theil's U and
the completeness score are both ``MI / H(preds)`` and differ only in what they return when the
prediction has a single label (0 and 1, as torchmetrics).

The 0/0 and limit conventions are torchmetrics 1.9's, pinned by the tests; they differ from
scikit-learn's in a few degenerate cases (documented per measure).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from lightning_metrics.functional._assignment import max_weight_matching
from lightning_metrics.functional._contingency import TableStats
from lightning_metrics.utilities.prints import warn_at_caller

AVERAGE_METHODS = ("min", "geometric", "arithmetic", "max")
_EPS32 = torch.finfo(torch.float32).eps  # torchmetrics' guards are float32 epsilons


def generalized_mean(a: Tensor, b: Tensor, average_method: str) -> Tensor:
    """The mean of two entropies named by ``average_method`` (normalisers of NMI and AMI)."""
    if average_method == "min":
        return torch.minimum(a, b)
    if average_method == "max":
        return torch.maximum(a, b)
    if average_method == "geometric":
        return (a * b).sqrt()
    return (a + b) / 2


# ------------------------------------------------------------------ clustering scores
def mutual_info(s: TableStats) -> Tensor:
    return s.mutual_info


def normalized_mutual_info(s: TableStats, average_method: str = "arithmetic") -> Tensor:
    # torchmetrics returns the (near) zero MI itself rather than normalising it, also when both
    # labelings have a single label (scikit-learn returns 1.0 there)
    if s.mutual_info.abs() <= _EPS32:
        return s.mutual_info
    return s.mutual_info / generalized_mean(s.entropy_preds, s.entropy_target, average_method)


def adjusted_mutual_info(s: TableStats, average_method: str = "arithmetic") -> Tensor:
    emi = s.expected_mutual_info
    normalizer = generalized_mean(s.entropy_preds, s.entropy_target, average_method)
    rounding = 1e-12 * max(1.0, float(normalizer))
    if normalizer > 0 and (normalizer - emi).abs() <= rounding and (s.mutual_info - emi).abs() <= rounding:
        # MI = E[MI] = normaliser (e.g. two all-singleton labelings): 0/0 up to rounding, whose noise
        # torchmetrics returns (0.0 or 1.0 by sample size); the agreement is as high as it can be
        return torch.ones((), dtype=torch.float64)
    denominator = normalizer - emi
    # kept at least one float32 epsilon away from zero, on its own side (torchmetrics, scikit-learn)
    denominator = denominator.clamp(max=-_EPS32) if denominator < 0 else denominator.clamp(min=_EPS32)
    return (s.mutual_info - emi) / denominator


def rand(s: TableStats) -> float:
    tn, fp, fn, tp = s.pair_counts
    agreeing, pairs = tn + tp, tn + fp + fn + tp
    if agreeing == pairs or pairs == 0:  # one cluster each, or all singletons on both sides
        return 1.0
    return agreeing / pairs


def adjusted_rand(s: TableStats) -> float:
    tn, fp, fn, tp = s.pair_counts  # Python integers: the products below never overflow
    if fn == 0 and fp == 0:
        return 1.0
    return 2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))


def fowlkes_mallows(s: TableStats) -> Tensor:
    n = s.n
    together = (s.table**2).sum() - n
    if together == 0:
        return torch.zeros((), dtype=torch.float64)
    in_preds = (s.preds_sizes**2).sum() - n
    in_target = (s.target_sizes**2).sum() - n
    return (together / in_preds).sqrt() * (together / in_target).sqrt()


def homogeneity(s: TableStats) -> Tensor:
    if s.n == 0:
        return torch.zeros((), dtype=torch.float64)
    if s.entropy_target == 0:
        return torch.ones((), dtype=torch.float64)
    return s.mutual_info / s.entropy_target


def completeness(s: TableStats) -> Tensor:
    # torchmetrics: 1.0 on empty input too (its homogeneity is 0 there)
    if s.n == 0 or s.entropy_preds == 0:
        return torch.ones((), dtype=torch.float64)
    return s.mutual_info / s.entropy_preds


def v_measure(s: TableStats, beta: float = 1.0) -> Tensor:
    h, c = homogeneity(s), completeness(s)
    if h + c == 0:  # torchmetrics returns 1.0 here (scikit-learn: 0.0)
        return torch.ones((), dtype=torch.float64)
    return (1 + beta) * h * c / (beta * h + c)


def cluster_accuracy(s: TableStats) -> Tensor:
    """The share of samples on the diagonal after the best one-to-one relabelling of the clusters."""
    matched = max_weight_matching(s.counts)
    return torch.tensor(float(matched), dtype=torch.float64) / s.n


# ------------------------------------------------------------------ nominal association
def _bias_corrected(s: TableStats, phi_squared: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    rows, cols = s.shape
    dof = s.n - 1
    phi_squared = torch.clamp(phi_squared - (rows - 1) * (cols - 1) / dof, min=0.0)
    return phi_squared, rows - (rows - 1) ** 2 / dof, cols - (cols - 1) ** 2 / dof


def _bias_correction_failed(metric: str) -> Tensor:
    warn_at_caller(
        f"Unable to compute {metric} using bias correction. Please consider to set `bias_correction=False`.",
        UserWarning,
    )
    return torch.tensor(float("nan"), dtype=torch.float64)


def _phi_association(
    s: TableStats, bias_correction: bool, metric: str, scale: Callable[[Any, Any], Any]
) -> Tensor:
    """``sqrt(phi^2 / scale(rows, cols))`` in [0, 1]: Cramer's V and Tschuprow's T, which differ
    only in ``scale``; with ``bias_correction``, phi^2 and the table's sides are corrected first."""
    phi_squared = s.chi_squared(yates=bias_correction) / s.n
    if bias_correction:
        phi_squared, rows, cols = _bias_corrected(s, phi_squared)
        if torch.minimum(rows, cols) == 1:
            return _bias_correction_failed(metric)
    else:
        rows, cols = s.shape
    return (phi_squared / scale(rows, cols)).sqrt().clamp(0.0, 1.0)


def cramers_v(s: TableStats, bias_correction: bool = True) -> Tensor:
    return _phi_association(s, bias_correction, "Cramer's V", lambda rows, cols: min(rows - 1, cols - 1))


def tschuprows_t(s: TableStats, bias_correction: bool = True) -> Tensor:
    return _phi_association(
        s, bias_correction, "Tschuprow's T", lambda rows, cols: torch.as_tensor((rows - 1) * (cols - 1)).sqrt()
    )


def pearsons_contingency_coefficient(s: TableStats) -> Tensor:
    phi_squared = s.chi_squared() / s.n
    return (phi_squared / (1 + phi_squared)).sqrt().clamp(0.0, 1.0)


def theils_u(s: TableStats) -> Tensor:
    """U(preds | target) = MI / H(preds); an int64 0 when ``preds`` has a single value (torchmetrics)."""
    if s.entropy_preds == 0:
        return torch.tensor(0)
    return s.mutual_info / s.entropy_preds


# ------------------------------------------------------------------ the table
@dataclass(frozen=True)
class Measure:
    """One score over a table: its formula and the keyword options it reads."""

    score: Callable[..., Any]
    options: tuple[str, ...] = ()

    def __call__(self, stats: TableStats, **options: Any) -> Tensor:
        value = self.score(stats, **{k: options[k] for k in self.options})
        # float32 results, as torchmetrics; Theil's U keeps its int64 zero
        dtype: torch.dtype | None = (
            None if isinstance(value, Tensor) and not value.is_floating_point() else torch.float32
        )
        return stats.result(value, dtype)


MEASURES: dict[str, Measure] = {
    "mutual_info_score": Measure(mutual_info),
    "normalized_mutual_info_score": Measure(normalized_mutual_info, ("average_method",)),
    "adjusted_mutual_info_score": Measure(adjusted_mutual_info, ("average_method",)),
    "rand_score": Measure(rand),
    "adjusted_rand_score": Measure(adjusted_rand),
    "fowlkes_mallows_index": Measure(fowlkes_mallows),
    "homogeneity_score": Measure(homogeneity),
    "completeness_score": Measure(completeness),
    "v_measure_score": Measure(v_measure, ("beta",)),
    "cluster_accuracy": Measure(cluster_accuracy),
    "cramers_v": Measure(cramers_v, ("bias_correction",)),
    "tschuprows_t": Measure(tschuprows_t, ("bias_correction",)),
    "pearsons_contingency_coefficient": Measure(pearsons_contingency_coefficient),
    "theils_u": Measure(theils_u),
}
