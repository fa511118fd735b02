"""The wrappers every ``Metric`` subclass's ``update`` and ``compute`` get (``Metric.__init_subclass__``).

``update``: counts the call, runs with gradients off outside ``forward``, and rolls every state
back when the batch is rejected, so a bad batch leaves no trace. ``compute``: the cache, the sync
with the other processes, and results returned as torchmetrics returns them (squeezed, copied,
detached for non-differentiable metrics).
"""

from __future__ import annotations

import functools
import inspect
from typing import TYPE_CHECKING, Any, Callable, Optional

import torch

from lightning_metrics._states import _finished
from lightning_metrics.utilities.prints import warn_at_caller

if TYPE_CHECKING:
    from lightning_metrics.metric import Metric


def _already_checked() -> bool:
    """``distributed_available`` for a sync whose caller asked ``distributed_available_fn`` already."""
    return True


def _wrap_update(update: Callable) -> Callable:
    @functools.wraps(update)
    def wrapped(self: Metric, *args: Any, **kwargs: Any) -> None:
        attrs = self.__dict__  # plain attributes: skip nn.Module.__setattr__ on the hot path
        if attrs["_in_update"]:  # a subclass calling super().update(): count the call once
            return update(self, *args, **kwargs)
        token = attrs.get("_compute_group")
        if token is not None and not token.driving:  # a compute-group member updated on its own
            self._own_states()
        snapshot = {name: attrs[name] for name in attrs["_defaults"]}
        lengths = {name: len(v) for name, v in snapshot.items() if v.__class__ is list}
        attrs["_in_update"] = True
        attrs["_computed"] = None
        attrs["_update_count"] += 1
        try:
            if torch.is_grad_enabled() is attrs["_enable_grad"]:  # the mode is right already: no context to enter
                update(self, *args, **kwargs)
            else:
                with torch.set_grad_enabled(attrs["_enable_grad"]):
                    update(self, *args, **kwargs)
        except BaseException as err:
            # Roll back reassigned states and appended list items: a rejected batch leaves no trace.
            attrs["_update_count"] -= 1
            for name, value in snapshot.items():
                if name in lengths:
                    del value[lengths[name] :]
                attrs[name] = value
            raise_device_error(self, err)
            raise
        finally:
            attrs["_in_update"] = False
        if attrs["compute_on_cpu"]:
            self._move_list_states_to_cpu()

    wrapped._lm_wrapped = True  # type: ignore[attr-defined]
    return wrapped


def raise_device_error(metric: Metric, err: BaseException) -> None:
    """Raise a clear error in place of torch's when a batch is on another device than the states."""
    if isinstance(err, RuntimeError) and "Expected all tensors to be on" in str(err):
        raise RuntimeError(
            f"{type(metric).__name__}: the input is on another device than the metric states "
            f"({metric.device}); move the metric with `.to(device)`."
        ) from err


def _wrap_compute(compute: Callable) -> Callable:
    @functools.wraps(compute)
    def wrapped(self: Metric, *args: Any, **kwargs: Any) -> Any:
        if self._in_compute:
            return compute(self, *args, **kwargs)
        if self._update_count == 0:
            warn_at_caller(
                f"The ``compute`` method of metric {type(self).__name__} was called before the ``update`` "
                "method which may lead to errors, as metric states have not yet been updated.",
                UserWarning,
            )
        if self._computed is not None:
            return self._computed
        attrs = self.__dict__  # plain attributes: skip nn.Module.__setattr__
        attrs["_in_compute"] = True
        # a parent (wrapper, collection) that synced us leaves nothing to do here
        should_sync = self._to_sync and not self._is_synced
        available = self.distributed_available_fn
        detach = self.is_differentiable is False
        try:
            # ``distributed_available_fn`` is asked once per compute, as in torchmetrics
            if should_sync and callable(available) and available():
                with self.sync_context(
                    dist_sync_fn=self.dist_sync_fn,
                    should_sync=True,
                    should_unsync=self._should_unsync,
                    distributed_available=_already_checked,
                ):
                    value = _finished(compute(self, *args, **kwargs), detach)
            else:  # nothing to sync: no context to enter
                value = _finished(compute(self, *args, **kwargs), detach)
        finally:
            attrs["_in_compute"] = False
        if self.compute_with_cache:
            attrs["_computed"] = value
        return value

    wrapped._lm_wrapped = True  # type: ignore[attr-defined]
    return wrapped


@functools.lru_cache(maxsize=None)
def _update_keywords(cls: type) -> Optional[frozenset]:
    """Keyword names ``cls.update`` accepts (None when it takes ``**kwargs``)."""
    params = inspect.signature(cls.update).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return None
    return frozenset(name for name in params if name != "self")



def _bool_kwarg(kwargs: dict, name: str, default: bool) -> bool:
    value = kwargs.pop(name, default)
    if not isinstance(value, bool):
        raise ValueError(f"Argument `{name}` must be a bool, got {value!r}")
    return value
