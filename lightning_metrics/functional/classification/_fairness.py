"""Group fairness for binary classifiers: one per-group count table, three measures over it.

The statistic is ``(num_groups, 4)`` int64 counts ``[tp, fp, tn, fn]`` per group id, made by ONE
histogram per batch (ids are used as they are: a batch that lacks a group adds nothing to it).
Over it: per-group stat rates, demographic parity (lowest over highest positive rate) and equal
opportunity (lowest over highest true positive rate), both over the groups that have samples.

Differences from torchmetrics 1.9, on purpose: torchmetrics numbers the groups of each batch by
their rank among the groups present in that batch, so a batch without group 0 adds its counts to
the wrong group, and its functions name groups by that rank too; here a group is its id. Groups
that never occur are left out of the parity ratios (torchmetrics gives them a rate of 0, which
makes every ratio 0). ``groups`` may be any integer dtype (torchmetrics wants int64).
"""

from __future__ import annotations

import math
from typing import Optional

import torch
from torch import Tensor

from lightning_metrics.functional.classification import _inputs
from lightning_metrics.functional.classification._counts import histogram
from lightning_metrics.functional.classification._measures import safe_divide
from lightning_metrics.utilities.checks import check_choice
from lightning_metrics.utilities.prints import warn_at_caller

FAIRNESS_TASKS = ("demographic_parity", "equal_opportunity", "all")


def check_num_groups(num_groups: object) -> None:
    """``num_groups`` is a positive int."""
    if isinstance(num_groups, bool) or not isinstance(num_groups, int) or num_groups < 1:
        raise ValueError(f"Argument `num_groups` must be a positive int, got {num_groups!r}")


def check_fairness_args(threshold: float, ignore_index: Optional[int]) -> None:
    _inputs.check_threshold(threshold)
    _inputs.check_ignore_index(ignore_index)


def validate_group_inputs(preds: Tensor, target: Tensor, groups: Tensor, num_groups: int,
                          ignore_index: Optional[int]) -> None:
    """Binary ``preds``/``target`` ``(N, ...)`` and integer ``groups`` ``(N,)`` with ids in ``[0, num_groups)``."""
    _inputs.validate_binary(preds, target, "global", ignore_index)
    if not isinstance(groups, Tensor):
        raise TypeError(f"Argument `groups` must be a tensor, got {type(groups).__name__}")
    if groups.is_floating_point() or groups.is_complex() or groups.dtype == torch.bool:
        raise ValueError(f"Argument `groups` must hold integer group ids, got dtype {groups.dtype}")
    n = preds.shape[0] if preds.ndim else 1
    if groups.numel() != n:
        raise ValueError(f"Argument `groups` must hold one id per sample (N={n}), got shape {tuple(groups.shape)}")
    if groups.numel():
        low, high = torch.aminmax(groups)
        if low < 0 or high >= num_groups:
            raise ValueError(
                f"Argument `groups` must hold ids in [0, {num_groups}) for `num_groups`={num_groups}, "
                f"got values in [{int(low)}, {int(high)}]"
            )


def group_counts(preds: Tensor, target: Tensor, groups: Tensor, num_groups: int, threshold: float,
                 ignore_index: Optional[int]) -> Tensor:
    """``(num_groups, 4)`` counts ``[tp, fp, tn, fn]`` of one batch (inputs already checked).

    >>> group_counts(torch.tensor([1, 0, 1, 1]), torch.tensor([1, 0, 0, 1]), torch.tensor([0, 0, 1, 1]), 2, 0.5, None)
    tensor([[1, 0, 1, 0],
            [1, 1, 0, 0]])
    """
    n = preds.shape[0] if preds.ndim else 1
    per_sample = math.prod(preds.shape[1:])  # explicit: an empty batch cannot infer a dimension
    pred = _inputs.binary_labels(preds, threshold).reshape(n, per_sample)
    truth = target.reshape(n, per_sample)
    size = num_groups * 4
    # cell 0..3 = 2 * target + pred: tn, fp, fn, tp
    codes = groups.reshape(n, 1).long() * 4 + truth.long().clamp(0, 1) * 2 + pred
    valid = _inputs.valid_mask(truth, ignore_index)
    if valid is not None:
        codes = torch.where(valid, codes, size)
    tn, fp, fn, tp = histogram(codes, size).view(num_groups, 4).unbind(-1)
    return torch.stack([tp, fp, tn, fn], dim=-1)


def group_stat_rates(counts: Tensor) -> dict[str, Tensor]:
    """``{"group_<id>": [tp, fp, tn, fn] / n}`` for every group id (NaN for a group without samples)."""
    rates = counts.float() / counts.sum(-1, keepdim=True)
    return {f"group_{i}": row for i, row in enumerate(rates)}


def _ratio_of_extremes(prefix: str, rates: Tensor, present: Tensor) -> dict[str, Tensor]:
    ids = present.nonzero().reshape(-1)
    if ids.numel() == 0:
        return {f"{prefix}_0_0": torch.tensor(0.0, device=rates.device)}
    kept = rates[ids]
    low, high = ids[kept.argmin()], ids[kept.argmax()]
    return {f"{prefix}_{int(low)}_{int(high)}": safe_divide(rates[low], rates[high])}


def demographic_parity_from_counts(counts: Tensor) -> dict[str, Tensor]:
    """``{"DP_<low>_<high>": lowest / highest positive rate}`` over the groups with samples."""
    tp, fp, tn, fn = counts.unbind(-1)
    total = tp + fp + tn + fn
    return _ratio_of_extremes("DP", safe_divide(tp + fp, total), total > 0)


def equal_opportunity_from_counts(counts: Tensor) -> dict[str, Tensor]:
    """``{"EO_<low>_<high>": lowest / highest true positive rate}`` over the groups with samples."""
    tp, fp, tn, fn = counts.unbind(-1)
    return _ratio_of_extremes("EO", safe_divide(tp, tp + fn), (tp + fp + tn + fn) > 0)


def fairness_from_counts(counts: Tensor, task: str) -> dict[str, Tensor]:
    """The measures of ``task`` ("demographic_parity", "equal_opportunity" or "all")."""
    out: dict[str, Tensor] = {}
    if task in ("demographic_parity", "all"):
        out.update(demographic_parity_from_counts(counts))
    if task in ("equal_opportunity", "all"):
        out.update(equal_opportunity_from_counts(counts))
    return out


def dp_target(preds: Tensor, target: Optional[Tensor]) -> Tensor:
    """Demographic parity needs no target: warn if one is given (as torchmetrics), use zeros."""
    if target is not None:
        warn_at_caller("The task demographic_parity does not require a target.", UserWarning)
    return torch.zeros(preds.shape, dtype=torch.long, device=preds.device)


def _counts(preds: Tensor, target: Tensor, groups: Tensor, num_groups: Optional[int], threshold: float,
            ignore_index: Optional[int], validate_args: bool) -> Tensor:
    if validate_args:
        check_fairness_args(threshold, ignore_index)
    if num_groups is None:  # the functions take every id up to the largest one seen
        num_groups = int(groups.max()) + 1 if groups.numel() else 1
    if validate_args:
        validate_group_inputs(preds, target, groups, num_groups, ignore_index)
    return group_counts(preds, target, groups, num_groups, threshold, ignore_index)


def binary_groups_stat_rates(preds: Tensor, target: Tensor, groups: Tensor, num_groups: int,
                             threshold: float = 0.5, ignore_index: Optional[int] = None,
                             validate_args: bool = True) -> dict[str, Tensor]:
    """The ``[tp, fp, tn, fn]`` rates of each group, ``{"group_<id>": ...}``.

    >>> from torch import tensor
    >>> binary_groups_stat_rates(tensor([0, 1, 0, 1]), tensor([0, 1, 1, 1]), tensor([0, 1, 0, 1]), 2)
    {'group_0': tensor([0.0000, 0.0000, 0.5000, 0.5000]), 'group_1': tensor([1., 0., 0., 0.])}
    """
    if validate_args:
        check_num_groups(num_groups)
    return group_stat_rates(_counts(preds, target, groups, num_groups, threshold, ignore_index, validate_args))


def demographic_parity(preds: Tensor, groups: Tensor, threshold: float = 0.5,
                       ignore_index: Optional[int] = None, validate_args: bool = True) -> dict[str, Tensor]:
    """Lowest over highest positive-prediction rate among the groups, ``{"DP_<low>_<high>": ...}``.

    >>> from torch import tensor
    >>> demographic_parity(tensor([0, 1, 1, 1]), tensor([0, 0, 1, 1]))
    {'DP_0_1': tensor(0.5000)}
    """
    target = torch.zeros(preds.shape, dtype=torch.long, device=preds.device)
    counts = _counts(preds, target, groups, None, threshold, ignore_index, validate_args)
    return demographic_parity_from_counts(counts)


def equal_opportunity(preds: Tensor, target: Tensor, groups: Tensor, threshold: float = 0.5,
                      ignore_index: Optional[int] = None, validate_args: bool = True) -> dict[str, Tensor]:
    """Lowest over highest true positive rate among the groups, ``{"EO_<low>_<high>": ...}``.

    >>> from torch import tensor
    >>> equal_opportunity(tensor([0, 1, 1, 1]), tensor([1, 1, 1, 1]), tensor([0, 0, 1, 1]))
    {'EO_0_1': tensor(0.5000)}
    """
    counts = _counts(preds, target, groups, None, threshold, ignore_index, validate_args)
    return equal_opportunity_from_counts(counts)


def binary_fairness(preds: Tensor, target: Tensor, groups: Tensor, task: str = "all", threshold: float = 0.5,
                    ignore_index: Optional[int] = None, validate_args: bool = True) -> dict[str, Tensor]:
    """Demographic parity and/or equal opportunity (``task``), as :func:`demographic_parity` and
    :func:`equal_opportunity`; ``target`` may be ``None`` for demographic parity.

    >>> from torch import tensor
    >>> binary_fairness(tensor([0, 1, 1, 1]), tensor([1, 1, 1, 1]), tensor([0, 0, 1, 1]))
    {'DP_0_1': tensor(0.5000), 'EO_0_1': tensor(0.5000)}
    """
    check_choice("task", task, FAIRNESS_TASKS)
    if task == "demographic_parity":
        target = dp_target(preds, target)
    counts = _counts(preds, target, groups, None, threshold, ignore_index, validate_args)
    return fairness_from_counts(counts, task)


__all__ = ["binary_fairness", "binary_groups_stat_rates", "demographic_parity", "equal_opportunity"]
