"""Values derived from a state, shared by the metrics of one collection ``compute``.

The metrics of a compute group hold the very same state tensors, and several of them derive the
same intermediate values from those (per-class true/false positives from one confusion matrix,
for example). Inside :func:`shared_derivations` (``MetricCollection.compute`` opens one), such a
value is computed once per state tensor and reused; outside it, :func:`derived` just computes.

A value is keyed by the state tensor's identity and its version counter, so an in-place change of
the state (an ``update`` in between) is never served a stale value, and the scope holds its
tensors only while it is open. (Inference tensors have no version counter: they are keyed by
identity alone.) A ``cat`` state that is still a list of tensors is keyed by the list's identity and
the identity and version of each item, so an appended batch is never served a stale value either.

>>> import torch
>>> calls = []
>>> def total(t):
...     calls.append(1)
...     return t.sum()
>>> state = torch.tensor([1, 2, 3])
>>> with shared_derivations():
...     derived("total", state, total), derived("total", state, total)
(tensor(6), tensor(6))
>>> len(calls)  # computed once for both readers
1
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from operator import is_
from typing import Any, Callable, Hashable, Iterator, Optional, Union

from torch import Tensor

_SCOPE: ContextVar[Optional[dict]] = ContextVar("lightning_metrics_shared_derivations", default=None)


@contextmanager
def shared_derivations() -> Iterator[None]:
    """Open a scope in which :func:`derived` values are computed once per state tensor (nestable:
    an inner scope reuses the outer one)."""
    if _SCOPE.get() is not None:
        yield
        return
    token = _SCOPE.set({})
    try:
        yield
    finally:
        _SCOPE.reset(token)


def derived(tag: str, state: Union[Tensor, list], fn: Callable[[Any], Any]) -> Any:
    """``fn(state)``, shared with other readers of the same ``state`` inside :func:`shared_derivations`.

    ``tag`` names the derivation (one state may have several). ``fn`` must not change ``state``,
    and its readers must not change what it returns. ``state`` is a tensor or a list of tensors
    (a ``cat`` state before it is synced).
    """
    scope = _SCOPE.get()
    if scope is None:
        return fn(state)
    key = (tag, id(state))  # the entry keeps ``state`` alive, so its id is not reused while the scope is open
    version = _version(state)
    hit = scope.get(key)
    if hit is not None and hit[1] == version:
        return hit[2]
    value = fn(state)
    # the entry keeps ``state`` (and a list's current items) alive: their ids are not reused meanwhile
    scope[key] = ((state, list(state)) if isinstance(state, list) else state, version, value)
    return value


def scope_open() -> bool:
    """Whether a :func:`shared_derivations` scope is open (what :func:`seed` would record in)."""
    return _SCOPE.get() is not None


def seed(tag: str, state: Tensor, value: Any) -> None:
    """Record ``value`` as ``derived(tag, state, ...)`` inside an open :func:`shared_derivations` scope (a no-op
    outside one): for a value that its maker can compute more cheaply than the readers could from ``state``
    (a confusion matrix's marginals from the batch it was counted from)."""
    scope = _SCOPE.get()
    if scope is not None:
        scope[(tag, id(state))] = (state, _version(state), value)


def _version(state: Union[Tensor, list]) -> Any:
    if isinstance(state, list):
        return tuple((id(item), _version(item)) for item in state)
    # inference tensors (made under torch.inference_mode, as in Lightning's evaluation loops) have no
    # version counter; within one scope they are only read, like the others
    return None if state.is_inference() else state._version


class ConstantCache:
    """Small constant tensors made once per key (shapes, dtypes, devices) instead of once per batch: the
    shifts' increments, blocks of zeros, bin edges. Bounded: a long-lived process that sees many shapes
    starts over past ``limit`` entries. A cached tensor is read-only by contract (it only enters other
    ops, never an in-place one).

    >>> import torch
    >>> cache = ConstantCache()
    >>> ones = cache.get(("ones", 3), lambda: torch.ones(3))
    >>> cache.get(("ones", 3), lambda: torch.zeros(3)) is ones
    True
    """

    def __init__(self, limit: int = 256) -> None:
        self._store: dict = {}
        self._limit = limit

    def get(self, key: Hashable, make: Callable[[], Tensor]) -> Tensor:
        value = self._store.get(key)
        if value is None:
            if len(self._store) >= self._limit:
                self._store.clear()
            value = self._store[key] = make()
        return value


class IdentityCache:
    """Values derived once per tuple of objects compared by identity (a collection's members, the same on every
    ``forward``), for objects whose equality is costly to test. An entry holds its objects, so that their ids
    are not reused while it lives; bounded like :class:`ConstantCache`.

    >>> cache, a, b = IdentityCache(), [1], [1]
    >>> cache.get((a, b), lambda: a == b), cache.get((a, b), lambda: None)
    (True, True)
    """

    def __init__(self, limit: int = 256) -> None:
        self._store: dict = {}
        self._limit = limit

    def get(self, objects: tuple, make: Callable[[], Any]) -> Any:
        key = tuple(map(id, objects))
        hit = self._store.get(key)
        if hit is not None and all(map(is_, hit[0], objects)):  # C-level: no generator on the hot path
            return hit[1]
        if len(self._store) >= self._limit:
            self._store.clear()
        value = make()
        self._store[key] = (objects, value)
        return value
