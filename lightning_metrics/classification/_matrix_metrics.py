"""Modular Jaccard index, Matthews correlation, Cohen's kappa, confusion matrix and exact match.

All but exact match keep the same statistic as the count ratios (a multiclass (C, C) confusion
matrix, binary (2, 2) and multilabel (L, 2, 2) counts), so in a collection they share its update.
A class is its docstring, torchmetrics' signature and one line: the family
(:class:`~lightning_metrics.classification._counting_base.MatrixMetric`) builds the statistic and
the reduction from the task and measure it names.
"""

from __future__ import annotations

from typing import Any, Optional

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics.classification._counting_base import MatrixMetric


class _MulticlassMatrix(MatrixMetric):
    """The multiclass matrix measures but the confusion matrix: torchmetrics' legend name, ``"Class"``."""

    _task = "multiclass"
    plot_legend_name = "Class"


class _MultilabelMatrix(MatrixMetric):
    """The multilabel matrix measures but the confusion matrix: torchmetrics' legend name, ``"Label"``."""

    _task = "multilabel"
    plot_legend_name = "Label"


class _ConfusionMatrix(MatrixMetric):
    """The confusion matrices of the three tasks: a matrix, plotted as one, with no better direction."""

    _measure = "confusion_matrix"
    plot = _plot_methods.plot_confusion_matrix
    higher_is_better = None
    plot_lower_bound = plot_upper_bound = None


class BinaryJaccardIndex(MatrixMetric):
    """Jaccard index ``tp / (tp + fp + fn)`` for binary tasks.

    >>> from torch import tensor
    >>> metric = BinaryJaccardIndex()
    >>> metric(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.3333)
    """

    _task, _measure = "binary", "jaccard_index"

    def __init__(self, threshold: float = 0.5, ignore_index: Optional[int] = None, validate_args: bool = True,
                 zero_division: float = 0, **kwargs: Any) -> None:
        self._configure(locals())


class MulticlassJaccardIndex(_MulticlassMatrix):
    """Jaccard index per class and averaged, for multiclass tasks.

    >>> from torch import tensor
    >>> metric = MulticlassJaccardIndex(num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.6667)
    """

    _measure = "jaccard_index"

    def __init__(self, num_classes: int, average: Optional[str] = "macro", ignore_index: Optional[int] = None,
                 validate_args: bool = True, zero_division: float = 0, **kwargs: Any) -> None:
        self._configure(locals())


class MultilabelJaccardIndex(_MultilabelMatrix):
    """Jaccard index per label and averaged (``average='samples'``: per example), multilabel tasks.

    >>> from torch import tensor
    >>> metric = MultilabelJaccardIndex(num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor(0.5000)
    """

    _measure = "jaccard_index"

    def __init__(self, num_labels: int, threshold: float = 0.5, average: Optional[str] = "macro",
                 ignore_index: Optional[int] = None, validate_args: bool = True, zero_division: float = 0,
                 **kwargs: Any) -> None:
        self._configure(locals())


class BinaryMatthewsCorrCoef(MatrixMetric):
    """Matthews correlation coefficient for binary tasks.

    >>> from torch import tensor
    >>> metric = BinaryMatthewsCorrCoef()
    >>> metric(tensor([0.1, 0.9, 0.6, 0.8]), tensor([0, 1, 0, 1]))
    tensor(0.5774)
    """

    _task, _measure = "binary", "matthews_corrcoef"

    def __init__(self, threshold: float = 0.5, ignore_index: Optional[int] = None, validate_args: bool = True,
                 **kwargs: Any) -> None:
        self._configure(locals())


class MulticlassMatthewsCorrCoef(_MulticlassMatrix):
    """Matthews correlation coefficient for multiclass tasks.

    >>> from torch import tensor
    >>> metric = MulticlassMatthewsCorrCoef(num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.7000)
    """

    _measure = "matthews_corrcoef"
    plot_lower_bound = -1.0

    def __init__(self, num_classes: int, ignore_index: Optional[int] = None, validate_args: bool = True,
                 **kwargs: Any) -> None:
        self._configure(locals())


class MultilabelMatthewsCorrCoef(_MultilabelMatrix):
    """Matthews correlation coefficient of all labels pooled, for multilabel tasks.

    >>> from torch import tensor
    >>> metric = MultilabelMatthewsCorrCoef(num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor(0.3333)
    """

    _measure = "matthews_corrcoef"
    plot_lower_bound = -1.0

    def __init__(self, num_labels: int, threshold: float = 0.5, ignore_index: Optional[int] = None,
                 validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


class BinaryCohenKappa(MatrixMetric):
    """Cohen's kappa for binary tasks (``weights``: None, "linear" or "quadratic").

    >>> from torch import tensor
    >>> metric = BinaryCohenKappa()
    >>> metric(tensor([0.1, 0.9, 0.6, 0.8]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """

    _task, _measure = "binary", "cohen_kappa"

    def __init__(self, threshold: float = 0.5, ignore_index: Optional[int] = None,
                 weights: Optional[str] = None, validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


class MulticlassCohenKappa(_MulticlassMatrix):
    """Cohen's kappa for multiclass tasks (``weights``: None, "linear" or "quadratic").

    >>> from torch import tensor
    >>> metric = MulticlassCohenKappa(num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.6364)
    """

    _measure = "cohen_kappa"

    def __init__(self, num_classes: int, ignore_index: Optional[int] = None, weights: Optional[str] = None,
                 validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


class BinaryConfusionMatrix(_ConfusionMatrix):
    """The ``(2, 2)`` confusion matrix ``[[tn, fp], [fn, tp]]`` (``normalize``: true/pred/all/none).

    >>> from torch import tensor
    >>> metric = BinaryConfusionMatrix()
    >>> metric(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor([[1, 1],
            [1, 1]])
    """

    _task = "binary"

    def __init__(self, threshold: float = 0.5, ignore_index: Optional[int] = None,
                 normalize: Optional[str] = None, validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


class MulticlassConfusionMatrix(_ConfusionMatrix):
    """The ``(C, C)`` confusion matrix, rows indexed by target (``normalize``: true/pred/all/none).

    >>> from torch import tensor
    >>> metric = MulticlassConfusionMatrix(num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor([[1, 1, 0],
            [0, 1, 0],
            [0, 0, 1]])
    """

    _task = "multiclass"

    def __init__(self, num_classes: int, ignore_index: Optional[int] = None, normalize: Optional[str] = None,
                 validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


class MultilabelConfusionMatrix(_ConfusionMatrix):
    """One ``(2, 2)`` confusion matrix per label, ``(L, 2, 2)``.

    >>> from torch import tensor
    >>> metric = MultilabelConfusionMatrix(num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))[2]
    tensor([[0, 1],
            [0, 1]])
    """

    _task = "multilabel"

    def __init__(self, num_labels: int, threshold: float = 0.5, ignore_index: Optional[int] = None,
                 normalize: Optional[str] = None, validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


class MulticlassExactMatch(_MulticlassMatrix):
    """Fraction of samples whose every position ``(N, ...)`` is classified right.

    >>> from torch import tensor
    >>> metric = MulticlassExactMatch(num_classes=3)
    >>> metric(tensor([[2, 1], [0, 1]]), tensor([[2, 1], [0, 0]]))
    tensor(0.5000)
    """

    _measure = "exact_match"

    def __init__(self, num_classes: int, multidim_average: str = "global", ignore_index: Optional[int] = None,
                 validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


class MultilabelExactMatch(_MultilabelMatrix):
    """Fraction of examples whose labels are all right (subset accuracy).

    >>> from torch import tensor
    >>> metric = MultilabelExactMatch(num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor(0.5000)
    """

    _measure = "exact_match"

    def __init__(self, num_labels: int, threshold: float = 0.5, multidim_average: str = "global",
                 ignore_index: Optional[int] = None, validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


__all__ = [
    "BinaryJaccardIndex",
    "MulticlassJaccardIndex",
    "MultilabelJaccardIndex",
    "BinaryMatthewsCorrCoef",
    "MulticlassMatthewsCorrCoef",
    "MultilabelMatthewsCorrCoef",
    "BinaryCohenKappa",
    "MulticlassCohenKappa",
    "BinaryConfusionMatrix",
    "MulticlassConfusionMatrix",
    "MultilabelConfusionMatrix",
    "MulticlassExactMatch",
    "MultilabelExactMatch",
]
