"""Argument checks and input formatting shared by the retrieval functions and metrics.

Inputs follow torchmetrics: ``preds`` floats, ``target`` bool, integer or float, ``indexes`` the
query id of each document; all of the same shape and flattened. Scores are kept as float32 and
targets as float32 (exact for binary and for integer grades below 2**24; torchmetrics computes its
gains in float32 too). A binary measure accepts only targets equal to 0 or 1, in any dtype; the
normalized DCG takes graded relevance, finite and non-negative (scikit-learn's ``ndcg_score``
refuses negative grades too; torchmetrics takes them and can return values outside [0, 1]).
Scores must not be NaN (a NaN has no rank; infinite scores rank first or last, as logits do).
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

import torch
from torch import Tensor

from lightning_metrics.utilities.checks import (
    check_choice,
    check_type,
    may_hold_nonfinite,
    raise_if_nonfinite,
)

EMPTY_TARGET_ACTIONS = ("error", "skip", "neg", "pos")
AGGREGATIONS = ("mean", "median", "min", "max")
Aggregation = Union[str, Callable]


# ---------------------------------------------------------------------------- arguments
def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_top_k(top_k: Any, name: str = "top_k", allow_zero: bool = False) -> None:
    """``None`` or a positive int (or 0, meaning all documents, where torchmetrics reads it so).

    >>> check_top_k(-1)
    Traceback (most recent call last):
    ...
    ValueError: Argument `top_k` has to be a positive integer or None, got -1
    """
    if top_k is None or (_is_int(top_k) and (top_k > 0 or (allow_zero and top_k == 0))):
        return
    raise ValueError(f"Argument `{name}` has to be a positive integer or None, got {top_k!r}")


def check_adaptive_k(adaptive_k: Any) -> None:
    if not isinstance(adaptive_k, bool):
        raise ValueError(f"Argument `adaptive_k` has to be a boolean, got {adaptive_k!r}")


def check_max_fpr(max_fpr: Any) -> None:
    ok = max_fpr is None or (
        isinstance(max_fpr, (int, float)) and not isinstance(max_fpr, bool) and 0 < max_fpr <= 1
    )
    if not ok:
        raise ValueError(f"Argument `max_fpr` should be a float in range (0, 1] or None, got {max_fpr!r}")


def check_min_precision(min_precision: Any) -> None:
    number = isinstance(min_precision, (int, float)) and not isinstance(min_precision, bool)
    if not (number and 0.0 <= min_precision <= 1.0):
        raise ValueError(f"Argument `min_precision` has to be a float between 0 and 1, got {min_precision!r}")


def check_metric_arguments(empty_target_action: Any, ignore_index: Any, aggregation: Any) -> None:
    """The arguments every retrieval metric takes."""
    check_choice("empty_target_action", empty_target_action, EMPTY_TARGET_ACTIONS)
    if ignore_index is not None:
        check_type("ignore_index", ignore_index, int)
    if not (callable(aggregation) or (isinstance(aggregation, str) and aggregation in AGGREGATIONS)):
        raise ValueError(
            f"Argument `aggregation` must be one of {AGGREGATIONS} or a callable taking a tensor of values "
            f"and `dim`, got {aggregation!r}"
        )


def aggregate(values: Tensor, aggregation: Aggregation, dim: Optional[int] = None) -> Tensor:
    """Aggregate per-query values as torchmetrics does (a callable receives ``(values, dim=dim)``)."""
    if aggregation == "mean":
        return values.mean() if dim is None else values.mean(dim=dim)
    if aggregation in ("median", "min", "max"):
        reduce = getattr(values, aggregation)
        return reduce() if dim is None else reduce(dim=dim).values
    return aggregation(values, dim=dim)


# ---------------------------------------------------------------------------- tensors
def _check_tensor(name: str, value: Any) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"Argument `{name}` must be a tensor, got {type(value).__name__}")


def _check_dtypes(preds: Tensor, target: Tensor) -> None:
    if not preds.is_floating_point():
        raise ValueError(f"Argument `preds` must be a tensor of floats, got {preds.dtype}")
    if target.is_complex():
        raise ValueError(
            f"Argument `target` must be a tensor of booleans, integers or floats, got {target.dtype}"
        )


def _raise_not_binary(target: Tensor, bad: Tensor, name: str) -> None:
    value = target[bad][0].item()
    raise ValueError(
        f"Argument `target` must contain binary values (0 or 1) for {name}, got {value!r}; "
        "graded relevance is for the normalized DCG only"
    )


def _not_binary(target: Tensor) -> Tensor:
    return (target != 0) & (target != 1)


def _not_a_grade(target: Tensor) -> Tensor:
    """Graded relevance must be finite and non-negative (NaN fails ``>= 0``)."""
    if not target.is_floating_point():
        return target < 0
    return ~((target >= 0) & (target < float("inf")))


def _raise_not_a_grade(target: Tensor, bad: Tensor, name: str) -> None:
    value = target[bad][0].item()
    raise ValueError(
        f"Argument `target` must hold finite non-negative relevance grades for {name}, got {value!r}"
    )


def _target_rule(target: Tensor, allow_non_binary_target: bool) -> Optional[tuple[Callable, Callable]]:
    """The check of ``target`` values and its error: binary, graded, or none for bool targets."""
    if target.dtype == torch.bool:
        return None
    return (_not_a_grade, _raise_not_a_grade) if allow_non_binary_target else (_not_binary, _raise_not_binary)


def format_query(
    preds: Tensor, target: Tensor, allow_non_binary_target: bool = False, name: str = "this measure"
) -> tuple[Tensor, Tensor]:
    """Check and flatten the documents of one query (the functional interface)."""
    _check_tensor("preds", preds)
    _check_tensor("target", target)
    if preds.shape != target.shape:
        raise ValueError(
            "Arguments `preds` and `target` must have the same shape, got "
            f"{tuple(preds.shape)} and {tuple(target.shape)}"
        )
    if preds.numel() == 0 or preds.ndim == 0:
        raise ValueError(
            f"Arguments `preds` and `target` must be non-empty and non-scalar, got shape {tuple(preds.shape)}"
        )
    _check_dtypes(preds, target)
    # the values' questions in one host read: NaN scores, and targets outside the measure's rule
    rule = _target_rule(target, allow_non_binary_target)
    bad = rule[0](target) if rule is not None else None
    questions = [may_hold_nonfinite(preds, allow_inf=True)] + ([bad.any()] if bad is not None else [])
    answers = torch.stack(questions).tolist()
    if answers[0]:
        raise_if_nonfinite("preds", preds, allow_inf=True)
    if bad is not None and answers[1]:
        rule[1](target, bad, name)
    return preds.reshape(-1).float(), target.reshape(-1).float()


def format_batch(
    preds: Tensor,
    target: Tensor,
    indexes: Optional[Tensor],
    ignore_index: Optional[int],
    allow_non_binary_target: bool,
    name: str,
    validate: bool = True,
) -> tuple[Tensor, Tensor, Tensor]:
    """Check and flatten one batch of documents of many queries; drop the ``ignore_index`` ones.

    One host sync answers the data-dependent questions (are some documents ignored, is a score
    NaN, does an integer or float target follow the measure's rule: binary, or graded finite and
    non-negative), all before anything is kept; ignored documents are not checked. With
    ``validate=False`` there is no host sync at all: nothing is checked, and ignored documents are
    kept with a NaN target, to be dropped at compute (:func:`drop_ignored`).
    """
    if indexes is None:
        raise ValueError("Argument `indexes` is required (the query id of each document), got None")
    _check_tensor("preds", preds)
    _check_tensor("target", target)
    _check_tensor("indexes", indexes)
    if not (preds.shape == target.shape == indexes.shape):
        raise ValueError(
            "Arguments `preds`, `target` and `indexes` must have the same shape, got "
            f"{tuple(preds.shape)}, {tuple(target.shape)} and {tuple(indexes.shape)}"
        )
    if indexes.is_floating_point() or indexes.is_complex() or indexes.dtype == torch.bool:
        raise ValueError(f"Argument `indexes` must be a tensor of integers (query ids), got {indexes.dtype}")
    _check_dtypes(preds, target)
    if not validate:
        preds, target, indexes = preds.reshape(-1), target.reshape(-1), indexes.reshape(-1)
        marked = target.float()
        if ignore_index is not None:
            marked = torch.where(target == ignore_index, torch.full_like(marked, float("nan")), marked)
        return indexes.long(), preds.float(), marked
    # every data-dependent question of this batch in one host read (in the input's shape, so that
    # an error gives the index the caller knows)
    keep = None if ignore_index is None else target != ignore_index
    scored = preds if keep is None else preds.where(keep, 0.0)  # an ignored document's score is not read
    rule = _target_rule(target, allow_non_binary_target)
    bad = None if rule is None else (rule[0](target) if keep is None else rule[0](target) & keep)
    questions = {"ignored": None if keep is None else ~keep.all(), "bad": None if bad is None else bad.any(),
                 "nan": may_hold_nonfinite(scored, allow_inf=True)}
    asked = [k for k, q in questions.items() if q is not None]
    answers = dict(zip(asked, torch.stack([questions[k] for k in asked]).tolist())) if asked else {}
    if answers.get("nan"):
        raise_if_nonfinite("preds", scored, allow_inf=True)
    if answers.get("bad"):
        rule[1](target, bad, name)
    preds, target, indexes = preds.reshape(-1), target.reshape(-1), indexes.reshape(-1)
    if answers.get("ignored"):
        keep = keep.reshape(-1)
        preds, target, indexes = preds[keep], target[keep], indexes[keep]
    return indexes.long(), preds.float(), target.float()


def drop_ignored(indexes: Tensor, preds: Tensor, target: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """Drop the documents marked ignored (NaN target) by an update without validation."""
    keep = ~torch.isnan(target)
    if bool(keep.all()):
        return indexes, preds, target
    return indexes[keep], preds[keep], target[keep]
