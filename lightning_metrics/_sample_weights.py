"""How a metric holds weighted statistics: one switch, made by the first weighted batch.

:class:`SampleWeightStates` is a base of ``Metric``. A metric that takes ``sample_weight`` names the
integer sum states that hold weighted counts once it is weighted (:meth:`_sample_weight_states`) and
calls :meth:`_use_sample_weights` after a weighted batch passed its checks and before adding it: those
states become float64, exactly (integer counts below 2**53 are float64 numbers). The rules of the
keyword itself are in :mod:`lightning_metrics.utilities.sample_weight`.

Where the switch shows:

- a metric never given a weight keeps its integer states: the unweighted path is unchanged;
- ``reset`` returns the states to their integer defaults (the next epoch decides again);
- a checkpoint holds the states with their dtype: a weighted state loads as weighted;
- ``merge_state`` and ``forward`` add a weighted batch to integer counts by promotion to float64;
- the fused DDP sync agrees on the layout first: a rank that is not weighted while another is sends
  its states in the weighted layout (:meth:`_weighted_states_for_sync`), so ranks without weighted
  batches (or without any batch) neither hang nor fail.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

_WEIGHTED = torch.float64


class SampleWeightStates:
    """A base of ``Metric``: the states that become float64 under sample weights, and the switch."""

    def _sample_weight_states(self) -> tuple[str, ...]:
        """The integer sum states that hold weighted counts once the metric is weighted (none by default)."""
        return ()

    @property
    def _is_sample_weighted(self) -> bool:
        """Whether the metric holds weighted statistics now (a state of :meth:`_sample_weight_states` is
        floating)."""
        attrs = self.__dict__
        for name in self._sample_weight_states():
            value = attrs.get(name)
            if isinstance(value, Tensor) and value.is_floating_point():
                return True
        return False

    def _use_sample_weights(self) -> None:
        """Hold weighted statistics from now on: the states of :meth:`_sample_weight_states` become float64
        (exact; idempotent). Call it after a weighted batch passed its checks, before adding it."""
        attrs = self.__dict__
        for name in self._sample_weight_states():
            value = attrs.get(name)
            if isinstance(value, Tensor) and value.dtype != _WEIGHTED:
                attrs[name] = value.to(_WEIGHTED)
        attrs["_computed"] = None

    def _weighted_states_for_sync(self, states: dict[str, Any]) -> dict[str, Any]:
        """This rank's ``states`` in the layout of a weighted metric, for a sync where another rank is
        weighted and this one is not: the integer states of :meth:`_sample_weight_states` as float64.
        Metrics with other weighted states (a ``cat`` state of weights) extend this."""
        out = dict(states)
        for name in self._sample_weight_states():
            value = out.get(name)
            if isinstance(value, Tensor) and value.dtype != _WEIGHTED:
                out[name] = value.to(_WEIGHTED)
        return out


__all__ = ["SampleWeightStates"]
