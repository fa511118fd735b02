"""Sum states whose shape is known only at the first update (per band, per band pair, per pixel).

RASE sums image-sized maps, D-lambda a matrix per band pair, D-s a value per band: the number of
bands and the image size come with the first batch. Such a state starts empty (shape ``(0,)``),
takes the shape of its first addition, and merges by addition where an empty side (a fresh
metric, a rank without updates) is neutral: in ``forward``, ``merge_state`` and the distributed
sync (whose layout check leaves ranks still at the empty default out).
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from lightning_metrics._input_checks import ValidatedInputs
from lightning_metrics.metric import Metric, merge_two


def sum_present(stacked: Tensor) -> Tensor:
    """The ``dist_reduce_fx`` of a grown sum: the sum of the ranks' values (empty ranks left out)."""
    return stacked.sum(0)


def add_grown(current: Tensor, value: Tensor, name: str) -> Tensor:
    """``current + value``, where an empty ``current`` takes ``value``'s shape."""
    value = value.to(torch.float64)
    if current.numel() == 0 and current.ndim == 1:
        return value
    if value.numel() == 0 and value.ndim == 1:
        return current
    if current.shape != value.shape:
        raise ValueError(
            f"The inputs give `{name}` the shape {tuple(value.shape)}, but earlier batches gave "
            f"{tuple(current.shape)}: every batch must have the same number of bands and image size"
        )
    return current + value


class GrownSumMetric(ValidatedInputs, Metric):
    """A metric with sums that take their shape on the first update (see the module docstring);
    with ``validate_args`` NaN or infinite inputs raise (:mod:`lightning_metrics._input_checks`)."""

    _grown_states: tuple[str, ...] = ()

    def _add_grown_state(self, name: str) -> None:
        self.add_state(name, torch.zeros(0, dtype=torch.float64), dist_reduce_fx=sum_present)
        self._grown_states = (*self._grown_states, name)

    def _grow(self, **values: Tensor) -> None:
        """Add each value to the grown state of its name (all checked before any is assigned)."""
        grown = {name: add_grown(getattr(self, name), value, name) for name, value in values.items()}
        for name, value in grown.items():
            setattr(self, name, value)

    def _merge_states(self, incoming: dict[str, Any]) -> None:
        merged = {}
        for name in self._defaults:  # all or nothing: assign once every state merged
            current = getattr(self, name)
            if name in self._grown_states:
                merged[name] = add_grown(current, incoming[name], name)
            else:
                merged[name] = merge_two(self._reduction_kinds[name], self._reductions[name], current, incoming[name])
        for name, value in merged.items():
            setattr(self, name, value)
