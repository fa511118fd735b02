"""Arithmetic on metrics: ``a + b``, ``2 * a``, ``abs(a)``, ``a > 0.5``, ``a[0]`` build a
:class:`~lightning_metrics.compositional.CompositionalMetric`.

The operators are one table (the dunder name, the torch function, whether the reflected form
exists), turned into methods of :class:`MetricArithmetic`, a base of ``Metric``.

>>> import torch
>>> from lightning_metrics.aggregation import SumMetric
>>> total = SumMetric()
>>> doubled = 2 * total
>>> doubled.update(torch.tensor([1.0, 2.0]))
>>> doubled.compute()
tensor(6.)
"""

from __future__ import annotations

from typing import Any, Callable

import torch

# dunder stem -> (torch function, has a reflected form)
_BINARY: dict[str, tuple[Callable, bool]] = {
    "add": (torch.add, True),
    "sub": (torch.sub, True),
    "mul": (torch.mul, True),
    "truediv": (torch.true_divide, True),
    "floordiv": (torch.floor_divide, True),
    "mod": (torch.fmod, True),
    "pow": (torch.pow, True),
    "matmul": (torch.matmul, True),
    "and": (torch.bitwise_and, True),
    "or": (torch.bitwise_or, True),
    "xor": (torch.bitwise_xor, True),
    "eq": (torch.eq, False),
    "ne": (torch.ne, False),
    "lt": (torch.lt, False),
    "le": (torch.le, False),
    "gt": (torch.gt, False),
    "ge": (torch.ge, False),
}
_UNARY: dict[str, Callable] = {"abs": torch.abs, "neg": torch.neg, "pos": torch.abs, "invert": torch.bitwise_not}


def _compose(op: Callable, a: Any, b: Any) -> Any:
    from lightning_metrics.compositional import CompositionalMetric

    return CompositionalMetric(op, a, b)


def _binary(op: Callable, reflected: bool) -> Callable:
    if reflected:
        return lambda self, other: _compose(op, other, self)
    return lambda self, other: _compose(op, self, other)


def _unary(op: Callable) -> Callable:
    return lambda self: _compose(op, self, None)


class MetricArithmetic:
    """The operators of ``Metric`` (generated from the tables above)."""

    def __getitem__(self, idx: Any) -> Any:
        return _compose(lambda x: x[idx], self, None)


for _stem, (_op, _has_reflected) in _BINARY.items():
    setattr(MetricArithmetic, f"__{_stem}__", _binary(_op, reflected=False))
    if _has_reflected:
        setattr(MetricArithmetic, f"__r{_stem}__", _binary(_op, reflected=True))
for _stem, _op in _UNARY.items():
    setattr(MetricArithmetic, f"__{_stem}__", _unary(_op))
