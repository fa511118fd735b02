"""``ClasswiseWrapper``: a per-class vector as a dict with one named entry per class."""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics.metric import Metric
from lightning_metrics.wrappers._base import WrapperMetric, check_metric


class ClasswiseWrapper(WrapperMetric):
    """Turn a metric's per-class output (split along dim 0) into a dict keyed by class.

    Keys are ``f"{prefix}{label}{postfix}"``; without prefix and postfix the prefix is the
    wrapped metric's lower-cased class name followed by ``_``. Labels default to the class
    indices. Attributes the wrapper lacks are read from the wrapped metric.

    Args:
        metric: the wrapped metric; its value is a tensor with one entry per class.
        labels: the class names (a list of strings), or ``None`` for the indices.
        prefix / postfix: strings around each label.

    >>> import torch
    >>> from lightning_metrics.regression import MeanAbsoluteError
    >>> from lightning_metrics.wrappers import ClasswiseWrapper
    >>> preds, target = torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.zeros(2, 2)
    >>> metric = ClasswiseWrapper(MeanAbsoluteError(num_outputs=2), labels=["cat", "dog"], prefix="mae_")
    >>> metric.update(preds, target)
    >>> metric.compute()
    {'mae_cat': tensor(2.), 'mae_dog': tensor(3.)}
    >>> ClasswiseWrapper(MeanAbsoluteError(num_outputs=2))(preds, target)
    {'meanabsoluteerror_0': tensor(2.), 'meanabsoluteerror_1': tensor(3.)}
    """

    plot = _plot_methods.plot_value

    def __init__(
        self,
        metric: Metric,
        labels: list[str] | None = None,
        prefix: str | None = None,
        postfix: str | None = None,
    ) -> None:
        super().__init__()
        check_metric("metric", metric)
        if labels is not None and not (isinstance(labels, list) and all(isinstance(lab, str) for lab in labels)):
            raise ValueError(f"Argument `labels` must be None or a list of strings, got {labels!r}")
        for name, value in (("prefix", prefix), ("postfix", postfix)):
            if value is not None and not isinstance(value, str):
                raise ValueError(f"Argument `{name}` must be None or a string, got {value!r}")
        self.metric = metric
        self.labels = labels
        self._prefix = prefix
        self._postfix = postfix
        # torchmetrics counts the wrapper as updated from the start: compute never warns here,
        # the wrapped metric does if it has seen no data
        self._update_count = 1

    @property
    def higher_is_better(self) -> bool | None:  # type: ignore[override]
        """The wrapped metric's ``higher_is_better``."""
        return self.metric.higher_is_better

    @property
    def is_differentiable(self) -> bool | None:  # type: ignore[override]
        """The wrapped metric's ``is_differentiable``."""
        return self.metric.is_differentiable

    @property
    def additive_update(self) -> bool:  # type: ignore[override]
        """The wrapped metric's ``additive_update``."""
        return self.metric.additive_update

    @property
    def statistic_spec(self) -> Any:
        """The wrapped metric's: in a collection the wrapper shares its statistic (as torchmetrics)."""
        return self.metric.statistic_spec

    @property
    def _state_owner(self) -> Metric:
        return self.metric._state_owner

    def _batch_value_from(self, owner_value: Any) -> Any:
        return self._convert_output(owner_value)

    def _filter_kwargs(self, **kwargs: Any) -> dict[str, Any]:
        return self.metric._filter_kwargs(**kwargs)

    def _convert_output(self, values: Tensor) -> dict[str, Tensor]:
        if not self._prefix and not self._postfix:
            prefix, postfix = f"{type(self.metric).__name__.lower()}_", ""
        else:
            prefix, postfix = self._prefix or "", self._postfix or ""
        names = self.labels if self.labels is not None else range(len(values))
        return {f"{prefix}{name}{postfix}": value for name, value in zip(names, values)}

    def per_class_result(self, value: dict[str, Tensor]) -> tuple[Tensor, list[str] | None] | None:
        """For the loggers: :meth:`compute`'s dict as one vector (one value per class) and the class
        labels (``labels``, or ``None`` for the indices), so ``MetricsCallback`` logs it as the per-class result it
        is, under the wrapper's own name; ``None`` when the values are not one number per class."""
        items = list(value.values())
        if not items or any(not isinstance(v, Tensor) or v.numel() != 1 for v in items):
            return None
        names = list(self.labels)[: len(items)] if self.labels is not None else None
        return torch.stack([v.reshape(()) for v in items]), names

    def update(self, *args: Any, **kwargs: Any) -> None:
        """Update the wrapped metric."""
        self.metric.update(*args, **kwargs)

    def compute(self) -> dict[str, Tensor]:
        """The wrapped metric's value, one entry per class."""
        return self._convert_output(self.metric.compute())

    def forward(self, *args: Any, **kwargs: Any) -> dict[str, Tensor]:
        """Accumulate the batch and return its per-class values."""
        self._computed = None
        return self._convert_output(self.metric(*args, **kwargs))

    def reset(self) -> None:
        """Reset the wrapped metric."""
        super().reset()
        self.metric.reset()
        self._update_count = 1

    def __getattr__(self, name: str) -> Any:
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name == "metric" or "metric" not in self.__dict__.get("_modules", {}):
                raise
            return getattr(self._modules["metric"], name)
