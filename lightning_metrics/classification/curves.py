"""Score-based classification metrics, modular: curves, areas, operating points, calibration, hinge, ranking.

Curve metrics of one input spec share one statistic (the scores, or one multi-threshold
confusion matrix built by a single ``bincount``): in a ``MetricCollection``, ROC, AUROC,
average precision and the PR curve on the same input update once per batch.

>>> import torch
>>> from lightning_metrics import MetricCollection
>>> from lightning_metrics.classification import BinaryAUROC, BinaryAveragePrecision, BinaryROC
>>> metrics = MetricCollection({"auroc": BinaryAUROC(thresholds=11),
...                             "ap": BinaryAveragePrecision(thresholds=11),
...                             "roc": BinaryROC(thresholds=11)})
>>> metrics.update(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
>>> len(metrics.compute_groups)
1
>>> metrics.compute()["auroc"]
tensor(0.7500)
"""

from __future__ import annotations

from typing import Any, Optional

from lightning_metrics.classification._curve_metrics import (
    BinaryAUROC,
    BinaryAveragePrecision,
    BinaryPrecisionRecallCurve,
    BinaryROC,
    MulticlassAUROC,
    MulticlassAveragePrecision,
    MulticlassPrecisionRecallCurve,
    MulticlassROC,
    MultilabelAUROC,
    MultilabelAveragePrecision,
    MultilabelPrecisionRecallCurve,
    MultilabelROC,
    Thresholds,
)
from lightning_metrics.classification._operating_point_metrics import (
    FPR_RANGE,
    BinaryEER,
    BinaryLogAUC,
    BinaryPrecisionAtFixedRecall,
    BinaryRecallAtFixedPrecision,
    BinarySensitivityAtSpecificity,
    BinarySpecificityAtSensitivity,
    MulticlassEER,
    MulticlassLogAUC,
    MulticlassPrecisionAtFixedRecall,
    MulticlassRecallAtFixedPrecision,
    MulticlassSensitivityAtSpecificity,
    MulticlassSpecificityAtSensitivity,
    MultilabelEER,
    MultilabelLogAUC,
    MultilabelPrecisionAtFixedRecall,
    MultilabelRecallAtFixedPrecision,
    MultilabelSensitivityAtSpecificity,
    MultilabelSpecificityAtSensitivity,
)
from lightning_metrics.classification._score_metrics import (
    BinaryCalibrationError,
    BinaryHingeLoss,
    MulticlassCalibrationError,
    MulticlassHingeLoss,
    MultilabelCoverageError,
    MultilabelRankingAveragePrecision,
    MultilabelRankingLoss,
)
from lightning_metrics.classification._task_wrapper import TaskWrapper
from lightning_metrics.metric import Metric


def _curve_task(cls, task: str, thresholds: Thresholds = None, num_classes: Optional[int] = None,
                num_labels: Optional[int] = None, ignore_index: Optional[int] = None,
                validate_args: bool = True, **kwargs: Any) -> Metric:
    """torchmetrics' signature of the ``PrecisionRecallCurve`` and ``ROC`` task wrappers (their ``__new__``)."""
    return cls._for_task(locals())


class PrecisionRecallCurve(TaskWrapper):
    """``PrecisionRecallCurve(task=...)``: the binary, multiclass or multilabel precision-recall curve.

    >>> PrecisionRecallCurve(task="multiclass", num_classes=3, thresholds=5).__class__.__name__
    'MulticlassPrecisionRecallCurve'
    """

    __new__ = _curve_task


class ROC(TaskWrapper):
    """``ROC(task=...)``: the binary, multiclass or multilabel ROC curve.

    >>> ROC(task="binary").__class__.__name__
    'BinaryROC'
    """

    __new__ = _curve_task


class AUROC(TaskWrapper):
    """``AUROC(task=...)``: area under the ROC curve (``max_fpr`` for binary, ``average`` otherwise).

    >>> import torch
    >>> metric = AUROC(task="binary")
    >>> metric(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    tensor(0.7500)
    """

    def __new__(cls, task: str, thresholds: Thresholds = None, num_classes: Optional[int] = None,
                num_labels: Optional[int] = None, average: Optional[str] = "macro",
                max_fpr: Optional[float] = None, ignore_index: Optional[int] = None,
                validate_args: bool = True, **kwargs: Any) -> Metric:  # type: ignore[misc]
        return cls._for_task(locals())


class AveragePrecision(TaskWrapper):
    """``AveragePrecision(task=...)``: step-wise area under the precision-recall curve.

    >>> import torch
    >>> metric = AveragePrecision(task="binary")
    >>> metric(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    tensor(0.8333)
    """

    def __new__(cls, task: str, thresholds: Thresholds = None, num_classes: Optional[int] = None,
                num_labels: Optional[int] = None, average: Optional[str] = "macro",
                ignore_index: Optional[int] = None, validate_args: bool = True,
                **kwargs: Any) -> Metric:  # type: ignore[misc]
        return cls._for_task(locals())


class PrecisionAtFixedRecall(TaskWrapper):
    """``PrecisionAtFixedRecall(task=..., min_recall=...)``: per task, highest precision
    with recall >= ``min_recall``.

    >>> PrecisionAtFixedRecall(task="multilabel", num_labels=3, min_recall=0.5).__class__.__name__
    'MultilabelPrecisionAtFixedRecall'
    """

    def __new__(cls, task: str, min_recall: float, thresholds: Thresholds = None,
                num_classes: Optional[int] = None, num_labels: Optional[int] = None,
                ignore_index: Optional[int] = None, validate_args: bool = True,
                **kwargs: Any) -> Metric:  # type: ignore[misc]
        return cls._for_task(locals())


class RecallAtFixedPrecision(TaskWrapper):
    """``RecallAtFixedPrecision(task=..., min_precision=...)``: per task, highest recall
    with precision >= ``min_precision``.

    >>> RecallAtFixedPrecision(task="multilabel", num_labels=3, min_precision=0.5).__class__.__name__
    'MultilabelRecallAtFixedPrecision'
    """

    def __new__(cls, task: str, min_precision: float, thresholds: Thresholds = None,
                num_classes: Optional[int] = None, num_labels: Optional[int] = None,
                ignore_index: Optional[int] = None, validate_args: bool = True,
                **kwargs: Any) -> Metric:  # type: ignore[misc]
        return cls._for_task(locals())


class SensitivityAtSpecificity(TaskWrapper):
    """``SensitivityAtSpecificity(task=..., min_specificity=...)``: per task, highest sensitivity
    with specificity >= ``min_specificity``.

    >>> SensitivityAtSpecificity(task="multilabel", num_labels=3, min_specificity=0.5).__class__.__name__
    'MultilabelSensitivityAtSpecificity'
    """

    def __new__(cls, task: str, min_specificity: float, thresholds: Thresholds = None,
                num_classes: Optional[int] = None, num_labels: Optional[int] = None,
                ignore_index: Optional[int] = None, validate_args: bool = True,
                **kwargs: Any) -> Metric:  # type: ignore[misc]
        return cls._for_task(locals())


class SpecificityAtSensitivity(TaskWrapper):
    """``SpecificityAtSensitivity(task=..., min_sensitivity=...)``: per task, highest specificity
    with sensitivity >= ``min_sensitivity``.

    >>> SpecificityAtSensitivity(task="multilabel", num_labels=3, min_sensitivity=0.5).__class__.__name__
    'MultilabelSpecificityAtSensitivity'
    """

    def __new__(cls, task: str, min_sensitivity: float, thresholds: Thresholds = None,
                num_classes: Optional[int] = None, num_labels: Optional[int] = None,
                ignore_index: Optional[int] = None, validate_args: bool = True,
                **kwargs: Any) -> Metric:  # type: ignore[misc]
        return cls._for_task(locals())


class EER(TaskWrapper):
    """``EER(task=...)``: equal error rate (``average`` ``micro``/``macro``/None for multiclass).

    >>> import torch
    >>> metric = EER(task="binary")
    >>> metric(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    tensor(0.5000)
    """

    def __new__(cls, task: str, thresholds: Thresholds = None, num_classes: Optional[int] = None,
                num_labels: Optional[int] = None, average: Optional[str] = None,
                ignore_index: Optional[int] = None, validate_args: bool = True,
                **kwargs: Any) -> Metric:  # type: ignore[misc]
        return cls._for_task(locals())


class LogAUC(TaskWrapper):
    """``LogAUC(task=...)``: area under the ROC curve on a log FPR axis inside ``fpr_range``.

    >>> import torch
    >>> metric = LogAUC(task="binary")
    >>> metric(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    tensor(0.5000)
    """

    def __new__(cls, task: str, thresholds: Thresholds = None,
                fpr_range: Optional[tuple[float, float]] = FPR_RANGE, num_classes: Optional[int] = None,
                num_labels: Optional[int] = None, ignore_index: Optional[int] = None,
                validate_args: bool = True, **kwargs: Any) -> Metric:  # type: ignore[misc]
        return cls._for_task(locals())


class CalibrationError(TaskWrapper):
    """``CalibrationError(task="binary" | "multiclass", n_bins=15, norm="l1")``.

    >>> import torch
    >>> metric = CalibrationError(task="binary", n_bins=2)
    >>> metric(torch.tensor([0.25, 0.25, 0.55, 0.75, 0.75]), torch.tensor([0, 0, 1, 1, 1]))
    tensor(0.2900)
    """

    def __new__(cls, task: str, n_bins: int = 15, norm: str = "l1", num_classes: Optional[int] = None,
                ignore_index: Optional[int] = None, validate_args: bool = True,
                **kwargs: Any) -> Metric:  # type: ignore[misc]
        return cls._for_task(locals())


class HingeLoss(TaskWrapper):
    """``HingeLoss(task="binary" | "multiclass", squared=False, multiclass_mode="crammer-singer")``.

    >>> import torch
    >>> metric = HingeLoss(task="binary")
    >>> metric(torch.tensor([0.25, 0.25, 0.55, 0.75, 0.75]), torch.tensor([0, 0, 1, 1, 1]))
    tensor(0.6900)
    """

    def __new__(cls, task: str, num_classes: Optional[int] = None, squared: bool = False,
                multiclass_mode: Optional[str] = "crammer-singer", ignore_index: Optional[int] = None,
                validate_args: bool = True, **kwargs: Any) -> Metric:  # type: ignore[misc]
        return cls._for_task(locals())


TASK_WRAPPERS = (
    "AUROC",
    "AveragePrecision",
    "CalibrationError",
    "EER",
    "HingeLoss",
    "LogAUC",
    "PrecisionAtFixedRecall",
    "PrecisionRecallCurve",
    "ROC",
    "RecallAtFixedPrecision",
    "SensitivityAtSpecificity",
    "SpecificityAtSensitivity",
)
__all__ = [
    "AUROC",
    "AveragePrecision",
    "BinaryAUROC",
    "BinaryAveragePrecision",
    "BinaryCalibrationError",
    "BinaryEER",
    "BinaryHingeLoss",
    "BinaryLogAUC",
    "BinaryPrecisionAtFixedRecall",
    "BinaryPrecisionRecallCurve",
    "BinaryROC",
    "BinaryRecallAtFixedPrecision",
    "BinarySensitivityAtSpecificity",
    "BinarySpecificityAtSensitivity",
    "CalibrationError",
    "EER",
    "HingeLoss",
    "LogAUC",
    "MulticlassAUROC",
    "MulticlassAveragePrecision",
    "MulticlassCalibrationError",
    "MulticlassEER",
    "MulticlassHingeLoss",
    "MulticlassLogAUC",
    "MulticlassPrecisionAtFixedRecall",
    "MulticlassPrecisionRecallCurve",
    "MulticlassROC",
    "MulticlassRecallAtFixedPrecision",
    "MulticlassSensitivityAtSpecificity",
    "MulticlassSpecificityAtSensitivity",
    "MultilabelAUROC",
    "MultilabelAveragePrecision",
    "MultilabelCoverageError",
    "MultilabelEER",
    "MultilabelLogAUC",
    "MultilabelPrecisionAtFixedRecall",
    "MultilabelPrecisionRecallCurve",
    "MultilabelROC",
    "MultilabelRankingAveragePrecision",
    "MultilabelRankingLoss",
    "MultilabelRecallAtFixedPrecision",
    "MultilabelSensitivityAtSpecificity",
    "MultilabelSpecificityAtSensitivity",
    "PrecisionAtFixedRecall",
    "PrecisionRecallCurve",
    "ROC",
    "RecallAtFixedPrecision",
    "SensitivityAtSpecificity",
    "SpecificityAtSensitivity",
]
