"""Modular multiclass count-ratio measures: stat scores, accuracy, precision, recall, F1, F-beta,
specificity, negative predictive value and hamming distance.

A class is its docstring, torchmetrics' signature and one line: the family
(:class:`~lightning_metrics.classification._counting_base.RatioMetric`) builds the statistic and
the reduction from the task and measure it names.
"""

from __future__ import annotations

from typing import Any, Optional

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics.classification._counting_base import RatioMetric


def _multiclass_ratio_init(self, num_classes: Optional[int] = None, top_k: int = 1, average: Optional[str] = "macro",
                           multidim_average: str = "global", ignore_index: Optional[int] = None,
                           validate_args: bool = True, **kwargs: Any) -> None:
    """torchmetrics' signature of the multiclass count-ratio classes but F1 and F-beta (their ``__init__``)."""
    self._configure(locals())


class _MulticlassRatio(RatioMetric):
    """The multiclass count ratios but stat scores: torchmetrics' legend name, ``"Class"``."""

    _task = "multiclass"
    plot_legend_name = "Class"


class MulticlassStatScores(RatioMetric):
    """The true/false positives/negatives and support, ``[..., 5]`` for multiclass tasks, per class and averaged, accumulated over batches.

    >>> from torch import tensor
    >>> metric = MulticlassStatScores(num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor([1.0000, 0.3333, 2.3333, 0.3333, 1.3333])
    """

    plot = _plot_methods.plot_any
    higher_is_better = None
    plot_lower_bound = None
    plot_upper_bound = None
    _task, _measure = "multiclass", "stat_scores"
    __init__ = _multiclass_ratio_init


class MulticlassAccuracy(_MulticlassRatio):
    """The accuracy for multiclass tasks, per class and averaged, accumulated over batches.

    >>> from torch import tensor
    >>> metric = MulticlassAccuracy(num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.8333)
    """

    _measure = "accuracy"
    __init__ = _multiclass_ratio_init


class MulticlassPrecision(_MulticlassRatio):
    """The precision ``tp / (tp + fp)`` for multiclass tasks, per class and averaged, accumulated over batches.

    >>> from torch import tensor
    >>> metric = MulticlassPrecision(num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.8333)
    """

    _measure = "precision"
    __init__ = _multiclass_ratio_init


class MulticlassRecall(_MulticlassRatio):
    """The recall ``tp / (tp + fn)`` for multiclass tasks, per class and averaged, accumulated over batches.

    >>> from torch import tensor
    >>> metric = MulticlassRecall(num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.8333)
    """

    _measure = "recall"
    __init__ = _multiclass_ratio_init


class MulticlassF1Score(_MulticlassRatio):
    """The F1 score for multiclass tasks, per class and averaged, accumulated over batches.

    >>> from torch import tensor
    >>> metric = MulticlassF1Score(num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.7778)
    """

    _measure = "fbeta"
    beta = 1.0  # F1 is F-beta at beta 1 (torchmetrics has the attribute too)

    def __init__(self, num_classes: int, top_k: int = 1, average: Optional[str] = "macro",
                 multidim_average: str = "global", ignore_index: Optional[int] = None,
                 validate_args: bool = True, zero_division: float = 0, **kwargs: Any) -> None:
        self._configure(locals())


class MulticlassFBetaScore(_MulticlassRatio):
    """The F-beta score for multiclass tasks, per class and averaged, accumulated over batches.

    >>> from torch import tensor
    >>> metric = MulticlassFBetaScore(beta=2.0, num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.7963)
    """

    _measure = "fbeta"

    def __init__(self, beta: float, num_classes: int, top_k: int = 1, average: Optional[str] = "macro",
                 multidim_average: str = "global", ignore_index: Optional[int] = None,
                 validate_args: bool = True, zero_division: float = 0, **kwargs: Any) -> None:
        self._configure(locals())


class MulticlassSpecificity(_MulticlassRatio):
    """The specificity ``tn / (tn + fp)`` for multiclass tasks, per class and averaged, accumulated over batches.

    >>> from torch import tensor
    >>> metric = MulticlassSpecificity(num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.8889)
    """

    higher_is_better = None
    _measure = "specificity"
    __init__ = _multiclass_ratio_init


class MulticlassNegativePredictiveValue(_MulticlassRatio):
    """The negative predictive value ``tn / (tn + fn)`` for multiclass tasks, per class and averaged, accumulated over batches.

    >>> from torch import tensor
    >>> metric = MulticlassNegativePredictiveValue(num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.8889)
    """

    higher_is_better = None
    _measure = "negative_predictive_value"
    __init__ = _multiclass_ratio_init


class MulticlassHammingDistance(_MulticlassRatio):
    """The hamming distance (fraction of wrong labels) for multiclass tasks, per class and averaged, accumulated over batches.

    >>> from torch import tensor
    >>> metric = MulticlassHammingDistance(num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.1667)
    """

    higher_is_better = False
    _measure = "hamming_distance"
    __init__ = _multiclass_ratio_init


__all__ = [
    "MulticlassStatScores",
    "MulticlassAccuracy",
    "MulticlassPrecision",
    "MulticlassRecall",
    "MulticlassF1Score",
    "MulticlassFBetaScore",
    "MulticlassSpecificity",
    "MulticlassNegativePredictiveValue",
    "MulticlassHammingDistance",
]
