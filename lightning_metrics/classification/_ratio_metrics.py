"""Modular binary / multiclass / multilabel versions of the count-ratio measures.

Each class is its statistic and its reduction: the arguments are torchmetrics' (see
``lightning_metrics.functional.classification``), plus ``average="samples"`` for multilabel
measures, kept as a running sum of per-example values and a count.
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


class BinaryStatScores(CountingMetric):
    """The true/false positives/negatives and support, ``[..., 5]`` for binary tasks, accumulated over batches.

    >>> from torch import tensor
    >>> metric = BinaryStatScores()
    >>> metric(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor([1, 1, 1, 1, 2])
    """

    higher_is_better = None

    def __init__(
        self,
        threshold: float = 0.5,
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.threshold, self.multidim_average, self.ignore_index = threshold, multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        self._setup(
            binary_spec(threshold, multidim_average, ignore_index, validate_args),
            reduction("stat_scores", zero_division=zero_division, beta=1.0),
        )


class MulticlassStatScores(CountingMetric):
    """The true/false positives/negatives and support, ``[..., 5]`` for multiclass tasks, per class and averaged, accumulated over batches.

    >>> from torch import tensor
    >>> metric = MulticlassStatScores(num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor([1.0000, 0.3333, 2.3333, 0.3333, 1.3333])
    """

    higher_is_better = None

    def __init__(
        self,
        num_classes: int,
        top_k: int = 1,
        average: Optional[str] = "macro",
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_classes, self.top_k, self.average = num_classes, top_k, average
        self.multidim_average, self.ignore_index = multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        self._setup(
            multiclass_spec(num_classes, top_k, multidim_average, ignore_index, validate_args),
            reduction("stat_scores", average, zero_division, 1.0),
        )


class MultilabelStatScores(CountingMetric):
    """The true/false positives/negatives and support, ``[..., 5]`` for multilabel tasks, per label and averaged.

    >>> from torch import tensor
    >>> metric = MultilabelStatScores(num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor([0.6667, 0.3333, 0.6667, 0.3333, 1.0000])
    """

    higher_is_better = None

    def __init__(
        self,
        num_labels: int,
        threshold: float = 0.5,
        average: Optional[str] = "macro",
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_labels, self.threshold, self.average = num_labels, threshold, average
        self.multidim_average, self.ignore_index = multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        red = reduction("stat_scores", average, zero_division, 1.0, samples=False)
        self._setup(multilabel_spec(num_labels, threshold, multidim_average, ignore_index, validate_args, reduction=red), red)


class BinaryAccuracy(CountingMetric):
    """The accuracy for binary tasks, accumulated over batches.

    >>> from torch import tensor
    >>> metric = BinaryAccuracy()
    >>> metric(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """

    higher_is_better = True

    def __init__(
        self,
        threshold: float = 0.5,
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.threshold, self.multidim_average, self.ignore_index = threshold, multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        self._setup(
            binary_spec(threshold, multidim_average, ignore_index, validate_args),
            reduction("accuracy", zero_division=zero_division, beta=1.0),
        )


class MulticlassAccuracy(CountingMetric):
    """The accuracy for multiclass tasks, per class and averaged, accumulated over batches.

    >>> from torch import tensor
    >>> metric = MulticlassAccuracy(num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.8333)
    """

    higher_is_better = True

    def __init__(
        self,
        num_classes: int,
        top_k: int = 1,
        average: Optional[str] = "macro",
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_classes, self.top_k, self.average = num_classes, top_k, average
        self.multidim_average, self.ignore_index = multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        self._setup(
            multiclass_spec(num_classes, top_k, multidim_average, ignore_index, validate_args),
            reduction("accuracy", average, zero_division, 1.0),
        )


class MultilabelAccuracy(CountingMetric):
    """The accuracy for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> metric = MultilabelAccuracy(num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor(0.6667)
    """

    higher_is_better = True

    def __init__(
        self,
        num_labels: int,
        threshold: float = 0.5,
        average: Optional[str] = "macro",
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_labels, self.threshold, self.average = num_labels, threshold, average
        self.multidim_average, self.ignore_index = multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        red = reduction("accuracy", average, zero_division, 1.0, samples=True)
        self._setup(multilabel_spec(num_labels, threshold, multidim_average, ignore_index, validate_args, reduction=red), red)


class BinaryPrecision(CountingMetric):
    """The precision ``tp / (tp + fp)`` for binary tasks, accumulated over batches.

    >>> from torch import tensor
    >>> metric = BinaryPrecision()
    >>> metric(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """

    higher_is_better = True

    def __init__(
        self,
        threshold: float = 0.5,
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.threshold, self.multidim_average, self.ignore_index = threshold, multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        self._setup(
            binary_spec(threshold, multidim_average, ignore_index, validate_args),
            reduction("precision", zero_division=zero_division, beta=1.0),
        )


class MulticlassPrecision(CountingMetric):
    """The precision ``tp / (tp + fp)`` for multiclass tasks, per class and averaged, accumulated over batches.

    >>> from torch import tensor
    >>> metric = MulticlassPrecision(num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.8333)
    """

    higher_is_better = True

    def __init__(
        self,
        num_classes: int,
        top_k: int = 1,
        average: Optional[str] = "macro",
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_classes, self.top_k, self.average = num_classes, top_k, average
        self.multidim_average, self.ignore_index = multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        self._setup(
            multiclass_spec(num_classes, top_k, multidim_average, ignore_index, validate_args),
            reduction("precision", average, zero_division, 1.0),
        )


class MultilabelPrecision(CountingMetric):
    """The precision ``tp / (tp + fp)`` for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> metric = MultilabelPrecision(num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor(0.5000)
    """

    higher_is_better = True

    def __init__(
        self,
        num_labels: int,
        threshold: float = 0.5,
        average: Optional[str] = "macro",
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_labels, self.threshold, self.average = num_labels, threshold, average
        self.multidim_average, self.ignore_index = multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        red = reduction("precision", average, zero_division, 1.0, samples=True)
        self._setup(multilabel_spec(num_labels, threshold, multidim_average, ignore_index, validate_args, reduction=red), red)


class BinaryRecall(CountingMetric):
    """The recall ``tp / (tp + fn)`` for binary tasks, accumulated over batches.

    >>> from torch import tensor
    >>> metric = BinaryRecall()
    >>> metric(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """

    higher_is_better = True

    def __init__(
        self,
        threshold: float = 0.5,
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.threshold, self.multidim_average, self.ignore_index = threshold, multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        self._setup(
            binary_spec(threshold, multidim_average, ignore_index, validate_args),
            reduction("recall", zero_division=zero_division, beta=1.0),
        )


class MulticlassRecall(CountingMetric):
    """The recall ``tp / (tp + fn)`` for multiclass tasks, per class and averaged, accumulated over batches.

    >>> from torch import tensor
    >>> metric = MulticlassRecall(num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.8333)
    """

    higher_is_better = True

    def __init__(
        self,
        num_classes: int,
        top_k: int = 1,
        average: Optional[str] = "macro",
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_classes, self.top_k, self.average = num_classes, top_k, average
        self.multidim_average, self.ignore_index = multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        self._setup(
            multiclass_spec(num_classes, top_k, multidim_average, ignore_index, validate_args),
            reduction("recall", average, zero_division, 1.0),
        )


class MultilabelRecall(CountingMetric):
    """The recall ``tp / (tp + fn)`` for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> metric = MultilabelRecall(num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor(0.6667)
    """

    higher_is_better = True

    def __init__(
        self,
        num_labels: int,
        threshold: float = 0.5,
        average: Optional[str] = "macro",
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_labels, self.threshold, self.average = num_labels, threshold, average
        self.multidim_average, self.ignore_index = multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        red = reduction("recall", average, zero_division, 1.0, samples=True)
        self._setup(multilabel_spec(num_labels, threshold, multidim_average, ignore_index, validate_args, reduction=red), red)


class BinaryF1Score(CountingMetric):
    """The F1 score for binary tasks, accumulated over batches.

    >>> from torch import tensor
    >>> metric = BinaryF1Score()
    >>> metric(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """

    higher_is_better = True

    def __init__(
        self,
        threshold: float = 0.5,
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.threshold, self.multidim_average, self.ignore_index = threshold, multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        self._setup(
            binary_spec(threshold, multidim_average, ignore_index, validate_args),
            reduction("fbeta", zero_division=zero_division, beta=1.0),
        )


class MulticlassF1Score(CountingMetric):
    """The F1 score for multiclass tasks, per class and averaged, accumulated over batches.

    >>> from torch import tensor
    >>> metric = MulticlassF1Score(num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.7778)
    """

    higher_is_better = True

    def __init__(
        self,
        num_classes: int,
        top_k: int = 1,
        average: Optional[str] = "macro",
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_classes, self.top_k, self.average = num_classes, top_k, average
        self.multidim_average, self.ignore_index = multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        self._setup(
            multiclass_spec(num_classes, top_k, multidim_average, ignore_index, validate_args),
            reduction("fbeta", average, zero_division, 1.0),
        )


class MultilabelF1Score(CountingMetric):
    """The F1 score for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> metric = MultilabelF1Score(num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor(0.5556)
    """

    higher_is_better = True

    def __init__(
        self,
        num_labels: int,
        threshold: float = 0.5,
        average: Optional[str] = "macro",
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_labels, self.threshold, self.average = num_labels, threshold, average
        self.multidim_average, self.ignore_index = multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        red = reduction("fbeta", average, zero_division, 1.0, samples=True)
        self._setup(multilabel_spec(num_labels, threshold, multidim_average, ignore_index, validate_args, reduction=red), red)


class BinaryFBetaScore(CountingMetric):
    """The F-beta score for binary tasks, accumulated over batches.

    >>> from torch import tensor
    >>> metric = BinaryFBetaScore(beta=2.0)
    >>> metric(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """

    higher_is_better = True

    def __init__(
        self,
        beta: float,
        threshold: float = 0.5,
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.beta = beta
        self.threshold, self.multidim_average, self.ignore_index = threshold, multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        self._setup(
            binary_spec(threshold, multidim_average, ignore_index, validate_args),
            reduction("fbeta", zero_division=zero_division, beta=beta),
        )


class MulticlassFBetaScore(CountingMetric):
    """The F-beta score for multiclass tasks, per class and averaged, accumulated over batches.

    >>> from torch import tensor
    >>> metric = MulticlassFBetaScore(beta=2.0, num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.7963)
    """

    higher_is_better = True

    def __init__(
        self,
        beta: float,
        num_classes: int,
        top_k: int = 1,
        average: Optional[str] = "macro",
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.beta = beta
        self.num_classes, self.top_k, self.average = num_classes, top_k, average
        self.multidim_average, self.ignore_index = multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        self._setup(
            multiclass_spec(num_classes, top_k, multidim_average, ignore_index, validate_args),
            reduction("fbeta", average, zero_division, beta),
        )


class MultilabelFBetaScore(CountingMetric):
    """The F-beta score for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> metric = MultilabelFBetaScore(beta=2.0, num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor(0.6111)
    """

    higher_is_better = True

    def __init__(
        self,
        beta: float,
        num_labels: int,
        threshold: float = 0.5,
        average: Optional[str] = "macro",
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.beta = beta
        self.num_labels, self.threshold, self.average = num_labels, threshold, average
        self.multidim_average, self.ignore_index = multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        red = reduction("fbeta", average, zero_division, beta, samples=True)
        self._setup(multilabel_spec(num_labels, threshold, multidim_average, ignore_index, validate_args, reduction=red), red)


class BinarySpecificity(CountingMetric):
    """The specificity ``tn / (tn + fp)`` for binary tasks, accumulated over batches.

    >>> from torch import tensor
    >>> metric = BinarySpecificity()
    >>> metric(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """

    higher_is_better = None

    def __init__(
        self,
        threshold: float = 0.5,
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.threshold, self.multidim_average, self.ignore_index = threshold, multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        self._setup(
            binary_spec(threshold, multidim_average, ignore_index, validate_args),
            reduction("specificity", zero_division=zero_division, beta=1.0),
        )


class MulticlassSpecificity(CountingMetric):
    """The specificity ``tn / (tn + fp)`` for multiclass tasks, per class and averaged, accumulated over batches.

    >>> from torch import tensor
    >>> metric = MulticlassSpecificity(num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.8889)
    """

    higher_is_better = None

    def __init__(
        self,
        num_classes: int,
        top_k: int = 1,
        average: Optional[str] = "macro",
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_classes, self.top_k, self.average = num_classes, top_k, average
        self.multidim_average, self.ignore_index = multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        self._setup(
            multiclass_spec(num_classes, top_k, multidim_average, ignore_index, validate_args),
            reduction("specificity", average, zero_division, 1.0),
        )


class MultilabelSpecificity(CountingMetric):
    """The specificity ``tn / (tn + fp)`` for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> metric = MultilabelSpecificity(num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor(0.6667)
    """

    higher_is_better = None

    def __init__(
        self,
        num_labels: int,
        threshold: float = 0.5,
        average: Optional[str] = "macro",
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_labels, self.threshold, self.average = num_labels, threshold, average
        self.multidim_average, self.ignore_index = multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        red = reduction("specificity", average, zero_division, 1.0, samples=True)
        self._setup(multilabel_spec(num_labels, threshold, multidim_average, ignore_index, validate_args, reduction=red), red)


class BinaryNegativePredictiveValue(CountingMetric):
    """The negative predictive value ``tn / (tn + fn)`` for binary tasks, accumulated over batches.

    >>> from torch import tensor
    >>> metric = BinaryNegativePredictiveValue()
    >>> metric(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """

    higher_is_better = None

    def __init__(
        self,
        threshold: float = 0.5,
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.threshold, self.multidim_average, self.ignore_index = threshold, multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        self._setup(
            binary_spec(threshold, multidim_average, ignore_index, validate_args),
            reduction("negative_predictive_value", zero_division=zero_division, beta=1.0),
        )


class MulticlassNegativePredictiveValue(CountingMetric):
    """The negative predictive value ``tn / (tn + fn)`` for multiclass tasks, per class and averaged, accumulated over batches.

    >>> from torch import tensor
    >>> metric = MulticlassNegativePredictiveValue(num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.8889)
    """

    higher_is_better = None

    def __init__(
        self,
        num_classes: int,
        top_k: int = 1,
        average: Optional[str] = "macro",
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_classes, self.top_k, self.average = num_classes, top_k, average
        self.multidim_average, self.ignore_index = multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        self._setup(
            multiclass_spec(num_classes, top_k, multidim_average, ignore_index, validate_args),
            reduction("negative_predictive_value", average, zero_division, 1.0),
        )


class MultilabelNegativePredictiveValue(CountingMetric):
    """The negative predictive value ``tn / (tn + fn)`` for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> metric = MultilabelNegativePredictiveValue(num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor(0.5000)
    """

    higher_is_better = None

    def __init__(
        self,
        num_labels: int,
        threshold: float = 0.5,
        average: Optional[str] = "macro",
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_labels, self.threshold, self.average = num_labels, threshold, average
        self.multidim_average, self.ignore_index = multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        red = reduction("negative_predictive_value", average, zero_division, 1.0, samples=True)
        self._setup(multilabel_spec(num_labels, threshold, multidim_average, ignore_index, validate_args, reduction=red), red)


class BinaryHammingDistance(CountingMetric):
    """The hamming distance (fraction of wrong labels) for binary tasks, accumulated over batches.

    >>> from torch import tensor
    >>> metric = BinaryHammingDistance()
    >>> metric(tensor([0.1, 0.9, 0.6, 0.3]), tensor([0, 1, 0, 1]))
    tensor(0.5000)
    """

    higher_is_better = False

    def __init__(
        self,
        threshold: float = 0.5,
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.threshold, self.multidim_average, self.ignore_index = threshold, multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        self._setup(
            binary_spec(threshold, multidim_average, ignore_index, validate_args),
            reduction("hamming_distance", zero_division=zero_division, beta=1.0),
        )


class MulticlassHammingDistance(CountingMetric):
    """The hamming distance (fraction of wrong labels) for multiclass tasks, per class and averaged, accumulated over batches.

    >>> from torch import tensor
    >>> metric = MulticlassHammingDistance(num_classes=3)
    >>> metric(tensor([2, 1, 0, 1]), tensor([2, 1, 0, 0]))
    tensor(0.1667)
    """

    higher_is_better = False

    def __init__(
        self,
        num_classes: int,
        top_k: int = 1,
        average: Optional[str] = "macro",
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_classes, self.top_k, self.average = num_classes, top_k, average
        self.multidim_average, self.ignore_index = multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        self._setup(
            multiclass_spec(num_classes, top_k, multidim_average, ignore_index, validate_args),
            reduction("hamming_distance", average, zero_division, 1.0),
        )


class MultilabelHammingDistance(CountingMetric):
    """The hamming distance (fraction of wrong labels) for multilabel tasks, per label and averaged (``average='samples'``: per example).

    >>> from torch import tensor
    >>> metric = MultilabelHammingDistance(num_labels=3)
    >>> metric(tensor([[0, 0, 1], [1, 0, 1]]), tensor([[0, 1, 0], [1, 0, 1]]))
    tensor(0.3333)
    """

    higher_is_better = False

    def __init__(
        self,
        num_labels: int,
        threshold: float = 0.5,
        average: Optional[str] = "macro",
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        zero_division: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_labels, self.threshold, self.average = num_labels, threshold, average
        self.multidim_average, self.ignore_index = multidim_average, ignore_index
        self.validate_args, self.zero_division = validate_args, zero_division
        red = reduction("hamming_distance", average, zero_division, 1.0, samples=True)
        self._setup(multilabel_spec(num_labels, threshold, multidim_average, ignore_index, validate_args, reduction=red), red)


__all__ = [
    "BinaryStatScores",
    "MulticlassStatScores",
    "MultilabelStatScores",
    "BinaryAccuracy",
    "MulticlassAccuracy",
    "MultilabelAccuracy",
    "BinaryPrecision",
    "MulticlassPrecision",
    "MultilabelPrecision",
    "BinaryRecall",
    "MulticlassRecall",
    "MultilabelRecall",
    "BinaryF1Score",
    "MulticlassF1Score",
    "MultilabelF1Score",
    "BinaryFBetaScore",
    "MulticlassFBetaScore",
    "MultilabelFBetaScore",
    "BinarySpecificity",
    "MulticlassSpecificity",
    "MultilabelSpecificity",
    "BinaryNegativePredictiveValue",
    "MulticlassNegativePredictiveValue",
    "MultilabelNegativePredictiveValue",
    "BinaryHammingDistance",
    "MulticlassHammingDistance",
    "MultilabelHammingDistance",
]
