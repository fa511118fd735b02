"""Argument checks, tensor checks and input formatting for score-based classification metrics.

Score metrics (curves, AUROC, calibration, hinge, ranking) take floating scores that may be
probabilities or logits. As in torchmetrics, scores with any value outside [0, 1] are treated as
logits and pass through a sigmoid (binary, multilabel) or a softmax over classes (multiclass);
the decision is made per call, over the non-ignored scores for binary/multiclass input and over
all scores for multilabel input.

Formatting never drops ignored samples (that would make shapes data-dependent): it returns a
``valid`` mask next to the scores, and the statistics route ignored samples to nothing.
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Any, Optional, Sequence

import torch
from torch import Tensor

from lightning_metrics.functional.classification._inputs import (  # noqa: F401  (re-exported)
    TASKS,
    check_ignore_index,
    check_in,
    check_label_target,
    check_task,
)
from lightning_metrics.functional.classification._inputs import check_count as check_num  # noqa: F401
from lightning_metrics.utilities.exceptions import MetricInputError

# On CPU a Python branch on "any score outside [0, 1]" costs no device sync and skips the transform;
# tests turn it off to run (and check) the sync-free ``torch.where`` path used on accelerators.
CPU_HOST_BRANCH = True


# ------------------------------------------------------------------------ argument checks
# check_task, check_ignore_index and check_num (``num_classes`` / ``num_labels`` above 1) are the count
# metrics' checks (``_inputs``), re-exported for the score-based families


def check_average(average: Any, allowed: Sequence[Any]) -> None:
    check_in("average", average, allowed)


def check_unit_float(name: str, value: Any, low_open: bool = False) -> None:
    """A real number in [0, 1] (or (0, 1] when ``low_open``)."""
    ok = isinstance(value, Real) and not isinstance(value, bool) and not math.isnan(value)
    ok = ok and (0 < value <= 1 if low_open else 0 <= value <= 1)
    if not ok:
        interval = "(0, 1]" if low_open else "[0, 1]"
        raise ValueError(f"Argument `{name}` must be a float in {interval}, got {value!r}")


def check_max_fpr(max_fpr: Any) -> None:
    if max_fpr is not None:
        check_unit_float("max_fpr", max_fpr, low_open=True)


def check_fpr_range(fpr_range: Any) -> None:
    ok = isinstance(fpr_range, tuple) and len(fpr_range) == 2
    ok = ok and all(isinstance(v, Real) and not isinstance(v, bool) for v in fpr_range)
    if not ok or not (0 <= fpr_range[0] < fpr_range[1] <= 1):
        raise ValueError(
            "Argument `fpr_range` must be a tuple (low, high) of floats with 0 <= low < high <= 1, "
            f"got {fpr_range!r}"
        )


def check_thresholds(thresholds: Any) -> None:
    """None, an int > 1, or a non-decreasing list / 1d tensor of floats in [0, 1]."""
    if thresholds is None:
        return
    if isinstance(thresholds, bool):
        raise ValueError(
            f"Argument `thresholds` must be None, an int, a list or a 1d tensor, got {thresholds!r}"
        )
    if isinstance(thresholds, int):
        if thresholds < 2:
            raise ValueError(f"Argument `thresholds` as an integer must be larger than 1, got {thresholds!r}")
        return
    if isinstance(thresholds, (list, tuple)):
        if not all(isinstance(t, Real) and not isinstance(t, bool) for t in thresholds):
            raise ValueError(
                f"Argument `thresholds` as a list must hold floats in [0, 1], got {thresholds!r}"
            )
        values = torch.tensor([float(t) for t in thresholds], dtype=torch.float64)
    elif isinstance(thresholds, Tensor):
        if thresholds.ndim != 1 or not thresholds.is_floating_point():
            raise ValueError(
                "Argument `thresholds` as a tensor must be a 1d floating tensor, "
                f"got shape {tuple(thresholds.shape)} and dtype {thresholds.dtype}"
            )
        values = thresholds.detach()
    else:
        raise ValueError(
            f"Argument `thresholds` must be None, an int, a list or a 1d tensor, got {thresholds!r}"
        )
    if values.numel() == 0:
        raise ValueError(f"Argument `thresholds` must not be empty, got {thresholds!r}")
    if bool(torch.isnan(values).any()) or bool(((values < 0) | (values > 1)).any()):
        raise ValueError(f"Argument `thresholds` must lie in [0, 1], got {_short(thresholds)}")
    if bool((values[1:] < values[:-1]).any()):
        raise ValueError(
            f"Argument `thresholds` must be sorted in increasing order, got {_short(thresholds)}"
        )


def threshold_tensor(thresholds: Any, device: Optional[torch.device] = None) -> Optional[Tensor]:
    """The thresholds as a tensor, like torchmetrics: ``int`` -> ``linspace(0, 1, n)``, list -> float32."""
    if thresholds is None:
        return None
    if isinstance(thresholds, int):
        return torch.linspace(0, 1, thresholds, device=device)
    if isinstance(thresholds, (list, tuple)):
        return torch.tensor([float(t) for t in thresholds], device=device)
    return thresholds.to(device) if device is not None else thresholds


def _short(value: Any) -> str:
    text = repr(value.tolist() if isinstance(value, Tensor) else value)
    return text if len(text) < 120 else text[:117] + "..."


# -------------------------------------------------------------------------- tensor checks
Bounds = Optional[tuple[float, float]]  # the smallest and largest score, read once by the checks


def _extremes(values: Tensor) -> tuple[float, float]:
    """The smallest and largest value of a non-empty tensor: one pass, one read each."""
    low, high = torch.aminmax(values)
    return low.item(), high.item()


def _check_float_preds(preds: Tensor) -> Bounds:
    """Floating scores without NaN; returns their extremes (one pass), which ``normalize_scores`` reuses."""
    if not preds.is_floating_point():
        raise MetricInputError(
            f"Argument `preds` must be a floating tensor of scores or logits, got dtype {preds.dtype}"
        )
    if preds.numel() == 0:
        return None
    bounds = _extremes(preds)
    if math.isnan(bounds[0]) or math.isnan(bounds[1]):  # the extremes are NaN exactly when a score is
        raise MetricInputError("Argument `preds` contains NaN scores, got " + _short(preds))
    return bounds


def _check_int_target(target: Tensor) -> None:
    check_label_target(target)  # integers, or floats holding whole numbers


def _check_binary_values(target: Tensor, ignore_index: Optional[int]) -> None:
    if target.numel() == 0:
        return
    low, high = _extremes(target)
    if low >= 0 and high <= 1:  # one pass for the common case
        return
    bad = (target != 0) & (target != 1)
    if ignore_index is not None:
        bad &= target != ignore_index
    if bool(bad.any()):
        allowed = [0, 1] if ignore_index is None else [0, 1, ignore_index]
        raise MetricInputError(
            f"Argument `target` must only hold values {allowed}, got {_short(torch.unique(target[bad]))}"
        )


def validate_binary(
    preds: Tensor, target: Tensor, ignore_index: Optional[int], float_preds: bool = True
) -> Bounds:
    """Same shapes, integer target in {0, 1} (or ignore_index), floating scores without NaN (returns the
    scores' extremes)."""
    if preds.shape != target.shape:
        raise MetricInputError(
            f"Arguments `preds` and `target` must have the same shape, got {tuple(preds.shape)} and "
            f"{tuple(target.shape)}"
        )
    _check_int_target(target)
    bounds = _check_float_preds(preds) if float_preds else None
    _check_binary_values(target, ignore_index)
    return bounds


def validate_multiclass(preds: Tensor, target: Tensor, num_classes: int, ignore_index: Optional[int]) -> Bounds:
    """``preds`` (N, C, ...) floating scores, ``target`` (N, ...) labels in [0, C) (or ignore_index); returns
    the scores' extremes."""
    if (
        preds.ndim != target.ndim + 1
        or preds.shape[0] != target.shape[0]
        or preds.shape[2:] != target.shape[1:]
    ):
        raise MetricInputError(
            "Arguments `preds` and `target` must have shapes (N, C, ...) and (N, ...), got "
            f"{tuple(preds.shape)} and {tuple(target.shape)}"
        )
    if preds.shape[1] != num_classes:
        raise MetricInputError(
            f"Argument `preds` must have `num_classes`={num_classes} scores in dim 1, "
            f"got shape {tuple(preds.shape)}"
        )
    _check_int_target(target)
    bounds = _check_float_preds(preds)
    if target.numel() == 0:
        return bounds
    low, high = _extremes(target)
    if low >= 0 and high < num_classes:  # one pass for the common case
        return bounds
    bad = (target < 0) | (target >= num_classes)
    if ignore_index is not None:
        bad &= target != ignore_index
    if bool(bad.any()):
        raise MetricInputError(
            f"Argument `target` must hold class labels in [0, {num_classes}) "
            f"{'' if ignore_index is None else f'or ignore_index={ignore_index} '}"
            f"got {_short(torch.unique(target[bad]))}"
        )
    return bounds


def validate_multilabel(preds: Tensor, target: Tensor, num_labels: int, ignore_index: Optional[int]) -> Bounds:
    """``preds`` and ``target`` (N, L, ...), floating scores, target in {0, 1} (or ignore_index); returns the
    scores' extremes."""
    if preds.shape != target.shape:
        raise MetricInputError(
            f"Arguments `preds` and `target` must have the same shape, got {tuple(preds.shape)} and "
            f"{tuple(target.shape)}"
        )
    if preds.ndim < 2 or preds.shape[1] != num_labels:
        raise MetricInputError(
            f"Argument `preds` must have `num_labels`={num_labels} scores in dim 1, "
            f"got shape {tuple(preds.shape)}"
        )
    _check_int_target(target)
    bounds = _check_float_preds(preds)
    _check_binary_values(target, ignore_index)
    return bounds


# ----------------------------------------------------------------------------- formatting
def normalize_scores(
    scores: Tensor, kind: Optional[str], valid: Optional[Tensor] = None, bounds: Bounds = None
) -> Tensor:
    """Apply sigmoid/softmax when any (valid) score lies outside [0, 1], without a host sync off-CPU.

    A NaN score counts as outside, as in torchmetrics. ``bounds``: the scores' extremes, read already by
    the input checks (used when no position is masked).
    """
    if not kind or scores.numel() == 0:
        return scores
    transform = torch.sigmoid if kind == "sigmoid" else (lambda x: x.softmax(dim=1))
    # (a compiled update keeps the branch-free form: a host read would be a data-dependent guard)
    if CPU_HOST_BRANCH and scores.device.type == "cpu" and not torch.compiler.is_compiling():
        if valid is None:  # one pass: min and max (none when the checks read them)
            low, high = bounds if bounds is not None else _extremes(scores)
            inside = low >= 0 and high <= 1  # False for NaN, as torchmetrics
        else:
            mask = valid if valid.ndim == scores.ndim else valid.unsqueeze(-1)
            inside = not bool((~((scores >= 0) & (scores <= 1)) & mask).any())
        return scores if inside else transform(scores)
    outside = ~((scores >= 0) & (scores <= 1))
    if valid is not None:
        outside = outside & (valid if valid.ndim == scores.ndim else valid.unsqueeze(-1))
    return torch.where(outside.any(), transform(scores), scores)


def _labels_and_mask(target: Tensor, ignore_index: int | None) -> tuple[Tensor, Tensor | None]:
    """The targets as integer labels (whole-number float targets, e.g. kept for ``BCEWithLogitsLoss``,
    become ``long``) and the valid mask (None when nothing can be ignored), taken before the cast."""
    valid = None if ignore_index is None else target != ignore_index
    return (target.long() if target.is_floating_point() else target), valid


def _columns(x: Tensor, num: int) -> Tensor:
    """(N, C, ...) -> (N*, C): one row per sample and position, one column per class or label."""
    if x.ndim == 2:
        return x
    return x.transpose(0, 1).reshape(num, -1).T


def format_binary(
    preds: Tensor, target: Tensor, ignore_index: Optional[int], normalization: Optional[str] = "sigmoid",
    validate: bool = False,
) -> tuple[Tensor, Tensor, Optional[Tensor]]:
    """Flatten to (N,) scores and targets plus the valid mask (None when nothing can be ignored).

    ``validate=True`` first runs :func:`validate_binary` (likewise for the multiclass and multilabel
    formats): the first step of every score statistic, functional or modular, takes the metric's
    ``validate_args``.
    """
    bounds = validate_binary(preds, target, ignore_index) if validate else None
    target, valid = _labels_and_mask(target.flatten(), ignore_index)
    return normalize_scores(preds.flatten(), normalization, valid, bounds), target, valid


def format_multiclass(
    preds: Tensor, target: Tensor, num_classes: int, ignore_index: Optional[int], validate: bool = False
) -> tuple[Tensor, Tensor, Optional[Tensor]]:
    """(N, C, ...) scores -> (N*, C) softmax-normalized scores, (N*,) targets and the valid row mask."""
    bounds = validate_multiclass(preds, target, num_classes, ignore_index) if validate else None
    target, valid = _labels_and_mask(target.flatten(), ignore_index)
    return normalize_scores(_columns(preds, num_classes), "softmax", valid, bounds), target, valid


def format_multilabel(
    preds: Tensor, target: Tensor, num_labels: int, ignore_index: Optional[int], validate: bool = False
) -> tuple[Tensor, Tensor, Optional[Tensor]]:
    """(N, L, ...) -> (N*, L) sigmoid-normalized scores (decided over all entries), targets and mask."""
    bounds = validate_multilabel(preds, target, num_labels, ignore_index) if validate else None
    target, valid = _labels_and_mask(_columns(target, num_labels), ignore_index)
    return normalize_scores(_columns(preds, num_labels), "sigmoid", bounds=bounds), target, valid
