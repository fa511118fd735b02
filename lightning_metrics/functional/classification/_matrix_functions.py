"""Functional measures read off a whole confusion matrix, and exact match.

Jaccard index, Matthews correlation, Cohen's kappa and the confusion matrix itself all come from
the same statistic as the count ratios (the (C, C) matrix for multiclass input, the (2, 2) and
(L, 2, 2) one-vs-rest counts for binary and multilabel input). Exact match needs one more bit per
sample: whether all of its labels are right.

Every function is torchmetrics' signature, its docstring and one line: the statistic and the
reduction of its task and measure (:func:`~._core.matrix_statistic`, shared with the modular
classes), evaluated on one batch.
"""

from __future__ import annotations

from typing import Optional

from torch import Tensor

from lightning_metrics.functional.classification._core import evaluate, matrix_statistic


def binary_jaccard_index(preds: Tensor, target: Tensor, threshold: float = 0.5, ignore_index: Optional[int] = None,
                         validate_args: bool = True, zero_division: float = 0.0,
                         *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Jaccard index (intersection over union) ``tp / (tp + fp + fn)`` for binary tasks.

    >>> from torch import tensor
    >>> binary_jaccard_index(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.3333)
    """
    return evaluate(*matrix_statistic("binary", "jaccard_index", locals()), preds, target, sample_weight)


def multiclass_jaccard_index(preds: Tensor, target: Tensor, num_classes: int, average: Optional[str] = "macro",
                             ignore_index: Optional[int] = None, validate_args: bool = True,
                             zero_division: float = 0.0, *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Jaccard index per class and averaged, for multiclass tasks.

    An ``ignore_index`` that is a class leaves that class out of the micro and macro averages.

    >>> from torch import tensor
    >>> multiclass_jaccard_index(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3)
    tensor(0.6667)
    """
    return evaluate(*matrix_statistic("multiclass", "jaccard_index", locals()), preds, target, sample_weight)


def multilabel_jaccard_index(preds: Tensor, target: Tensor, num_labels: int, threshold: float = 0.5,
                             average: Optional[str] = "macro", ignore_index: Optional[int] = None,
                             validate_args: bool = True, zero_division: float = 0.0,
                             *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Jaccard index per label and averaged (``average='samples'``: per example), multilabel tasks.

    >>> from torch import tensor
    >>> multilabel_jaccard_index(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), num_labels=3)
    tensor(0.5000)
    """
    return evaluate(*matrix_statistic("multilabel", "jaccard_index", locals()), preds, target, sample_weight)


def binary_matthews_corrcoef(preds: Tensor, target: Tensor, threshold: float = 0.5,
                             ignore_index: Optional[int] = None, validate_args: bool = True,
                             *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Matthews correlation coefficient for binary tasks.

    >>> from torch import tensor
    >>> binary_matthews_corrcoef(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.)
    """
    return evaluate(*matrix_statistic("binary", "matthews_corrcoef", locals()), preds, target, sample_weight)


def multiclass_matthews_corrcoef(preds: Tensor, target: Tensor, num_classes: int, ignore_index: Optional[int] = None,
                                 validate_args: bool = True,
                                 *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Matthews correlation coefficient for multiclass tasks.

    >>> from torch import tensor
    >>> multiclass_matthews_corrcoef(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3)
    tensor(0.7000)
    """
    return evaluate(*matrix_statistic("multiclass", "matthews_corrcoef", locals()), preds, target, sample_weight)


def multilabel_matthews_corrcoef(preds: Tensor, target: Tensor, num_labels: int, threshold: float = 0.5,
                                 ignore_index: Optional[int] = None, validate_args: bool = True,
                                 *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Matthews correlation coefficient of all labels pooled, for multilabel tasks.

    >>> from torch import tensor
    >>> multilabel_matthews_corrcoef(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), num_labels=3)
    tensor(0.3333)
    """
    return evaluate(*matrix_statistic("multilabel", "matthews_corrcoef", locals()), preds, target, sample_weight)


def binary_cohen_kappa(preds: Tensor, target: Tensor, threshold: float = 0.5, weights: Optional[str] = None,
                       ignore_index: Optional[int] = None, validate_args: bool = True,
                       *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Cohen's kappa (agreement beyond chance) for binary tasks.

    >>> from torch import tensor
    >>> binary_cohen_kappa(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.)
    """
    return evaluate(*matrix_statistic("binary", "cohen_kappa", locals()), preds, target, sample_weight)


def multiclass_cohen_kappa(preds: Tensor, target: Tensor, num_classes: int, weights: Optional[str] = None,
                           ignore_index: Optional[int] = None, validate_args: bool = True,
                           *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Cohen's kappa, unweighted or with ``"linear"`` / ``"quadratic"`` weights, multiclass tasks.

    >>> from torch import tensor
    >>> multiclass_cohen_kappa(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3)
    tensor(0.6364)
    """
    return evaluate(*matrix_statistic("multiclass", "cohen_kappa", locals()), preds, target, sample_weight)


def binary_confusion_matrix(preds: Tensor, target: Tensor, threshold: float = 0.5, normalize: Optional[str] = None,
                            ignore_index: Optional[int] = None, validate_args: bool = True,
                            *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The ``(2, 2)`` confusion matrix ``[[tn, fp], [fn, tp]]``; ``normalize`` in true/pred/all/none.

    >>> from torch import tensor
    >>> binary_confusion_matrix(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor([[1, 1],
            [1, 1]])
    """
    return evaluate(*matrix_statistic("binary", "confusion_matrix", locals()), preds, target, sample_weight)


def multiclass_confusion_matrix(preds: Tensor, target: Tensor, num_classes: int, normalize: Optional[str] = None,
                                ignore_index: Optional[int] = None, validate_args: bool = True,
                                *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The ``(C, C)`` confusion matrix, rows indexed by target and columns by prediction.

    >>> from torch import tensor
    >>> multiclass_confusion_matrix(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3)
    tensor([[1, 1, 0],
            [0, 1, 0],
            [0, 0, 1]])
    """
    return evaluate(*matrix_statistic("multiclass", "confusion_matrix", locals()), preds, target, sample_weight)


def multilabel_confusion_matrix(preds: Tensor, target: Tensor, num_labels: int, threshold: float = 0.5,
                                normalize: Optional[str] = None, ignore_index: Optional[int] = None,
                                validate_args: bool = True,
                                *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """One ``(2, 2)`` confusion matrix per label: ``(L, 2, 2)``.

    >>> from torch import tensor
    >>> multilabel_confusion_matrix(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), num_labels=3)[0]
    tensor([[1, 0],
            [0, 1]])
    """
    return evaluate(*matrix_statistic("multilabel", "confusion_matrix", locals()), preds, target, sample_weight)


def multiclass_exact_match(preds: Tensor, target: Tensor, num_classes: int, multidim_average: str = "global",
                           ignore_index: Optional[int] = None, validate_args: bool = True,
                           *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Fraction of samples whose every position ``(N, ...)`` is classified right.

    >>> from torch import tensor
    >>> multiclass_exact_match(tensor([[2, 1], [0, 1]]), tensor([[2, 1], [0, 0]]), num_classes=3)
    tensor(0.5000)
    """
    return evaluate(*matrix_statistic("multiclass", "exact_match", locals()), preds, target, sample_weight)


def multilabel_exact_match(preds: Tensor, target: Tensor, num_labels: int, threshold: float = 0.5,
                           multidim_average: str = "global", ignore_index: Optional[int] = None,
                           validate_args: bool = True, *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Fraction of examples whose labels are all right (subset accuracy).

    >>> from torch import tensor
    >>> multilabel_exact_match(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), num_labels=3)
    tensor(0.5000)
    """
    return evaluate(*matrix_statistic("multilabel", "exact_match", locals()), preds, target, sample_weight)


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
