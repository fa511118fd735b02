"""Modular multilabel count-ratio measures: stat scores, accuracy, precision, recall, F1, F-beta,
specificity, negative predictive value and hamming distance.

A class is its docstring, torchmetrics' signature and one line: the family
(:class:`~lightning_metrics.classification._counting_base.RatioMetric`) builds the statistic and
the reduction from the task and measure it names.
``average="samples"`` is offered too, kept as a running sum of per-example values and a count.
"""

from __future__ import annotations

from typing import Any, Optional

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics.classification._counting_base import RatioMetric


def _multilabel_ratio_init(self, num_labels: int, threshold: float = 0.5, average: Optional[str] = "macro",
                           multidim_average: str = "global", ignore_index: Optional[int] = None,
                           validate_args: bool = True, **kwargs: Any) -> None:
    """torchmetrics' signature of the multilabel count-ratio classes but F1 and F-beta (their ``__init__``)."""
    self._configure(locals())


class _MultilabelRatio(RatioMetric):
    """The multilabel count ratios but stat scores: torchmetrics' legend name, ``"Label"``."""

    _task = "multilabel"
    plot_legend_name = "Label"


class MultilabelStatScores(RatioMetric):
    """The true/false positives/negatives and support, ``[..., 5]`` for multilabel tasks, per label and averaged.

    >>> from torch import tensor
    >>> metric = MultilabelStatScores(num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor([0.6667, 0.3333, 0.6667, 0.3333, 1.0000])
    """

    plot = _plot_methods.plot_any
    higher_is_better = None
    plot_lower_bound = None
    plot_upper_bound = None
    _task, _measure = "multilabel", "stat_scores"
    __init__ = _multilabel_ratio_init


class MultilabelAccuracy(_MultilabelRatio):
    """The accuracy for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> metric = MultilabelAccuracy(num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor(0.6667)
    """

    _measure = "accuracy"
    __init__ = _multilabel_ratio_init


class MultilabelPrecision(_MultilabelRatio):
    """The precision ``tp / (tp + fp)`` for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> metric = MultilabelPrecision(num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor(0.5000)
    """

    _measure = "precision"
    __init__ = _multilabel_ratio_init


class MultilabelRecall(_MultilabelRatio):
    """The recall ``tp / (tp + fn)`` for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> metric = MultilabelRecall(num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor(0.6667)
    """

    _measure = "recall"
    __init__ = _multilabel_ratio_init


class MultilabelF1Score(_MultilabelRatio):
    """The F1 score for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> metric = MultilabelF1Score(num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor(0.5556)
    """

    _measure = "fbeta"
    beta = 1.0  # F1 is F-beta at beta 1 (torchmetrics has the attribute too)

    def __init__(self, num_labels: int, threshold: float = 0.5, average: Optional[str] = "macro",
                 multidim_average: str = "global", ignore_index: Optional[int] = None,
                 validate_args: bool = True, zero_division: float = 0, **kwargs: Any) -> None:
        self._configure(locals())


class MultilabelFBetaScore(_MultilabelRatio):
    """The F-beta score for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> metric = MultilabelFBetaScore(beta=2.0, num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor(0.6111)
    """

    _measure = "fbeta"

    def __init__(self, beta: float, num_labels: int, threshold: float = 0.5, average: Optional[str] = "macro",
                 multidim_average: str = "global", ignore_index: Optional[int] = None,
                 validate_args: bool = True, zero_division: float = 0, **kwargs: Any) -> None:
        self._configure(locals())


class MultilabelSpecificity(_MultilabelRatio):
    """The specificity ``tn / (tn + fp)`` for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> metric = MultilabelSpecificity(num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor(0.6667)
    """

    higher_is_better = None
    _measure = "specificity"
    __init__ = _multilabel_ratio_init


class MultilabelNegativePredictiveValue(_MultilabelRatio):
    """The negative predictive value ``tn / (tn + fn)`` for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> metric = MultilabelNegativePredictiveValue(num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor(0.5000)
    """

    higher_is_better = None
    _measure = "negative_predictive_value"
    __init__ = _multilabel_ratio_init


class MultilabelHammingDistance(_MultilabelRatio):
    """The hamming distance (fraction of wrong labels) for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> metric = MultilabelHammingDistance(num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor(0.3333)
    """

    higher_is_better = False
    _measure = "hamming_distance"
    __init__ = _multilabel_ratio_init


__all__ = [
    "MultilabelStatScores",
    "MultilabelAccuracy",
    "MultilabelPrecision",
    "MultilabelRecall",
    "MultilabelF1Score",
    "MultilabelFBetaScore",
    "MultilabelSpecificity",
    "MultilabelNegativePredictiveValue",
    "MultilabelHammingDistance",
]
