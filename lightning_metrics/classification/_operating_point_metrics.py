"""Modular operating-point metrics, EER and LogAUC: selectors over the shared curve statistic.

They keep exactly the state of the PR/ROC metrics of :mod:`._curve_metrics` (and the same
``statistic_spec``), so in a collection they ride along on one update per batch.
"""

from __future__ import annotations

from typing import Any, Optional

from torch import Tensor

from lightning_metrics import _plot_methods
from lightning_metrics.classification._curve_metrics import (
    BinaryPrecisionRecallCurve,
    _Bounded,
    _PerClass,
    _PerLabel,
    BinaryROC,
    MulticlassPrecisionRecallCurve,
    MulticlassROC,
    MultilabelPrecisionRecallCurve,
    MultilabelROC,
    Thresholds,
)
from lightning_metrics.functional.classification._curve_core import multiclass_curve, roc_curves
from lightning_metrics.functional.classification._fixed_point import (
    Selector,
    binary_logauc_from_roc,
    eer_from_roc,
    logauc_from_roc,
    operating_point_compute,
    precision_at_recall,
    recall_at_precision,
    sensitivity_at_specificity,
    specificity_at_sensitivity,
)
from lightning_metrics.functional.classification._scores import (
    check_average,
    check_fpr_range,
    check_unit_float,
)

FPR_RANGE = (0.001, 0.1)


class _OperatingPoint:
    """Mixin: ``compute`` applies the class's selector to the PR or ROC curve of every column."""

    curve: str
    selector: Selector
    minimum_name: str
    result_names = ("value", "threshold")  # compute returns (value, threshold)

    def _set_minimum(self, value: float) -> None:
        check_unit_float(self.minimum_name, value)
        setattr(self, self.minimum_name, value)

    def compute(self) -> tuple[Tensor, Tensor]:
        minimum = getattr(self, self.minimum_name)
        return operating_point_compute(self._spec, self._state(), self.curve, type(self).selector, minimum)  # type: ignore[attr-defined]


def _binary_init(
    self: Any,
    minimum: float,
    thresholds: Thresholds,
    ignore_index: Optional[int],
    validate_args: bool,
    kwargs: dict,
) -> None:
    BinaryPrecisionRecallCurve.__init__(self, thresholds, ignore_index, validate_args, **kwargs)
    self._set_minimum(minimum)


class BinaryPrecisionAtFixedRecall(_OperatingPoint, _Bounded, BinaryPrecisionRecallCurve):
    """Highest precision with recall >= ``min_recall``, and its threshold.

    >>> import torch
    >>> metric = BinaryPrecisionAtFixedRecall(min_recall=0.5)
    >>> metric.update(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    >>> metric.compute()
    (tensor(1.), tensor(0.8000))
    """

    plot = _plot_methods.plot_value

    curve, selector, minimum_name = "pr", precision_at_recall, "min_recall"

    def __init__(
        self,
        min_recall: float,
        thresholds: Thresholds = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        _binary_init(self, min_recall, thresholds, ignore_index, validate_args, kwargs)


class BinaryRecallAtFixedPrecision(_OperatingPoint, _Bounded, BinaryPrecisionRecallCurve):
    """Highest recall with precision >= ``min_precision``, and its threshold.

    >>> import torch
    >>> metric = BinaryRecallAtFixedPrecision(min_precision=0.6)
    >>> metric.update(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    >>> metric.compute()
    (tensor(1.), tensor(0.3500))
    """

    plot = _plot_methods.plot_value

    curve, selector, minimum_name = "pr", recall_at_precision, "min_precision"

    def __init__(
        self,
        min_precision: float,
        thresholds: Thresholds = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        _binary_init(self, min_precision, thresholds, ignore_index, validate_args, kwargs)


class BinarySensitivityAtSpecificity(_OperatingPoint, _Bounded, BinaryPrecisionRecallCurve):
    """Highest sensitivity with specificity >= ``min_specificity``, and its threshold.

    >>> import torch
    >>> metric = BinarySensitivityAtSpecificity(min_specificity=0.5)
    >>> metric.update(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    >>> metric.compute()
    (tensor(1.), tensor(0.3500))
    """

    curve, selector, minimum_name = "roc", sensitivity_at_specificity, "min_specificity"

    def __init__(
        self,
        min_specificity: float,
        thresholds: Thresholds = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        _binary_init(self, min_specificity, thresholds, ignore_index, validate_args, kwargs)


class BinarySpecificityAtSensitivity(_OperatingPoint, _Bounded, BinaryPrecisionRecallCurve):
    """Highest specificity with sensitivity >= ``min_sensitivity``, and its threshold.

    >>> import torch
    >>> metric = BinarySpecificityAtSensitivity(min_sensitivity=0.5)
    >>> metric.update(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    >>> metric.compute()
    (tensor(1.), tensor(0.8000))
    """

    curve, selector, minimum_name = "roc", specificity_at_sensitivity, "min_sensitivity"

    def __init__(
        self,
        min_sensitivity: float,
        thresholds: Thresholds = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        _binary_init(self, min_sensitivity, thresholds, ignore_index, validate_args, kwargs)


def _multi_init(
    self: Any,
    base: type,
    num: int,
    minimum: float,
    thresholds: Thresholds,
    ignore_index: Optional[int],
    validate_args: bool,
    kwargs: dict,
) -> None:
    if base is MulticlassPrecisionRecallCurve:
        base.__init__(self, num, thresholds, None, ignore_index, validate_args, **kwargs)
    else:
        base.__init__(self, num, thresholds, ignore_index, validate_args, **kwargs)
    self._set_minimum(minimum)


class MulticlassPrecisionAtFixedRecall(_OperatingPoint, _PerClass, MulticlassPrecisionRecallCurve):
    """Per class (one-vs-rest): highest precision with recall >= ``min_recall``, and its threshold.

    >>> import torch
    >>> metric = MulticlassPrecisionAtFixedRecall(num_classes=3, min_recall=1.0)
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> metric.update(preds, torch.tensor([0, 1, 2, 0]))
    >>> metric.compute()
    (tensor([0.6667, 1.0000, 1.0000]), tensor([0.3000, 0.5000, 0.6000]))
    """

    plot = _plot_methods.plot_value

    curve, selector, minimum_name = "pr", precision_at_recall, "min_recall"

    def __init__(
        self,
        num_classes: int,
        min_recall: float,
        thresholds: Thresholds = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        _multi_init(
            self,
            MulticlassPrecisionRecallCurve,
            num_classes,
            min_recall,
            thresholds,
            ignore_index,
            validate_args,
            kwargs,
        )


class MulticlassRecallAtFixedPrecision(_OperatingPoint, _PerClass, MulticlassPrecisionRecallCurve):
    """Per class (one-vs-rest): highest recall with precision >= ``min_precision``, and its threshold.

    >>> import torch
    >>> metric = MulticlassRecallAtFixedPrecision(num_classes=3, min_precision=1.0)
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> metric.update(preds, torch.tensor([0, 1, 2, 0]))
    >>> metric.compute()
    (tensor([0.5000, 1.0000, 1.0000]), tensor([0.7000, 0.5000, 0.6000]))
    """

    plot = _plot_methods.plot_value

    curve, selector, minimum_name = "pr", recall_at_precision, "min_precision"

    def __init__(
        self,
        num_classes: int,
        min_precision: float,
        thresholds: Thresholds = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        _multi_init(
            self,
            MulticlassPrecisionRecallCurve,
            num_classes,
            min_precision,
            thresholds,
            ignore_index,
            validate_args,
            kwargs,
        )


class MulticlassSensitivityAtSpecificity(_OperatingPoint, _PerClass, MulticlassPrecisionRecallCurve):
    """Per class (one-vs-rest): highest sensitivity with specificity >= ``min_specificity``.

    >>> import torch
    >>> metric = MulticlassSensitivityAtSpecificity(num_classes=3, min_specificity=1.0)
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> metric.update(preds, torch.tensor([0, 1, 2, 0]))
    >>> metric.compute()
    (tensor([0.5000, 1.0000, 1.0000]), tensor([0.7000, 0.5000, 0.6000]))
    """

    curve, selector, minimum_name = "roc", sensitivity_at_specificity, "min_specificity"

    def __init__(
        self,
        num_classes: int,
        min_specificity: float,
        thresholds: Thresholds = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        _multi_init(
            self,
            MulticlassPrecisionRecallCurve,
            num_classes,
            min_specificity,
            thresholds,
            ignore_index,
            validate_args,
            kwargs,
        )


class MulticlassSpecificityAtSensitivity(_OperatingPoint, _PerClass, MulticlassPrecisionRecallCurve):
    """Per class (one-vs-rest): highest specificity with sensitivity >= ``min_sensitivity``.

    >>> import torch
    >>> metric = MulticlassSpecificityAtSensitivity(num_classes=3, min_sensitivity=1.0)
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> metric.update(preds, torch.tensor([0, 1, 2, 0]))
    >>> metric.compute()
    (tensor([0.5000, 1.0000, 1.0000]), tensor([0.3000, 0.5000, 0.6000]))
    """

    curve, selector, minimum_name = "roc", specificity_at_sensitivity, "min_sensitivity"

    def __init__(
        self,
        num_classes: int,
        min_sensitivity: float,
        thresholds: Thresholds = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        _multi_init(
            self,
            MulticlassPrecisionRecallCurve,
            num_classes,
            min_sensitivity,
            thresholds,
            ignore_index,
            validate_args,
            kwargs,
        )


class MultilabelPrecisionAtFixedRecall(_OperatingPoint, _PerLabel, MultilabelPrecisionRecallCurve):
    """Per label: highest precision with recall >= ``min_recall``, and its threshold.

    >>> import torch
    >>> metric = MultilabelPrecisionAtFixedRecall(num_labels=2, min_recall=0.5)
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]])
    >>> target = torch.tensor([[1, 0], [0, 1], [0, 0]])
    >>> metric.update(preds, target)
    >>> metric.compute()
    (tensor([1.0000, 0.5000]), tensor([0.8000, 0.6000]))
    """

    plot = _plot_methods.plot_value

    curve, selector, minimum_name = "pr", precision_at_recall, "min_recall"

    def __init__(
        self,
        num_labels: int,
        min_recall: float,
        thresholds: Thresholds = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        _multi_init(
            self,
            MultilabelPrecisionRecallCurve,
            num_labels,
            min_recall,
            thresholds,
            ignore_index,
            validate_args,
            kwargs,
        )


class MultilabelRecallAtFixedPrecision(_OperatingPoint, _PerLabel, MultilabelPrecisionRecallCurve):
    """Per label: highest recall with precision >= ``min_precision``, and its threshold.

    >>> import torch
    >>> metric = MultilabelRecallAtFixedPrecision(num_labels=2, min_precision=0.5)
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]])
    >>> target = torch.tensor([[1, 0], [0, 1], [0, 0]])
    >>> metric.update(preds, target)
    >>> metric.compute()
    (tensor([1., 1.]), tensor([0.8000, 0.6000]))
    """

    plot = _plot_methods.plot_value

    curve, selector, minimum_name = "pr", recall_at_precision, "min_precision"

    def __init__(
        self,
        num_labels: int,
        min_precision: float,
        thresholds: Thresholds = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        _multi_init(
            self,
            MultilabelPrecisionRecallCurve,
            num_labels,
            min_precision,
            thresholds,
            ignore_index,
            validate_args,
            kwargs,
        )


class MultilabelSensitivityAtSpecificity(_OperatingPoint, _PerLabel, MultilabelPrecisionRecallCurve):
    """Per label: highest sensitivity with specificity >= ``min_specificity``, and its threshold.

    >>> import torch
    >>> metric = MultilabelSensitivityAtSpecificity(num_labels=2, min_specificity=0.5)
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]])
    >>> target = torch.tensor([[1, 0], [0, 1], [0, 0]])
    >>> metric.update(preds, target)
    >>> metric.compute()
    (tensor([1., 1.]), tensor([0.8000, 0.6000]))
    """

    curve, selector, minimum_name = "roc", sensitivity_at_specificity, "min_specificity"

    def __init__(
        self,
        num_labels: int,
        min_specificity: float,
        thresholds: Thresholds = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        _multi_init(
            self,
            MultilabelPrecisionRecallCurve,
            num_labels,
            min_specificity,
            thresholds,
            ignore_index,
            validate_args,
            kwargs,
        )


class MultilabelSpecificityAtSensitivity(_OperatingPoint, _PerLabel, MultilabelPrecisionRecallCurve):
    """Per label: highest specificity with sensitivity >= ``min_sensitivity``, and its threshold.

    >>> import torch
    >>> metric = MultilabelSpecificityAtSensitivity(num_labels=2, min_sensitivity=0.5)
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]])
    >>> target = torch.tensor([[1, 0], [0, 1], [0, 0]])
    >>> metric.update(preds, target)
    >>> metric.compute()
    (tensor([1.0000, 0.5000]), tensor([0.8000, 0.6000]))
    """

    curve, selector, minimum_name = "roc", specificity_at_sensitivity, "min_sensitivity"

    def __init__(
        self,
        num_labels: int,
        min_sensitivity: float,
        thresholds: Thresholds = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        _multi_init(
            self,
            MultilabelPrecisionRecallCurve,
            num_labels,
            min_sensitivity,
            thresholds,
            ignore_index,
            validate_args,
            kwargs,
        )


# ------------------------------------------------------------------------------------ EER
class BinaryEER(BinaryROC):
    """Equal error rate: where the false positive and false negative rates meet.

    >>> import torch
    >>> metric = BinaryEER()
    >>> metric.update(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    >>> metric.compute()
    tensor(0.5000)
    """

    plot = _plot_methods.plot_value

    def compute(self) -> Tensor:  # type: ignore[override]
        return eer_from_roc(*roc_curves(self._spec, self._state())[:2])


class MulticlassEER(MulticlassROC):
    """Equal error rate per class, or of the ``micro`` / ``macro`` averaged ROC curve.

    >>> import torch
    >>> metric = MulticlassEER(num_classes=3)
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> metric.update(preds, torch.tensor([0, 1, 2, 0]))
    >>> metric.compute()
    tensor([0.5000, 0.0000, 0.0000])
    """

    plot = _plot_methods.plot_value

    def compute(self) -> Tensor:  # type: ignore[override]
        return eer_from_roc(*multiclass_curve("roc", self._spec, self._state(), self.average)[:2])


class MultilabelEER(MultilabelROC):
    """Equal error rate of every label.

    >>> import torch
    >>> metric = MultilabelEER(num_labels=2)
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]])
    >>> target = torch.tensor([[1, 0], [0, 1], [0, 0]])
    >>> metric.update(preds, target)
    >>> metric.compute()
    tensor([0.0000, 0.7500])
    """

    plot = _plot_methods.plot_value

    def compute(self) -> Tensor:  # type: ignore[override]
        return eer_from_roc(*roc_curves(self._spec, self._state())[:2])


# --------------------------------------------------------------------------------- LogAUC
class BinaryLogAUC(BinaryROC):
    """Area under the ROC curve on a log10 FPR axis inside ``fpr_range``, scaled to [0, 1].

    ``validate_args`` defaults to False here, as in torchmetrics.

    >>> import torch
    >>> metric = BinaryLogAUC()
    >>> metric.update(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    >>> metric.compute()
    tensor(0.5000)
    """

    plot = _plot_methods.plot_value

    higher_is_better = True

    def __init__(
        self,
        fpr_range: tuple[float, float] = FPR_RANGE,
        thresholds: Thresholds = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            thresholds=thresholds, ignore_index=ignore_index, validate_args=validate_args, **kwargs
        )
        check_fpr_range(fpr_range)
        self.fpr_range = fpr_range

    def compute(self) -> Tensor:  # type: ignore[override]
        fpr, tpr, _ = roc_curves(self._spec, self._state())
        return binary_logauc_from_roc(fpr, tpr, self.fpr_range)  # type: ignore[arg-type]


class MulticlassLogAUC(MulticlassROC):
    """LogAUC of every class (one-vs-rest); ``average`` is ``None`` (per class) or ``macro``.

    >>> import torch
    >>> metric = MulticlassLogAUC(num_classes=3)
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> metric.update(preds, torch.tensor([0, 1, 2, 0]))
    >>> metric.compute()
    tensor([0.5000, 1.0000, 1.0000])
    """

    plot = _plot_methods.plot_value

    higher_is_better = True

    def __init__(
        self,
        num_classes: int,
        fpr_range: tuple[float, float] = FPR_RANGE,
        average: Optional[str] = None,
        thresholds: Thresholds = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(num_classes, thresholds, None, ignore_index, validate_args, **kwargs)
        check_fpr_range(fpr_range)
        check_average(average, ("macro", "none", None))
        self.fpr_range = fpr_range
        self.average2 = average  # torchmetrics' name: ``average`` stays the (unused) curve average

    def compute(self) -> Tensor:  # type: ignore[override]
        fpr, tpr, _ = roc_curves(self._spec, self._state())
        return logauc_from_roc(fpr, tpr, self.fpr_range, self.average2)


class MultilabelLogAUC(MultilabelROC):
    """LogAUC of every label; ``average`` is ``None`` (per label) or ``macro``.

    >>> import torch
    >>> metric = MultilabelLogAUC(num_labels=2, average="macro")
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]])
    >>> target = torch.tensor([[1, 0], [0, 1], [0, 0]])
    >>> metric.update(preds, target)
    >>> metric.compute()
    tensor(0.5000)
    """

    plot = _plot_methods.plot_value

    higher_is_better = True

    def __init__(
        self,
        num_labels: int,
        fpr_range: tuple[float, float] = FPR_RANGE,
        average: Optional[str] = None,
        thresholds: Thresholds = None,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(num_labels, thresholds, ignore_index, validate_args, **kwargs)
        check_fpr_range(fpr_range)
        check_average(average, ("macro", "none", None))
        self.fpr_range = fpr_range
        self.average2 = average

    def compute(self) -> Tensor:  # type: ignore[override]
        fpr, tpr, _ = roc_curves(self._spec, self._state())
        return logauc_from_roc(fpr, tpr, self.fpr_range, self.average2)
