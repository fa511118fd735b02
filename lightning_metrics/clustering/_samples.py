"""The state of the clustering metrics that keep their samples: one ``cat`` list per input.

Their ranges are not known up front (cluster ids are arbitrary integers; Davies-Bouldin and Dunn need
the final centroids), so the label scores and the embedding scores alike append every batch of
their two inputs and join them at ``compute``.
"""

from __future__ import annotations

from typing import Any

from torch import Tensor

from lightning_metrics._additive_score import AdditiveScore
from lightning_metrics.metric import Metric
from lightning_metrics.utilities.data import dim_zero_cat


def cat_state(metric: Metric, name: str) -> Tensor | None:
    """The batches of a ``cat`` state as one tensor (``None`` before any update).

    A list is replaced in place by its concatenation: the members of a compute group hold the same
    list, so they then read the same tensor (and share what is derived from it), and the next
    ``compute`` starts from one piece.
    """
    value = getattr(metric, name)
    if isinstance(value, Tensor):
        return value
    if not value:
        return None
    if len(value) > 1:
        value[:] = [dim_zero_cat(value)]
    return value[0]


class KeptSamples(AdditiveScore):
    """Keeps every batch of its two inputs in the ``cat`` states named ``_inputs``."""

    _inputs: tuple[str, str] = ("preds", "target")

    def __init__(self, **kwargs: Any) -> None:  # a score takes no argument of its own unless it says so
        self._configure(locals())

    def _build(self) -> None:
        for name in self._inputs:
            self.add_state(name, [], dist_reduce_fx="cat")

    def _keep(self, first: Tensor, second: Tensor) -> None:
        """Append one (checked) batch of both inputs."""
        for name, batch in zip(self._inputs, (first, second)):
            getattr(self, name).append(batch)

    def _joined(self) -> tuple[Tensor | None, Tensor | None]:
        """Both inputs over every batch seen (``None`` before any update)."""
        first, second = self._inputs
        return cat_state(self, first), cat_state(self, second)
