"""Count-based classification metrics, functional: binary_*, multiclass_*, multilabel_* and task wrappers.

Stat scores, accuracy, precision, recall, F1 / F-beta, specificity, negative predictive value,
hamming distance, exact match, Jaccard index, Matthews correlation, Cohen's kappa and the
confusion matrix, with torchmetrics' names, arguments, defaults and values. The task wrappers
(``accuracy(preds, target, task="multiclass", num_classes=3)``) default to ``average="micro"``;
the ``multiclass_*`` / ``multilabel_*`` functions to ``"macro"``.

Every function takes ``sample_weight=None`` (keyword only; the rules are those of
:mod:`lightning_metrics.utilities.sample_weight`): one weight per sample, or per element, multiplied into
the counts, which become float64. Ratios keep their dtype; stat scores and the confusion matrix (not
normalized) are the float64 weighted counts; the ``weighted`` average weighs a class by its weighted support.
A zero weight removes the sample, integer weights repeat it, a constant weight leaves every ratio unchanged
(counts scale by it). Exact match and ``average="samples"`` take one weight per sample; with
``multidim_average="samplewise"`` the weight of a sample scales its counts (its rows of the result).

>>> from torch import tensor
>>> multiclass_f1_score(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3, average=None)
tensor([0.6667, 0.6667, 1.0000])
>>> multiclass_accuracy(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3, average="micro",
...                     sample_weight=tensor([1.0, 1.0, 1.0, 3.0]))  # the last sample three times
tensor(0.5000)
>>> binary_confusion_matrix(tensor([1, 0, 1]), tensor([1, 1, 0]), sample_weight=tensor([0.5, 2.0, 0.0]))
tensor([[0.0000, 0.0000],
        [2.0000, 0.5000]], dtype=torch.float64)
"""

from __future__ import annotations

from typing import Optional

from torch import Tensor

from lightning_metrics.functional.classification import _matrix_functions, _ratio_functions
from lightning_metrics.functional.classification._core import call_for_task
from lightning_metrics.functional.classification._matrix_functions import *  # noqa: F403
from lightning_metrics.functional.classification._ratio_functions import *  # noqa: F403
from lightning_metrics.functional.classification._task_functions import task_functions


def stat_scores(preds: Tensor, target: Tensor, task: str, threshold: float = 0.5,
                num_classes: Optional[int] = None, num_labels: Optional[int] = None,
                average: Optional[str] = "micro", multidim_average: str = "global", top_k: Optional[int] = 1,
                ignore_index: Optional[int] = None, validate_args: bool = True,
                *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The the stat scores ``[tp, fp, tn, fn, support]`` for ``task`` "binary", "multiclass" or "multilabel" (see ``binary_stat_scores`` etc.).

    >>> from torch import tensor
    >>> stat_scores(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), task="multiclass", num_classes=3)
    tensor([3, 1, 7, 1, 4])
    """
    return call_for_task(locals(), task_functions(__name__, "stat_scores"))


def accuracy(preds: Tensor, target: Tensor, task: str, threshold: float = 0.5,
             num_classes: Optional[int] = None, num_labels: Optional[int] = None,
             average: Optional[str] = "micro", multidim_average: str = "global", top_k: Optional[int] = 1,
             ignore_index: Optional[int] = None, validate_args: bool = True,
             *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The accuracy for ``task`` "binary", "multiclass" or "multilabel" (see ``binary_accuracy`` etc.).

    >>> from torch import tensor
    >>> accuracy(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), task="multiclass", num_classes=3)
    tensor(0.7500)
    """
    return call_for_task(locals(), task_functions(__name__, "accuracy"))


def precision(preds: Tensor, target: Tensor, task: str, threshold: float = 0.5,
              num_classes: Optional[int] = None, num_labels: Optional[int] = None,
              average: Optional[str] = "micro", multidim_average: str = "global", top_k: Optional[int] = 1,
              ignore_index: Optional[int] = None, validate_args: bool = True,
              zero_division: float = 0,
              *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The precision for ``task`` "binary", "multiclass" or "multilabel" (see ``binary_precision`` etc.).

    >>> from torch import tensor
    >>> precision(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), task="multiclass", num_classes=3)
    tensor(0.7500)
    """
    return call_for_task(locals(), task_functions(__name__, "precision"))


def recall(preds: Tensor, target: Tensor, task: str, threshold: float = 0.5,
           num_classes: Optional[int] = None, num_labels: Optional[int] = None,
           average: Optional[str] = "micro", multidim_average: str = "global", top_k: Optional[int] = 1,
           ignore_index: Optional[int] = None, validate_args: bool = True,
           zero_division: float = 0,
           *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The recall for ``task`` "binary", "multiclass" or "multilabel" (see ``binary_recall`` etc.).

    >>> from torch import tensor
    >>> recall(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), task="multiclass", num_classes=3)
    tensor(0.7500)
    """
    return call_for_task(locals(), task_functions(__name__, "recall"))


def f1_score(preds: Tensor, target: Tensor, task: str, threshold: float = 0.5,
             num_classes: Optional[int] = None, num_labels: Optional[int] = None,
             average: Optional[str] = "micro", multidim_average: str = "global", top_k: Optional[int] = 1,
             ignore_index: Optional[int] = None, validate_args: bool = True,
             zero_division: float = 0,
             *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The F1 score for ``task`` "binary", "multiclass" or "multilabel" (see ``binary_f1_score`` etc.).

    >>> from torch import tensor
    >>> f1_score(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), task="multiclass", num_classes=3)
    tensor(0.7500)
    """
    return call_for_task(locals(), task_functions(__name__, "f1_score"))


def fbeta_score(preds: Tensor, target: Tensor, task: str, beta: float = 1.0, threshold: float = 0.5,
                num_classes: Optional[int] = None, num_labels: Optional[int] = None,
                average: Optional[str] = "micro", multidim_average: str = "global", top_k: Optional[int] = 1,
                ignore_index: Optional[int] = None, validate_args: bool = True,
                zero_division: float = 0,
                *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The F-beta score for ``task`` "binary", "multiclass" or "multilabel" (see ``binary_fbeta_score`` etc.).

    >>> from torch import tensor
    >>> fbeta_score(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), task="multiclass", num_classes=3)
    tensor(0.7500)
    """
    return call_for_task(locals(), task_functions(__name__, "fbeta_score"))


def specificity(preds: Tensor, target: Tensor, task: str, threshold: float = 0.5,
                num_classes: Optional[int] = None, num_labels: Optional[int] = None,
                average: Optional[str] = "micro", multidim_average: str = "global", top_k: Optional[int] = 1,
                ignore_index: Optional[int] = None, validate_args: bool = True,
                *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The specificity for ``task`` "binary", "multiclass" or "multilabel" (see ``binary_specificity`` etc.).

    >>> from torch import tensor
    >>> specificity(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), task="multiclass", num_classes=3)
    tensor(0.8750)
    """
    return call_for_task(locals(), task_functions(__name__, "specificity"))


def negative_predictive_value(preds: Tensor, target: Tensor, task: str, threshold: float = 0.5,
                              num_classes: Optional[int] = None, num_labels: Optional[int] = None,
                              average: Optional[str] = "micro", multidim_average: str = "global",
                              top_k: Optional[int] = 1, ignore_index: Optional[int] = None,
                              validate_args: bool = True, zero_division: float = 0,
                              *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The negative predictive value for ``task`` "binary", "multiclass" or "multilabel" (see ``binary_negative_predictive_value`` etc.).

    >>> from torch import tensor
    >>> negative_predictive_value(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), task="multiclass", num_classes=3)
    tensor(0.8750)
    """
    return call_for_task(locals(), task_functions(__name__, "negative_predictive_value"))


def hamming_distance(preds: Tensor, target: Tensor, task: str, threshold: float = 0.5,
                     num_classes: Optional[int] = None, num_labels: Optional[int] = None,
                     average: Optional[str] = "micro", multidim_average: str = "global",
                     top_k: Optional[int] = 1, ignore_index: Optional[int] = None,
                     validate_args: bool = True,
                     *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """The hamming distance for ``task`` "binary", "multiclass" or "multilabel" (see ``binary_hamming_distance`` etc.).

    >>> from torch import tensor
    >>> hamming_distance(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), task="multiclass", num_classes=3)
    tensor(0.2500)
    """
    return call_for_task(locals(), task_functions(__name__, "hamming_distance"))


def exact_match(preds: Tensor, target: Tensor, task: str, num_classes: Optional[int] = None,
                num_labels: Optional[int] = None, threshold: float = 0.5, multidim_average: str = "global",
                ignore_index: Optional[int] = None, validate_args: bool = True,
                *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Exact match (subset accuracy) for ``task`` "multiclass" or "multilabel".

    >>> from torch import tensor
    >>> exact_match(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), task="multilabel", num_labels=3)
    tensor(0.5000)
    """
    return call_for_task(locals(), task_functions(__name__, "exact_match"))


def jaccard_index(preds: Tensor, target: Tensor, task: str, threshold: float = 0.5,
                  num_classes: Optional[int] = None, num_labels: Optional[int] = None,
                  average: Optional[str] = "macro", ignore_index: Optional[int] = None,
                  validate_args: bool = True, zero_division: float = 0.0,
                  *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Jaccard index for ``task`` "binary", "multiclass" or "multilabel" (default ``average="macro"``).

    >>> from torch import tensor
    >>> jaccard_index(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), task="multiclass", num_classes=3)
    tensor(0.6667)
    """
    return call_for_task(locals(), task_functions(__name__, "jaccard_index"))


def matthews_corrcoef(preds: Tensor, target: Tensor, task: str, threshold: float = 0.5,
                      num_classes: Optional[int] = None, num_labels: Optional[int] = None,
                      ignore_index: Optional[int] = None, validate_args: bool = True,
                      *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Matthews correlation coefficient for ``task`` "binary", "multiclass" or "multilabel".

    >>> from torch import tensor
    >>> matthews_corrcoef(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), task="multiclass", num_classes=3)
    tensor(0.7000)
    """
    return call_for_task(locals(), task_functions(__name__, "matthews_corrcoef"))


def cohen_kappa(preds: Tensor, target: Tensor, task: str, threshold: float = 0.5,
                num_classes: Optional[int] = None, weights: Optional[str] = None,
                ignore_index: Optional[int] = None, validate_args: bool = True,
                *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Cohen's kappa for ``task`` "binary" or "multiclass".

    >>> from torch import tensor
    >>> cohen_kappa(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), task="multiclass", num_classes=3)
    tensor(0.6364)
    """
    return call_for_task(locals(), task_functions(__name__, "cohen_kappa"))


def confusion_matrix(preds: Tensor, target: Tensor, task: str, threshold: float = 0.5,
                     num_classes: Optional[int] = None, num_labels: Optional[int] = None,
                     normalize: Optional[str] = None, ignore_index: Optional[int] = None,
                     validate_args: bool = True,
                     *, sample_weight: Optional[Tensor] = None) -> Tensor:
    """Confusion matrix for ``task`` "binary", "multiclass" or "multilabel".

    >>> from torch import tensor
    >>> confusion_matrix(tensor([1, 0, 1]), tensor([1, 1, 1]), task="binary")
    tensor([[0, 0],
            [1, 2]])
    """
    return call_for_task(locals(), task_functions(__name__, "confusion_matrix"))


TASK_FUNCTIONS = [
    "stat_scores", "accuracy", "precision", "recall", "f1_score", "fbeta_score", "specificity",
    "negative_predictive_value", "hamming_distance", "exact_match", "jaccard_index", "matthews_corrcoef",
    "cohen_kappa", "confusion_matrix",
]
__all__ = [*_ratio_functions.__all__, *_matrix_functions.__all__, *TASK_FUNCTIONS]
