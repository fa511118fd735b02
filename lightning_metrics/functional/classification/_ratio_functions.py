"""Functional binary / multiclass / multilabel versions of the count-ratio measures.

Arguments are torchmetrics': ``threshold`` turns binary/multilabel scores into labels (logits are
detected and squashed first); ``top_k`` counts a multiclass position as right when its target is
among the ``top_k`` best scores; ``average`` is ``"micro"``, ``"macro"``, ``"weighted"``,
``"none"``/``None`` (multilabel measures also take ``"samples"``, scikit-learn's per-example
average); ``multidim_average="samplewise"`` gives one value per sample over the extra dimensions;
``ignore_index`` is a target value that counts nowhere; ``zero_division`` is the value of 0/0;
``validate_args=False`` skips the tensor checks (and their host syncs).

Every function is torchmetrics' signature, its docstring and one line: the statistic and the
reduction of its task and measure (:func:`~._core.ratio_statistic`, shared with the modular
classes), evaluated on one batch.
"""

from __future__ import annotations

from typing import Optional

from torch import Tensor

from lightning_metrics.functional.classification._core import evaluate, ratio_statistic


def binary_stat_scores(preds: Tensor, target: Tensor, threshold: float = 0.5,
                       multidim_average: str = "global", ignore_index: Optional[int] = None,
                       validate_args: bool = True, *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The true positives, false positives, true negatives, false negatives and support (``[..., 5]``) for binary tasks.

    >>> from torch import tensor
    >>> binary_stat_scores(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor([1, 1, 1, 1, 2])
    """
    return evaluate(*ratio_statistic("binary", "stat_scores", locals()), preds, target, sample_weight)


def multiclass_stat_scores(preds: Tensor, target: Tensor, num_classes: int, average: Optional[str] = "macro",
                           top_k: int = 1, multidim_average: str = "global",
                           ignore_index: Optional[int] = None, validate_args: bool = True,
                           *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The true positives, false positives, true negatives, false negatives and support (``[..., 5]``) for multiclass tasks, per class and averaged.

    >>> from torch import tensor
    >>> multiclass_stat_scores(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3)
    tensor([1.0000, 0.3333, 2.3333, 0.3333, 1.3333])
    """
    return evaluate(*ratio_statistic("multiclass", "stat_scores", locals()), preds, target, sample_weight)


def multilabel_stat_scores(preds: Tensor, target: Tensor, num_labels: int, threshold: float = 0.5,
                           average: Optional[str] = "macro", multidim_average: str = "global",
                           ignore_index: Optional[int] = None, validate_args: bool = True,
                           *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The true positives, false positives, true negatives, false negatives and support (``[..., 5]``) for multilabel tasks, per label and averaged.

    >>> from torch import tensor
    >>> multilabel_stat_scores(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), num_labels=3)
    tensor([0.6667, 0.3333, 0.6667, 0.3333, 1.0000])
    """
    return evaluate(*ratio_statistic("multilabel", "stat_scores", locals()), preds, target, sample_weight)


def binary_accuracy(preds: Tensor, target: Tensor, threshold: float = 0.5, multidim_average: str = "global",
                    ignore_index: Optional[int] = None, validate_args: bool = True,
                    *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The accuracy for binary tasks.

    >>> from torch import tensor
    >>> binary_accuracy(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """
    return evaluate(*ratio_statistic("binary", "accuracy", locals()), preds, target, sample_weight)


def multiclass_accuracy(preds: Tensor, target: Tensor, num_classes: Optional[int] = None,
                        average: Optional[str] = "macro", top_k: int = 1, multidim_average: str = "global",
                        ignore_index: Optional[int] = None, validate_args: bool = True,
                        *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The accuracy for multiclass tasks, per class and averaged.

    >>> from torch import tensor
    >>> multiclass_accuracy(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3)
    tensor(0.8333)
    """
    return evaluate(*ratio_statistic("multiclass", "accuracy", locals()), preds, target, sample_weight)


def multilabel_accuracy(preds: Tensor, target: Tensor, num_labels: int, threshold: float = 0.5,
                        average: Optional[str] = "macro", multidim_average: str = "global",
                        ignore_index: Optional[int] = None, validate_args: bool = True,
                        *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The accuracy for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> multilabel_accuracy(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), num_labels=3)
    tensor(0.6667)
    """
    return evaluate(*ratio_statistic("multilabel", "accuracy", locals()), preds, target, sample_weight)


def binary_precision(preds: Tensor, target: Tensor, threshold: float = 0.5, multidim_average: str = "global",
                     ignore_index: Optional[int] = None, validate_args: bool = True,
                     zero_division: float = 0, *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The precision ``tp / (tp + fp)`` for binary tasks.

    >>> from torch import tensor
    >>> binary_precision(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """
    return evaluate(*ratio_statistic("binary", "precision", locals()), preds, target, sample_weight)


def multiclass_precision(preds: Tensor, target: Tensor, num_classes: int, average: Optional[str] = "macro",
                         top_k: int = 1, multidim_average: str = "global", ignore_index: Optional[int] = None,
                         validate_args: bool = True, zero_division: float = 0,
                         *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The precision ``tp / (tp + fp)`` for multiclass tasks, per class and averaged.

    >>> from torch import tensor
    >>> multiclass_precision(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3)
    tensor(0.8333)
    """
    return evaluate(*ratio_statistic("multiclass", "precision", locals()), preds, target, sample_weight)


def multilabel_precision(preds: Tensor, target: Tensor, num_labels: int, threshold: float = 0.5,
                         average: Optional[str] = "macro", multidim_average: str = "global",
                         ignore_index: Optional[int] = None, validate_args: bool = True,
                         zero_division: float = 0, *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The precision ``tp / (tp + fp)`` for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> multilabel_precision(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), num_labels=3)
    tensor(0.5000)
    """
    return evaluate(*ratio_statistic("multilabel", "precision", locals()), preds, target, sample_weight)


def binary_recall(preds: Tensor, target: Tensor, threshold: float = 0.5, multidim_average: str = "global",
                  ignore_index: Optional[int] = None, validate_args: bool = True,
                  zero_division: float = 0, *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The recall ``tp / (tp + fn)`` for binary tasks.

    >>> from torch import tensor
    >>> binary_recall(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """
    return evaluate(*ratio_statistic("binary", "recall", locals()), preds, target, sample_weight)


def multiclass_recall(preds: Tensor, target: Tensor, num_classes: int, average: Optional[str] = "macro",
                      top_k: int = 1, multidim_average: str = "global", ignore_index: Optional[int] = None,
                      validate_args: bool = True, zero_division: float = 0,
                      *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The recall ``tp / (tp + fn)`` for multiclass tasks, per class and averaged.

    >>> from torch import tensor
    >>> multiclass_recall(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3)
    tensor(0.8333)
    """
    return evaluate(*ratio_statistic("multiclass", "recall", locals()), preds, target, sample_weight)


def multilabel_recall(preds: Tensor, target: Tensor, num_labels: int, threshold: float = 0.5,
                      average: Optional[str] = "macro", multidim_average: str = "global",
                      ignore_index: Optional[int] = None, validate_args: bool = True,
                      zero_division: float = 0, *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The recall ``tp / (tp + fn)`` for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> multilabel_recall(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), num_labels=3)
    tensor(0.6667)
    """
    return evaluate(*ratio_statistic("multilabel", "recall", locals()), preds, target, sample_weight)


def binary_f1_score(preds: Tensor, target: Tensor, threshold: float = 0.5, multidim_average: str = "global",
                    ignore_index: Optional[int] = None, validate_args: bool = True,
                    zero_division: float = 0, *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The F1 score, the harmonic mean of precision and recall for binary tasks.

    >>> from torch import tensor
    >>> binary_f1_score(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """
    return evaluate(*ratio_statistic("binary", "fbeta", locals()), preds, target, sample_weight)


def multiclass_f1_score(preds: Tensor, target: Tensor, num_classes: int, average: Optional[str] = "macro",
                        top_k: int = 1, multidim_average: str = "global", ignore_index: Optional[int] = None,
                        validate_args: bool = True, zero_division: float = 0,
                        *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The F1 score, the harmonic mean of precision and recall for multiclass tasks, per class and averaged.

    >>> from torch import tensor
    >>> multiclass_f1_score(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3)
    tensor(0.7778)
    """
    return evaluate(*ratio_statistic("multiclass", "fbeta", locals()), preds, target, sample_weight)


def multilabel_f1_score(preds: Tensor, target: Tensor, num_labels: int, threshold: float = 0.5,
                        average: Optional[str] = "macro", multidim_average: str = "global",
                        ignore_index: Optional[int] = None, validate_args: bool = True,
                        zero_division: float = 0, *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The F1 score, the harmonic mean of precision and recall for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> multilabel_f1_score(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), num_labels=3)
    tensor(0.5556)
    """
    return evaluate(*ratio_statistic("multilabel", "fbeta", locals()), preds, target, sample_weight)


def binary_fbeta_score(preds: Tensor, target: Tensor, beta: float, threshold: float = 0.5,
                       multidim_average: str = "global", ignore_index: Optional[int] = None,
                       validate_args: bool = True, zero_division: float = 0,
                       *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The F-beta score ``(1 + b^2) tp / ((1 + b^2) tp + b^2 fn + fp)`` for binary tasks.

    >>> from torch import tensor
    >>> binary_fbeta_score(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]), beta=2.0)
    tensor(0.5000)
    """
    return evaluate(*ratio_statistic("binary", "fbeta", locals()), preds, target, sample_weight)


def multiclass_fbeta_score(preds: Tensor, target: Tensor, beta: float, num_classes: int,
                           average: Optional[str] = "macro", top_k: int = 1, multidim_average: str = "global",
                           ignore_index: Optional[int] = None, validate_args: bool = True,
                           zero_division: float = 0, *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The F-beta score ``(1 + b^2) tp / ((1 + b^2) tp + b^2 fn + fp)`` for multiclass tasks, per class and averaged.

    >>> from torch import tensor
    >>> multiclass_fbeta_score(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), beta=2.0, num_classes=3)
    tensor(0.7963)
    """
    return evaluate(*ratio_statistic("multiclass", "fbeta", locals()), preds, target, sample_weight)


def multilabel_fbeta_score(preds: Tensor, target: Tensor, beta: float, num_labels: int,
                           threshold: float = 0.5, average: Optional[str] = "macro",
                           multidim_average: str = "global", ignore_index: Optional[int] = None,
                           validate_args: bool = True, zero_division: float = 0,
                           *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The F-beta score ``(1 + b^2) tp / ((1 + b^2) tp + b^2 fn + fp)`` for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> multilabel_fbeta_score(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), beta=2.0, num_labels=3)
    tensor(0.6111)
    """
    return evaluate(*ratio_statistic("multilabel", "fbeta", locals()), preds, target, sample_weight)


def binary_specificity(preds: Tensor, target: Tensor, threshold: float = 0.5,
                       multidim_average: str = "global", ignore_index: Optional[int] = None,
                       validate_args: bool = True, *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The specificity ``tn / (tn + fp)`` for binary tasks.

    >>> from torch import tensor
    >>> binary_specificity(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """
    return evaluate(*ratio_statistic("binary", "specificity", locals()), preds, target, sample_weight)


def multiclass_specificity(preds: Tensor, target: Tensor, num_classes: int, average: Optional[str] = "macro",
                           top_k: int = 1, multidim_average: str = "global",
                           ignore_index: Optional[int] = None, validate_args: bool = True,
                           *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The specificity ``tn / (tn + fp)`` for multiclass tasks, per class and averaged.

    >>> from torch import tensor
    >>> multiclass_specificity(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3)
    tensor(0.8889)
    """
    return evaluate(*ratio_statistic("multiclass", "specificity", locals()), preds, target, sample_weight)


def multilabel_specificity(preds: Tensor, target: Tensor, num_labels: int, threshold: float = 0.5,
                           average: Optional[str] = "macro", multidim_average: str = "global",
                           ignore_index: Optional[int] = None, validate_args: bool = True,
                           *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The specificity ``tn / (tn + fp)`` for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> multilabel_specificity(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), num_labels=3)
    tensor(0.6667)
    """
    return evaluate(*ratio_statistic("multilabel", "specificity", locals()), preds, target, sample_weight)


def binary_negative_predictive_value(preds: Tensor, target: Tensor, threshold: float = 0.5,
                                     multidim_average: str = "global", ignore_index: Optional[int] = None,
                                     validate_args: bool = True, zero_division: float = 0,
                                     *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The negative predictive value ``tn / (tn + fn)`` for binary tasks.

    >>> from torch import tensor
    >>> binary_negative_predictive_value(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """
    return evaluate(*ratio_statistic("binary", "negative_predictive_value", locals()), preds, target, sample_weight)


def multiclass_negative_predictive_value(preds: Tensor, target: Tensor, num_classes: int,
                                         average: Optional[str] = "macro", top_k: int = 1,
                                         multidim_average: str = "global", ignore_index: Optional[int] = None,
                                         validate_args: bool = True, zero_division: float = 0,
                                         *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The negative predictive value ``tn / (tn + fn)`` for multiclass tasks, per class and averaged.

    >>> from torch import tensor
    >>> multiclass_negative_predictive_value(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3)
    tensor(0.8889)
    """
    return evaluate(*ratio_statistic("multiclass", "negative_predictive_value", locals()), preds, target, sample_weight)


def multilabel_negative_predictive_value(preds: Tensor, target: Tensor, num_labels: int,
                                         threshold: float = 0.5, average: Optional[str] = "macro",
                                         multidim_average: str = "global", ignore_index: Optional[int] = None,
                                         validate_args: bool = True, zero_division: float = 0,
                                         *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The negative predictive value ``tn / (tn + fn)`` for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> multilabel_negative_predictive_value(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), num_labels=3)
    tensor(0.5000)
    """
    return evaluate(*ratio_statistic("multilabel", "negative_predictive_value", locals()), preds, target, sample_weight)


def binary_hamming_distance(preds: Tensor, target: Tensor, threshold: float = 0.5,
                            multidim_average: str = "global", ignore_index: Optional[int] = None,
                            validate_args: bool = True, *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The hamming distance, the fraction of wrong labels for binary tasks.

    >>> from torch import tensor
    >>> binary_hamming_distance(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """
    return evaluate(*ratio_statistic("binary", "hamming_distance", locals()), preds, target, sample_weight)


def multiclass_hamming_distance(preds: Tensor, target: Tensor, num_classes: int,
                                average: Optional[str] = "macro", top_k: int = 1,
                                multidim_average: str = "global", ignore_index: Optional[int] = None,
                                validate_args: bool = True,
                                *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The hamming distance, the fraction of wrong labels for multiclass tasks, per class and averaged.

    >>> from torch import tensor
    >>> multiclass_hamming_distance(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3)
    tensor(0.1667)
    """
    return evaluate(*ratio_statistic("multiclass", "hamming_distance", locals()), preds, target, sample_weight)


def multilabel_hamming_distance(preds: Tensor, target: Tensor, num_labels: int, threshold: float = 0.5,
                                average: Optional[str] = "macro", multidim_average: str = "global",
                                ignore_index: Optional[int] = None, validate_args: bool = True,
                                *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The hamming distance, the fraction of wrong labels for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> multilabel_hamming_distance(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), num_labels=3)
    tensor(0.3333)
    """
    return evaluate(*ratio_statistic("multilabel", "hamming_distance", locals()), preds, target, sample_weight)


__all__ = [f"{task}_{name}" for name in (
    "stat_scores", "accuracy", "precision", "recall", "f1_score", "fbeta_score", "specificity",
    "negative_predictive_value", "hamming_distance",
) for task in ("binary", "multiclass", "multilabel")]
