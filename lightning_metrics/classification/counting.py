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
from lightning_metrics.classification._counting_base import build_for_task
from lightning_metrics.classification._matrix_metrics import *  # noqa: F403
from lightning_metrics.classification._binary_ratios import *  # noqa: F403
from lightning_metrics.classification._multiclass_ratios import *  # noqa: F403
from lightning_metrics.classification._multilabel_ratios import *  # noqa: F403
from lightning_metrics.metric import Metric



def _stat_scores_task_args(
    threshold: float, num_classes: Optional[int], num_labels: Optional[int], average: Optional[str], top_k: Optional[int]
) -> dict[str, dict[str, Any]]:
    """Per-task arguments shared by the stat-scores task wrappers (the rest go to every task)."""
    return {
        "binary": {"threshold": threshold},
        "multiclass": {"num_classes": num_classes, "top_k": top_k, "average": average},
        "multilabel": {"num_labels": num_labels, "threshold": threshold, "average": average},
    }

class _TaskWrapper(Metric):
    """Task wrappers construct the task's class in ``__new__`` (as torchmetrics' do)."""

    def update(self, *args: Any, **kwargs: Any) -> None:  # pragma: no cover - never instantiated
        raise NotImplementedError

    def compute(self) -> None:  # pragma: no cover
        raise NotImplementedError


class StatScores(_TaskWrapper):
    """``StatScores(task=...)`` builds ``BinaryStatScores``, ``MulticlassStatScores`` or ``MultilabelStatScores``.

    >>> from torch import tensor
    >>> metric = StatScores(task="multiclass", num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor([3, 1, 7, 1, 4])
    """

    def __new__(  # type: ignore[misc]
        cls,
        task: str,
        threshold: float = 0.5,
        num_classes: Optional[int] = None,
        num_labels: Optional[int] = None,
        average: Optional[str] = "micro",
        multidim_average: str = "global",
        top_k: Optional[int] = 1,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> Metric:
        common = dict(multidim_average=multidim_average, ignore_index=ignore_index, validate_args=validate_args)
        return build_for_task(
            task,
            {"binary": BinaryStatScores, "multiclass": MulticlassStatScores, "multilabel": MultilabelStatScores},
            {**common, **kwargs},
            _stat_scores_task_args(threshold, num_classes, num_labels, average, top_k),
        )


class Accuracy(_TaskWrapper):
    """``Accuracy(task=...)`` builds ``BinaryAccuracy``, ``MulticlassAccuracy`` or ``MultilabelAccuracy``.

    >>> from torch import tensor
    >>> metric = Accuracy(task="multiclass", num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.7500)
    """

    def __new__(  # type: ignore[misc]
        cls,
        task: str,
        threshold: float = 0.5,
        num_classes: Optional[int] = None,
        num_labels: Optional[int] = None,
        average: Optional[str] = "micro",
        multidim_average: str = "global",
        top_k: Optional[int] = 1,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> Metric:
        common = dict(multidim_average=multidim_average, ignore_index=ignore_index, validate_args=validate_args)
        return build_for_task(
            task,
            {"binary": BinaryAccuracy, "multiclass": MulticlassAccuracy, "multilabel": MultilabelAccuracy},
            {**common, **kwargs},
            _stat_scores_task_args(threshold, num_classes, num_labels, average, top_k),
        )


class Precision(_TaskWrapper):
    """``Precision(task=...)`` builds ``BinaryPrecision``, ``MulticlassPrecision`` or ``MultilabelPrecision``.

    >>> from torch import tensor
    >>> metric = Precision(task="multiclass", num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.7500)
    """

    def __new__(  # type: ignore[misc]
        cls,
        task: str,
        threshold: float = 0.5,
        num_classes: Optional[int] = None,
        num_labels: Optional[int] = None,
        average: Optional[str] = "micro",
        multidim_average: str = "global",
        top_k: Optional[int] = 1,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> Metric:
        common = dict(multidim_average=multidim_average, ignore_index=ignore_index, validate_args=validate_args)
        return build_for_task(
            task,
            {"binary": BinaryPrecision, "multiclass": MulticlassPrecision, "multilabel": MultilabelPrecision},
            {**common, **kwargs},
            _stat_scores_task_args(threshold, num_classes, num_labels, average, top_k),
        )


class Recall(_TaskWrapper):
    """``Recall(task=...)`` builds ``BinaryRecall``, ``MulticlassRecall`` or ``MultilabelRecall``.

    >>> from torch import tensor
    >>> metric = Recall(task="multiclass", num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.7500)
    """

    def __new__(  # type: ignore[misc]
        cls,
        task: str,
        threshold: float = 0.5,
        num_classes: Optional[int] = None,
        num_labels: Optional[int] = None,
        average: Optional[str] = "micro",
        multidim_average: str = "global",
        top_k: Optional[int] = 1,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> Metric:
        common = dict(multidim_average=multidim_average, ignore_index=ignore_index, validate_args=validate_args)
        return build_for_task(
            task,
            {"binary": BinaryRecall, "multiclass": MulticlassRecall, "multilabel": MultilabelRecall},
            {**common, **kwargs},
            _stat_scores_task_args(threshold, num_classes, num_labels, average, top_k),
        )


class F1Score(_TaskWrapper):
    """``F1Score(task=...)`` builds ``BinaryF1Score``, ``MulticlassF1Score`` or ``MultilabelF1Score``.

    >>> from torch import tensor
    >>> metric = F1Score(task="multiclass", num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.7500)
    """

    def __new__(  # type: ignore[misc]
        cls,
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
        **kwargs: Any,
    ) -> Metric:
        common = dict(multidim_average=multidim_average, ignore_index=ignore_index, validate_args=validate_args, zero_division=zero_division)
        return build_for_task(
            task,
            {"binary": BinaryF1Score, "multiclass": MulticlassF1Score, "multilabel": MultilabelF1Score},
            {**common, **kwargs},
            _stat_scores_task_args(threshold, num_classes, num_labels, average, top_k),
        )


class FBetaScore(_TaskWrapper):
    """``FBetaScore(task=...)`` builds ``BinaryFBetaScore``, ``MulticlassFBetaScore`` or ``MultilabelFBetaScore``.

    >>> from torch import tensor
    >>> metric = FBetaScore(task="multiclass", num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.7500)
    """

    def __new__(  # type: ignore[misc]
        cls,
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
        **kwargs: Any,
    ) -> Metric:
        common = dict(multidim_average=multidim_average, ignore_index=ignore_index, validate_args=validate_args, zero_division=zero_division)
        return build_for_task(
            task,
            {"binary": BinaryFBetaScore, "multiclass": MulticlassFBetaScore, "multilabel": MultilabelFBetaScore},
            {**common, **kwargs},
            {
                "binary": {"beta": beta, "threshold": threshold},
                "multiclass": {"beta": beta, "num_classes": num_classes, "top_k": top_k, "average": average},
                "multilabel": {"beta": beta, "num_labels": num_labels, "threshold": threshold, "average": average},
            },
        )


class Specificity(_TaskWrapper):
    """``Specificity(task=...)`` builds ``BinarySpecificity``, ``MulticlassSpecificity`` or ``MultilabelSpecificity``.

    >>> from torch import tensor
    >>> metric = Specificity(task="multiclass", num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.8750)
    """

    def __new__(  # type: ignore[misc]
        cls,
        task: str,
        threshold: float = 0.5,
        num_classes: Optional[int] = None,
        num_labels: Optional[int] = None,
        average: Optional[str] = "micro",
        multidim_average: str = "global",
        top_k: Optional[int] = 1,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> Metric:
        common = dict(multidim_average=multidim_average, ignore_index=ignore_index, validate_args=validate_args)
        return build_for_task(
            task,
            {"binary": BinarySpecificity, "multiclass": MulticlassSpecificity, "multilabel": MultilabelSpecificity},
            {**common, **kwargs},
            _stat_scores_task_args(threshold, num_classes, num_labels, average, top_k),
        )


class NegativePredictiveValue(_TaskWrapper):
    """``NegativePredictiveValue(task=...)`` builds ``BinaryNegativePredictiveValue``, ``MulticlassNegativePredictiveValue`` or ``MultilabelNegativePredictiveValue``.

    >>> from torch import tensor
    >>> metric = NegativePredictiveValue(task="multiclass", num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.8750)
    """

    def __new__(  # type: ignore[misc]
        cls,
        task: str,
        threshold: float = 0.5,
        num_classes: Optional[int] = None,
        num_labels: Optional[int] = None,
        average: Optional[str] = "micro",
        multidim_average: str = "global",
        top_k: Optional[int] = 1,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> Metric:
        common = dict(multidim_average=multidim_average, ignore_index=ignore_index, validate_args=validate_args)
        return build_for_task(
            task,
            {"binary": BinaryNegativePredictiveValue, "multiclass": MulticlassNegativePredictiveValue, "multilabel": MultilabelNegativePredictiveValue},
            {**common, **kwargs},
            _stat_scores_task_args(threshold, num_classes, num_labels, average, top_k),
        )


class HammingDistance(_TaskWrapper):
    """``HammingDistance(task=...)`` builds ``BinaryHammingDistance``, ``MulticlassHammingDistance`` or ``MultilabelHammingDistance``.

    >>> from torch import tensor
    >>> metric = HammingDistance(task="multiclass", num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.2500)
    """

    def __new__(  # type: ignore[misc]
        cls,
        task: str,
        threshold: float = 0.5,
        num_classes: Optional[int] = None,
        num_labels: Optional[int] = None,
        average: Optional[str] = "micro",
        multidim_average: str = "global",
        top_k: Optional[int] = 1,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> Metric:
        common = dict(multidim_average=multidim_average, ignore_index=ignore_index, validate_args=validate_args)
        return build_for_task(
            task,
            {"binary": BinaryHammingDistance, "multiclass": MulticlassHammingDistance, "multilabel": MultilabelHammingDistance},
            {**common, **kwargs},
            _stat_scores_task_args(threshold, num_classes, num_labels, average, top_k),
        )


class ExactMatch(_TaskWrapper):
    """``ExactMatch(task=...)`` builds ``MulticlassExactMatch`` or ``MultilabelExactMatch``.

    >>> from torch import tensor
    >>> metric = ExactMatch(task="multilabel", num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor(0.5000)
    """

    def __new__(  # type: ignore[misc]
        cls,
        task: str,
        threshold: float = 0.5,
        num_classes: Optional[int] = None,
        num_labels: Optional[int] = None,
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> Metric:
        common = dict(multidim_average=multidim_average, ignore_index=ignore_index, validate_args=validate_args)
        return build_for_task(
            task,
            {"multiclass": MulticlassExactMatch, "multilabel": MultilabelExactMatch},
            {**common, **kwargs},
            {"multiclass": {"num_classes": num_classes}, "multilabel": {"num_labels": num_labels, "threshold": threshold}},
        )


class JaccardIndex(_TaskWrapper):
    """``JaccardIndex(task=...)`` builds the binary, multiclass or multilabel Jaccard index.

    >>> from torch import tensor
    >>> metric = JaccardIndex(task="multiclass", num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.6667)
    """

    def __new__(  # type: ignore[misc]
        cls,
        task: str,
        threshold: float = 0.5,
        num_classes: Optional[int] = None,
        num_labels: Optional[int] = None,
        average: Optional[str] = "macro",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> Metric:
        return build_for_task(
            task,
            {"binary": BinaryJaccardIndex, "multiclass": MulticlassJaccardIndex, "multilabel": MultilabelJaccardIndex},
            dict(ignore_index=ignore_index, validate_args=validate_args, **kwargs),
            {
                "binary": {"threshold": threshold},
                "multiclass": {"num_classes": num_classes, "average": average},
                "multilabel": {"num_labels": num_labels, "threshold": threshold, "average": average},
            },
        )


class MatthewsCorrCoef(_TaskWrapper):
    """``MatthewsCorrCoef(task=...)`` builds the binary, multiclass or multilabel MCC.

    >>> from torch import tensor
    >>> metric = MatthewsCorrCoef(task="multiclass", num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.7000)
    """

    def __new__(  # type: ignore[misc]
        cls,
        task: str,
        threshold: float = 0.5,
        num_classes: Optional[int] = None,
        num_labels: Optional[int] = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> Metric:
        return build_for_task(
            task,
            {
                "binary": BinaryMatthewsCorrCoef,
                "multiclass": MulticlassMatthewsCorrCoef,
                "multilabel": MultilabelMatthewsCorrCoef,
            },
            dict(ignore_index=ignore_index, validate_args=validate_args, **kwargs),
            {
                "binary": {"threshold": threshold},
                "multiclass": {"num_classes": num_classes},
                "multilabel": {"num_labels": num_labels, "threshold": threshold},
            },
        )


class CohenKappa(_TaskWrapper):
    """``CohenKappa(task=...)`` builds the binary or multiclass Cohen's kappa.

    >>> from torch import tensor
    >>> metric = CohenKappa(task="multiclass", num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.6364)
    """

    def __new__(  # type: ignore[misc]
        cls,
        task: str,
        threshold: float = 0.5,
        num_classes: Optional[int] = None,
        weights: Optional[str] = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> Metric:
        return build_for_task(
            task,
            {"binary": BinaryCohenKappa, "multiclass": MulticlassCohenKappa},
            dict(weights=weights, ignore_index=ignore_index, validate_args=validate_args, **kwargs),
            {"binary": {"threshold": threshold}, "multiclass": {"num_classes": num_classes}},
        )


class ConfusionMatrix(_TaskWrapper):
    """``ConfusionMatrix(task=...)`` builds the binary, multiclass or multilabel confusion matrix.

    >>> from torch import tensor
    >>> metric = ConfusionMatrix(task="binary")
    >>> metric(tensor([1, 0, 1]), tensor([1, 1, 1]))
    tensor([[0, 0],
            [1, 2]])
    """

    def __new__(  # type: ignore[misc]
        cls,
        task: str,
        threshold: float = 0.5,
        num_classes: Optional[int] = None,
        num_labels: Optional[int] = None,
        normalize: Optional[str] = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> Metric:
        return build_for_task(
            task,
            {
                "binary": BinaryConfusionMatrix,
                "multiclass": MulticlassConfusionMatrix,
                "multilabel": MultilabelConfusionMatrix,
            },
            dict(normalize=normalize, ignore_index=ignore_index, validate_args=validate_args, **kwargs),
            {
                "binary": {"threshold": threshold},
                "multiclass": {"num_classes": num_classes},
                "multilabel": {"num_labels": num_labels, "threshold": threshold},
            },
        )


TASK_WRAPPERS = [
    "StatScores", "Accuracy", "Precision", "Recall", "F1Score", "FBetaScore", "Specificity",
    "NegativePredictiveValue", "HammingDistance", "ExactMatch", "JaccardIndex", "MatthewsCorrCoef",
    "CohenKappa", "ConfusionMatrix",
]
__all__ = [
    *_binary_ratios.__all__, *_multiclass_ratios.__all__, *_multilabel_ratios.__all__, *_matrix_metrics.__all__,
    *TASK_WRAPPERS,
]
