"""Input transformers: a metric (or collection) fed transformed predictions and targets.

``update``/``forward`` apply ``transform_pred`` to the first input and ``transform_target`` to the
second, and pass the rest through; ``compute`` and ``reset`` go to the wrapped metric.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

from torch import Tensor

from lightning_metrics.collection import MetricCollection
from lightning_metrics.metric import Metric
from lightning_metrics.utilities.checks import check_type
from lightning_metrics.wrappers._base import WrapperMetric, check_metric


class MetricInputTransformer(WrapperMetric):
    """Base of the input transformers: override ``transform_pred`` / ``transform_target`` (identity here).

    >>> import torch
    >>> from lightning_metrics.aggregation import SumMetric
    >>> class Doubled(MetricInputTransformer):
    ...     def transform_pred(self, pred):
    ...         return 2 * pred
    >>> metric = Doubled(SumMetric())
    >>> metric.update(torch.tensor([1.0, 2.0]))
    >>> metric.compute()
    tensor(6.)
    """

    def __init__(self, wrapped_metric: Union[Metric, MetricCollection], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        check_metric("wrapped_metric", wrapped_metric, allow_collection=True)
        self.wrapped_metric = wrapped_metric

    def transform_pred(self, pred: Tensor) -> Tensor:
        """The predictions as the wrapped metric should see them."""
        return pred

    def transform_target(self, target: Tensor) -> Tensor:
        """The targets as the wrapped metric should see them."""
        return target

    def _transform(self, *args: Any) -> tuple[Any, ...]:
        if not args:
            return args
        if len(args) == 1:
            return (self.transform_pred(args[0]),)
        return (self.transform_pred(args[0]), self.transform_target(args[1]), *args[2:])

    def update(self, *args: Any, **kwargs: Any) -> None:
        """Update the wrapped metric with the transformed inputs."""
        self.wrapped_metric.update(*self._transform(*args), **kwargs)

    def compute(self) -> Any:
        """The wrapped metric's value."""
        return self.wrapped_metric.compute()

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The wrapped metric's ``forward`` on the transformed inputs."""
        value = self.wrapped_metric(*self._transform(*args), **kwargs)
        self._update_count += 1
        self._computed = None
        return value

    def reset(self) -> None:
        """Reset the wrapped metric and this wrapper."""
        self.wrapped_metric.reset()
        super().reset()


class LambdaInputTransformer(MetricInputTransformer):
    """Apply user functions to the predictions and/or targets before the wrapped metric sees them.

    >>> import torch
    >>> from lightning_metrics.classification import BinaryAccuracy
    >>> metric = LambdaInputTransformer(BinaryAccuracy(), transform_pred=lambda p: 1 - p)
    >>> metric(torch.tensor([0.9, 0.1, 0.8]), torch.tensor([0, 1, 1]))
    tensor(0.6667)
    """

    def __init__(
        self,
        wrapped_metric: Metric,
        transform_pred: Optional[Callable[[Tensor], Tensor]] = None,
        transform_target: Optional[Callable[[Tensor], Tensor]] = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(wrapped_metric, **kwargs)
        for name, fn in (("transform_pred", transform_pred), ("transform_target", transform_target)):
            if fn is not None:
                if not callable(fn):
                    raise TypeError(f"Argument `{name}` must be callable, got {fn!r}")
                setattr(self, name, fn)


class BinaryTargetTransformer(MetricInputTransformer):
    """Binarize continuous targets (``target > threshold``, same dtype) for the wrapped metric.

    >>> import torch
    >>> from lightning_metrics.classification import BinaryAccuracy
    >>> metric = BinaryTargetTransformer(BinaryAccuracy(), threshold=2)
    >>> metric(torch.tensor([0.9, 0.1, 0.8, 0.2]), torch.tensor([5, 0, 1, 3]))
    tensor(0.5000)
    """

    def __init__(self, wrapped_metric: Union[Metric, MetricCollection], threshold: float = 0, **kwargs: Any) -> None:
        super().__init__(wrapped_metric, **kwargs)
        check_type("threshold", threshold, (int, float))
        self.threshold = threshold

    @property
    def additive_update(self) -> bool:  # type: ignore[override]
        """Elementwise binarization keeps the wrapped metric's additivity."""
        return bool(getattr(self.wrapped_metric, "additive_update", False))

    def transform_target(self, target: Tensor) -> Tensor:
        """``target > threshold``, in the target's dtype."""
        return target.gt(self.threshold).to(target.dtype)


__all__ = ["BinaryTargetTransformer", "LambdaInputTransformer", "MetricInputTransformer"]
