"""Argument checks, tensor checks and label formatting for count-based classification metrics.

Input kinds follow torchmetrics:

- binary ``(N, ...)`` and multilabel ``(N, L, ...)``: integer/bool predictions are labels; floating
  predictions are probabilities, or logits when any value lies outside [0, 1] (a sigmoid is then
  applied), and are thresholded with ``preds > threshold``;
- multiclass: ``(N, ...)`` integer labels, or ``(N, C, ...)`` scores reduced with ``argmax`` (or
  ``topk`` for ``top_k > 1``) over the class dimension; no softmax is needed for either.

Targets are integer (or bool) labels, or floats holding whole numbers (as torchmetrics accepts). ``ignore_index`` names a target value whose positions
count nowhere; formatting never drops them (that would make shapes data-dependent), it returns a
``valid`` mask (or ``None`` when nothing can be ignored) and the statistics send ignored
positions to a discarded histogram bin.

Tensor checks run only with ``validate_args=True``; they read values (a host sync) and raise
before any state changes. Their messages name the argument and the offending value.
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Any, Optional, Sequence

import torch
from torch import Tensor

from lightning_metrics.utilities.checks import check_optional_int
from lightning_metrics.utilities.exceptions import MetricInputError

TASKS = ("binary", "multiclass", "multilabel")
AVERAGES = ("micro", "macro", "weighted", "none", None)
MULTIDIM_AVERAGES = ("global", "samplewise")
NORMALIZATIONS = ("true", "pred", "all", "none", None)
KAPPA_WEIGHTS = ("linear", "quadratic", "none", None)


# ------------------------------------------------------------------------ argument checks
def check_in(name: str, value: Any, allowed: Sequence[Any]) -> None:
    """Raise ``ValueError`` naming ``name`` unless ``value`` is one of ``allowed``.

    >>> check_in("average", "mean", AVERAGES)
    Traceback (most recent call last):
    ...
    ValueError: Argument `average` must be one of ('micro', 'macro', 'weighted', 'none', None), got 'mean'
    """
    if not any(value is a or (a is not None and value == a) for a in allowed):
        raise ValueError(f"Argument `{name}` must be one of {tuple(allowed)}, got {value!r}")


def check_task(task: Any, allowed: Sequence[str] = TASKS) -> str:
    """Return the lower-cased task name (enum-like values accepted)."""
    value = getattr(task, "value", task)
    if not isinstance(value, str) or value.lower() not in allowed:
        raise ValueError(f"Argument `task` must be one of {tuple(allowed)}, got {task!r}")
    return value.lower()


def check_count(name: str, value: Any) -> None:
    """``num_classes`` / ``num_labels``: an int larger than 1."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 2:
        raise ValueError(f"Argument `{name}` must be an integer larger than 1, got {value!r}")


def check_threshold(threshold: Any) -> None:
    if isinstance(threshold, bool) or not isinstance(threshold, Real) or not 0 <= threshold <= 1:
        raise ValueError(f"Argument `threshold` must be a float in the [0, 1] range, got {threshold!r}")


def check_ignore_index(ignore_index: Any) -> None:
    check_optional_int("ignore_index", ignore_index)


def check_zero_division(zero_division: Any) -> None:
    if isinstance(zero_division, bool) or zero_division not in (0, 1):
        raise ValueError(f"Argument `zero_division` must be 0 or 1, got {zero_division!r}")


def check_top_k(top_k: Any, num_classes: int) -> None:
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
        raise ValueError(f"Argument `top_k` must be an integer larger than or equal to 1, got {top_k!r}")
    if top_k > num_classes:
        raise ValueError(f"Argument `top_k` must be at most `num_classes`={num_classes}, got {top_k!r}")


def check_beta(beta: Any) -> None:
    if isinstance(beta, bool) or not isinstance(beta, Real) or not beta > 0:
        raise ValueError(f"Argument `beta` must be a float larger than 0, got {beta!r}")


# ------------------------------------------------------------------------ tensor checks
def _short(values: Tensor) -> str:
    values = values.unique()
    shown = values[:8].tolist()
    return f"{shown}{' ...' if values.numel() > 8 else ''}"


def _check_tensors(preds: Any, target: Any, nan: bool = True) -> None:
    for name, value in (("preds", preds), ("target", target)):
        if not isinstance(value, Tensor):
            raise TypeError(f"Argument `{name}` must be a torch.Tensor, got {type(value).__name__}")
    check_label_target(target)
    if nan and preds.is_floating_point():
        check_no_nan(preds)


def check_no_nan(scores: Tensor) -> None:
    """Raise when ``scores`` hold a NaN: the sum is NaN whenever a score is (or when +inf meets -inf), so one
    cheap reduction clears the common case."""
    if math.isnan(scores.sum().item()) and bool(torch.isnan(scores).any()):
        raise MetricInputError("Argument `preds` contains NaN scores")


def check_label_target(target: Tensor) -> None:
    """Targets are labels: integers, bools, or floats holding whole numbers (e.g. the 0.0/1.0
    targets kept for ``BCEWithLogitsLoss``), which torchmetrics accepts too.

    >>> check_label_target(torch.tensor([0.0, 1.0, 1.0]))
    >>> check_label_target(torch.tensor([0.0, 0.5]))
    Traceback (most recent call last):
    ...
    lightning_metrics.utilities.exceptions.MetricInputError: Argument `target` must hold integer labels; a floating `target` must hold whole numbers, got [0.5]
    """
    if target.is_complex():
        raise MetricInputError(f"Argument `target` must hold integer labels, got dtype {target.dtype}")
    if target.is_floating_point():
        fractional = target != target.trunc()  # NaN and inf fail too
        if bool(fractional.any()):
            raise MetricInputError(
                "Argument `target` must hold integer labels; a floating `target` must hold whole numbers, "
                f"got {_short(target[fractional])}"
            )


def _check_same_shape(preds: Tensor, target: Tensor) -> None:
    if preds.shape != target.shape:
        raise MetricInputError(
            f"Arguments `preds` and `target` must have the same shape, got {tuple(preds.shape)} and "
            f"{tuple(target.shape)}"
        )


def _check_values(name: str, values: Tensor, low: int, high: int, ignore_index: Optional[int] = None) -> None:
    """All values in [low, high) (or equal to ``ignore_index``)."""
    if values.numel() and values.dtype != torch.bool:
        # the common case in one pass and one read: the extremes are in range
        smallest, largest = torch.aminmax(values)
        if smallest.item() >= low and largest.item() < high:
            return
    bad = (values < low) | (values >= high)
    if ignore_index is not None:
        bad &= values != ignore_index
    if bad.any():
        allowed = f"[{low}, {high - 1}]" + ("" if ignore_index is None else f" or `ignore_index`={ignore_index}")
        raise MetricInputError(f"Argument `{name}` must hold values in {allowed}, got {_short(values[bad])}")


def _check_samplewise(multidim_average: str, ndim: int, minimum: int) -> None:
    if multidim_average == "samplewise" and ndim < minimum:
        raise MetricInputError(
            f"Argument `multidim_average`='samplewise' needs inputs with at least {minimum} dimensions, "
            f"got {ndim}"
        )


def validate_binary(preds: Tensor, target: Tensor, multidim_average: str, ignore_index: Optional[int]) -> None:
    """Checks for binary input ``(N, ...)``."""
    _check_tensors(preds, target)
    _check_same_shape(preds, target)
    _check_values("target", target, 0, 2, ignore_index)
    if not preds.is_floating_point():
        _check_values("preds", preds, 0, 2)
    _check_samplewise(multidim_average, preds.ndim, 2)


def validate_multilabel(
    preds: Tensor, target: Tensor, num_labels: int, multidim_average: str, ignore_index: Optional[int]
) -> None:
    """Checks for multilabel input ``(N, L, ...)``."""
    _check_tensors(preds, target)
    _check_same_shape(preds, target)
    if preds.ndim < 2 or preds.shape[1] != num_labels:
        raise MetricInputError(
            f"Argument `preds` must have shape (N, {num_labels}, ...) for `num_labels`={num_labels}, "
            f"got {tuple(preds.shape)}"
        )
    _check_values("target", target, 0, 2, ignore_index)
    if not preds.is_floating_point():
        _check_values("preds", preds, 0, 2)
    _check_samplewise(multidim_average, preds.ndim, 3)


def validate_multiclass(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    multidim_average: str,
    ignore_index: Optional[int],
    top_k: int = 1,
    nan: bool = True,
) -> None:
    """Checks for multiclass input: labels ``(N, ...)`` or scores ``(N, C, ...)``; ``num_classes``
    may be ``None`` (any number of classes, labels only checked to be non-negative). ``nan=False``: the
    caller checks the scores for NaN itself (``multiclass_labels`` does, on the row maxima)."""
    _check_tensors(preds, target, nan or preds.ndim != target.ndim + 1)
    classes = preds.shape[1] if num_classes is None and preds.ndim == target.ndim + 1 else num_classes
    if preds.ndim == target.ndim + 1:
        if not preds.is_floating_point():
            raise TypeError(f"Argument `preds` with a class dimension must hold float scores, got {preds.dtype}")
        if preds.shape[1] != classes or preds.shape[2:] != target.shape[1:] or preds.shape[0] != target.shape[0]:
            raise MetricInputError(
                f"Argument `preds` must have shape (N, {num_classes}, ...) matching `target` (N, ...), got "
                f"{tuple(preds.shape)} and {tuple(target.shape)}"
            )
        _check_samplewise(multidim_average, preds.ndim, 3)
    elif preds.ndim == target.ndim:
        _check_same_shape(preds, target)
        if top_k > 1:
            raise MetricInputError(f"Argument `top_k`={top_k} needs `preds` of scores with shape (N, C, ...)")
        _check_values("preds", preds, 0, _UNBOUNDED if classes is None else classes)
        _check_samplewise(multidim_average, preds.ndim, 2)
    else:
        raise MetricInputError(
            f"Arguments `preds` and `target` must have shapes (N, C, ...) and (N, ...), or both (N, ...), got "
            f"{tuple(preds.shape)} and {tuple(target.shape)}"
        )
    _check_values("target", target, 0, _UNBOUNDED if classes is None else classes, ignore_index)


_UNBOUNDED = 2**62  # the upper label bound when the number of classes is not given


# ------------------------------------------------------------------------ formatting
def to_probabilities(scores: Tensor, normalization: str = "sigmoid") -> Tensor:
    """Scores with any value outside [0, 1] are logits: apply ``sigmoid`` (or ``softmax`` over dim 1).

    The choice is a ``torch.where`` over the whole tensor, so no value is read back to the host.

    >>> to_probabilities(torch.tensor([-1.0, 0.0, 1.0]))
    tensor([0.2689, 0.5000, 0.7311])
    >>> to_probabilities(torch.tensor([0.2, 0.9]))
    tensor([0.2000, 0.9000])
    """
    if scores.numel() == 0:
        return scores
    outside = ((scores < 0) | (scores > 1)).any()
    squashed = torch.sigmoid(scores) if normalization == "sigmoid" else torch.softmax(scores, dim=1)
    return torch.where(outside, squashed, scores)


def valid_mask(target: Tensor, ignore_index: Optional[int]) -> Optional[Tensor]:
    """``target != ignore_index`` (``None`` when nothing is ignored)."""
    return None if ignore_index is None else target != ignore_index


def binary_labels(preds: Tensor, threshold: float) -> Tensor:
    """Predicted 0/1 labels (int64) of binary or multilabel predictions."""
    if preds.is_floating_point():
        return (to_probabilities(preds) > threshold).long()
    return preds.long()


def multiclass_labels(preds: Tensor, target: Tensor, top_k: int = 1, check_nan: bool = False) -> Tensor:
    """Predicted class per position, shaped like ``target``; ``check_nan``: raise if a score is NaN.

    With ``top_k > 1`` a position counts as predicting its target class when that class is among
    the ``top_k`` highest scores, and as predicting the highest-scoring class otherwise
    (torchmetrics 1.9 semantics: one prediction per position, so every count stays a confusion).
    """
    if preds.ndim != target.ndim + 1:
        return preds.long()
    if top_k == 1:
        # the index of the first maximum (NaN counts as the maximum), as argmax; faster on CPU
        best = preds.max(dim=1)
        if check_nan:  # a row's maximum is NaN when one of its scores is: C times fewer values to check
            check_no_nan(best.values)
        return best.indices
    if check_nan:
        check_no_nan(preds)
    best = torch.topk(preds, k=top_k, dim=1).indices
    hit = (best == target.unsqueeze(1)).any(dim=1)
    return torch.where(hit, target.long(), best[:, 0])
