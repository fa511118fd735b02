"""Count-based classification metrics, functional: binary_*, multiclass_*, multilabel_* and task wrappers.

Stat scores, accuracy, precision, recall, F1 / F-beta, specificity, negative predictive value,
hamming distance, exact match, Jaccard index, Matthews correlation, Cohen's kappa and the
confusion matrix, with torchmetrics' names, arguments, defaults and values. The task wrappers
(``accuracy(preds, target, task="multiclass", num_classes=3)``) default to ``average="micro"``;
the ``multiclass_*`` / ``multilabel_*`` functions to ``"macro"``.

>>> from torch import tensor
>>> multiclass_f1_score(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), num_classes=3, average=None)
tensor([0.6667, 0.6667, 1.0000])
"""

from __future__ import annotations

from typing import Any, Optional

from torch import Tensor

from lightning_metrics.functional.classification import _matrix_functions, _ratio_functions
from lightning_metrics.functional.classification._inputs import check_task
from lightning_metrics.functional.classification._matrix_functions import *  # noqa: F403
from lightning_metrics.functional.classification._ratio_functions import *  # noqa: F403

_FUNCTIONS = {**{n: getattr(_ratio_functions, n) for n in _ratio_functions.__all__},
              **{n: getattr(_matrix_functions, n) for n in _matrix_functions.__all__}}


def _ratio_task(  # noqa: ANN202
    name, preds, target, task, threshold, num_classes, num_labels, average, multidim_average, top_k,  # noqa: ANN001
    ignore_index, validate_args, **extra,  # noqa: ANN001, ANN003
):
    task = check_task(task)
    common: dict[str, Any] = {
        "multidim_average": multidim_average, "ignore_index": ignore_index, "validate_args": validate_args, **extra
    }
    fn = _FUNCTIONS[f"{task}_{name}"]
    if task == "binary":
        return fn(preds, target, threshold=threshold, **common)
    if task == "multiclass":
        return fn(preds, target, num_classes=num_classes, average=average, top_k=top_k, **common)
    return fn(preds, target, num_labels=num_labels, threshold=threshold, average=average, **common)


def _matrix_task(name, preds, target, task, allowed, threshold, num_classes, num_labels, **common):  # noqa: ANN001, ANN003, ANN202
    task = check_task(task, allowed)
    fn = _FUNCTIONS[f"{task}_{name}"]
    if task == "binary":
        return fn(preds, target, threshold=threshold, **common)
    if task == "multiclass":
        return fn(preds, target, num_classes=num_classes, **common)
    return fn(preds, target, num_labels=num_labels, threshold=threshold, **common)

def stat_scores(
    preds: Tensor,
    target: Tensor,
    task: str,
    threshold: float = 0.5,
    num_classes: Optional[int] = None,
    num_labels: Optional[int] = None,
    average: Optional[str] = "micro",
    multidim_average: str = "global",
    top_k: Optional[int] = 1,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """The the stat scores ``[tp, fp, tn, fn, support]`` for ``task`` "binary", "multiclass" or "multilabel" (see ``binary_stat_scores`` etc.).

    >>> from torch import tensor
    >>> stat_scores(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), task="multiclass", num_classes=3)
    tensor([3, 1, 7, 1, 4])
    """
    return _ratio_task(
        "stat_scores", preds, target, task, threshold, num_classes, num_labels, average, multidim_average, top_k,
        ignore_index, validate_args
    )

def accuracy(
    preds: Tensor,
    target: Tensor,
    task: str,
    threshold: float = 0.5,
    num_classes: Optional[int] = None,
    num_labels: Optional[int] = None,
    average: Optional[str] = "micro",
    multidim_average: str = "global",
    top_k: Optional[int] = 1,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """The accuracy for ``task`` "binary", "multiclass" or "multilabel" (see ``binary_accuracy`` etc.).

    >>> from torch import tensor
    >>> accuracy(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), task="multiclass", num_classes=3)
    tensor(0.7500)
    """
    return _ratio_task(
        "accuracy", preds, target, task, threshold, num_classes, num_labels, average, multidim_average, top_k,
        ignore_index, validate_args
    )

def precision(
    preds: Tensor,
    target: Tensor,
    task: str,
    threshold: float = 0.5,
    num_classes: Optional[int] = None,
    num_labels: Optional[int] = None,
    average: Optional[str] = "micro",
    multidim_average: str = "global",
    top_k: Optional[int] = 1,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
    zero_division: float = 0,
) -> Tensor:
    """The precision for ``task`` "binary", "multiclass" or "multilabel" (see ``binary_precision`` etc.).

    >>> from torch import tensor
    >>> precision(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), task="multiclass", num_classes=3)
    tensor(0.7500)
    """
    return _ratio_task(
        "precision", preds, target, task, threshold, num_classes, num_labels, average, multidim_average, top_k,
        ignore_index, validate_args, zero_division=zero_division
    )

def recall(
    preds: Tensor,
    target: Tensor,
    task: str,
    threshold: float = 0.5,
    num_classes: Optional[int] = None,
    num_labels: Optional[int] = None,
    average: Optional[str] = "micro",
    multidim_average: str = "global",
    top_k: Optional[int] = 1,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
    zero_division: float = 0,
) -> Tensor:
    """The recall for ``task`` "binary", "multiclass" or "multilabel" (see ``binary_recall`` etc.).

    >>> from torch import tensor
    >>> recall(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), task="multiclass", num_classes=3)
    tensor(0.7500)
    """
    return _ratio_task(
        "recall", preds, target, task, threshold, num_classes, num_labels, average, multidim_average, top_k,
        ignore_index, validate_args, zero_division=zero_division
    )

def f1_score(
    preds: Tensor,
    target: Tensor,
    task: str,
    threshold: float = 0.5,
    num_classes: Optional[int] = None,
    num_labels: Optional[int] = None,
    average: Optional[str] = "micro",
    multidim_average: str = "global",
    top_k: Optional[int] = 1,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
    zero_division: float = 0,
) -> Tensor:
    """The F1 score for ``task`` "binary", "multiclass" or "multilabel" (see ``binary_f1_score`` etc.).

    >>> from torch import tensor
    >>> f1_score(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), task="multiclass", num_classes=3)
    tensor(0.7500)
    """
    return _ratio_task(
        "f1_score", preds, target, task, threshold, num_classes, num_labels, average, multidim_average, top_k,
        ignore_index, validate_args, zero_division=zero_division
    )

def fbeta_score(
    preds: Tensor,
    target: Tensor,
    task: str,
    beta: float = 1.0,
    threshold: float = 0.5,
    num_classes: Optional[int] = None,
    num_labels: Optional[int] = None,
    average: Optional[str] = "micro",
    multidim_average: str = "global",
    top_k: Optional[int] = 1,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
    zero_division: float = 0,
) -> Tensor:
    """The F-beta score for ``task`` "binary", "multiclass" or "multilabel" (see ``binary_fbeta_score`` etc.).

    >>> from torch import tensor
    >>> fbeta_score(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), task="multiclass", num_classes=3)
    tensor(0.7500)
    """
    return _ratio_task(
        "fbeta_score", preds, target, task, threshold, num_classes, num_labels, average, multidim_average, top_k,
        ignore_index, validate_args, beta=beta, zero_division=zero_division
    )

def specificity(
    preds: Tensor,
    target: Tensor,
    task: str,
    threshold: float = 0.5,
    num_classes: Optional[int] = None,
    num_labels: Optional[int] = None,
    average: Optional[str] = "micro",
    multidim_average: str = "global",
    top_k: Optional[int] = 1,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """The specificity for ``task`` "binary", "multiclass" or "multilabel" (see ``binary_specificity`` etc.).

    >>> from torch import tensor
    >>> specificity(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), task="multiclass", num_classes=3)
    tensor(0.8750)
    """
    return _ratio_task(
        "specificity", preds, target, task, threshold, num_classes, num_labels, average, multidim_average, top_k,
        ignore_index, validate_args
    )

def negative_predictive_value(
    preds: Tensor,
    target: Tensor,
    task: str,
    threshold: float = 0.5,
    num_classes: Optional[int] = None,
    num_labels: Optional[int] = None,
    average: Optional[str] = "micro",
    multidim_average: str = "global",
    top_k: Optional[int] = 1,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
    zero_division: float = 0,
) -> Tensor:
    """The negative predictive value for ``task`` "binary", "multiclass" or "multilabel" (see ``binary_negative_predictive_value`` etc.).

    >>> from torch import tensor
    >>> negative_predictive_value(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), task="multiclass", num_classes=3)
    tensor(0.8750)
    """
    return _ratio_task(
        "negative_predictive_value", preds, target, task, threshold, num_classes, num_labels, average, multidim_average, top_k,
        ignore_index, validate_args, zero_division=zero_division
    )

def hamming_distance(
    preds: Tensor,
    target: Tensor,
    task: str,
    threshold: float = 0.5,
    num_classes: Optional[int] = None,
    num_labels: Optional[int] = None,
    average: Optional[str] = "micro",
    multidim_average: str = "global",
    top_k: Optional[int] = 1,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """The hamming distance for ``task`` "binary", "multiclass" or "multilabel" (see ``binary_hamming_distance`` etc.).

    >>> from torch import tensor
    >>> hamming_distance(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), task="multiclass", num_classes=3)
    tensor(0.2500)
    """
    return _ratio_task(
        "hamming_distance", preds, target, task, threshold, num_classes, num_labels, average, multidim_average, top_k,
        ignore_index, validate_args
    )


def exact_match(
    preds: Tensor,
    target: Tensor,
    task: str,
    num_classes: Optional[int] = None,
    num_labels: Optional[int] = None,
    threshold: float = 0.5,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Exact match (subset accuracy) for ``task`` "multiclass" or "multilabel".

    >>> from torch import tensor
    >>> exact_match(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]), task="multilabel", num_labels=3)
    tensor(0.5000)
    """
    return _matrix_task(
        "exact_match", preds, target, task, ("multiclass", "multilabel"), threshold, num_classes, num_labels,
        multidim_average=multidim_average, ignore_index=ignore_index, validate_args=validate_args,
    )


def jaccard_index(
    preds: Tensor,
    target: Tensor,
    task: str,
    threshold: float = 0.5,
    num_classes: Optional[int] = None,
    num_labels: Optional[int] = None,
    average: Optional[str] = "macro",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
    zero_division: float = 0.0,
) -> Tensor:
    """Jaccard index for ``task`` "binary", "multiclass" or "multilabel" (default ``average="macro"``).

    >>> from torch import tensor
    >>> jaccard_index(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), task="multiclass", num_classes=3)
    tensor(0.6667)
    """
    extra: dict[str, Any] = {} if check_task(task) == "binary" else {"average": average}
    return _matrix_task(
        "jaccard_index", preds, target, task, ("binary", "multiclass", "multilabel"), threshold, num_classes,
        num_labels, ignore_index=ignore_index, validate_args=validate_args, zero_division=zero_division, **extra,
    )


def matthews_corrcoef(
    preds: Tensor,
    target: Tensor,
    task: str,
    threshold: float = 0.5,
    num_classes: Optional[int] = None,
    num_labels: Optional[int] = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Matthews correlation coefficient for ``task`` "binary", "multiclass" or "multilabel".

    >>> from torch import tensor
    >>> matthews_corrcoef(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), task="multiclass", num_classes=3)
    tensor(0.7000)
    """
    return _matrix_task(
        "matthews_corrcoef", preds, target, task, ("binary", "multiclass", "multilabel"), threshold, num_classes,
        num_labels, ignore_index=ignore_index, validate_args=validate_args,
    )


def cohen_kappa(
    preds: Tensor,
    target: Tensor,
    task: str,
    threshold: float = 0.5,
    num_classes: Optional[int] = None,
    weights: Optional[str] = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Cohen's kappa for ``task`` "binary" or "multiclass".

    >>> from torch import tensor
    >>> cohen_kappa(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]), task="multiclass", num_classes=3)
    tensor(0.6364)
    """
    return _matrix_task(
        "cohen_kappa", preds, target, task, ("binary", "multiclass"), threshold, num_classes, None,
        weights=weights, ignore_index=ignore_index, validate_args=validate_args,
    )


def confusion_matrix(
    preds: Tensor,
    target: Tensor,
    task: str,
    threshold: float = 0.5,
    num_classes: Optional[int] = None,
    num_labels: Optional[int] = None,
    normalize: Optional[str] = None,
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
) -> Tensor:
    """Confusion matrix for ``task`` "binary", "multiclass" or "multilabel".

    >>> from torch import tensor
    >>> confusion_matrix(tensor([1, 0, 1]), tensor([1, 1, 1]), task="binary")
    tensor([[0, 0],
            [1, 2]])
    """
    return _matrix_task(
        "confusion_matrix", preds, target, task, ("binary", "multiclass", "multilabel"), threshold, num_classes,
        num_labels, normalize=normalize, ignore_index=ignore_index, validate_args=validate_args,
    )


TASK_FUNCTIONS = [
    "stat_scores", "accuracy", "precision", "recall", "f1_score", "fbeta_score", "specificity",
    "negative_predictive_value", "hamming_distance", "exact_match", "jaccard_index", "matthews_corrcoef",
    "cohen_kappa", "confusion_matrix",
]
__all__ = [*_ratio_functions.__all__, *_matrix_functions.__all__, *TASK_FUNCTIONS]
