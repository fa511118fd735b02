"""Modular Jaccard index, Matthews correlation, Cohen's kappa, confusion matrix and exact match.

All but exact match keep the same statistic as the count ratios (a multiclass (C, C) confusion
matrix, binary (2, 2) and multilabel (L, 2, 2) counts), so in a collection they share its update.
"""

from __future__ import annotations

from typing import Any, Optional

from lightning_metrics.classification._counting_base import CountingMetric
from lightning_metrics.functional.classification._core import (
    binary_spec,
    multiclass_spec,
    multilabel_spec,
    reduction,
)


class BinaryJaccardIndex(CountingMetric):
    """Jaccard index ``tp / (tp + fp + fn)`` for binary tasks.

    >>> from torch import tensor
    >>> metric = BinaryJaccardIndex()
    >>> metric(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.3333)
    """

    def __init__(
        self,
        threshold: float = 0.5,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.threshold, self.ignore_index, self.validate_args = threshold, ignore_index, validate_args
        self.zero_division = zero_division
        spec = binary_spec(threshold, "global", ignore_index, validate_args, need="confmat")
        self._setup(spec, reduction("jaccard_index", zero_division=zero_division))


class MulticlassJaccardIndex(CountingMetric):
    """Jaccard index per class and averaged, for multiclass tasks.

    >>> from torch import tensor
    >>> metric = MulticlassJaccardIndex(num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.6667)
    """

    def __init__(
        self,
        num_classes: int,
        average: Optional[str] = "macro",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_classes, self.average, self.ignore_index = num_classes, average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        spec = multiclass_spec(num_classes, 1, "global", ignore_index, validate_args, need="confmat")
        self._setup(spec, reduction("jaccard_index", average, zero_division))


class MultilabelJaccardIndex(CountingMetric):
    """Jaccard index per label and averaged (``average='samples'``: per example), multilabel tasks.

    >>> from torch import tensor
    >>> metric = MultilabelJaccardIndex(num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor(0.5000)
    """

    def __init__(
        self,
        num_labels: int,
        threshold: float = 0.5,
        average: Optional[str] = "macro",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_labels, self.threshold, self.average = num_labels, threshold, average
        self.ignore_index, self.validate_args, self.zero_division = ignore_index, validate_args, zero_division
        red = reduction("jaccard_index", average, zero_division, samples=True)
        self._setup(multilabel_spec(num_labels, threshold, "global", ignore_index, validate_args, "confmat", red), red)


class BinaryMatthewsCorrCoef(CountingMetric):
    """Matthews correlation coefficient for binary tasks.

    >>> from torch import tensor
    >>> metric = BinaryMatthewsCorrCoef()
    >>> metric(tensor([0.1, 0.9, 0.6, 0.8]), tensor([0, 1, 0, 1]))
    tensor(0.5774)
    """

    def __init__(
        self, threshold: float = 0.5, ignore_index: Optional[int] = None, validate_args: bool = True, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.threshold, self.ignore_index, self.validate_args = threshold, ignore_index, validate_args
        self._setup(binary_spec(threshold, "global", ignore_index, validate_args, "confmat"), reduction("matthews_corrcoef"))


class MulticlassMatthewsCorrCoef(CountingMetric):
    """Matthews correlation coefficient for multiclass tasks.

    >>> from torch import tensor
    >>> metric = MulticlassMatthewsCorrCoef(num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.7000)
    """

    plot_lower_bound = -1.0

    def __init__(
        self, num_classes: int, ignore_index: Optional[int] = None, validate_args: bool = True, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.num_classes, self.ignore_index, self.validate_args = num_classes, ignore_index, validate_args
        spec = multiclass_spec(num_classes, 1, "global", ignore_index, validate_args, need="confmat")
        self._setup(spec, reduction("matthews_corrcoef"))


class MultilabelMatthewsCorrCoef(CountingMetric):
    """Matthews correlation coefficient of all labels pooled, for multilabel tasks.

    >>> from torch import tensor
    >>> metric = MultilabelMatthewsCorrCoef(num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor(0.3333)
    """

    plot_lower_bound = -1.0

    def __init__(
        self,
        num_labels: int,
        threshold: float = 0.5,
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_labels, self.threshold, self.ignore_index = num_labels, threshold, ignore_index
        self.validate_args = validate_args
        spec = multilabel_spec(num_labels, threshold, "global", ignore_index, validate_args, need="confmat")
        self._setup(spec, reduction("matthews_corrcoef"))


class BinaryCohenKappa(CountingMetric):
    """Cohen's kappa for binary tasks (``weights``: None, "linear" or "quadratic").

    >>> from torch import tensor
    >>> metric = BinaryCohenKappa()
    >>> metric(tensor([0.1, 0.9, 0.6, 0.8]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """

    def __init__(
        self,
        threshold: float = 0.5,
        ignore_index: Optional[int] = None,
        weights: Optional[str] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.threshold, self.ignore_index, self.weights = threshold, ignore_index, weights
        self.validate_args = validate_args
        spec = binary_spec(threshold, "global", ignore_index, validate_args, need="confmat")
        self._setup(spec, reduction("cohen_kappa", weights=weights))


class MulticlassCohenKappa(CountingMetric):
    """Cohen's kappa for multiclass tasks (``weights``: None, "linear" or "quadratic").

    >>> from torch import tensor
    >>> metric = MulticlassCohenKappa(num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.6364)
    """

    def __init__(
        self,
        num_classes: int,
        ignore_index: Optional[int] = None,
        weights: Optional[str] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_classes, self.ignore_index, self.weights = num_classes, ignore_index, weights
        self.validate_args = validate_args
        spec = multiclass_spec(num_classes, 1, "global", ignore_index, validate_args, need="confmat")
        self._setup(spec, reduction("cohen_kappa", weights=weights))


class BinaryConfusionMatrix(CountingMetric):
    """The ``(2, 2)`` confusion matrix ``[[tn, fp], [fn, tp]]`` (``normalize``: true/pred/all/none).

    >>> from torch import tensor
    >>> metric = BinaryConfusionMatrix()
    >>> metric(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor([[1, 1],
            [1, 1]])
    """

    higher_is_better = None
    plot_lower_bound = plot_upper_bound = None

    def __init__(
        self,
        threshold: float = 0.5,
        ignore_index: Optional[int] = None,
        normalize: Optional[str] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.threshold, self.ignore_index, self.normalize = threshold, ignore_index, normalize
        self.validate_args = validate_args
        spec = binary_spec(threshold, "global", ignore_index, validate_args, need="confmat")
        self._setup(spec, reduction("confusion_matrix", normalize=normalize))


class MulticlassConfusionMatrix(CountingMetric):
    """The ``(C, C)`` confusion matrix, rows indexed by target (``normalize``: true/pred/all/none).

    >>> from torch import tensor
    >>> metric = MulticlassConfusionMatrix(num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor([[1, 1, 0],
            [0, 1, 0],
            [0, 0, 1]])
    """

    higher_is_better = None
    plot_lower_bound = plot_upper_bound = None

    def __init__(
        self,
        num_classes: int,
        ignore_index: Optional[int] = None,
        normalize: Optional[str] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_classes, self.ignore_index, self.normalize = num_classes, ignore_index, normalize
        self.validate_args = validate_args
        spec = multiclass_spec(num_classes, 1, "global", ignore_index, validate_args, need="confmat")
        self._setup(spec, reduction("confusion_matrix", normalize=normalize))


class MultilabelConfusionMatrix(CountingMetric):
    """One ``(2, 2)`` confusion matrix per label, ``(L, 2, 2)``.

    >>> from torch import tensor
    >>> metric = MultilabelConfusionMatrix(num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))[2]
    tensor([[0, 1],
            [0, 1]])
    """

    higher_is_better = None
    plot_lower_bound = plot_upper_bound = None

    def __init__(
        self,
        num_labels: int,
        threshold: float = 0.5,
        ignore_index: Optional[int] = None,
        normalize: Optional[str] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_labels, self.threshold, self.ignore_index = num_labels, threshold, ignore_index
        self.normalize, self.validate_args = normalize, validate_args
        spec = multilabel_spec(num_labels, threshold, "global", ignore_index, validate_args, need="confmat")
        self._setup(spec, reduction("confusion_matrix", normalize=normalize))


class MulticlassExactMatch(CountingMetric):
    """Fraction of samples whose every position ``(N, ...)`` is classified right.

    >>> from torch import tensor
    >>> metric = MulticlassExactMatch(num_classes=3)
    >>> metric(tensor([[2, 1], [0, 1]]), tensor([[2, 1], [0, 0]]))
    tensor(0.5000)
    """

    def __init__(
        self,
        num_classes: int,
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_classes, self.multidim_average, self.ignore_index = num_classes, multidim_average, ignore_index
        self.validate_args = validate_args
        spec = multiclass_spec(num_classes, 1, multidim_average, ignore_index, validate_args, need="exact")
        self._setup(spec, reduction("exact_match"))


class MultilabelExactMatch(CountingMetric):
    """Fraction of examples whose labels are all right (subset accuracy).

    >>> from torch import tensor
    >>> metric = MultilabelExactMatch(num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor(0.5000)
    """

    def __init__(
        self,
        num_labels: int,
        threshold: float = 0.5,
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_labels, self.threshold, self.multidim_average = num_labels, threshold, multidim_average
        self.ignore_index, self.validate_args = ignore_index, validate_args
        spec = multilabel_spec(num_labels, threshold, multidim_average, ignore_index, validate_args, need="exact")
        self._setup(spec, reduction("exact_match"))


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
