"""Operating points on a curve: precision/recall/sensitivity/specificity at a fixed other value, EER, LogAUC.

Each measure is a selector over one binary curve; multiclass and multilabel apply it to every
one-vs-rest column of the same statistic (:mod:`._curve_core`). Tie-breaking and the values
returned when no point qualifies follow torchmetrics 1.9.
"""

from __future__ import annotations

from typing import Callable, Optional

import torch
from torch import Tensor

from lightning_metrics.functional.classification._curve_core import (
    CurveSpec,
    CurveState,
    pr_curves,
    reduce_scores,
    roc_curves,
)
from lightning_metrics.utilities.prints import warn_at_caller

Selector = Callable[[Tensor, Tensor, Tensor, float], tuple[Tensor, Tensor]]


# ------------------------------------------------------------------------------- selectors
def _first_lexicographic_max(rows: Tensor) -> Tensor:
    """Index of the first row that is maximal column by column (like torchmetrics' ``_lexargmax``)."""
    candidates = torch.arange(rows.shape[0], device=rows.device)
    for k in range(rows.shape[1]):
        # NaN (recall of a class without positives) ranks lowest; NaN == max would drop every row
        column = rows[candidates, k].nan_to_num(nan=-float("inf"))
        candidates = candidates[column == column.max()]
        if candidates.numel() < 2:
            break
    return candidates[0]


def recall_at_precision(
    precision: Tensor, recall: Tensor, thresholds: Tensor, min_precision: float
) -> tuple[Tensor, Tensor]:
    """Highest recall with precision >= ``min_precision`` (ties: higher precision, then threshold)."""
    n = min(recall.shape[0], precision.shape[0], thresholds.shape[0])
    rows = torch.vstack((recall[:n], precision[:n], thresholds[:n])).T
    rows = rows[rows[:, 1] >= min_precision]
    best_recall, best_threshold = torch.tensor(0.0, device=recall.device, dtype=recall.dtype), torch.tensor(0)
    if rows.shape[0] > 0:
        best_recall, _, best_threshold = rows[_first_lexicographic_max(rows)]
    if best_recall == 0.0 or torch.isnan(best_recall):  # no operating point: no threshold either
        best_threshold = torch.tensor(float("nan"), device=thresholds.device, dtype=thresholds.dtype)
    return best_recall, best_threshold


def precision_at_recall(
    precision: Tensor, recall: Tensor, thresholds: Tensor, min_recall: float
) -> tuple[Tensor, Tensor]:
    """Highest precision with recall >= ``min_recall``: first maximum of (precision, recall, threshold)."""
    n = min(recall.shape[0], precision.shape[0], thresholds.shape[0])
    keep = torch.nonzero(recall[:n] >= min_recall).flatten()
    if keep.numel() == 0:
        best = None
    elif bool(torch.isnan(precision[keep]).any() | torch.isnan(recall[keep]).any()):
        # nan breaks the order; Python's tuple max (what torchmetrics uses) defines the answer
        p, r, t = precision.tolist(), recall.tolist(), thresholds.tolist()
        best = int(max(keep.tolist(), key=lambda i: (p[i], r[i], t[i])))
    else:
        rows = torch.stack(
            (precision[keep].double(), recall[keep].double(), thresholds[keep].double()), dim=1
        )
        best = int(keep[_first_lexicographic_max(rows)])
    if best is None:
        best_precision, best_threshold = (
            torch.tensor(0.0, device=precision.device, dtype=precision.dtype),
            None,
        )
    else:
        best_precision, best_threshold = precision[best], thresholds[best]
    if best_precision == 0.0 or best_threshold is None:
        best_threshold = torch.tensor(float("nan"), device=thresholds.device, dtype=thresholds.dtype)
    return best_precision, best_threshold


def _best_where_at_least(
    value: Tensor, other: Tensor, thresholds: Tensor, min_other: float
) -> tuple[Tensor, Tensor]:
    """Highest ``value`` where ``other`` >= ``min_other``; (0, 1e6) when no point qualifies."""
    qualifies = other >= min_other
    if not bool(qualifies.any()):
        return (
            torch.tensor(0.0, device=value.device, dtype=value.dtype),
            torch.tensor(1e6, device=thresholds.device, dtype=thresholds.dtype),
        )
    value, thresholds = value[qualifies], thresholds[qualifies]
    best = torch.argmax(value)
    return value[best], thresholds[best]


def sensitivity_at_specificity(
    fpr: Tensor, tpr: Tensor, thresholds: Tensor, min_specificity: float
) -> tuple[Tensor, Tensor]:
    return _best_where_at_least(tpr, 1 - fpr, thresholds, min_specificity)


def specificity_at_sensitivity(
    fpr: Tensor, tpr: Tensor, thresholds: Tensor, min_sensitivity: float
) -> tuple[Tensor, Tensor]:
    return _best_where_at_least(1 - fpr, tpr, thresholds, min_sensitivity)


def operating_point_compute(
    spec: CurveSpec, state: CurveState, curve: str, select: Selector, minimum: float
) -> tuple[Tensor, Tensor]:
    """Apply ``select`` to the PR (``curve="pr"``) or ROC curve of every column."""
    first, second, thresholds = (pr_curves if curve == "pr" else roc_curves)(spec, state)
    if spec.task == "binary":
        return select(first, second, thresholds, minimum)
    if isinstance(state, Tensor):  # binned: thresholds shared by all columns
        results = [select(a, b, thresholds, minimum) for a, b in zip(first, second)]
    else:
        results = [select(a, b, t, minimum) for a, b, t in zip(first, second, thresholds)]
    return torch.stack([r[0] for r in results]), torch.stack([r[1] for r in results])


# The four operating points, by the name of their minimum (torchmetrics' argument): the curve
# they read and the selector that picks the point.
OPERATING_POINTS: dict[str, tuple[str, Selector]] = {
    "min_recall": ("pr", precision_at_recall),
    "min_precision": ("pr", recall_at_precision),
    "min_specificity": ("roc", sensitivity_at_specificity),
    "min_sensitivity": ("roc", specificity_at_sensitivity),
}


# ------------------------------------------------------------------------------ EER, LogAUC
def _binary_eer(fpr: Tensor, tpr: Tensor) -> Tensor:
    closest = torch.argmin(torch.abs(fpr - (1 - tpr)))
    return (fpr[closest] + (1 - tpr[closest])) / 2


def eer_from_roc(fpr, tpr) -> Tensor:  # type: ignore[no-untyped-def]
    """Equal error rate: where the false positive rate meets the false negative rate."""
    if isinstance(fpr, Tensor) and fpr.ndim == 1:
        return _binary_eer(fpr, tpr)
    return torch.stack([_binary_eer(f, t) for f, t in zip(fpr, tpr)])


def _interp_at(x: Tensor, xp: Tensor, fp: Tensor) -> Tensor:
    """numpy-style interpolation used by torchmetrics' LogAUC: sort ``xp`` (same unstable argsort, so
    tied points come out in the same order), find the left segment, extend the first/last segment."""
    order = torch.argsort(xp)
    xp, fp = xp[order], fp[order]
    slopes = (fp[1:] - fp[:-1]) / (xp[1:] - xp[:-1])
    segment = (torch.searchsorted(xp, x) - 1).clamp(0, slopes.numel() - 1)
    return fp[segment] + slopes[segment] * (x - xp[segment])


def binary_logauc_from_roc(fpr: Tensor, tpr: Tensor, fpr_range: tuple[float, float]) -> Tensor:
    """Area under TPR against log10(FPR) inside ``fpr_range``, divided by the log-range width."""
    # in the curve's dtype: float32 bounds never equal their float64 copies in ``log_fpr`` (torchmetrics fails there)
    bounds = torch.tensor(fpr_range, device=fpr.device, dtype=fpr.dtype if fpr.is_floating_point() else None)
    if fpr.numel() < 2 or tpr.numel() < 2:
        warn_at_caller(
            "At least two values on for the fpr and tpr are required to compute the log AUC. Returns 0 score.",
            UserWarning,
        )
        return torch.tensor(0.0, device=fpr.device)
    tpr = torch.cat([tpr, _interp_at(bounds, fpr, tpr)]).sort().values
    log_fpr = torch.log10(torch.cat([fpr, bounds]).sort().values)
    log_bounds = torch.log10(bounds)
    low = torch.nonzero(log_fpr == log_bounds[0]).flatten()[-1]
    high = torch.nonzero(log_fpr == log_bounds[1]).flatten()[-1]
    area = torch.trapz(tpr[low : high + 1], log_fpr[low : high + 1])
    return area / (log_bounds[1] - log_bounds[0])


def logauc_from_roc(fpr, tpr, fpr_range: tuple[float, float], average: Optional[str]) -> Tensor:  # type: ignore[no-untyped-def]
    scores = torch.stack([binary_logauc_from_roc(f, t, fpr_range) for f, t in zip(fpr, tpr)])
    return reduce_scores(scores, average, None, "LogAUC")
