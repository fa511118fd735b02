"""Curves and areas written once: binary curves, one-vs-rest columns, curve averaging, AUROC and AP.

A curve statistic is either exact or binned:

- exact: ``(preds, target)`` as formatted by :mod:`._scores` (ignored samples still inside, they
  are masked here at compute time, where a host sync is harmless), and ``(preds, target, weight)``
  with sample weights (float64, one per entry of ``target``);
- binned: the multi-threshold confusion matrix of :mod:`._binned`, ``(T, 2, 2)`` or ``(T, C, 2, 2)``
  (float64 sums of the weights with sample weights).

Sample weights follow :mod:`lightning_metrics.utilities.sample_weight`; here a zero weight removes the
sample from the exact curves before anything else (its score is no threshold, as in scikit-learn), and
the cumulative counts at every distinct score are cumulative sums of weights.

Multiclass and multilabel inputs are split into one-vs-rest columns; every column goes through
the same binary curve code, and the per-column results are averaged by one operator.
Values, dtypes and conventions follow torchmetrics 1.9 (including its choices for classes
without positives); the module never imports it.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional, Union

import torch
from torch import Tensor

from lightning_metrics.functional.classification._binned import binned_confmat
from lightning_metrics.functional.classification._scores import (
    _columns,
    format_binary,
    format_multiclass,
    format_multilabel,
)
from lightning_metrics.utilities.sample_weight import as_sample_weight
from lightning_metrics.utilities.prints import warn_at_caller

CurveState = Union[Tensor, tuple[Tensor, Tensor], tuple[Tensor, Tensor, Tensor]]
Curves = Union[tuple[Tensor, Tensor, Tensor], tuple[list[Tensor], list[Tensor], list[Tensor]]]


class CurveSpec(NamedTuple):
    """What determines a curve statistic: task, column count (1 for binary), thresholds, ignore_index."""

    task: str
    num: int
    thresholds: Optional[Tensor]
    ignore_index: Optional[int]
    normalization: Optional[str] = "sigmoid"


# --------------------------------------------------------------------------- the statistic
def curve_update(
    spec: CurveSpec, preds: Tensor, target: Tensor, validate: bool = False, sample_weight: Any = None
) -> CurveState:
    """The statistic of one batch: formatted ``(preds, target)`` (exact) or a confusion matrix (binned);
    ``validate`` checks the inputs first (the format's checks, whose reading of the scores' extremes the
    normalization reuses), and the values of ``sample_weight``. With ``sample_weight``: ``(preds, target,
    weight)`` (exact) or a float64 confusion matrix of weight sums (binned)."""
    weight = None
    if sample_weight is not None:
        weight = as_sample_weight(sample_weight, target.shape, device=target.device, validate=validate)
    if spec.task == "binary":
        scores, target, valid = format_binary(preds, target, spec.ignore_index, spec.normalization, validate)
    elif spec.task == "multiclass":
        scores, target, valid = format_multiclass(preds, target, spec.num, spec.ignore_index, validate)
    else:
        scores, target, valid = format_multilabel(preds, target, spec.num, spec.ignore_index, validate)
    if weight is not None:  # laid out as the formatted target: (N*,), or (N*, L) for multilabel
        weight = _columns(weight, spec.num) if spec.task == "multilabel" else weight.reshape(-1)
    if spec.thresholds is None:
        return (scores, target) if weight is None else (scores, target, weight)
    if spec.task == "multiclass":
        positive = target.unsqueeze(1) == torch.arange(spec.num, device=target.device)
    else:
        positive = target == 1
    return binned_confmat(scores, positive, spec.thresholds.to(scores.device), valid, weight)


# ---------------------------------------------------------------------------- exact curves
def _clf_curve(scores: Tensor, positive: Tensor, weight: Optional[Tensor] = None) -> tuple[Tensor, Tensor, Tensor]:
    """False and true positive counts at every distinct score, scores taken in decreasing order (with
    ``weight``: float64 sums of the weights, every tie counted whole at its score)."""
    if scores.numel() == 0:  # a shape check (no host sync); indexing the empty curve would fail obscurely
        raise ValueError(
            "Argument `target`: no samples to compute the curve from (only empty batches, or every target "
            "equals `ignore_index`)"
        )
    order = torch.argsort(scores, descending=True)
    scores, positive = scores[order], positive[order].long()
    distinct = torch.nonzero((scores[1:] - scores[:-1]) != 0).flatten()
    last = torch.cat((distinct, distinct.new_full((1,), positive.numel() - 1)))
    if weight is not None:
        weight = weight[order].to(torch.float64)
        tps = torch.cumsum(weight * positive, dim=0)[last]
        return torch.cumsum(weight, dim=0)[last] - tps, tps, scores[last]
    tps = torch.cumsum(positive, dim=0)[last]
    return 1 + last - tps, tps, scores[last]


def _rates(values: Tensor) -> Tensor:
    """Ratios of weighted (float64) counts in the dtype the integer counts give (the default float)."""
    return values.to(torch.get_default_dtype()) if values.dtype == torch.float64 else values


def exact_pr(
    scores: Tensor, positive: Tensor, no_positive_override: bool, weight: Optional[Tensor] = None
) -> tuple[Tensor, Tensor, Tensor]:
    """Precision, recall (ending at (1, 0)) and increasing thresholds."""
    fps, tps, thresholds = _clf_curve(scores, positive, weight)
    precision = _rates(tps / (tps + fps))
    recall = _rates(tps / tps[-1])
    if no_positive_override:
        warn_at_caller(
            "No positive samples found in target, recall is undefined. Setting recall to one for all thresholds.",
            UserWarning,
        )
        recall = torch.ones_like(recall)
    one, zero = precision.new_ones(1), recall.new_zeros(1)
    return torch.cat((precision.flip(0), one)), torch.cat((recall.flip(0), zero)), thresholds.flip(0)


def exact_roc(scores: Tensor, positive: Tensor, weight: Optional[Tensor] = None) -> tuple[Tensor, Tensor, Tensor]:
    """False and true positive rates starting at (0, 0), with decreasing thresholds (first is 1)."""
    fps, tps, thresholds = _clf_curve(scores, positive, weight)
    tps = torch.cat((tps.new_zeros(1), tps))
    fps = torch.cat((fps.new_zeros(1), fps))
    thresholds = torch.cat((thresholds.new_ones(1), thresholds))
    fpr = _rate_or_zero(
        fps,
        thresholds,
        "No negative samples in targets, false positive value should be meaningless: the false positive"
        " rate is set to zero.",
    )
    tpr = _rate_or_zero(
        tps,
        thresholds,
        "No positive samples in targets, true positive value should be meaningless: the true positive"
        " rate is set to zero.",
    )
    return fpr, tpr, thresholds


def _rate_or_zero(counts: Tensor, thresholds: Tensor, warning: str) -> Tensor:
    """Cumulative ``counts`` over their total; zeros, with ``warning``, when the total is not positive."""
    if counts[-1] <= 0:
        warn_at_caller(warning, UserWarning)
        return torch.zeros_like(thresholds)
    return _rates(counts / counts[-1])


# --------------------------------------------------------------------------- binned curves
def _ratio(num: Tensor, den: Tensor, zero_division: Optional[float]) -> Tensor:
    num = num if num.is_floating_point() else num.float()
    den = den if den.is_floating_point() else den.float()
    if zero_division is None:  # 0/0 -> nan
        return num / den
    return torch.where(den != 0, num / den, torch.full((), zero_division, dtype=num.dtype, device=num.device))


def _binned_ratio(num: Tensor, den: Tensor, zero_division: Optional[float]) -> Tensor:
    """:func:`_ratio` of binned counts, float32 as for integer counts also when the counts are weighted
    (float64 sums, divided in float64)."""
    return _ratio(num, den, zero_division).float()


def binned_pr(confmat: Tensor, thresholds: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """(T, [C,] 2, 2) -> precision, recall of shape ([C,] T + 1) and the thresholds."""
    tps, fps, fns = confmat[..., 1, 1], confmat[..., 0, 1], confmat[..., 1, 0]
    precision = _binned_ratio(tps, tps + fps, None)
    recall = _binned_ratio(tps, tps + fns, None)
    precision = torch.cat((precision, precision.new_ones(1, *precision.shape[1:]))).movedim(0, -1)
    recall = torch.cat((recall, recall.new_zeros(1, *recall.shape[1:]))).movedim(0, -1)
    return precision, recall, thresholds


def binned_roc(confmat: Tensor, thresholds: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """(T, [C,] 2, 2) -> fpr, tpr of shape ([C,] T) and decreasing thresholds."""
    tps, fps, fns, tns = confmat[..., 1, 1], confmat[..., 0, 1], confmat[..., 1, 0], confmat[..., 0, 0]
    tpr = _binned_ratio(tps, tps + fns, 0.0).flip(0).movedim(0, -1)
    fpr = _binned_ratio(fps, fps + tns, 0.0).flip(0).movedim(0, -1)
    return fpr, tpr, thresholds.flip(0)


# ----------------------------------------------------------------------- one-vs-rest columns
Column = tuple[Tensor, Tensor, bool, Optional[Tensor]]


def _kept(target: Tensor, weight: Optional[Tensor], ignore_index: Optional[int]) -> Optional[Tensor]:
    """The entries a curve counts: not ignored, and of nonzero weight (None: all of them)."""
    keep = None if ignore_index is None else target != ignore_index
    if weight is not None:
        keep = weight != 0 if keep is None else keep & (weight != 0)
    return keep


def _split(state: tuple[Tensor, ...]) -> tuple[Tensor, Tensor, Optional[Tensor]]:
    """``(preds, target, weight)`` of an exact state (weight None when unweighted)."""
    return state[0], state[1], state[2] if len(state) > 2 else None


def exact_columns(spec: CurveSpec, state: tuple[Tensor, ...]) -> list[Column]:
    """Per column: (scores, positive mask, torchmetrics' "all targets are 0" flag, weights or None) after
    masking ignored and zero-weight entries."""
    preds, target, weight = _split(state)
    if spec.task == "multilabel":
        columns = []
        for c in range(spec.num):
            scores, labels = preds[:, c], target[:, c]
            column_weight = None if weight is None else weight[:, c]
            keep = _kept(labels, column_weight, spec.ignore_index)
            if keep is not None:
                scores, labels = scores[keep], labels[keep]
                column_weight = None if column_weight is None else column_weight[keep]
            columns.append((scores, labels == 1, bool((labels == 0).all()), column_weight))
        return columns
    keep = _kept(target, weight, spec.ignore_index)
    if keep is not None:
        preds, target = preds[keep], target[keep]
        weight = None if weight is None else weight[keep]
    all_zero = bool((target == 0).all())
    if spec.task == "binary":
        return [(preds, target == 1, all_zero, weight)]
    # torchmetrics checks "all targets are 0" (not "no target is c") for every class: kept as is
    return [(preds[:, c], target == c, all_zero, weight) for c in range(spec.num)]


def micro_state(spec: CurveSpec, state: CurveState) -> CurveState:
    """All columns pooled into one binary statistic (multiclass: one-hot targets)."""
    if isinstance(state, Tensor):
        return state.sum(1)
    preds, target, weight = _split(state)
    if spec.task == "multiclass":
        keep = _kept(target, weight, spec.ignore_index)
        if keep is not None:
            preds, target = preds[keep], target[keep]
            weight = None if weight is None else weight[keep]
        onehot = target.unsqueeze(1) == torch.arange(spec.num, device=target.device)
        if weight is not None:
            weight = weight.unsqueeze(1).expand(-1, spec.num).flatten()
            return preds.flatten(), onehot.flatten().long(), weight
        return preds.flatten(), onehot.flatten().long()
    preds, target = preds.flatten(), target.flatten()
    weight = None if weight is None else weight.flatten()
    keep = _kept(target, weight, spec.ignore_index)
    if keep is not None:
        preds, target = preds[keep], target[keep]
        weight = None if weight is None else weight[keep]
    return (preds, target) if weight is None else (preds, target, weight)


def _binary_spec(spec: CurveSpec) -> CurveSpec:
    return spec._replace(task="binary", num=1, ignore_index=None)


def pr_curves(spec: CurveSpec, state: CurveState) -> Curves:
    """Per-column precision-recall curves: tensors when binned, lists when exact (binary: one curve)."""
    if isinstance(state, Tensor):
        return binned_pr(state, spec.thresholds.to(state.device))
    curves = [exact_pr(*column) for column in exact_columns(spec, state)]  # type: ignore[arg-type]
    if spec.task == "binary":
        return curves[0]
    return tuple(list(part) for part in zip(*curves))  # type: ignore[return-value]


def roc_curves(spec: CurveSpec, state: CurveState) -> Curves:
    """Per-column ROC curves: tensors when binned, lists when exact (binary: one curve)."""
    if isinstance(state, Tensor):
        return binned_roc(state, spec.thresholds.to(state.device))
    curves = [exact_roc(scores, positive, weight) for scores, positive, _, weight in exact_columns(spec, state)]
    if spec.task == "binary":
        return curves[0]
    return tuple(list(part) for part in zip(*curves))  # type: ignore[return-value]


# ------------------------------------------------------------------------- curve averaging
def interp(x: Tensor, xp: Tensor, fp: Tensor) -> Tensor:
    """Piecewise-linear interpolation; the segment of ``x`` is the count of ``xp`` values <= ``x``.

    Counting (rather than assuming sorted ``xp``) reproduces torchmetrics on non-monotone curves
    such as precision; sorting ``xp`` once makes the count O(log n) instead of O(n) per point.
    """
    slope = _ratio(fp[1:] - fp[:-1], xp[1:] - xp[:-1], 0.0)
    intercept = fp[:-1] - slope * xp[:-1]
    segment = torch.searchsorted(xp.sort().values.contiguous(), x.contiguous(), right=True) - 1
    segment = segment.clamp(0, slope.numel() - 1)
    return slope[segment] * x + intercept[segment]


def average_curves(
    xs: Union[Tensor, list[Tensor]],
    ys: Union[Tensor, list[Tensor]],
    thresholds: Union[Tensor, list[Tensor]],
    descending_thresholds: bool,
) -> tuple[Tensor, Tensor, Tensor]:
    """Macro curve: every column interpolated at the pooled, sorted x values, then averaged."""
    num = len(xs)
    pooled_thresholds = thresholds.repeat(num) if isinstance(thresholds, Tensor) else torch.cat(thresholds)
    pooled_thresholds = pooled_thresholds.sort(descending=descending_thresholds).values
    mean_x = (xs.flatten() if isinstance(xs, Tensor) else torch.cat(xs)).sort().values
    mean_y = torch.zeros_like(mean_x)
    for x, y in zip(xs, ys):
        mean_y += interp(mean_x, x, y)
    return mean_x, mean_y / num, pooled_thresholds


def multiclass_curve(kind: str, spec: CurveSpec, state: CurveState, average: Optional[str]) -> Curves:
    """ROC or PR curves of a multiclass statistic: per class, ``micro`` (one-hot pooled) or ``macro``."""
    curve_fn = roc_curves if kind == "roc" else pr_curves
    if average == "micro":
        return curve_fn(_binary_spec(spec), micro_state(spec, state))
    curves = curve_fn(spec, state)
    if average == "macro":
        if kind == "roc":
            return average_curves(curves[0], curves[1], curves[2], descending_thresholds=True)
        precision, recall, thresholds = average_curves(
            curves[0], curves[1], curves[2], descending_thresholds=False
        )
        return precision, recall, thresholds
    return curves


# ---------------------------------------------------------------------- areas and averaging
def reduce_scores(
    scores: Tensor, average: Optional[str], weights: Optional[Tensor] = None, name: str = "Metric"
) -> Tensor:
    """torchmetrics' averaging of per-column scores: nan columns are left out of macro/weighted."""
    if average is None or average == "none":
        return scores
    nan = torch.isnan(scores)
    if bool(nan.any()):
        # the words torchmetrics uses, so that filters written for its warnings match ours
        warn_at_caller(f"{name} score for one or more classes was `nan`. Ignoring these classes in {average}-average.")
    kept = scores[~nan]
    if average == "macro":
        return kept.mean()
    if average == "weighted" and weights is not None:
        kept_weights = _ratio(weights[~nan], weights[~nan].sum(), 0.0)
        return (kept * kept_weights).sum()
    raise ValueError(f"Argument `average` cannot be {average!r} here")


def positives_per_column(spec: CurveSpec, state: CurveState) -> Tensor:
    """Class weights for ``average="weighted"``: the number (the weight sum) of positives of every column."""
    if isinstance(state, Tensor):
        return state[0, :, 1, :].sum(-1).float() if state.is_floating_point() else state[0, :, 1, :].sum(-1)
    preds, target, weight = _split(state)
    if spec.task == "multilabel":
        positive = target == 1
        return (positive.sum(dim=0) if weight is None else (positive * weight).sum(dim=0)).float()
    if spec.ignore_index is not None:
        keep = target != spec.ignore_index
        target, weight = target[keep], None if weight is None else weight[keep]
    return torch.bincount(target, weights=weight, minlength=spec.num).float()


def binary_auroc_from_roc(fpr: Tensor, tpr: Tensor, max_fpr: Optional[float] = None) -> Tensor:
    """Trapezoidal area; with ``max_fpr`` the partial area up to it, McClish-standardized."""
    if max_fpr is None or max_fpr == 1 or fpr.sum() == 0 or tpr.sum() == 0:
        return torch.trapz(tpr, fpr)
    max_area = torch.tensor(max_fpr, device=fpr.device)
    stop = torch.bucketize(max_area, fpr, out_int32=True, right=True)
    weight = (max_area - fpr[stop - 1]) / (fpr[stop] - fpr[stop - 1])
    interp_tpr = torch.lerp(tpr[stop - 1], tpr[stop], weight)
    tpr = torch.cat([tpr[:stop], interp_tpr.view(1)])
    fpr = torch.cat([fpr[:stop], max_area.view(1)])
    partial_auc = torch.trapz(tpr, fpr)
    min_area = 0.5 * max_area**2
    return 0.5 * (1 + (partial_auc - min_area) / (max_area - min_area))


def auroc_compute(
    spec: CurveSpec, state: CurveState, average: Optional[str], max_fpr: Optional[float]
) -> Tensor:
    if spec.task == "binary":
        fpr, tpr, _ = roc_curves(spec, state)
        return binary_auroc_from_roc(fpr, tpr, max_fpr)
    if average == "micro":
        return auroc_compute(_binary_spec(spec), micro_state(spec, state), None, None)
    fpr, tpr, _ = roc_curves(spec, state)
    if isinstance(fpr, Tensor):
        scores = torch.trapz(tpr, fpr, dim=1)
    else:
        scores = torch.stack([torch.trapz(y, x) for x, y in zip(fpr, tpr)])
    return reduce_scores(scores, average, positives_per_column(spec, state), "AUROC")


def _step_area(precision: Tensor, recall: Tensor) -> Tensor:
    return -torch.sum((recall[..., 1:] - recall[..., :-1]) * precision[..., :-1], dim=-1)


def average_precision_compute(spec: CurveSpec, state: CurveState, average: Optional[str]) -> Tensor:
    if spec.task == "binary" or average == "micro":
        binary = spec.task == "binary"
        precision, recall, _ = pr_curves(
            spec if binary else _binary_spec(spec), state if binary else micro_state(spec, state)
        )
        return _step_area(precision.nan_to_num(nan=0.0), recall.nan_to_num(nan=0.0))
    precision, recall, _ = pr_curves(spec, state)
    if isinstance(precision, Tensor):  # binned: undefined points count as zero
        scores = _step_area(precision.nan_to_num(nan=0.0), recall.nan_to_num(nan=0.0))
    else:
        scores = torch.stack([_step_area(p, r) for p, r in zip(precision, recall)])
    return reduce_scores(scores, average, positives_per_column(spec, state), "Average precision")
