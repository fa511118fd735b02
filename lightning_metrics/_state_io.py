"""The device, dtype and checkpoint side of ``Metric`` (a base of it): copies, ``.to()``, casts,
``state_dict`` with the persistent states, and loading them back.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any, Callable, Optional, Union

import torch
from torch import Tensor

from lightning_metrics._states import _DTYPE_CASTS, State, _apply_tensors


class MetricStateIO:
    """States across devices, dtypes and checkpoints (mixed into ``Metric`` before ``nn.Module``)."""

    def _copy_states(self) -> dict[str, State]:
        out: dict[str, State] = {}
        for name in self._defaults:
            value = getattr(self, name)
            out[name] = value.detach().clone() if isinstance(value, Tensor) else [v.detach().clone() for v in value]
        return out

    def _move_list_states_to_cpu(self) -> None:
        for name in self._defaults:
            value = getattr(self, name)
            if isinstance(value, list):
                setattr(self, name, [v.to("cpu") for v in value])

    def clone(self) -> "MetricStateIO":
        """A deep copy of the metric, states included."""
        return deepcopy(self)

    def persistent(self, mode: bool = False) -> None:
        """Choose whether the states are saved in ``state_dict``, for this metric and the metrics
        nested in it (a wrapper's state lives in its children)."""
        for metric in self.modules():
            if isinstance(metric, MetricStateIO):
                for name in metric._persistent:
                    metric._persistent[name] = mode

    def state_dict(  # type: ignore[override]
        self, destination: Optional[dict] = None, prefix: str = "", keep_vars: bool = False
    ) -> dict[str, Any]:
        """The module's state dict plus the persistent metric states."""
        destination = super().state_dict(destination=destination, prefix=prefix, keep_vars=keep_vars)
        for name in self._defaults:
            if not self._persistent[name]:
                continue
            value = getattr(self, name)
            if isinstance(value, Tensor):
                value = value if keep_vars else value.detach()
                destination[prefix + name] = value.clone()
            else:
                destination[prefix + name] = [v if keep_vars else v.detach().clone() for v in value]
        return destination

    def _load_from_state_dict(
        self,
        state_dict: dict,
        prefix: str,
        local_metadata: dict,
        strict: bool,
        missing_keys: list,
        unexpected_keys: list,
        error_msgs: list,
    ) -> None:
        for name in self._defaults:
            key = prefix + name
            if key in state_dict:
                value = state_dict.pop(key)
                setattr(self, name, value.to(self._device) if isinstance(value, Tensor) else list(value))
                self._computed = None
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )

    def _apply(self, fn: Callable, recurse: bool = True) -> "MetricStateIO":  # type: ignore[override]
        self._own_states()  # type: ignore[attr-defined]  # a compute-group member moved on its own
        this = super()._apply(fn) if recurse else self
        qualname = getattr(fn, "__qualname__", str(fn))
        if not self._dtype_convert and any(cast in qualname for cast in _DTYPE_CASTS):
            return this  # Lightning's precision casts must not touch integer-exact states
        exact = (*type(this).exact_dtype_states, *this._sample_weight_states())  # weighted counts stay float64

        def convert(name: str, tensor: Tensor) -> Tensor:
            out = fn(tensor)
            return out.to(tensor.dtype) if name in exact and out.dtype != tensor.dtype else out

        for name, default in this._defaults.items():
            if isinstance(default, Tensor):
                this._defaults[name] = convert(name, default)
            value = getattr(this, name)
            setattr(this, name, convert(name, value) if isinstance(value, Tensor) else [convert(name, v) for v in value])
        probe = fn(torch.zeros((), device=self._device, dtype=self._dtype))
        this._device = probe.device
        if probe.is_floating_point():
            this._dtype = probe.dtype
        this._computed = _apply_tensors(this._computed, fn)
        this._forward_cache = _apply_tensors(this._forward_cache, fn)
        if this._cache is not None:
            this._cache = {k: _apply_tensors(v, fn) for k, v in this._cache.items()}
        return this

    def set_dtype(self, dst_type: Union[str, torch.dtype]) -> "MetricStateIO":
        """Cast the floating states to ``dst_type`` (integer counters keep their exact dtype).

        >>> import torch
        >>> from lightning_metrics.aggregation import MeanMetric
        >>> MeanMetric().set_dtype(torch.float64).mean_value.dtype
        torch.float64
        """
        dtype = getattr(torch, dst_type) if isinstance(dst_type, str) else dst_type
        self._dtype_convert = True
        try:
            self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)
        finally:
            self._dtype_convert = False
        return self

    def type(self, dst_type: Union[str, torch.dtype]) -> "MetricStateIO":  # type: ignore[override]
        """Ignored for metric states; use :meth:`set_dtype`."""
        return self

    def float(self) -> "MetricStateIO":
        """Ignored for metric states; use :meth:`set_dtype`."""
        return self

    def double(self) -> "MetricStateIO":
        """Ignored for metric states; use :meth:`set_dtype`."""
        return self

    def half(self) -> "MetricStateIO":
        """Ignored for metric states; use :meth:`set_dtype`."""
        return self

    def bfloat16(self) -> "MetricStateIO":
        """Ignored for metric states; use :meth:`set_dtype`."""
        return self
