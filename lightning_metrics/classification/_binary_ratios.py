"""Modular binary count-ratio measures: stat scores, accuracy, precision, recall, F1, F-beta,
specificity, negative predictive value and hamming distance.

A class is its docstring, torchmetrics' signature and one line: the family
(:class:`~lightning_metrics.classification._counting_base.RatioMetric`) builds the statistic and
the reduction from the task and measure it names.
"""

from __future__ import annotations

from typing import Any, Optional

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics.classification._counting_base import RatioMetric


def _binary_ratio_init(self, threshold: float = 0.5, multidim_average: str = "global",
                       ignore_index: Optional[int] = None, validate_args: bool = True, **kwargs: Any) -> None:
    """torchmetrics' signature of the binary count-ratio classes but F1 and F-beta (their ``__init__``)."""
    self._configure(locals())


class BinaryStatScores(RatioMetric):
    """The true/false positives/negatives and support, ``[..., 5]`` for binary tasks, accumulated over batches.

    >>> from torch import tensor
    >>> metric = BinaryStatScores()
    >>> metric(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor([1, 1, 1, 1, 2])
    """

    plot = _plot_methods.plot_any
    higher_is_better = None
    plot_lower_bound = None
    plot_upper_bound = None
    _task, _measure = "binary", "stat_scores"
    __init__ = _binary_ratio_init


class BinaryAccuracy(RatioMetric):
    """The accuracy for binary tasks, accumulated over batches.

    >>> from torch import tensor
    >>> metric = BinaryAccuracy()
    >>> metric(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """

    _task, _measure = "binary", "accuracy"
    __init__ = _binary_ratio_init


class BinaryPrecision(RatioMetric):
    """The precision ``tp / (tp + fp)`` for binary tasks, accumulated over batches.

    >>> from torch import tensor
    >>> metric = BinaryPrecision()
    >>> metric(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """

    _task, _measure = "binary", "precision"
    __init__ = _binary_ratio_init


class BinaryRecall(RatioMetric):
    """The recall ``tp / (tp + fn)`` for binary tasks, accumulated over batches.

    >>> from torch import tensor
    >>> metric = BinaryRecall()
    >>> metric(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """

    _task, _measure = "binary", "recall"
    __init__ = _binary_ratio_init


class BinaryF1Score(RatioMetric):
    """The F1 score for binary tasks, accumulated over batches.

    >>> from torch import tensor
    >>> metric = BinaryF1Score()
    >>> metric(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """

    _task, _measure = "binary", "fbeta"
    beta = 1.0  # F1 is F-beta at beta 1 (torchmetrics has the attribute too)

    def __init__(self, threshold: float = 0.5, multidim_average: str = "global",
                 ignore_index: Optional[int] = None, validate_args: bool = True,
                 zero_division: float = 0, **kwargs: Any) -> None:
        self._configure(locals())


class BinaryFBetaScore(RatioMetric):
    """The F-beta score for binary tasks, accumulated over batches.

    >>> from torch import tensor
    >>> metric = BinaryFBetaScore(beta=2.0)
    >>> metric(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """

    _task, _measure = "binary", "fbeta"

    def __init__(self, beta: float, threshold: float = 0.5, multidim_average: str = "global",
                 ignore_index: Optional[int] = None, validate_args: bool = True,
                 zero_division: float = 0, **kwargs: Any) -> None:
        self._configure(locals())


class BinarySpecificity(RatioMetric):
    """The specificity ``tn / (tn + fp)`` for binary tasks, accumulated over batches.

    >>> from torch import tensor
    >>> metric = BinarySpecificity()
    >>> metric(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """

    higher_is_better = None
    _task, _measure = "binary", "specificity"
    __init__ = _binary_ratio_init


class BinaryNegativePredictiveValue(RatioMetric):
    """The negative predictive value ``tn / (tn + fn)`` for binary tasks, accumulated over batches.

    >>> from torch import tensor
    >>> metric = BinaryNegativePredictiveValue()
    >>> metric(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """

    higher_is_better = None
    _task, _measure = "binary", "negative_predictive_value"
    __init__ = _binary_ratio_init


class BinaryHammingDistance(RatioMetric):
    """The hamming distance (fraction of wrong labels) for binary tasks, accumulated over batches.

    >>> from torch import tensor
    >>> metric = BinaryHammingDistance()
    >>> metric(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """

    higher_is_better = False
    _task, _measure = "binary", "hamming_distance"
    __init__ = _binary_ratio_init


__all__ = [
    "BinaryStatScores",
    "BinaryAccuracy",
    "BinaryPrecision",
    "BinaryRecall",
    "BinaryF1Score",
    "BinaryFBetaScore",
    "BinarySpecificity",
    "BinaryNegativePredictiveValue",
    "BinaryHammingDistance",
]
