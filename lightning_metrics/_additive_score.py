"""The base of the domain metrics whose update only adds to their states.

Text, clustering, nominal, retrieval, detection and segmentation metrics keep sums, counts,
tables or appended samples: one update over joined batches holds the same states as one update
per batch (``additive_update``, so the Lightning engine may coalesce batches), no update reads
the whole state (``full_state_update``), and the result is a value drawn by ``plot(val, ax)``.
Unless a family says otherwise, that value is a score in ``[0, 1]``, higher is better, and it is
not differentiable. A family states only where it differs.
"""

from __future__ import annotations

from typing import Optional

import torch
from torch import Tensor

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics.metric import Metric
from lightning_metrics.utilities.data import dim_zero_cat


class AdditiveScore(Metric):
    """A metric whose update adds to its states; its result a score in ``[0, 1]`` by default."""

    plot = _plot_methods.plot_value

    is_differentiable: Optional[bool] = False
    higher_is_better: Optional[bool] = True
    full_state_update = False
    additive_update = True
    plot_lower_bound: Optional[float] = 0.0
    plot_upper_bound: Optional[float] = 1.0

    def _cat_state(self, name: str) -> Tensor:
        """The ``cat`` state ``name`` as one tensor: its batches joined (empty before any update),
        or the tensor that a sync left there."""
        value = getattr(self, name)
        if isinstance(value, Tensor):
            return value
        return dim_zero_cat(value) if value else torch.zeros(0, device=self.device)
