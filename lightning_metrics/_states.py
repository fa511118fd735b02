"""What a metric state is and how two values of one merge: one table of named reductions.

Each state carries a reduction (``sum``, ``mean``, ``max``, ``min``, ``cat``, ``None`` or a
callable): the single source of truth for merging two states, in ``forward``, in
``Metric.merge_state`` and across processes in :mod:`lightning_metrics.distributed`; and
:func:`rollback_on_error`, which puts metrics' states back when a block raises.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Union

import torch
from torch import Tensor

from lightning_metrics.utilities.data import (
    dim_zero_cat,
    dim_zero_max,
    dim_zero_mean,
    dim_zero_min,
    dim_zero_sum,
)

if TYPE_CHECKING:
    from lightning_metrics.metric import Metric

State = Union[Tensor, list]

# name accepted by add_state -> (reduction function stored for torchmetrics compatibility)
_NAMED_REDUCTIONS: dict[str, Callable] = {
    "sum": dim_zero_sum,
    "mean": dim_zero_mean,
    "max": dim_zero_max,
    "min": dim_zero_min,
    "cat": dim_zero_cat,
}
_KIND_OF_FN = {fn: name for name, fn in _NAMED_REDUCTIONS.items()}

# nn.Module methods that cast floating tensors; metric states ignore them (use ``set_dtype``).
_DTYPE_CASTS = ("Module.half", "Module.float", "Module.double", "Module.bfloat16", "Module.type")


def reduction_kind(fx: Any) -> str:
    """Map a ``dist_reduce_fx`` to its kind: sum, mean, max, min, cat, none or custom.

    >>> reduction_kind("sum"), reduction_kind(None), reduction_kind(lambda x: x)
    ('sum', 'none', 'custom')
    """
    if fx is None:
        return "none"
    if isinstance(fx, str):
        return fx
    return _KIND_OF_FN.get(fx, "custom")


def merge_two(kind: str, fx: Any, current: State, incoming: State) -> State:
    """Merge two values of one state according to its reduction (``incoming`` comes first)."""
    if kind == "sum":
        return incoming + current
    if kind == "max":
        return torch.maximum(incoming, current)
    if kind == "min":
        return torch.minimum(incoming, current)
    if kind == "cat":
        if isinstance(incoming, Tensor) or isinstance(current, Tensor):
            parts = [p for p in (incoming, current) if not (isinstance(p, list) and not p)]
            return dim_zero_cat([dim_zero_cat(p) for p in parts]) if parts else []
        return [*incoming, *current]
    if kind == "none":
        if isinstance(incoming, list):
            return [*incoming, *current]
        return torch.stack([incoming, current])
    if kind == "custom":
        return fx(torch.stack([incoming, current]))
    raise TypeError(f"Unsupported reduction {fx!r}")


def _finished(value: Any, detach: bool, owned: Callable[[Tensor], bool] = lambda t: False) -> Any:
    """A ``compute`` result as returned to the caller: every one-element tensor squeezed (as
    torchmetrics does), every tensor a copy the caller owns (but those ``owned`` says nothing else
    holds), and without autograd history when the metric is not differentiable (``detach``),
    whatever the inputs required."""

    def finish(t: Tensor) -> Tensor:
        copy = not owned(t)
        if t.numel() == 1 and t.ndim > 0:
            t = t.squeeze()
        t = t.detach() if detach and t.requires_grad else t
        return t.clone() if copy else t

    return _apply_tensors(value, finish)


def _already_checked() -> bool:
    """``distributed_available`` for a sync whose caller asked ``distributed_available_fn`` already."""
    return True


def _apply_tensors(value: Any, fn: Callable[[Tensor], Tensor]) -> Any:
    """Apply ``fn`` to every tensor inside nested tuples, lists and dicts; keep the rest.

    >>> _apply_tensors((torch.tensor([1, 2]), {"w": torch.tensor([3])}, "x"), lambda t: t * 10)
    (tensor([10, 20]), {'w': tensor([30])}, 'x')
    """
    if isinstance(value, Tensor):
        return fn(value)
    if isinstance(value, dict):
        return {k: _apply_tensors(v, fn) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_apply_tensors(v, fn) for v in value)
    return value


@contextmanager
def rollback_on_error(metrics: Iterable[Metric]) -> Generator[None, None, None]:
    """Restore the states and update counts of ``metrics`` if the block raises.

    Tensor states are cloned (updates may work in place); list states are restored by
    truncation, so the cost does not grow with what the lists hold.
    """
    saved = []
    for metric in metrics:
        states = {}
        for name in metric._defaults:
            value = getattr(metric, name)
            states[name] = (value, len(value)) if isinstance(value, list) else (value.clone(), None)
        saved.append((metric, states, metric._update_count))
    try:
        yield
    except BaseException:
        for metric, states, count in saved:
            for name, (value, length) in states.items():
                if length is not None:
                    del value[length:]
                setattr(metric, name, value)
            metric._update_count = count
            metric._computed = None
        raise
