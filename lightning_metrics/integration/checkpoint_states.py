"""The plain data of a stage's checkpoint states: merged states joined into one form, moved to the CPU, and
set back on metrics (ours and torchmetrics-style foreign ones) when a checkpoint is loaded."""

from __future__ import annotations

from typing import Any, Mapping, Optional

import torch
from torch import Tensor

from lightning_metrics.utilities import dim_zero_cat


def joined(value: Any) -> Any:
    # a local cat state is a list of batches; the synced one is one tensor: store one form
    if isinstance(value, list) and value and all(isinstance(v, Tensor) for v in value):
        return dim_zero_cat(value)
    return value


def to_cpu(value: Any) -> Any:
    if isinstance(value, Tensor):
        return value.detach().cpu().clone()
    if isinstance(value, dict):
        return {k: to_cpu(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_cpu(v) for v in value]
    return value


def foreign_merged_state(metric: Any) -> Optional[dict[str, Any]]:
    """Merged states of a torchmetrics-style metric (``_defaults``, ``sync``/``unsync``), else None."""
    defaults = getattr(metric, "_defaults", None)
    if not isinstance(defaults, dict) or not callable(getattr(metric, "sync", None)):
        return None
    metric.sync()
    try:
        states = {name: to_cpu(getattr(metric, name)) for name in defaults}
    finally:
        if getattr(metric, "_is_synced", False):
            metric.unsync()
    return {"states": {k: joined(v) for k, v in states.items()}, "count": int(getattr(metric, "_update_count", 1))}


def set_states(metric: Any, states: Mapping[str, Any], count: int, device: torch.device) -> None:
    defaults = metric._defaults
    for name, value in states.items():
        if name not in defaults:
            continue
        if isinstance(defaults[name], list):  # a cat state: keep list semantics
            if isinstance(value, Tensor):
                value = [value.to(device)] if value.numel() or value.ndim > 1 else []
            else:
                value = [v.to(device) for v in value]
        else:
            value = value.to(device)
        setattr(metric, name, value)
    metric._update_count = count
    metric._computed = None
