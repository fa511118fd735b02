"""Count-based classification metrics, modular: Binary*, Multiclass*, Multilabel* and task wrappers.

Each metric keeps one sufficient statistic (a confusion matrix or one-vs-rest counts) declared as
its ``statistic_spec``: in a ``MetricCollection``, accuracy, precision, recall, F1, MCC, Jaccard,
Cohen's kappa and the confusion matrix of the same multiclass input update ONE state per batch.

>>> import torch
>>> from lightning_metrics import MetricCollection
>>> from lightning_metrics.classification import MulticlassAccuracy, MulticlassConfusionMatrix
>>> metrics = MetricCollection({"acc": MulticlassAccuracy(num_classes=3),
...                             "cm": MulticlassConfusionMatrix(num_classes=3)})
>>> metrics.update(torch.tensor([2, 1, 0, 1]), torch.tensor([2, 1, 0, 0]))
>>> len(metrics.compute_groups)
1
>>> metrics.compute()["acc"]
tensor(0.8333)
"""

from __future__ import annotations

from typing import Any, Optional

from lightning_metrics.classification import _binary_ratios, _matrix_metrics, _multiclass_ratios, _multilabel_ratios
from lightning_metrics.classification._task_wrapper import TaskWrapper
from lightning_metrics.classification._matrix_metrics import *  # noqa: F403
from lightning_metrics.classification._binary_ratios import *  # noqa: F403
from lightning_metrics.classification._multiclass_ratios import *  # noqa: F403
from lightning_metrics.classification._multilabel_ratios import *  # noqa: F403
from lightning_metrics.metric import Metric


def _stat_scores_task(cls, task: str, threshold: float = 0.5, num_classes: Optional[int] = None,
                      num_labels: Optional[int] = None, average: Optional[str] = "micro",
                      multidim_average: str = "global", top_k: Optional[int] = 1,
                      ignore_index: Optional[int] = None, validate_args: bool = True,
                      **kwargs: Any) -> Metric:
    """torchmetrics' signature of the stat-score task wrappers (``Accuracy``, ``Precision``, ...), their ``__new__``."""
    return cls._for_task(locals())


class StatScores(TaskWrapper):
    """``StatScores(task=...)`` builds ``BinaryStatScores``, ``MulticlassStatScores`` or ``MultilabelStatScores``.

    >>> from torch import tensor
    >>> metric = StatScores(task="multiclass", num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor([3, 1, 7, 1, 4])
    """

    __new__ = _stat_scores_task


class Accuracy(TaskWrapper):
    """``Accuracy(task=...)`` builds ``BinaryAccuracy``, ``MulticlassAccuracy`` or ``MultilabelAccuracy``.

    >>> from torch import tensor
    >>> metric = Accuracy(task="multiclass", num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.7500)
    """

    __new__ = _stat_scores_task


class Precision(TaskWrapper):
    """``Precision(task=...)`` builds ``BinaryPrecision``, ``MulticlassPrecision`` or ``MultilabelPrecision``.

    >>> from torch import tensor
    >>> metric = Precision(task="multiclass", num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.7500)
    """

    __new__ = _stat_scores_task


class Recall(TaskWrapper):
    """``Recall(task=...)`` builds ``BinaryRecall``, ``MulticlassRecall`` or ``MultilabelRecall``.

    >>> from torch import tensor
    >>> metric = Recall(task="multiclass", num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.7500)
    """

    __new__ = _stat_scores_task


class F1Score(TaskWrapper):
    """``F1Score(task=...)`` builds ``BinaryF1Score``, ``MulticlassF1Score`` or ``MultilabelF1Score``.

    >>> from torch import tensor
    >>> metric = F1Score(task="multiclass", num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.7500)
    """

    def __new__(cls, task: str, threshold: float = 0.5, num_classes: Optional[int] = None,
                num_labels: Optional[int] = None, average: Optional[str] = "micro",
                multidim_average: str = "global", top_k: Optional[int] = 1,
                ignore_index: Optional[int] = None, validate_args: bool = True, zero_division: float = 0,
                **kwargs: Any) -> Metric:  # type: ignore[misc]
        return cls._for_task(locals())


class FBetaScore(TaskWrapper):
    """``FBetaScore(task=...)`` builds ``BinaryFBetaScore``, ``MulticlassFBetaScore`` or ``MultilabelFBetaScore``.

    >>> from torch import tensor
    >>> metric = FBetaScore(task="multiclass", num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.7500)
    """

    def __new__(cls, task: str, beta: float = 1.0, threshold: float = 0.5, num_classes: Optional[int] = None,
                num_labels: Optional[int] = None, average: Optional[str] = "micro",
                multidim_average: str = "global", top_k: Optional[int] = 1,
                ignore_index: Optional[int] = None, validate_args: bool = True, zero_division: float = 0,
                **kwargs: Any) -> Metric:  # type: ignore[misc]
        return cls._for_task(locals())


class Specificity(TaskWrapper):
    """``Specificity(task=...)`` builds ``BinarySpecificity``, ``MulticlassSpecificity`` or ``MultilabelSpecificity``.

    >>> from torch import tensor
    >>> metric = Specificity(task="multiclass", num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.8750)
    """

    __new__ = _stat_scores_task


class NegativePredictiveValue(TaskWrapper):
    """``NegativePredictiveValue(task=...)`` builds ``BinaryNegativePredictiveValue``, ``MulticlassNegativePredictiveValue`` or ``MultilabelNegativePredictiveValue``.

    >>> from torch import tensor
    >>> metric = NegativePredictiveValue(task="multiclass", num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.8750)
    """

    __new__ = _stat_scores_task


class HammingDistance(TaskWrapper):
    """``HammingDistance(task=...)`` builds ``BinaryHammingDistance``, ``MulticlassHammingDistance`` or ``MultilabelHammingDistance``.

    >>> from torch import tensor
    >>> metric = HammingDistance(task="multiclass", num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.2500)
    """

    __new__ = _stat_scores_task


class ExactMatch(TaskWrapper):
    """``ExactMatch(task=...)`` builds ``MulticlassExactMatch`` or ``MultilabelExactMatch``.

    >>> from torch import tensor
    >>> metric = ExactMatch(task="multilabel", num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor(0.5000)
    """

    def __new__(cls, task: str, threshold: float = 0.5, num_classes: Optional[int] = None,
                num_labels: Optional[int] = None, multidim_average: str = "global",
                ignore_index: Optional[int] = None, validate_args: bool = True,
                **kwargs: Any) -> Metric:  # type: ignore[misc]
        return cls._for_task(locals())


class JaccardIndex(TaskWrapper):
    """``JaccardIndex(task=...)`` builds the binary, multiclass or multilabel Jaccard index.

    >>> from torch import tensor
    >>> metric = JaccardIndex(task="multiclass", num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.6667)
    """

    def __new__(cls, task: str, threshold: float = 0.5, num_classes: Optional[int] = None,
                num_labels: Optional[int] = None, average: Optional[str] = "macro",
                ignore_index: Optional[int] = None, validate_args: bool = True,
                **kwargs: Any) -> Metric:  # type: ignore[misc]
        return cls._for_task(locals())


class MatthewsCorrCoef(TaskWrapper):
    """``MatthewsCorrCoef(task=...)`` builds the binary, multiclass or multilabel MCC.

    >>> from torch import tensor
    >>> metric = MatthewsCorrCoef(task="multiclass", num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.7000)
    """

    def __new__(cls, task: str, threshold: float = 0.5, num_classes: Optional[int] = None,
                num_labels: Optional[int] = None, ignore_index: Optional[int] = None,
                validate_args: bool = True, **kwargs: Any) -> Metric:  # type: ignore[misc]
        return cls._for_task(locals())


class CohenKappa(TaskWrapper):
    """``CohenKappa(task=...)`` builds the binary or multiclass Cohen's kappa.

    >>> from torch import tensor
    >>> metric = CohenKappa(task="multiclass", num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.6364)
    """

    def __new__(cls, task: str, threshold: float = 0.5, num_classes: Optional[int] = None,
                weights: Optional[str] = None, ignore_index: Optional[int] = None, validate_args: bool = True,
                **kwargs: Any) -> Metric:  # type: ignore[misc]
        return cls._for_task(locals())


class ConfusionMatrix(TaskWrapper):
    """``ConfusionMatrix(task=...)`` builds the binary, multiclass or multilabel confusion matrix.

    >>> from torch import tensor
    >>> metric = ConfusionMatrix(task="binary")
    >>> metric(tensor([1, 0, 1]), tensor([1, 1, 1]))
    tensor([[0, 0],
            [1, 2]])
    """

    def __new__(cls, task: str, threshold: float = 0.5, num_classes: Optional[int] = None,
                num_labels: Optional[int] = None, normalize: Optional[str] = None,
                ignore_index: Optional[int] = None, validate_args: bool = True,
                **kwargs: Any) -> Metric:  # type: ignore[misc]
        return cls._for_task(locals())


TASK_WRAPPERS = [
    "StatScores", "Accuracy", "Precision", "Recall", "F1Score", "FBetaScore", "Specificity",
    "NegativePredictiveValue", "HammingDistance", "ExactMatch", "JaccardIndex", "MatthewsCorrCoef",
    "CohenKappa", "ConfusionMatrix",
]
__all__ = [
    *_binary_ratios.__all__, *_multiclass_ratios.__all__, *_multilabel_ratios.__all__, *_matrix_metrics.__all__,
    *TASK_WRAPPERS,
]
