"""Mean IoU, Dice and generalized Dice: formulas over the per-sample count table.

Each measure is a reduction of the ``(N, C, 3)`` table of true positives, false positives and
false negatives (:mod:`._counts`). The functions reduce one batch's table; the modular metrics
reduce the table of everything they saw with the same code (:func:`mean_iou_of_table`,
:func:`dice_of_table`, :func:`generalized_dice_of_table`).

Beyond torchmetrics 1.9 (extensions, off by default): ``ignore_index`` (a target label whose
pixels count nowhere) and ``validate_args`` (``False`` skips the value checks and their host
sync). One deliberate difference: the generalized Dice weight of a class absent from a sample's
target is 0 (see :func:`generalized_dice_score`).
"""

from __future__ import annotations

from typing import Any, Optional

import torch
from torch import Tensor

from lightning_metrics.functional.classification._inputs import check_in
from lightning_metrics.functional.classification._measures import safe_divide
from lightning_metrics.functional.segmentation._counts import OverlapSpec
from lightning_metrics.functional.segmentation._inputs import (
    check_bool,
    check_ignore_index,
    check_input_format,
    check_num_classes,
)

DICE_AVERAGES = ("micro", "macro", "weighted", "none", None)
AGGREGATION_LEVELS = ("samplewise", "global")
WEIGHT_TYPES = ("square", "simple", "linear")


# ------------------------------------------------------------------------ argument checks
def check_overlap_args(
    num_classes: Any,
    include_background: Any,
    input_format: Any,
    ignore_index: Any,
    validate_args: Any,
    optional_classes: bool = False,
) -> None:
    """The arguments every overlap measure takes."""
    check_num_classes(num_classes, optional=optional_classes)
    check_bool("include_background", include_background)
    check_input_format(input_format, num_classes, needs_classes=True)
    check_ignore_index(ignore_index, input_format)
    check_bool("validate_args", validate_args)


def check_dice_args(average: Any, aggregation_level: Any) -> None:
    check_in("average", average, DICE_AVERAGES)
    check_in("aggregation_level", aggregation_level, AGGREGATION_LEVELS)


def check_generalized_dice_args(per_class: Any, weight_type: Any) -> None:
    check_bool("per_class", per_class)
    check_in("weight_type", weight_type, WEIGHT_TYPES)


# ------------------------------------------------------------------------ reductions
def drop_background(counts: Tensor, include_background: bool) -> Tensor:
    """The table without class 0 (kept when it is the only class, as torchmetrics does)."""
    return counts if include_background or counts.shape[-2] <= 1 else counts[..., 1:, :]


def _nan_divide(num: Tensor, den: Tensor) -> Tensor:
    return num.float() / den.float()  # 0 / 0 is NaN: "undefined", for the nan-aware averages


def iou_per_sample(counts: Tensor, per_class: bool) -> Tensor:
    """Functional mean IoU of an ``(N, C, 3)`` table: ``(N, C)`` with -1 for a class absent from
    both, or ``(N,)`` averaged over the classes present in each sample (NaN if none)."""
    tp, fp, fn = counts.unbind(-1)
    union = tp + fp + fn
    scores = _nan_divide(tp, union)
    if per_class:
        return scores.nan_to_num(-1.0)
    return scores.nansum(dim=-1) / (union > 0).sum(dim=-1)


def mean_iou_of_table(counts: Tensor, per_class: bool) -> Tensor:
    """Modular mean IoU: per-sample IoU averaged over the (sample, class) pairs where the class is
    present; per class, -1 for a class never present."""
    tp, fp, fn = counts.unbind(-1)
    union = tp + fp + fn
    present = union > 0
    scores = safe_divide(tp, union).double()  # float64 sums: the same value in any sample order
    if per_class:
        return (scores.sum(0) / present.sum(0)).float().nan_to_num(-1.0)
    return (scores.sum() / present.sum()).float()


def dice_of_table(counts: Tensor, average: Optional[str], aggregation_level: str) -> Tensor:
    """Functional Dice of an ``(N, C, 3)`` table: one row per sample (``"samplewise"``) or one
    row for all (``"global"``); ``(rows,)``, or ``(rows, C)`` for ``average="none"``. A class with
    no pixel in preds nor target is NaN, and skipped by the averages."""
    tp, fp, fn = counts.unbind(-1)
    numerator, denominator, support = 2 * tp, 2 * tp + fp + fn, tp + fn
    if aggregation_level == "global":
        numerator, denominator, support = (x.sum(0, keepdim=True) for x in (numerator, denominator, support))
    if average == "micro":
        return _nan_divide(numerator.sum(-1), denominator.sum(-1))
    dice = _nan_divide(numerator, denominator)
    if average == "macro":
        return torch.nanmean(dice, dim=-1)
    if average == "weighted":
        weights = _nan_divide(support, support.sum(-1, keepdim=True))
        undefined = dice.isnan().all(dim=-1)
        return torch.nansum(dice * weights, dim=-1).masked_fill(undefined, float("nan"))
    return dice


def generalized_dice_of_table(counts: Tensor, weight_type: str, per_class: bool) -> Tensor:
    """Generalized Dice of an ``(N, C, 3)`` table, per sample: ``(N,)`` or ``(N, C)``."""
    tp, fp, fn = counts.unbind(-1)
    target_sum = tp + fn
    cardinality = 2 * tp + fp + fn
    if weight_type == "simple":
        weights = 1.0 / target_sum
    elif weight_type == "linear":
        weights = torch.ones_like(target_sum)
    else:
        weights = 1.0 / (target_sum**2)
    # a class absent from the sample's target has weight 1/0: it gets 0, so only its false
    # positives' effect on the other classes counts (torchmetrics on a one-sample batch)
    weights = weights.masked_fill(weights.isinf(), 0)
    numerator = 2.0 * tp * weights
    denominator = cardinality * weights
    if not per_class:
        numerator, denominator = numerator.sum(-1), denominator.sum(-1)
    return safe_divide(numerator, denominator)


# ------------------------------------------------------------------------ the functions
def _counts(
    preds: Tensor,
    target: Tensor,
    num_classes: Optional[int],
    input_format: str,
    ignore_index: Optional[int],
    validate_args: bool,
    promote_unbatched: bool = False,
) -> Tensor:
    spec = OverlapSpec(num_classes, input_format, ignore_index, True, promote_unbatched, validate_args)
    return spec.batch(preds, target)


def mean_iou(
    preds: Tensor,
    target: Tensor,
    num_classes: Optional[int] = None,
    include_background: bool = True,
    per_class: bool = False,
    input_format: str = "one-hot",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Mean intersection over union per sample (torchmetrics' ``mean_iou``).

    Args:
        preds, target: ``(N, C, ...)`` 0/1 masks or float scores (``input_format="one-hot"``),
            ``(N, ...)`` class indices (``"index"``), or one of each (``"mixed"``).
        num_classes: the number of classes; needed for ``"index"``, else read from dim 1.
        include_background: keep class 0.
        per_class: return ``(N, C)`` per-class IoU (-1 where a class is absent from both) instead
            of ``(N,)`` means over the classes present.
        input_format: ``"one-hot"``, ``"index"`` or ``"mixed"``.
        ignore_index: (extension) a target label whose pixels count nowhere; class-index targets.
        validate_args: (extension) check labels and masks (a host sync); ``False`` skips it.

    Index inputs are counted with one histogram per batch, never expanded to one-hot.

    >>> import torch
    >>> preds = torch.tensor([[[0, 1], [1, 2]]])
    >>> target = torch.tensor([[[0, 1], [2, 2]]])
    >>> mean_iou(preds, target, num_classes=3, input_format="index")
    tensor([0.6667])
    >>> mean_iou(preds, target, num_classes=3, per_class=True, input_format="index")
    tensor([[1.0000, 0.5000, 0.5000]])
    >>> mean_iou(preds, torch.tensor([[[0, 1], [255, 2]]]), 3, input_format="index", ignore_index=255)
    tensor([1.])
    """
    check_overlap_args(num_classes, include_background, input_format, ignore_index, validate_args, True)
    check_bool("per_class", per_class)
    counts = _counts(
        preds, target, num_classes, input_format, ignore_index, validate_args, promote_unbatched=True
    )
    return iou_per_sample(drop_background(counts, include_background), per_class)


def dice_score(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    include_background: bool = True,
    average: Optional[str] = "macro",
    input_format: str = "one-hot",
    aggregation_level: str = "samplewise",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Dice score ``2 tp / (2 tp + fp + fn)`` per sample, or over the batch (torchmetrics' ``dice_score``).

    Args:
        preds, target, num_classes, include_background, input_format: as in :func:`mean_iou`
            (``num_classes`` is required).
        average: ``"micro"`` (counts summed over classes), ``"macro"`` (mean over the classes
            present), ``"weighted"`` (by target pixels), or ``"none"`` / ``None`` (per class).
        aggregation_level: ``"samplewise"`` (one value per sample, ``(N,)`` or ``(N, C)``) or
            ``"global"`` (one value over all pixels, ``(1,)`` or ``(1, C)``).
        ignore_index, validate_args: extensions, as in :func:`mean_iou`.

    A class with no pixel in preds nor target is NaN and skipped by the averages.

    >>> import torch
    >>> preds = torch.tensor([[[0, 1], [1, 2]]])
    >>> target = torch.tensor([[[0, 1], [2, 2]]])
    >>> dice_score(preds, target, num_classes=3, input_format="index")
    tensor([0.7778])
    >>> dice_score(preds, target, num_classes=3, average="none", input_format="index")
    tensor([[1.0000, 0.6667, 0.6667]])
    """
    check_overlap_args(num_classes, include_background, input_format, ignore_index, validate_args)
    check_dice_args(average, aggregation_level)
    counts = _counts(preds, target, num_classes, input_format, ignore_index, validate_args)
    return dice_of_table(drop_background(counts, include_background), average, aggregation_level)


def generalized_dice_score(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    include_background: bool = True,
    per_class: bool = False,
    weight_type: str = "square",
    input_format: str = "one-hot",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Generalized Dice score per sample (torchmetrics' ``generalized_dice_score``).

    ``2 sum_c w_c tp_c / sum_c w_c (2 tp_c + fp_c + fn_c)`` with class weights ``w_c`` of
    ``weight_type``: ``"square"`` ``1 / t_c**2``, ``"simple"`` ``1 / t_c``, ``"linear"`` 1, where
    ``t_c`` is the class's target pixels in the sample. ``per_class`` gives ``(N, C)`` instead of
    ``(N,)``. Other arguments as in :func:`dice_score`.

    Deliberate difference: a class absent from a sample's target (``t_c = 0``) gets weight 0, so a
    sample's score depends on that sample alone. torchmetrics 1.9 fills that weight with a value
    taken across the batch (a maximum over the batch axis, read in a transposed layout), so its
    per-sample scores change with the other samples of the batch, and under DDP with the
    sharding. Ours equals torchmetrics fed one sample per call.

    >>> import torch
    >>> preds = torch.tensor([[[0, 1], [1, 2]]])
    >>> target = torch.tensor([[[0, 1], [2, 2]]])
    >>> generalized_dice_score(preds, target, num_classes=3, input_format="index")
    tensor([0.7826])
    """
    check_overlap_args(num_classes, include_background, input_format, ignore_index, validate_args)
    check_generalized_dice_args(per_class, weight_type)
    counts = _counts(preds, target, num_classes, input_format, ignore_index, validate_args)
    return generalized_dice_of_table(drop_background(counts, include_background), weight_type, per_class)
