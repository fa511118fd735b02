"""Functional measures read off a whole confusion matrix, and exact match.

Jaccard index, Matthews correlation, Cohen's kappa and the confusion matrix itself all come from
the same statistic as the count ratios (the (C, C) matrix for multiclass input, the (2, 2) and
(L, 2, 2) one-vs-rest counts for binary and multilabel input). Exact match needs one more bit per
sample: whether all of its labels are right.
"""

from __future__ import annotations

from typing import Optional

from torch import Tensor

from lightning_metrics.functional.classification._core import (
    binary_spec,
    evaluate,
    multiclass_spec,
    multilabel_spec,
    reduction,
)


def binary_jaccard_index(
    preds: Tensor,
    target: Tensor,
    threshold: float = 0.5,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
    zero_division: float = 0.0,
) -> Tensor:
    """Jaccard index (intersection over union) ``tp / (tp + fp + fn)`` for binary tasks.

    >>> from torch import tensor
    >>> binary_jaccard_index(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.3333)
    """
    spec = binary_spec(threshold, "global", ignore_index, validate_args, need="confmat")
    return evaluate(spec, reduction("jaccard_index", zero_division=zero_division), preds, target)


def multiclass_jaccard_index(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    average: Optional[str] = "macro",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
    zero_division: float = 0.0,
) -> Tensor:
    """Jaccard index per class and averaged, for multiclass tasks.

    An ``ignore_index`` that is a class leaves that class out of the micro and macro averages.

    >>> from torch import tensor
    >>> multiclass_jaccard_index(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3)
    tensor(0.6667)
    """
    red = reduction("jaccard_index", average, zero_division)
    spec = multiclass_spec(num_classes, 1, "global", ignore_index, validate_args, need="confmat")
    return evaluate(spec, red, preds, target)


def multilabel_jaccard_index(
    preds: Tensor,
    target: Tensor,
    num_labels: int,
    threshold: float = 0.5,
    average: Optional[str] = "macro",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
    zero_division: float = 0.0,
) -> Tensor:
    """Jaccard index per label and averaged (``average='samples'``: per example), multilabel tasks.

    >>> from torch import tensor
    >>> multilabel_jaccard_index(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), num_labels=3)
    tensor(0.5000)
    """
    red = reduction("jaccard_index", average, zero_division, samples=True)
    spec = multilabel_spec(num_labels, threshold, "global", ignore_index, validate_args, "confmat", red)
    return evaluate(spec, red, preds, target)


def binary_matthews_corrcoef(
    preds: Tensor,
    target: Tensor,
    threshold: float = 0.5,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Matthews correlation coefficient for binary tasks.

    >>> from torch import tensor
    >>> binary_matthews_corrcoef(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.)
    """
    spec = binary_spec(threshold, "global", ignore_index, validate_args, need="confmat")
    return evaluate(spec, reduction("matthews_corrcoef"), preds, target)


def multiclass_matthews_corrcoef(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Matthews correlation coefficient for multiclass tasks.

    >>> from torch import tensor
    >>> multiclass_matthews_corrcoef(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3)
    tensor(0.7000)
    """
    spec = multiclass_spec(num_classes, 1, "global", ignore_index, validate_args, need="confmat")
    return evaluate(spec, reduction("matthews_corrcoef"), preds, target)


def multilabel_matthews_corrcoef(
    preds: Tensor,
    target: Tensor,
    num_labels: int,
    threshold: float = 0.5,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Matthews correlation coefficient of all labels pooled, for multilabel tasks.

    >>> from torch import tensor
    >>> multilabel_matthews_corrcoef(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), num_labels=3)
    tensor(0.3333)
    """
    spec = multilabel_spec(num_labels, threshold, "global", ignore_index, validate_args, need="confmat")
    return evaluate(spec, reduction("matthews_corrcoef"), preds, target)


def binary_cohen_kappa(
    preds: Tensor,
    target: Tensor,
    threshold: float = 0.5,
    weights: Optional[str] = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Cohen's kappa (agreement beyond chance) for binary tasks.

    >>> from torch import tensor
    >>> binary_cohen_kappa(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.)
    """
    spec = binary_spec(threshold, "global", ignore_index, validate_args, need="confmat")
    return evaluate(spec, reduction("cohen_kappa", weights=weights), preds, target)


def multiclass_cohen_kappa(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    weights: Optional[str] = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Cohen's kappa, unweighted or with ``"linear"`` / ``"quadratic"`` weights, multiclass tasks.

    >>> from torch import tensor
    >>> multiclass_cohen_kappa(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3)
    tensor(0.6364)
    """
    spec = multiclass_spec(num_classes, 1, "global", ignore_index, validate_args, need="confmat")
    return evaluate(spec, reduction("cohen_kappa", weights=weights), preds, target)


def binary_confusion_matrix(
    preds: Tensor,
    target: Tensor,
    threshold: float = 0.5,
    normalize: Optional[str] = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """The ``(2, 2)`` confusion matrix ``[[tn, fp], [fn, tp]]``; ``normalize`` in true/pred/all/none.

    >>> from torch import tensor
    >>> binary_confusion_matrix(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor([[1, 1],
            [1, 1]])
    """
    spec = binary_spec(threshold, "global", ignore_index, validate_args, need="confmat")
    return evaluate(spec, reduction("confusion_matrix", normalize=normalize), preds, target)


def multiclass_confusion_matrix(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    normalize: Optional[str] = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """The ``(C, C)`` confusion matrix, rows indexed by target and columns by prediction.

    >>> from torch import tensor
    >>> multiclass_confusion_matrix(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3)
    tensor([[1, 1, 0],
            [0, 1, 0],
            [0, 0, 1]])
    """
    spec = multiclass_spec(num_classes, 1, "global", ignore_index, validate_args, need="confmat")
    return evaluate(spec, reduction("confusion_matrix", normalize=normalize), preds, target)


def multilabel_confusion_matrix(
    preds: Tensor,
    target: Tensor,
    num_labels: int,
    threshold: float = 0.5,
    normalize: Optional[str] = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """One ``(2, 2)`` confusion matrix per label: ``(L, 2, 2)``.

    >>> from torch import tensor
    >>> multilabel_confusion_matrix(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), num_labels=3)[0]
    tensor([[1, 0],
            [0, 1]])
    """
    spec = multilabel_spec(num_labels, threshold, "global", ignore_index, validate_args, need="confmat")
    return evaluate(spec, reduction("confusion_matrix", normalize=normalize), preds, target)


def multiclass_exact_match(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Fraction of samples whose every position ``(N, ...)`` is classified right.

    >>> from torch import tensor
    >>> multiclass_exact_match(tensor([[2, 1], [0, 1]]), tensor([[2, 1], [0, 0]]), num_classes=3)
    tensor(0.5000)
    """
    spec = multiclass_spec(num_classes, 1, multidim_average, ignore_index, validate_args, need="exact")
    return evaluate(spec, reduction("exact_match"), preds, target)


def multilabel_exact_match(
    preds: Tensor,
    target: Tensor,
    num_labels: int,
    threshold: float = 0.5,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Fraction of examples whose labels are all right (subset accuracy).

    >>> from torch import tensor
    >>> multilabel_exact_match(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), num_labels=3)
    tensor(0.5000)
    """
    spec = multilabel_spec(num_labels, threshold, multidim_average, ignore_index, validate_args, need="exact")
    return evaluate(spec, reduction("exact_match"), preds, target)


__all__ = [
    "binary_jaccard_index",
    "multiclass_jaccard_index",
    "multilabel_jaccard_index",
    "binary_matthews_corrcoef",
    "multiclass_matthews_corrcoef",
    "multilabel_matthews_corrcoef",
    "binary_cohen_kappa",
    "multiclass_cohen_kappa",
    "binary_confusion_matrix",
    "multiclass_confusion_matrix",
    "multilabel_confusion_matrix",
    "multiclass_exact_match",
    "multilabel_exact_match",
]
