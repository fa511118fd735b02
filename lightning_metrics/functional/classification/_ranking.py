"""Multilabel ranking measures: coverage error, label ranking average precision, ranking loss.

Each batch reduces to (sum of per-sample values, number of samples), so streaming is exact.
Following torchmetrics, ignored entries are not dropped but turned into irrelevant labels with a
very low score (``-4 * num_labels``), and the ranking loss counts a batch without any sample
that has both relevant and irrelevant labels as one sample of loss 0. The per-sample loops of
torchmetrics are replaced by pairwise comparisons (chunked to bound memory).

``sample_weight`` (the rules of :mod:`lightning_metrics.utilities.sample_weight`; one weight per sample,
the same for all its labels, so its shape is a leading part of the target's without the label
dimension) gives scikit-learn's weighted means (``coverage_error``, ``label_ranking_average_precision_score``,
``label_ranking_loss`` with ``sample_weight``): the sum of weighted per-sample values over the weight sum.
A batch without a defined sample keeps counting as one sample (of loss 0) when its weight is positive.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional

import torch
from torch import Tensor

from lightning_metrics.functional.classification._scores import (
    check_ignore_index,
    check_num,
    format_multilabel,
)
from lightning_metrics.utilities.sample_weight import as_sample_weight

_PAIRWISE_BUDGET = 1 << 24  # booleans per chunk of the (rows, labels, labels) comparison


def ranking_weight(target: Tensor, sample_weight: Any, validate_args: bool = False) -> Optional[Tensor]:
    """One float64 weight per formatted row (N*,): ``sample_weight`` over the target's shape without labels."""
    shape = (target.shape[0], *target.shape[2:]) if target.ndim >= 2 else tuple(target.shape)
    weight = as_sample_weight(sample_weight, shape, device=target.device, validate=validate_args)
    return None if weight is None else weight.reshape(-1)


def ranking_input(
    preds: Tensor, target: Tensor, num_labels: int, ignore_index: Optional[int], validate_args: bool = False
) -> tuple[Tensor, Tensor]:
    """(N*, L) sigmoid-normalized scores and targets, ignored entries turned into low-scored negatives."""
    preds, target, valid = format_multilabel(preds, target, num_labels, ignore_index, validate_args)
    if valid is not None:
        filler = -4 * num_labels
        preds = torch.where(valid, preds, torch.full((), filler, dtype=preds.dtype, device=preds.device))
        target = torch.where(valid, target, torch.full((), filler, dtype=target.dtype, device=target.device))
    return preds, target


def _weighted_sum(values: Tensor, weight: Optional[Tensor]) -> tuple[Tensor, Tensor]:
    """(sum of per-sample ``values`` times their weight, in the values' dtype; the float64 weight sum)."""
    return (values * weight).sum().to(values.dtype), weight.sum()


def coverage_error_statistic(
    preds: Tensor, target: Tensor, weight: Optional[Tensor] = None
) -> tuple[Tensor, Tensor]:
    """How far down the ranking one must go to cover all relevant labels, summed over samples (weighted:
    the weighted sum and the weight sum)."""
    if preds.numel() == 0:  # an empty batch adds nothing (``min`` of nothing is undefined)
        count = torch.tensor(0, device=preds.device) if weight is None else weight.sum()
        return torch.zeros((), dtype=torch.float32, device=preds.device), count
    shift = torch.where(
        target == 0, preds.min().abs() + 10, torch.zeros((), dtype=preds.dtype, device=preds.device)
    )
    lowest_relevant = (preds + shift).min(dim=1).values
    coverage = (preds >= lowest_relevant.unsqueeze(1)).sum(dim=1).to(torch.float32)
    if weight is not None:
        return _weighted_sum(coverage, weight)
    return coverage.sum(), torch.tensor(coverage.numel(), device=preds.device)


def ranking_average_precision_statistic(
    preds: Tensor, target: Tensor, weight: Optional[Tensor] = None
) -> tuple[Tensor, Tensor]:
    """Per sample: mean over relevant labels of (relevant labels ranked at or above / labels at or above)."""
    num_rows, num_labels = preds.shape
    relevant = target == 1
    chunk = max(1, _PAIRWISE_BUDGET // max(1, num_labels * num_labels))
    precision_sums = []
    for start in range(0, num_rows, chunk):
        scores, rel = preds[start : start + chunk], relevant[start : start + chunk]
        at_or_above = scores.unsqueeze(1) >= scores.unsqueeze(2)  # [i, j, k]: label k ranks at or above j
        rank = at_or_above.sum(dim=2)
        relevant_rank = (at_or_above & rel.unsqueeze(1)).sum(dim=2)
        precision_sums.append((relevant_rank.float() / rank.float() * rel).sum(dim=1))
    num_relevant = relevant.sum(dim=1)
    per_sample = (
        torch.cat(precision_sums) / num_relevant if num_rows else preds.new_zeros(0, dtype=torch.float32)
    )
    defined = (num_relevant > 0) & (num_relevant < num_labels)
    per_sample = torch.where(defined, per_sample, torch.ones((), device=preds.device)).to(torch.float32)
    if weight is not None:
        return _weighted_sum(per_sample, weight)
    return per_sample.sum(), torch.tensor(num_rows, device=preds.device)


def ranking_loss_statistic(preds: Tensor, target: Tensor, weight: Optional[Tensor] = None) -> tuple[Tensor, Tensor]:
    """Per sample: fraction of (relevant, irrelevant) label pairs that are ordered wrongly."""
    num_rows, num_labels = preds.shape
    relevant = target == 1
    num_relevant = relevant.sum(dim=1)
    defined = (num_relevant > 0) & (num_relevant < num_labels)
    inverse = preds.argsort(dim=1).argsort(dim=1)
    per_label_loss = ((num_labels - inverse) * relevant).to(torch.float32)
    correction = 0.5 * num_relevant * (num_relevant + 1)
    pairs = num_relevant * (num_labels - num_relevant)
    loss = (per_label_loss.sum(dim=1) - correction) / torch.where(defined, pairs, 1)
    if weight is not None:  # a batch without a defined sample: one sample of loss 0 if it weighs anything
        loss_sum, total = _weighted_sum(torch.where(defined, loss, 0.0), weight)
        return loss_sum, torch.where(defined.any(), total, (total > 0).to(total.dtype))
    loss_sum = torch.where(defined, loss, 0.0).sum()
    # torchmetrics counts a batch without any defined sample as 1; an empty batch counts 0 (a no-op)
    count = torch.where(defined.any(), num_rows, min(num_rows, 1))
    return loss_sum, count


def _ranking_measure(statistic: Callable[..., tuple[Tensor, Tensor]], arguments: Mapping[str, Any]) -> Tensor:
    """The body of the ranking functions (``arguments`` is their ``locals()``): check, one statistic, its mean."""
    preds, target = arguments["preds"], arguments["target"]
    num_labels, ignore_index = arguments["num_labels"], arguments["ignore_index"]
    validate = arguments["validate_args"]
    if validate:
        check_num("num_labels", num_labels)
        check_ignore_index(ignore_index)
    weight = ranking_weight(target, arguments.get("sample_weight"), validate)
    total, count = statistic(*ranking_input(preds, target, num_labels, ignore_index, validate), weight)
    return (total / count).to(total.dtype)


def multilabel_coverage_error(preds: Tensor, target: Tensor, num_labels: int,
                              ignore_index: Optional[int] = None, validate_args: bool = True,
                              *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Average number of top-ranked labels needed to cover every relevant label.

    >>> import torch
    >>> preds = torch.tensor([[0.8, 0.2, 0.5], [0.3, 0.6, 0.9], [0.6, 0.7, 0.1]])
    >>> multilabel_coverage_error(preds, torch.tensor([[1, 0, 0], [0, 1, 0], [0, 0, 1]]), num_labels=3)
    tensor(2.)
    """
    return _ranking_measure(coverage_error_statistic, locals())


def multilabel_ranking_average_precision(preds: Tensor, target: Tensor, num_labels: int,
                                         ignore_index: Optional[int] = None,
                                         validate_args: bool = True,
                                         *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Label ranking average precision (scikit-learn's LRAP).

    >>> import torch
    >>> preds = torch.tensor([[0.8, 0.2, 0.5], [0.3, 0.6, 0.9], [0.6, 0.7, 0.1]])
    >>> target = torch.tensor([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    >>> multilabel_ranking_average_precision(preds, target, num_labels=3)
    tensor(0.6111)
    """
    return _ranking_measure(ranking_average_precision_statistic, locals())


def multilabel_ranking_loss(preds: Tensor, target: Tensor, num_labels: int,
                            ignore_index: Optional[int] = None, validate_args: bool = True,
                            *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Average fraction of wrongly ordered (relevant, irrelevant) label pairs.

    >>> import torch
    >>> preds = torch.tensor([[0.8, 0.2, 0.5], [0.3, 0.6, 0.9], [0.6, 0.7, 0.1]])
    >>> multilabel_ranking_loss(preds, torch.tensor([[1, 0, 0], [0, 1, 0], [0, 0, 1]]), num_labels=3)
    tensor(0.5000)
    """
    return _ranking_measure(ranking_loss_statistic, locals())
