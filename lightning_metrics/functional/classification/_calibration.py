"""Expected/maximum calibration error from a fixed histogram: per-bin count, confidence sum, accuracy sum.

torchmetrics keeps every confidence; the error only needs per-bin sums, so the statistic here is
a ``(3, n_bins + 1)`` float64 tensor (count, sum of confidences, sum of accuracies) that merges by
addition. Bin edges are ``linspace(0, 1, n_bins + 1)`` in the confidences' dtype and a confidence
``c`` falls in bin ``bucketize(c, edges, right=True) - 1`` (``bucketize`` against the upper edges), so a confidence of exactly 1 gets its
own last bin, as in torchmetrics.

With ``sample_weight`` (the rules of :mod:`lightning_metrics.utilities.sample_weight`) the three rows
are weight sums: a bin's weight, and the weighted sums of confidences and accuracies; a bin's share of
the error is its share of the total weight.
"""

from __future__ import annotations

from typing import Any, Optional

import torch
from torch import Tensor

from lightning_metrics.functional.classification._core import call_for_task
from lightning_metrics.functional.classification._scores import (
    check_ignore_index,
    check_num,
    format_binary,
    format_multiclass,
)
from lightning_metrics.functional.classification._task_functions import task_functions
from lightning_metrics.utilities.checks import check_choice
from lightning_metrics.utilities.memo import ConstantCache
from lightning_metrics.utilities.sample_weight import as_sample_weight

NORMS = ("l1", "l2", "max")


def check_calibration_args(n_bins: int, norm: str, ignore_index: Optional[int]) -> None:
    if isinstance(n_bins, bool) or not isinstance(n_bins, int) or n_bins < 1:
        raise ValueError(f"Argument `n_bins` must be an integer larger than 0, got {n_bins!r}")
    check_choice("norm", norm, NORMS)
    check_ignore_index(ignore_index)


def calibration_update(
    confidences: Tensor, accuracies: Tensor, valid: Optional[Tensor], n_bins: int, out: Optional[Tensor] = None,
    weight: Optional[Tensor] = None,
) -> Tensor:
    """The ``(3, n_bins + 1)`` float64 histogram of one batch, added into ``out`` in place when given (a
    state); ``valid=False`` samples add nothing, and every sample counts its ``weight`` (checked, (N,))."""
    index = torch.bucketize(confidences, _upper_edges(n_bins, confidences.dtype, confidences.device), right=True)
    # count, confidence and accuracy rows, made float64 by the stack
    values = torch.stack((_ones(confidences.shape[0], confidences.device), confidences, accuracies))
    if weight is not None:
        values = values * weight
    if valid is not None:
        index = torch.where(valid, index, 0)
        values = torch.where(valid, values, 0.0)
    if out is None:
        out = torch.zeros(3, n_bins + 1, dtype=torch.float64, device=confidences.device)
    return out.index_add_(1, index, values)


def _upper_edges(n_bins: int, dtype: torch.dtype, device: torch.device) -> Tensor:
    """``linspace(0, 1, n_bins + 1)[1:]`` (cached): bucketizing against the upper edges gives the bin itself."""
    return _CONSTANTS.get(
        ("edges", n_bins, dtype, device), lambda: torch.linspace(0, 1, n_bins + 1, dtype=dtype, device=device)[1:]
    )


def _ones(n: int, device: torch.device) -> Tensor:
    return _CONSTANTS.get(("ones", n, device), lambda: torch.ones(n, dtype=torch.float64, device=device))


_CONSTANTS = ConstantCache()


def calibration_compute(bins: Tensor, norm: str, dtype: torch.dtype = torch.float32) -> Tensor:
    """L1 (expected), L2 (root mean squared) or max calibration error from the histogram."""
    count, confidence_sum, accuracy_sum = bins
    accuracy = torch.nan_to_num(accuracy_sum / count)
    confidence = torch.nan_to_num(confidence_sum / count)
    proportion = count / count.sum()
    gap = accuracy - confidence
    if norm == "l1":
        return torch.sum(gap.abs() * proportion).to(dtype)
    if norm == "max":
        return gap.abs().max().to(dtype)
    squared = torch.sum(gap**2 * proportion).to(dtype)
    # torchmetrics returns an integer zero when the squared error is not positive
    return torch.sqrt(squared) if squared > 0 else torch.tensor(0)


def _weight(sample_weight: Any, target: Tensor, validate: bool) -> Optional[Tensor]:
    """One checked float64 weight per formatted sample (the flattened target), or None."""
    weight = as_sample_weight(sample_weight, target.shape, device=target.device, validate=validate)
    return None if weight is None else weight.reshape(-1)


def binary_calibration_statistic(
    preds: Tensor, target: Tensor, n_bins: int, ignore_index: Optional[int], validate_args: bool = False,
    out: Optional[Tensor] = None, sample_weight: Any = None,
) -> Tensor:
    weight = _weight(sample_weight, target, validate_args)
    confidences, target, valid = format_binary(preds, target, ignore_index, validate=validate_args)
    return calibration_update(confidences, target, valid, n_bins, out, weight)


def multiclass_calibration_statistic(
    preds: Tensor, target: Tensor, num_classes: int, n_bins: int, ignore_index: Optional[int],
    validate_args: bool = False, out: Optional[Tensor] = None, sample_weight: Any = None,
) -> Tensor:
    weight = _weight(sample_weight, target, validate_args)
    probabilities, target, valid = format_multiclass(preds, target, num_classes, ignore_index, validate_args)
    confidences, predictions = probabilities.max(dim=1)
    return calibration_update(confidences.float(), predictions == target, valid, n_bins, out, weight)


def binary_calibration_error(preds: Tensor, target: Tensor, n_bins: int = 15, norm: str = "l1",
                             ignore_index: Optional[int] = None, validate_args: bool = True,
                             *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Top-label calibration error of binary probabilities (logits pass through a sigmoid).

    >>> import torch
    >>> preds, target = torch.tensor([0.25, 0.25, 0.55, 0.75, 0.75]), torch.tensor([0, 0, 1, 1, 1])
    >>> binary_calibration_error(preds, target, n_bins=2, norm="l1")
    tensor(0.2900)
    >>> binary_calibration_error(preds, target, n_bins=2, norm="max")
    tensor(0.3167)
    >>> binary_calibration_error(preds, target, n_bins=2, sample_weight=torch.tensor([2.0, 1.0, 0.0, 1.0, 3.0]))
    tensor(0.2500)
    """
    if validate_args:
        check_calibration_args(n_bins, norm, ignore_index)
    bins = binary_calibration_statistic(preds, target, n_bins, ignore_index, validate_args, None, sample_weight)
    return calibration_compute(bins, norm, preds.dtype)


def multiclass_calibration_error(preds: Tensor, target: Tensor, num_classes: int, n_bins: int = 15,
                                 norm: str = "l1", ignore_index: Optional[int] = None,
                                 validate_args: bool = True,
                                 *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Calibration error of the top-class confidence (logits pass through a softmax).

    >>> import torch
    >>> preds = torch.tensor([[0.25, 0.20, 0.55], [0.55, 0.05, 0.40], [0.10, 0.30, 0.60], [0.90, 0.05, 0.05]])
    >>> multiclass_calibration_error(preds, torch.tensor([0, 1, 2, 0]), num_classes=3, n_bins=3)
    tensor(0.2000)
    """
    if validate_args:
        check_num("num_classes", num_classes)
        check_calibration_args(n_bins, norm, ignore_index)
    bins = multiclass_calibration_statistic(
        preds, target, num_classes, n_bins, ignore_index, validate_args, None, sample_weight
    )
    return calibration_compute(bins, norm)


def calibration_error(preds: Tensor, target: Tensor, task: str, n_bins: int = 15, norm: str = "l1",
                      num_classes: Optional[int] = None, ignore_index: Optional[int] = None,
                      validate_args: bool = True, *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Task wrapper for ``binary_calibration_error`` and ``multiclass_calibration_error``.

    >>> import torch
    >>> calibration_error(torch.tensor([0.25, 0.75]), torch.tensor([0, 1]), task="binary")
    tensor(0.2500)
    """
    return call_for_task(locals(), task_functions(__name__, "calibration_error"))
