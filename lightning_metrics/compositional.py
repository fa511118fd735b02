"""``CompositionalMetric``: the metric that arithmetic on metrics builds (see :mod:`._arithmetic`)."""

from __future__ import annotations

from typing import Any, Callable

import torch
from torch import Tensor

from lightning_metrics.metric import Metric


class CompositionalMetric(Metric):
    """A metric built by arithmetic on metrics, tensors and numbers (``a + b``, ``abs(a)``, ``a[0]``).

    Updates go to the operand metrics; ``compute`` applies the operator to their values.

    >>> import torch
    >>> from lightning_metrics.aggregation import MaxMetric, MinMetric
    >>> spread = MaxMetric() - MinMetric()
    >>> spread.update(torch.tensor([1.0, 4.0, 2.5]))
    >>> spread.compute()
    tensor(3.)
    """

    full_state_update = False

    def __init__(self, operator: Callable, metric_a: Any, metric_b: Any) -> None:
        super().__init__()
        self.op = operator
        self.metric_a = metric_a.detach() if isinstance(metric_a, Tensor) else metric_a
        self.metric_b = metric_b.detach() if isinstance(metric_b, Tensor) else metric_b

    def _operands(self) -> list["Metric"]:
        return [m for m in (self.metric_a, self.metric_b) if isinstance(m, Metric)]

    @property
    def additive_update(self) -> bool:  # type: ignore[override]
        """Additive when every metric operand is (the operands get the same batches)."""
        return all(m.additive_update for m in self._operands())

    def update(self, *args: Any, **kwargs: Any) -> None:
        for m in self._operands():
            m.update(*args, **m._filter_kwargs(**kwargs))

    def _value(self, operand: Any, method: str, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(operand, Metric):
            return operand
        if method == "compute":
            return operand.compute()
        return operand(*args, **operand._filter_kwargs(**kwargs))

    def _combine(self, a: Any, b: Any) -> Any:
        if b is None and self.metric_b is None:
            return self.op(a)
        if not isinstance(a, Tensor) and isinstance(b, Tensor):  # torch ops want a tensor first
            a = torch.as_tensor(a, device=b.device)
        return self.op(a, b)

    def compute(self) -> Any:
        return self._combine(self._value(self.metric_a, "compute"), self._value(self.metric_b, "compute"))

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        a = self._value(self.metric_a, "forward", *args, **kwargs)
        b = self._value(self.metric_b, "forward", *args, **kwargs)
        if (isinstance(self.metric_a, Metric) and a is None) or (isinstance(self.metric_b, Metric) and b is None):
            return None
        self._update_count += 1
        self._computed = None
        self._forward_cache = self._combine(a, b)
        return self._forward_cache

    def reset(self) -> None:
        super().reset()
        for m in self._operands():
            m.reset()

    def persistent(self, mode: bool = False) -> None:
        for m in self._operands():
            m.persistent(mode)

    def __repr__(self) -> str:
        name = getattr(self.op, "__name__", "op")
        return f"CompositionalMetric<{name}>(\n  {self.metric_a!r},\n  {self.metric_b!r}\n)"
