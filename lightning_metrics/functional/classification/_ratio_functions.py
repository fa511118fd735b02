"""Functional binary / multiclass / multilabel versions of the count-ratio measures.

Arguments are torchmetrics': ``threshold`` turns binary/multilabel scores into labels (logits are
detected and squashed first); ``top_k`` counts a multiclass position as right when its target is
among the ``top_k`` best scores; ``average`` is ``"micro"``, ``"macro"``, ``"weighted"``,
``"none"``/``None`` (multilabel measures also take ``"samples"``, scikit-learn's per-example
average); ``multidim_average="samplewise"`` gives one value per sample over the extra dimensions;
``ignore_index`` is a target value that counts nowhere; ``zero_division`` is the value of 0/0;
``validate_args=False`` skips the tensor checks (and their host syncs).

Every function is one spec (the statistic), one batch and one reduction (the measure and average).
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
from lightning_metrics.functional.classification._measures import MEASURES


def _binary(measure, preds, target, threshold, multidim_average, ignore_index, validate_args, zero_division=0, beta=1.0):  # noqa: ANN001, ANN202
    spec = binary_spec(threshold, multidim_average, ignore_index, validate_args)
    return evaluate(spec, reduction(measure, zero_division=zero_division, beta=beta), preds, target)


def _multiclass(  # noqa: ANN202
    measure, preds, target, num_classes, average, top_k, multidim_average, ignore_index, validate_args,  # noqa: ANN001
    zero_division=0, beta=1.0,  # noqa: ANN001
):
    red = reduction(measure, average, zero_division, beta)
    spec = multiclass_spec(num_classes, top_k, multidim_average, ignore_index, validate_args, reduction=red)
    return evaluate(spec, red, preds, target)


def _multilabel(  # noqa: ANN202
    measure, preds, target, num_labels, threshold, average, multidim_average, ignore_index, validate_args,  # noqa: ANN001
    zero_division=0, beta=1.0,  # noqa: ANN001
):
    red = reduction(measure, average, zero_division, beta, samples=measure in MEASURES)
    spec = multilabel_spec(num_labels, threshold, multidim_average, ignore_index, validate_args, reduction=red)
    return evaluate(spec, red, preds, target)

def binary_stat_scores(
    preds: Tensor,
    target: Tensor,
    threshold: float = 0.5,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """The true positives, false positives, true negatives, false negatives and support (``[..., 5]``) for binary tasks.

    >>> from torch import tensor
    >>> binary_stat_scores(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor([1, 1, 1, 1, 2])
    """
    return _binary("stat_scores", preds, target, threshold, multidim_average, ignore_index, validate_args)


def multiclass_stat_scores(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    average: Optional[str] = "macro",
    top_k: int = 1,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """The true positives, false positives, true negatives, false negatives and support (``[..., 5]``) for multiclass tasks, per class and averaged.

    >>> from torch import tensor
    >>> multiclass_stat_scores(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3)
    tensor([1.0000, 0.3333, 2.3333, 0.3333, 1.3333])
    """
    return _multiclass(
        "stat_scores", preds, target, num_classes, average, top_k, multidim_average, ignore_index, validate_args
    )


def multilabel_stat_scores(
    preds: Tensor,
    target: Tensor,
    num_labels: int,
    threshold: float = 0.5,
    average: Optional[str] = "macro",
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """The true positives, false positives, true negatives, false negatives and support (``[..., 5]``) for multilabel tasks, per label and averaged.

    >>> from torch import tensor
    >>> multilabel_stat_scores(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), num_labels=3)
    tensor([0.6667, 0.3333, 0.6667, 0.3333, 1.0000])
    """
    return _multilabel(
        "stat_scores", preds, target, num_labels, threshold, average, multidim_average, ignore_index, validate_args
    )

def binary_accuracy(
    preds: Tensor,
    target: Tensor,
    threshold: float = 0.5,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """The accuracy for binary tasks.

    >>> from torch import tensor
    >>> binary_accuracy(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """
    return _binary("accuracy", preds, target, threshold, multidim_average, ignore_index, validate_args)


def multiclass_accuracy(
    preds: Tensor,
    target: Tensor,
    num_classes: Optional[int] = None,
    average: Optional[str] = "macro",
    top_k: int = 1,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """The accuracy for multiclass tasks, per class and averaged.

    >>> from torch import tensor
    >>> multiclass_accuracy(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3)
    tensor(0.8333)
    """
    return _multiclass(
        "accuracy", preds, target, num_classes, average, top_k, multidim_average, ignore_index, validate_args
    )


def multilabel_accuracy(
    preds: Tensor,
    target: Tensor,
    num_labels: int,
    threshold: float = 0.5,
    average: Optional[str] = "macro",
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """The accuracy for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> multilabel_accuracy(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), num_labels=3)
    tensor(0.6667)
    """
    return _multilabel(
        "accuracy", preds, target, num_labels, threshold, average, multidim_average, ignore_index, validate_args
    )

def binary_precision(
    preds: Tensor,
    target: Tensor,
    threshold: float = 0.5,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True, zero_division: float = 0,
) -> Tensor:
    """The precision ``tp / (tp + fp)`` for binary tasks.

    >>> from torch import tensor
    >>> binary_precision(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """
    return _binary("precision", preds, target, threshold, multidim_average, ignore_index, validate_args, zero_division)


def multiclass_precision(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    average: Optional[str] = "macro",
    top_k: int = 1,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True, zero_division: float = 0,
) -> Tensor:
    """The precision ``tp / (tp + fp)`` for multiclass tasks, per class and averaged.

    >>> from torch import tensor
    >>> multiclass_precision(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3)
    tensor(0.8333)
    """
    return _multiclass(
        "precision", preds, target, num_classes, average, top_k, multidim_average, ignore_index, validate_args, zero_division
    )


def multilabel_precision(
    preds: Tensor,
    target: Tensor,
    num_labels: int,
    threshold: float = 0.5,
    average: Optional[str] = "macro",
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True, zero_division: float = 0,
) -> Tensor:
    """The precision ``tp / (tp + fp)`` for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> multilabel_precision(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), num_labels=3)
    tensor(0.5000)
    """
    return _multilabel(
        "precision", preds, target, num_labels, threshold, average, multidim_average, ignore_index, validate_args, zero_division
    )

def binary_recall(
    preds: Tensor,
    target: Tensor,
    threshold: float = 0.5,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True, zero_division: float = 0,
) -> Tensor:
    """The recall ``tp / (tp + fn)`` for binary tasks.

    >>> from torch import tensor
    >>> binary_recall(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """
    return _binary("recall", preds, target, threshold, multidim_average, ignore_index, validate_args, zero_division)


def multiclass_recall(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    average: Optional[str] = "macro",
    top_k: int = 1,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True, zero_division: float = 0,
) -> Tensor:
    """The recall ``tp / (tp + fn)`` for multiclass tasks, per class and averaged.

    >>> from torch import tensor
    >>> multiclass_recall(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3)
    tensor(0.8333)
    """
    return _multiclass(
        "recall", preds, target, num_classes, average, top_k, multidim_average, ignore_index, validate_args, zero_division
    )


def multilabel_recall(
    preds: Tensor,
    target: Tensor,
    num_labels: int,
    threshold: float = 0.5,
    average: Optional[str] = "macro",
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True, zero_division: float = 0,
) -> Tensor:
    """The recall ``tp / (tp + fn)`` for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> multilabel_recall(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), num_labels=3)
    tensor(0.6667)
    """
    return _multilabel(
        "recall", preds, target, num_labels, threshold, average, multidim_average, ignore_index, validate_args, zero_division
    )

def binary_f1_score(
    preds: Tensor,
    target: Tensor,
    threshold: float = 0.5,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True, zero_division: float = 0,
) -> Tensor:
    """The F1 score, the harmonic mean of precision and recall for binary tasks.

    >>> from torch import tensor
    >>> binary_f1_score(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """
    return _binary("fbeta", preds, target, threshold, multidim_average, ignore_index, validate_args, zero_division)


def multiclass_f1_score(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    average: Optional[str] = "macro",
    top_k: int = 1,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True, zero_division: float = 0,
) -> Tensor:
    """The F1 score, the harmonic mean of precision and recall for multiclass tasks, per class and averaged.

    >>> from torch import tensor
    >>> multiclass_f1_score(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3)
    tensor(0.7778)
    """
    return _multiclass(
        "fbeta", preds, target, num_classes, average, top_k, multidim_average, ignore_index, validate_args, zero_division
    )


def multilabel_f1_score(
    preds: Tensor,
    target: Tensor,
    num_labels: int,
    threshold: float = 0.5,
    average: Optional[str] = "macro",
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True, zero_division: float = 0,
) -> Tensor:
    """The F1 score, the harmonic mean of precision and recall for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> multilabel_f1_score(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), num_labels=3)
    tensor(0.5556)
    """
    return _multilabel(
        "fbeta", preds, target, num_labels, threshold, average, multidim_average, ignore_index, validate_args, zero_division
    )

def binary_fbeta_score(
    preds: Tensor,
    target: Tensor,
    beta: float, threshold: float = 0.5,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True, zero_division: float = 0,
) -> Tensor:
    """The F-beta score ``(1 + b^2) tp / ((1 + b^2) tp + b^2 fn + fp)`` for binary tasks.

    >>> from torch import tensor
    >>> binary_fbeta_score(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]), beta=2.0)
    tensor(0.5000)
    """
    return _binary("fbeta", preds, target, threshold, multidim_average, ignore_index, validate_args, zero_division, beta=beta)


def multiclass_fbeta_score(
    preds: Tensor,
    target: Tensor,
    beta: float, num_classes: int,
    average: Optional[str] = "macro",
    top_k: int = 1,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True, zero_division: float = 0,
) -> Tensor:
    """The F-beta score ``(1 + b^2) tp / ((1 + b^2) tp + b^2 fn + fp)`` for multiclass tasks, per class and averaged.

    >>> from torch import tensor
    >>> multiclass_fbeta_score(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), beta=2.0, num_classes=3)
    tensor(0.7963)
    """
    return _multiclass(
        "fbeta", preds, target, num_classes, average, top_k, multidim_average, ignore_index, validate_args, zero_division, beta=beta
    )


def multilabel_fbeta_score(
    preds: Tensor,
    target: Tensor,
    beta: float, num_labels: int,
    threshold: float = 0.5,
    average: Optional[str] = "macro",
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True, zero_division: float = 0,
) -> Tensor:
    """The F-beta score ``(1 + b^2) tp / ((1 + b^2) tp + b^2 fn + fp)`` for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> multilabel_fbeta_score(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), beta=2.0, num_labels=3)
    tensor(0.6111)
    """
    return _multilabel(
        "fbeta", preds, target, num_labels, threshold, average, multidim_average, ignore_index, validate_args, zero_division, beta=beta
    )

def binary_specificity(
    preds: Tensor,
    target: Tensor,
    threshold: float = 0.5,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """The specificity ``tn / (tn + fp)`` for binary tasks.

    >>> from torch import tensor
    >>> binary_specificity(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """
    return _binary("specificity", preds, target, threshold, multidim_average, ignore_index, validate_args)


def multiclass_specificity(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    average: Optional[str] = "macro",
    top_k: int = 1,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """The specificity ``tn / (tn + fp)`` for multiclass tasks, per class and averaged.

    >>> from torch import tensor
    >>> multiclass_specificity(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3)
    tensor(0.8889)
    """
    return _multiclass(
        "specificity", preds, target, num_classes, average, top_k, multidim_average, ignore_index, validate_args
    )


def multilabel_specificity(
    preds: Tensor,
    target: Tensor,
    num_labels: int,
    threshold: float = 0.5,
    average: Optional[str] = "macro",
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """The specificity ``tn / (tn + fp)`` for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> multilabel_specificity(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), num_labels=3)
    tensor(0.6667)
    """
    return _multilabel(
        "specificity", preds, target, num_labels, threshold, average, multidim_average, ignore_index, validate_args
    )

def binary_negative_predictive_value(
    preds: Tensor,
    target: Tensor,
    threshold: float = 0.5,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True, zero_division: float = 0,
) -> Tensor:
    """The negative predictive value ``tn / (tn + fn)`` for binary tasks.

    >>> from torch import tensor
    >>> binary_negative_predictive_value(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """
    return _binary("negative_predictive_value", preds, target, threshold, multidim_average, ignore_index, validate_args, zero_division)


def multiclass_negative_predictive_value(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    average: Optional[str] = "macro",
    top_k: int = 1,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True, zero_division: float = 0,
) -> Tensor:
    """The negative predictive value ``tn / (tn + fn)`` for multiclass tasks, per class and averaged.

    >>> from torch import tensor
    >>> multiclass_negative_predictive_value(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3)
    tensor(0.8889)
    """
    return _multiclass(
        "negative_predictive_value", preds, target, num_classes, average, top_k, multidim_average, ignore_index, validate_args, zero_division
    )


def multilabel_negative_predictive_value(
    preds: Tensor,
    target: Tensor,
    num_labels: int,
    threshold: float = 0.5,
    average: Optional[str] = "macro",
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True, zero_division: float = 0,
) -> Tensor:
    """The negative predictive value ``tn / (tn + fn)`` for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> multilabel_negative_predictive_value(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), num_labels=3)
    tensor(0.5000)
    """
    return _multilabel(
        "negative_predictive_value", preds, target, num_labels, threshold, average, multidim_average, ignore_index, validate_args, zero_division
    )

def binary_hamming_distance(
    preds: Tensor,
    target: Tensor,
    threshold: float = 0.5,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """The hamming distance, the fraction of wrong labels for binary tasks.

    >>> from torch import tensor
    >>> binary_hamming_distance(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """
    return _binary("hamming_distance", preds, target, threshold, multidim_average, ignore_index, validate_args)


def multiclass_hamming_distance(
    preds: Tensor,
    target: Tensor,
    num_classes: int,
    average: Optional[str] = "macro",
    top_k: int = 1,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """The hamming distance, the fraction of wrong labels for multiclass tasks, per class and averaged.

    >>> from torch import tensor
    >>> multiclass_hamming_distance(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3)
    tensor(0.1667)
    """
    return _multiclass(
        "hamming_distance", preds, target, num_classes, average, top_k, multidim_average, ignore_index, validate_args
    )


def multilabel_hamming_distance(
    preds: Tensor,
    target: Tensor,
    num_labels: int,
    threshold: float = 0.5,
    average: Optional[str] = "macro",
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """The hamming distance, the fraction of wrong labels for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> multilabel_hamming_distance(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), num_labels=3)
    tensor(0.3333)
    """
    return _multilabel(
        "hamming_distance", preds, target, num_labels, threshold, average, multidim_average, ignore_index, validate_args
    )


__all__ = [f"{task}_{name}" for name in (
    "stat_scores", "accuracy", "precision", "recall", "f1_score", "fbeta_score", "specificity",
    "negative_predictive_value", "hamming_distance",
) for task in ("binary", "multiclass", "multilabel")]
