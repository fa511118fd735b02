"""Modular operating-point metrics, EER and LogAUC: selectors over the shared curve statistic.

They keep exactly the state of the PR/ROC metrics of :mod:`._curve_metrics` (and the same
``statistic_spec``), so in a collection they ride along on one update per batch. A class is its
docstring, torchmetrics' signature and one line (``self._configure(locals())``); its family mixin
names what it reads from the curve, and :meth:`CurveMetric._build` does the rest.
"""

from __future__ import annotations

from typing import Any, Optional

from torch import Tensor

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics.classification._curve_metrics import (
    BinaryPrecisionRecallCurve,
    _Bounded,
    _PerClass,
    _PerLabel,
    _Summary,
    BinaryROC,
    MulticlassPrecisionRecallCurve,
    MulticlassROC,
    MultilabelPrecisionRecallCurve,
    MultilabelROC,
    Thresholds,
)
from lightning_metrics.functional.classification._curve_functions import curve_measure
from lightning_metrics.functional.classification._fixed_point import OPERATING_POINTS, operating_point_compute
from lightning_metrics.functional.classification._scores import check_fpr_range, check_unit_float

FPR_RANGE = (0.001, 0.1)


class _OperatingPoint:
    """Mixin: ``compute`` applies the selector of the class's minimum (``minimum_name``, a key of
    :data:`~._fixed_point.OPERATING_POINTS`) to the PR or ROC curve of every column."""

    minimum_name: str
    result_names = ("value", "threshold")  # compute returns (value, threshold)

    def _build(self) -> None:
        super()._build()  # type: ignore[misc]
        check_unit_float(self.minimum_name, getattr(self, self.minimum_name))

    def compute(self) -> tuple[Tensor, Tensor]:
        curve, selector = OPERATING_POINTS[self.minimum_name]
        minimum = getattr(self, self.minimum_name)
        return operating_point_compute(self._spec, self._state(), curve, selector, minimum)  # type: ignore[attr-defined]


class _BinaryPoint(_OperatingPoint, _Bounded, BinaryPrecisionRecallCurve):
    pass


class _MulticlassPoint(_OperatingPoint, _PerClass, MulticlassPrecisionRecallCurve):
    pass


class _MultilabelPoint(_OperatingPoint, _PerLabel, MultilabelPrecisionRecallCurve):
    pass


class BinaryPrecisionAtFixedRecall(_BinaryPoint):
    """Highest precision with recall >= ``min_recall``, and its threshold.

    >>> import torch
    >>> metric = BinaryPrecisionAtFixedRecall(min_recall=0.5)
    >>> metric.update(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    >>> metric.compute()
    (tensor(1.), tensor(0.8000))
    """

    plot = _plot_methods.plot_value
    minimum_name = "min_recall"

    def __init__(self, min_recall: float, thresholds: Thresholds = None, ignore_index: Optional[int] = None,
                 validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


class BinaryRecallAtFixedPrecision(_BinaryPoint):
    """Highest recall with precision >= ``min_precision``, and its threshold.

    >>> import torch
    >>> metric = BinaryRecallAtFixedPrecision(min_precision=0.6)
    >>> metric.update(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    >>> metric.compute()
    (tensor(1.), tensor(0.3500))
    """

    plot = _plot_methods.plot_value
    minimum_name = "min_precision"

    def __init__(self, min_precision: float, thresholds: Thresholds = None, ignore_index: Optional[int] = None,
                 validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


class BinarySensitivityAtSpecificity(_BinaryPoint):
    """Highest sensitivity with specificity >= ``min_specificity``, and its threshold.

    >>> import torch
    >>> metric = BinarySensitivityAtSpecificity(min_specificity=0.5)
    >>> metric.update(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    >>> metric.compute()
    (tensor(1.), tensor(0.3500))
    """

    minimum_name = "min_specificity"

    def __init__(self, min_specificity: float, thresholds: Thresholds = None, ignore_index: Optional[int] = None,
                 validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


class BinarySpecificityAtSensitivity(_BinaryPoint):
    """Highest specificity with sensitivity >= ``min_sensitivity``, and its threshold.

    >>> import torch
    >>> metric = BinarySpecificityAtSensitivity(min_sensitivity=0.5)
    >>> metric.update(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    >>> metric.compute()
    (tensor(1.), tensor(0.8000))
    """

    minimum_name = "min_sensitivity"

    def __init__(self, min_sensitivity: float, thresholds: Thresholds = None, ignore_index: Optional[int] = None,
                 validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


class MulticlassPrecisionAtFixedRecall(_MulticlassPoint):
    """Per class (one-vs-rest): highest precision with recall >= ``min_recall``, and its threshold.

    >>> import torch
    >>> metric = MulticlassPrecisionAtFixedRecall(num_classes=3, min_recall=1.0)
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> metric.update(preds, torch.tensor([0, 1, 2, 0]))
    >>> metric.compute()
    (tensor([0.6667, 1.0000, 1.0000]), tensor([0.3000, 0.5000, 0.6000]))
    """

    plot = _plot_methods.plot_value
    minimum_name = "min_recall"

    def __init__(self, num_classes: int, min_recall: float, thresholds: Thresholds = None,
                 ignore_index: Optional[int] = None, validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


class MulticlassRecallAtFixedPrecision(_MulticlassPoint):
    """Per class (one-vs-rest): highest recall with precision >= ``min_precision``, and its threshold.

    >>> import torch
    >>> metric = MulticlassRecallAtFixedPrecision(num_classes=3, min_precision=1.0)
    >>> metric.update(torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]]),
    ...               torch.tensor([0, 1, 2, 0]))
    >>> metric.compute()
    (tensor([0.5000, 1.0000, 1.0000]), tensor([0.7000, 0.5000, 0.6000]))
    """

    plot = _plot_methods.plot_value
    minimum_name = "min_precision"

    def __init__(self, num_classes: int, min_precision: float, thresholds: Thresholds = None,
                 ignore_index: Optional[int] = None, validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


class MulticlassSensitivityAtSpecificity(_MulticlassPoint):
    """Per class (one-vs-rest): highest sensitivity with specificity >= ``min_specificity``.

    >>> import torch
    >>> metric = MulticlassSensitivityAtSpecificity(num_classes=3, min_specificity=1.0)
    >>> scores = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> metric.update(scores, target=torch.tensor([0, 1, 2, 0]))
    >>> metric.compute()
    (tensor([0.5000, 1.0000, 1.0000]), tensor([0.7000, 0.5000, 0.6000]))
    """

    minimum_name = "min_specificity"

    def __init__(self, num_classes: int, min_specificity: float, thresholds: Thresholds = None,
                 ignore_index: Optional[int] = None, validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


class MulticlassSpecificityAtSensitivity(_MulticlassPoint):
    """Per class (one-vs-rest): highest specificity with sensitivity >= ``min_sensitivity``.

    >>> import torch
    >>> metric = MulticlassSpecificityAtSensitivity(num_classes=3, min_sensitivity=1.0)
    >>> metric(torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]]),
    ...        torch.tensor([0, 1, 2, 0]))
    (tensor([0.5000, 1.0000, 1.0000]), tensor([0.3000, 0.5000, 0.6000]))
    """

    minimum_name = "min_sensitivity"

    def __init__(self, num_classes: int, min_sensitivity: float, thresholds: Thresholds = None,
                 ignore_index: Optional[int] = None, validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


class MultilabelPrecisionAtFixedRecall(_MultilabelPoint):
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
    minimum_name = "min_recall"

    def __init__(self, num_labels: int, min_recall: float, thresholds: Thresholds = None,
                 ignore_index: Optional[int] = None, validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


class MultilabelRecallAtFixedPrecision(_MultilabelPoint):
    """Per label: highest recall with precision >= ``min_precision``, and its threshold.

    >>> import torch
    >>> metric = MultilabelRecallAtFixedPrecision(num_labels=2, min_precision=0.5)
    >>> metric.update(torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]]), torch.tensor([[1, 0], [0, 1], [0, 0]]))
    >>> metric.compute()
    (tensor([1., 1.]), tensor([0.8000, 0.6000]))
    """

    plot = _plot_methods.plot_value
    minimum_name = "min_precision"

    def __init__(self, num_labels: int, min_precision: float, thresholds: Thresholds = None,
                 ignore_index: Optional[int] = None, validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


class MultilabelSensitivityAtSpecificity(_MultilabelPoint):
    """Per label: highest sensitivity with specificity >= ``min_specificity``, and its threshold.

    >>> import torch
    >>> metric = MultilabelSensitivityAtSpecificity(num_labels=2, min_specificity=0.5)
    >>> scores, labels = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]]), torch.tensor([[1, 0], [0, 1], [0, 0]])
    >>> metric.update(scores, labels)
    >>> metric.compute()
    (tensor([1., 1.]), tensor([0.8000, 0.6000]))
    """

    minimum_name = "min_specificity"

    def __init__(self, num_labels: int, min_specificity: float, thresholds: Thresholds = None,
                 ignore_index: Optional[int] = None, validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


class MultilabelSpecificityAtSensitivity(_MultilabelPoint):
    """Per label: highest specificity with sensitivity >= ``min_sensitivity``, and its threshold.

    >>> import torch
    >>> metric = MultilabelSpecificityAtSensitivity(num_labels=2, min_sensitivity=0.5)
    >>> metric(torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]]), torch.tensor([[1, 0], [0, 1], [0, 0]]))
    (tensor([1.0000, 0.5000]), tensor([0.8000, 0.6000]))
    """

    minimum_name = "min_sensitivity"

    def __init__(self, num_labels: int, min_sensitivity: float, thresholds: Thresholds = None,
                 ignore_index: Optional[int] = None, validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


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
    _measure = "eer"


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
    _measure = "eer"


class MultilabelEER(MultilabelROC):
    """Equal error rate of every label.

    >>> import torch
    >>> metric = MultilabelEER(num_labels=2)
    >>> metric.update(torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]]), torch.tensor([[1, 0], [0, 1], [0, 0]]))
    >>> metric.compute()
    tensor([0.0000, 0.7500])
    """

    plot = _plot_methods.plot_value
    _measure = "eer"


# --------------------------------------------------------------------------------- LogAUC
class _LogAUC(_Summary):
    """Mixin: the area of each column's ROC curve on a log10 FPR axis inside ``fpr_range``.

    The multi-column classes keep torchmetrics' attribute names: their ``average`` (``None`` per
    column, or ``macro``) is ``average2``; a multiclass ``average`` stays the unused curve average.
    """

    _measure = "logauc"

    def _build(self) -> None:
        super()._build()  # type: ignore[misc]
        check_fpr_range(self.fpr_range)
        if self.task != "binary":  # type: ignore[attr-defined]
            self.average2 = self.__dict__.pop("average")
            if self.task == "multiclass":  # type: ignore[attr-defined]
                self.average = None

    def compute(self) -> Tensor:
        arguments = {"fpr_range": self.fpr_range, "average": getattr(self, "average2", None)}
        return curve_measure("logauc", self._spec, self._state(), arguments)  # type: ignore[attr-defined]


class BinaryLogAUC(_LogAUC, BinaryROC):
    """Area under the ROC curve on a log10 FPR axis inside ``fpr_range``, scaled to [0, 1].

    ``validate_args`` defaults to False here, as in torchmetrics.

    >>> import torch
    >>> metric = BinaryLogAUC()
    >>> metric.update(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    >>> metric.compute()
    tensor(0.5000)
    """

    def __init__(self, fpr_range: tuple[float, float] = FPR_RANGE, thresholds: Thresholds = None,
                 ignore_index: Optional[int] = None, validate_args: bool = False, **kwargs: Any) -> None:
        self._configure(locals())


class MulticlassLogAUC(_LogAUC, MulticlassROC):
    """LogAUC of every class (one-vs-rest); ``average`` is ``None`` (per class) or ``macro``.

    >>> import torch
    >>> metric = MulticlassLogAUC(num_classes=3)
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    >>> metric.update(preds, torch.tensor([0, 1, 2, 0]))
    >>> metric.compute()
    tensor([0.5000, 1.0000, 1.0000])
    """

    def __init__(self, num_classes: int, fpr_range: tuple[float, float] = FPR_RANGE, average: Optional[str] = None,
                 thresholds: Thresholds = None, ignore_index: Optional[int] = None, validate_args: bool = True,
                 **kwargs: Any) -> None:
        self._configure(locals())


class MultilabelLogAUC(_LogAUC, MultilabelROC):
    """LogAUC of every label; ``average`` is ``None`` (per label) or ``macro``.

    >>> import torch
    >>> metric = MultilabelLogAUC(num_labels=2, average="macro")
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]])
    >>> target = torch.tensor([[1, 0], [0, 1], [0, 0]])
    >>> metric.update(preds, target)
    >>> metric.compute()
    tensor(0.5000)
    """

    def __init__(self, num_labels: int, fpr_range: tuple[float, float] = FPR_RANGE, average: Optional[str] = None,
                 thresholds: Thresholds = None, ignore_index: Optional[int] = None, validate_args: bool = True,
                 **kwargs: Any) -> None:
        self._configure(locals())
