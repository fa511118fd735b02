"""Argument checks and input formats of the segmentation metrics.

torchmetrics' three input formats, read without expanding anything to one-hot:

- ``"index"``: ``preds`` and ``target`` are integer class maps ``(N, ...)``;
- ``"one-hot"``: both are ``(N, C, ...)``; integer or bool tensors are per-class 0/1 masks (several
  classes may be set at one pixel, as in torchmetrics' examples), floating tensors are scores and
  are reduced to a class map with ``argmax`` over dim 1;
- ``"mixed"``: one of each, told apart by their number of dimensions.

Each tensor becomes an :class:`Operand`: a class map (``kind="index"``, shape ``(N, ...)``) or a
stack of masks (``kind="mask"``, shape ``(N, C, ...)``). The counting and distance code takes
operands, so a class map stays a class map all the way to the histogram.

Value checks (labels in range, masks 0/1, no NaN scores) read the data back to the host and run
only with ``validate_args=True``; shape checks are free and always run. Messages name the argument
and the offending value.
"""

from __future__ import annotations

from numbers import Real
from typing import Any, NamedTuple, Optional

import torch
from torch import Tensor

from lightning_metrics.functional.classification._inputs import _check_values, check_in
from lightning_metrics.utilities.checks import (  # noqa: F401  (check_bool re-exported: one bool check)
    check_bool,
    may_hold_nonfinite,
    raise_if_nonfinite,
)

INPUT_FORMATS = ("one-hot", "index", "mixed")


class Operand(NamedTuple):
    """One input after formatting: a class map ``(N, ...)`` or 0/1 masks ``(N, C, ...)``."""

    kind: str  # "index" | "mask"
    value: Tensor


# ------------------------------------------------------------------------ argument checks
def check_num_classes(value: Any, optional: bool = False) -> None:
    """A positive int (or ``None`` when ``optional``)."""
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        expected = "None or a positive integer" if optional else "a positive integer"
        raise ValueError(f"Argument `num_classes` must be {expected}, got {value!r}")


def check_input_format(input_format: Any, num_classes: Any = None, needs_classes: bool = False) -> None:
    check_in("input_format", input_format, INPUT_FORMATS)
    if input_format == "index" and num_classes is None and needs_classes:
        raise ValueError("Argument `num_classes` must be given when `input_format` is 'index', got None")


def check_ignore_index(ignore_index: Any, input_format: str) -> None:
    """An int, usable only where the target is a class map (``"index"`` or ``"mixed"``)."""
    if ignore_index is None:
        return
    if isinstance(ignore_index, bool) or not isinstance(ignore_index, int):
        raise ValueError(f"Argument `ignore_index` must be None or an integer, got {ignore_index!r}")
    if input_format == "one-hot":
        raise ValueError(
            f"Argument `ignore_index`={ignore_index} needs class-index targets: use `input_format`='index' "
            "or 'mixed', got 'one-hot'"
        )


def check_spacing(spacing: Any) -> Optional[tuple[float, ...]]:
    """``None`` or a list/tuple/tensor of positive finite numbers, one per spatial dimension."""
    if spacing is None:
        return None
    if isinstance(spacing, Tensor):
        values = spacing.detach().cpu().reshape(-1).tolist() if spacing.ndim <= 1 else None
    elif isinstance(spacing, (list, tuple)):
        values = list(spacing)
    else:
        values = None
    ok = (
        values is not None
        and len(values) > 0
        and all(
            isinstance(v, Real) and not isinstance(v, bool) and 0 < float(v) < float("inf") for v in values
        )
    )
    if not ok:
        raise ValueError(
            f"Argument `spacing` must be None or a list or 1-D tensor of positive numbers (one per spatial "
            f"dimension), got {spacing!r}"
        )
    return tuple(float(v) for v in values)


# ------------------------------------------------------------------------ formatting
def format_pair(
    preds: Any,
    target: Any,
    num_classes: Optional[int],
    input_format: str,
    ignore_index: Optional[int] = None,
    validate: bool = True,
    promote_unbatched: bool = False,
) -> tuple[Operand, Operand, int]:
    """``(preds, target, num_classes)`` as operands; ``num_classes`` is read from the one-hot
    tensor's dim 1 when ``None``.

    ``promote_unbatched`` (``mean_iou`` with index input, as torchmetrics): a 1-D or 2-D class map
    is one sample, ``(L,)`` or ``(H, W)``, instead of ``N`` rows.
    """
    for name, value in (("preds", preds), ("target", target)):
        if not isinstance(value, Tensor):
            raise TypeError(f"Argument `{name}` must be a torch.Tensor, got {type(value).__name__}")
    if input_format == "index":
        if promote_unbatched:
            preds, target = _as_one_sample(preds), _as_one_sample(target)
        _check_same_shape(preds, target)
        if preds.ndim < 2:
            raise ValueError(
                f"Arguments `preds` and `target` must be class maps of shape (N, ...) with a spatial "
                f"dimension, got shape {tuple(preds.shape)}"
            )
        if num_classes is None:  # guarded by the argument checks; kept for direct calls
            raise ValueError("Argument `num_classes` must be given when `input_format` is 'index', got None")
        return (
            _index_operand("preds", preds, num_classes, None, validate),
            _index_operand("target", target, num_classes, ignore_index, validate),
            num_classes,
        )
    if input_format == "one-hot":
        _check_same_shape(preds, target)
        _check_one_hot_ndim("preds", preds)
        classes = _classes_of(preds, num_classes)
        return (
            _one_hot_operand("preds", preds, classes, validate),
            _one_hot_operand("target", target, classes, validate),
            classes,
        )
    if input_format != "mixed":
        check_in("input_format", input_format, INPUT_FORMATS)
    if preds.ndim == target.ndim + 1:
        one_hot_name, one_hot, index_name, index = "preds", preds, "target", target
    elif target.ndim == preds.ndim + 1:
        one_hot_name, one_hot, index_name, index = "target", target, "preds", preds
    else:
        raise ValueError(
            "Arguments `preds` and `target` with `input_format`='mixed' must be an (N, C, ...) tensor and an "
            f"(N, ...) class map, got shapes {tuple(preds.shape)} and {tuple(target.shape)}"
        )
    _check_one_hot_ndim(one_hot_name, one_hot)
    if one_hot.shape[0] != index.shape[0] or one_hot.shape[2:] != index.shape[1:]:
        raise ValueError(
            f"Arguments `preds` and `target` must agree in their batch and spatial sizes, got shapes "
            f"{tuple(preds.shape)} and {tuple(target.shape)}"
        )
    if ignore_index is not None and index_name != "target":
        raise ValueError(
            f"Argument `ignore_index`={ignore_index} needs a class-index `target`, got a one-hot `target` of "
            f"shape {tuple(target.shape)}"
        )
    classes = _classes_of(one_hot, num_classes)
    formatted = {
        one_hot_name: _one_hot_operand(one_hot_name, one_hot, classes, validate),
        index_name: _index_operand(
            index_name, index, classes, ignore_index if index_name == "target" else None, validate
        ),
    }
    return formatted["preds"], formatted["target"], classes


def class_masks(operand: Operand, num_classes: int) -> Tensor:
    """Bool masks ``(N, C, ...)`` of an operand (for the distance metrics, which need them)."""
    if operand.kind == "mask":
        return operand.value.bool()
    labels = operand.value
    classes = torch.arange(num_classes, device=labels.device).view(1, num_classes, *([1] * (labels.ndim - 1)))
    return labels.unsqueeze(1) == classes


def _as_one_sample(labels: Tensor) -> Tensor:
    return (
        labels.reshape(1, 1, -1) if labels.ndim == 1 else labels.unsqueeze(0) if labels.ndim == 2 else labels
    )


def _check_same_shape(preds: Tensor, target: Tensor) -> None:
    if preds.shape != target.shape:
        raise ValueError(
            f"Arguments `preds` and `target` must have the same shape, got {tuple(preds.shape)} and "
            f"{tuple(target.shape)}"
        )


def _check_one_hot_ndim(name: str, value: Tensor) -> None:
    if value.ndim < 3:
        raise ValueError(
            f"Argument `{name}` in one-hot form must have shape (N, C, ...) with at least one spatial "
            f"dimension, got shape {tuple(value.shape)}"
        )


def _classes_of(one_hot: Tensor, num_classes: Optional[int]) -> int:
    classes = one_hot.shape[1] if num_classes is None else num_classes
    if classes == 0:
        raise ValueError(
            f"Argument `num_classes` must be a positive integer, got 0 (from shape {tuple(one_hot.shape)})"
        )
    return classes


def _index_operand(
    name: str, labels: Tensor, num_classes: int, ignore_index: Optional[int], validate: bool
) -> Operand:
    if labels.is_floating_point() or labels.is_complex():
        raise TypeError(
            f"Argument `{name}` must hold integer class indices in this format, got dtype {labels.dtype}"
        )
    if validate:
        _check_values(name, _dense_view(labels), 0, num_classes, ignore_index)
    return Operand("index", labels)


def _one_hot_operand(name: str, value: Tensor, num_classes: int, validate: bool) -> Operand:
    channels = value.shape[1]
    if value.is_floating_point():
        # scores: the class of each pixel is its argmax (``max().indices`` is argmax, faster on CPU)
        if channels > num_classes:
            raise ValueError(
                f"Argument `{name}` has {channels} score channels, more than `num_classes`={num_classes}"
            )
        best = value.max(dim=1)
        if validate:  # a pixel's maximum is NaN when one of its scores is (infinite logits are fine)
            flag = may_hold_nonfinite(best.values, allow_inf=True)
            if flag is not None and bool(flag):
                raise_if_nonfinite(name, value, allow_inf=True)
        return Operand("index", best.indices)
    if value.is_complex():
        raise TypeError(f"Argument `{name}` must be a 0/1 mask or float scores, got dtype {value.dtype}")
    if channels != num_classes:
        raise ValueError(
            f"Argument `{name}` must have `num_classes`={num_classes} channels in dim 1, got shape "
            f"{tuple(value.shape)}"
        )
    if validate and value.dtype != torch.bool:
        _check_values(name, _dense_view(value), 0, 2)
    return Operand("mask", value)


def _dense_view(value: Tensor) -> Tensor:
    """The same elements in memory order, for whole-tensor reductions: a permuted (channels-last)
    tensor is read in its own order instead of through a copy."""
    if value.is_contiguous():
        return value
    permuted = value.permute(sorted(range(value.ndim), key=lambda d: -value.stride(d)))
    return permuted if permuted.is_contiguous() else value
