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

from typing import Any, Callable, Optional

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
from lightning_metrics.functional.classification._scores import check_task
from lightning_metrics.metric import Metric


def _build(task: Any, builders: dict[str, Callable[[], Metric]], num_classes: Any, num_labels: Any) -> Metric:
    """Check ``task`` and the class/label count it needs, then build the task's metric."""
    task = check_task(task, tuple(builders))
    needed = {"multiclass": ("num_classes", num_classes), "multilabel": ("num_labels", num_labels)}.get(task)
    if needed is not None and (isinstance(needed[1], bool) or not isinstance(needed[1], int)):
        raise ValueError(f"Argument `{needed[0]}` must be an int for task={task!r}, got {needed[1]!r}")
    return builders[task]()


class _TaskWrapper(Metric):
    """Task wrappers build the task's class in ``__new__``; they are never instantiated themselves."""

    def update(self, *args: Any, **kwargs: Any) -> None:  # pragma: no cover
        raise NotImplementedError(f"{type(self).__name__} has no `update`; use the task-specific metric")

    def compute(self) -> None:  # pragma: no cover
        raise NotImplementedError(f"{type(self).__name__} has no `compute`; use the task-specific metric")


class PrecisionRecallCurve(_TaskWrapper):
    """``PrecisionRecallCurve(task=...)``: the binary, multiclass or multilabel precision-recall curve.

    >>> PrecisionRecallCurve(task="multiclass", num_classes=3, thresholds=5).__class__.__name__
    'MulticlassPrecisionRecallCurve'
    """

    def __new__(
        cls,
        task: str,
        thresholds: Thresholds = None,
        num_classes: Optional[int] = None,  # type: ignore[misc]
        num_labels: Optional[int] = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> Metric:
        kwargs.update(thresholds=thresholds, ignore_index=ignore_index, validate_args=validate_args)
        return _build(
            task,
            {
                "binary": lambda: BinaryPrecisionRecallCurve(**kwargs),
                "multiclass": lambda: MulticlassPrecisionRecallCurve(num_classes, **kwargs),
                "multilabel": lambda: MultilabelPrecisionRecallCurve(num_labels, **kwargs),
            },
            num_classes,
            num_labels,
        )


class ROC(_TaskWrapper):
    """``ROC(task=...)``: the binary, multiclass or multilabel ROC curve.

    >>> ROC(task="binary").__class__.__name__
    'BinaryROC'
    """

    def __new__(
        cls,
        task: str,
        thresholds: Thresholds = None,
        num_classes: Optional[int] = None,  # type: ignore[misc]
        num_labels: Optional[int] = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> Metric:
        kwargs.update(thresholds=thresholds, ignore_index=ignore_index, validate_args=validate_args)
        return _build(
            task,
            {
                "binary": lambda: BinaryROC(**kwargs),
                "multiclass": lambda: MulticlassROC(num_classes, **kwargs),
                "multilabel": lambda: MultilabelROC(num_labels, **kwargs),
            },
            num_classes,
            num_labels,
        )


class AUROC(_TaskWrapper):
    """``AUROC(task=...)``: area under the ROC curve (``max_fpr`` for binary, ``average`` otherwise).

    >>> import torch
    >>> metric = AUROC(task="binary")
    >>> metric(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    tensor(0.7500)
    """

    def __new__(
        cls,
        task: str,
        thresholds: Thresholds = None,
        num_classes: Optional[int] = None,  # type: ignore[misc]
        num_labels: Optional[int] = None,
        average: Optional[str] = "macro",
        max_fpr: Optional[float] = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> Metric:
        kwargs.update(thresholds=thresholds, ignore_index=ignore_index, validate_args=validate_args)
        return _build(
            task,
            {
                "binary": lambda: BinaryAUROC(max_fpr, **kwargs),
                "multiclass": lambda: MulticlassAUROC(num_classes, average, **kwargs),
                "multilabel": lambda: MultilabelAUROC(num_labels, average, **kwargs),
            },
            num_classes,
            num_labels,
        )


class AveragePrecision(_TaskWrapper):
    """``AveragePrecision(task=...)``: step-wise area under the precision-recall curve.

    >>> import torch
    >>> metric = AveragePrecision(task="binary")
    >>> metric(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    tensor(0.8333)
    """

    def __new__(
        cls,
        task: str,
        thresholds: Thresholds = None,
        num_classes: Optional[int] = None,  # type: ignore[misc]
        num_labels: Optional[int] = None,
        average: Optional[str] = "macro",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> Metric:
        kwargs.update(thresholds=thresholds, ignore_index=ignore_index, validate_args=validate_args)
        return _build(
            task,
            {
                "binary": lambda: BinaryAveragePrecision(**kwargs),
                "multiclass": lambda: MulticlassAveragePrecision(num_classes, average, **kwargs),
                "multilabel": lambda: MultilabelAveragePrecision(num_labels, average, **kwargs),
            },
            num_classes,
            num_labels,
        )


class PrecisionAtFixedRecall(_TaskWrapper):
    """``PrecisionAtFixedRecall(task=..., min_recall=...)``: per task, highest precision
    with recall >= ``min_recall``.

    >>> PrecisionAtFixedRecall(task="multilabel", num_labels=3, min_recall=0.5).__class__.__name__
    'MultilabelPrecisionAtFixedRecall'
    """

    def __new__(
        cls,
        task: str,
        min_recall: float,
        thresholds: Thresholds = None,  # type: ignore[misc]
        num_classes: Optional[int] = None,
        num_labels: Optional[int] = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> Metric:
        kwargs.update(thresholds=thresholds, ignore_index=ignore_index, validate_args=validate_args)
        return _build(
            task,
            {
                "binary": lambda: BinaryPrecisionAtFixedRecall(min_recall, **kwargs),
                "multiclass": lambda: MulticlassPrecisionAtFixedRecall(num_classes, min_recall, **kwargs),
                "multilabel": lambda: MultilabelPrecisionAtFixedRecall(num_labels, min_recall, **kwargs),
            },
            num_classes,
            num_labels,
        )


class RecallAtFixedPrecision(_TaskWrapper):
    """``RecallAtFixedPrecision(task=..., min_precision=...)``: per task, highest recall
    with precision >= ``min_precision``.

    >>> RecallAtFixedPrecision(task="multilabel", num_labels=3, min_precision=0.5).__class__.__name__
    'MultilabelRecallAtFixedPrecision'
    """

    def __new__(
        cls,
        task: str,
        min_precision: float,
        thresholds: Thresholds = None,  # type: ignore[misc]
        num_classes: Optional[int] = None,
        num_labels: Optional[int] = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> Metric:
        kwargs.update(thresholds=thresholds, ignore_index=ignore_index, validate_args=validate_args)
        return _build(
            task,
            {
                "binary": lambda: BinaryRecallAtFixedPrecision(min_precision, **kwargs),
                "multiclass": lambda: MulticlassRecallAtFixedPrecision(num_classes, min_precision, **kwargs),
                "multilabel": lambda: MultilabelRecallAtFixedPrecision(num_labels, min_precision, **kwargs),
            },
            num_classes,
            num_labels,
        )


class SensitivityAtSpecificity(_TaskWrapper):
    """``SensitivityAtSpecificity(task=..., min_specificity=...)``: per task, highest sensitivity
    with specificity >= ``min_specificity``.

    >>> SensitivityAtSpecificity(task="multilabel", num_labels=3, min_specificity=0.5).__class__.__name__
    'MultilabelSensitivityAtSpecificity'
    """

    def __new__(
        cls,
        task: str,
        min_specificity: float,
        thresholds: Thresholds = None,  # type: ignore[misc]
        num_classes: Optional[int] = None,
        num_labels: Optional[int] = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> Metric:
        kwargs.update(thresholds=thresholds, ignore_index=ignore_index, validate_args=validate_args)
        return _build(
            task,
            {
                "binary": lambda: BinarySensitivityAtSpecificity(min_specificity, **kwargs),
                "multiclass": lambda: MulticlassSensitivityAtSpecificity(
                    num_classes, min_specificity, **kwargs
                ),
                "multilabel": lambda: MultilabelSensitivityAtSpecificity(
                    num_labels, min_specificity, **kwargs
                ),
            },
            num_classes,
            num_labels,
        )


class SpecificityAtSensitivity(_TaskWrapper):
    """``SpecificityAtSensitivity(task=..., min_sensitivity=...)``: per task, highest specificity
    with sensitivity >= ``min_sensitivity``.

    >>> SpecificityAtSensitivity(task="multilabel", num_labels=3, min_sensitivity=0.5).__class__.__name__
    'MultilabelSpecificityAtSensitivity'
    """

    def __new__(
        cls,
        task: str,
        min_sensitivity: float,
        thresholds: Thresholds = None,  # type: ignore[misc]
        num_classes: Optional[int] = None,
        num_labels: Optional[int] = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> Metric:
        kwargs.update(thresholds=thresholds, ignore_index=ignore_index, validate_args=validate_args)
        return _build(
            task,
            {
                "binary": lambda: BinarySpecificityAtSensitivity(min_sensitivity, **kwargs),
                "multiclass": lambda: MulticlassSpecificityAtSensitivity(
                    num_classes, min_sensitivity, **kwargs
                ),
                "multilabel": lambda: MultilabelSpecificityAtSensitivity(
                    num_labels, min_sensitivity, **kwargs
                ),
            },
            num_classes,
            num_labels,
        )


class EER(_TaskWrapper):
    """``EER(task=...)``: equal error rate (``average`` ``micro``/``macro``/None for multiclass).

    >>> import torch
    >>> metric = EER(task="binary")
    >>> metric(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    tensor(0.5000)
    """

    def __new__(
        cls,
        task: str,
        thresholds: Thresholds = None,
        num_classes: Optional[int] = None,  # type: ignore[misc]
        num_labels: Optional[int] = None,
        average: Optional[str] = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> Metric:
        kwargs.update(thresholds=thresholds, ignore_index=ignore_index, validate_args=validate_args)
        return _build(
            task,
            {
                "binary": lambda: BinaryEER(**kwargs),
                "multiclass": lambda: MulticlassEER(num_classes, average=average, **kwargs),
                "multilabel": lambda: MultilabelEER(num_labels, **kwargs),
            },
            num_classes,
            num_labels,
        )


class LogAUC(_TaskWrapper):
    """``LogAUC(task=...)``: area under the ROC curve on a log FPR axis inside ``fpr_range``.

    >>> import torch
    >>> metric = LogAUC(task="binary")
    >>> metric(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    tensor(0.5000)
    """

    def __new__(
        cls,
        task: str,
        thresholds: Thresholds = None,  # type: ignore[misc]
        fpr_range: Optional[tuple[float, float]] = FPR_RANGE,
        num_classes: Optional[int] = None,
        num_labels: Optional[int] = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> Metric:
        kwargs.update(
            thresholds=thresholds, fpr_range=fpr_range, ignore_index=ignore_index, validate_args=validate_args
        )
        return _build(
            task,
            {
                "binary": lambda: BinaryLogAUC(**kwargs),
                "multiclass": lambda: MulticlassLogAUC(num_classes, **kwargs),
                "multilabel": lambda: MultilabelLogAUC(num_labels, **kwargs),
            },
            num_classes,
            num_labels,
        )


class CalibrationError(_TaskWrapper):
    """``CalibrationError(task="binary" | "multiclass", n_bins=15, norm="l1")``.

    >>> import torch
    >>> metric = CalibrationError(task="binary", n_bins=2)
    >>> metric(torch.tensor([0.25, 0.25, 0.55, 0.75, 0.75]), torch.tensor([0, 0, 1, 1, 1]))
    tensor(0.2900)
    """

    def __new__(
        cls,
        task: str,
        n_bins: int = 15,
        norm: str = "l1",  # type: ignore[misc]
        num_classes: Optional[int] = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> Metric:
        kwargs.update(n_bins=n_bins, norm=norm, ignore_index=ignore_index, validate_args=validate_args)
        return _build(
            task,
            {
                "binary": lambda: BinaryCalibrationError(**kwargs),
                "multiclass": lambda: MulticlassCalibrationError(num_classes, **kwargs),
            },
            num_classes,
            None,
        )


class HingeLoss(_TaskWrapper):
    """``HingeLoss(task="binary" | "multiclass", squared=False, multiclass_mode="crammer-singer")``.

    >>> import torch
    >>> metric = HingeLoss(task="binary")
    >>> metric(torch.tensor([0.25, 0.25, 0.55, 0.75, 0.75]), torch.tensor([0, 0, 1, 1, 1]))
    tensor(0.6900)
    """

    def __new__(
        cls,
        task: str,
        num_classes: Optional[int] = None,
        squared: bool = False,  # type: ignore[misc]
        multiclass_mode: Optional[str] = "crammer-singer",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> Metric:
        kwargs.update(ignore_index=ignore_index, validate_args=validate_args)
        return _build(
            task,
            {
                "binary": lambda: BinaryHingeLoss(squared, **kwargs),
                "multiclass": lambda: MulticlassHingeLoss(num_classes, squared, multiclass_mode, **kwargs),
            },
            num_classes,
            None,
        )


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
