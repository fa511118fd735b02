"""Panoptic quality and modified panoptic quality as metrics: per-category sums, merged by addition."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Hashable

import torch
from torch import Tensor

from lightning_metrics._additive_score import AdditiveScore
from lightning_metrics.functional.detection.panoptic_qualities import (
    PanopticCounts,
    check_inputs,
    panoptic_counts,
    panoptic_result,
    parse_categories,
)


class _PanopticBase(AdditiveScore):
    """The family base: the IoU sum and the TP/FP/FN counts per category (``C`` float64 + ``3 C`` int64)."""

    exact_dtype_states = ("iou_sum",)

    _modified = False
    # Python sets and the parsed categories: TorchScript has no type for them (a scripted metric
    # is a container of its states; the categories stay on the Python module)
    __jit_ignored_attributes__ = [*AdditiveScore.__jit_ignored_attributes__, "things", "stuffs", "_spec", "cat_id_to_continuous_id"]
    things: Any
    stuffs: Any
    allow_unknown_preds_category: bool

    def _build(self) -> None:
        self._spec = parse_categories(self.things, self.stuffs)
        self.things, self.stuffs = set(self._spec.things), set(self._spec.stuffs)
        self.void_color = self._spec.void
        self.cat_id_to_continuous_id = {c: i for i, c in enumerate(self._spec.categories)}
        for name in ("allow_unknown_preds_category", *self._flags()):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"Argument `{name}` must be a bool, got {getattr(self, name)!r}")
        num = len(self._spec.categories)
        self.add_state("iou_sum", torch.zeros(num, dtype=torch.float64), dist_reduce_fx="sum")
        for name in ("true_positives", "false_positives", "false_negatives"):
            self.add_state(name, torch.zeros(num, dtype=torch.int64), dist_reduce_fx="sum")

    def _flags(self) -> tuple[str, ...]:
        return ()

    @property
    def statistic_spec(self) -> Hashable:
        """The categories, the unknown-category rule and the variant: equal specs share one state."""
        return ("panoptic", self._spec, self.allow_unknown_preds_category, self._modified)

    def update(self, preds: Tensor, target: Tensor) -> None:
        """Add the sums of a batch of ``(B, *spatial, 2)`` (category, instance) maps."""
        check_inputs(preds, target)
        counts = panoptic_counts(self._spec, preds, target, self.allow_unknown_preds_category, self._modified)
        self.iou_sum = self.iou_sum + counts.iou_sum
        self.true_positives = self.true_positives + counts.true_positives
        self.false_positives = self.false_positives + counts.false_positives
        self.false_negatives = self.false_negatives + counts.false_negatives

    def _counts(self) -> PanopticCounts:
        return PanopticCounts(self.iou_sum, self.true_positives, self.false_positives, self.false_negatives)


class PanopticQuality(_PanopticBase):
    r"""Panoptic quality of panoptic segmentations (torchmetrics' ``PanopticQuality``).

    Inputs ``(B, *spatial, 2)`` integer maps of (category, instance) per point; see
    :func:`~lightning_metrics.functional.detection.panoptic_quality` for the definition, the void
    handling and the shape of the result for ``return_sq_and_rq`` and ``return_per_class``. The
    state is the per-category IoU sum and TP/FP/FN counts: a batch, an update and a distributed
    sync add them. Finding the segments of a batch reads their number back from the device.

    >>> import torch
    >>> from lightning_metrics.detection import PanopticQuality
    >>> preds = torch.tensor([[[[0, 0], [0, 0]], [[1, 0], [1, 0]]]])
    >>> target = torch.tensor([[[[0, 0], [1, 0]], [[1, 0], [1, 0]]]])
    >>> pq = PanopticQuality(things={0}, stuffs={1})
    >>> pq(preds, target)
    tensor(0.3333, dtype=torch.float64)
    >>> PanopticQuality(things={0}, stuffs={1}, return_per_class=True)(preds, target)
    tensor([[0.0000, 0.6667]], dtype=torch.float64)
    """

    def __init__(
        self,
        things: Collection[int],
        stuffs: Collection[int],
        allow_unknown_preds_category: bool = False,
        return_sq_and_rq: bool = False,
        return_per_class: bool = False,
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _flags(self) -> tuple[str, ...]:
        return ("return_sq_and_rq", "return_per_class")

    def compute(self) -> Tensor:
        """PQ (with SQ and RQ, per category, as the flags ask) of everything seen."""
        return panoptic_result(self._counts(), self.return_sq_and_rq, self.return_per_class)


class ModifiedPanopticQuality(_PanopticBase):
    r"""Modified panoptic quality (torchmetrics' ``ModifiedPanopticQuality``): a stuff category scores
    the IoU sum of all its overlaps over its number of target segments.

    >>> import torch
    >>> from lightning_metrics.detection import ModifiedPanopticQuality
    >>> preds = torch.tensor([[[[0, 0], [0, 0]], [[1, 0], [1, 0]]]])
    >>> target = torch.tensor([[[[0, 0], [1, 0]], [[1, 0], [1, 0]]]])
    >>> ModifiedPanopticQuality(things={0}, stuffs={1})(preds, target)
    tensor(0.3333, dtype=torch.float64)
    """

    _modified = True

    def __init__(
        self,
        things: Collection[int],
        stuffs: Collection[int],
        allow_unknown_preds_category: bool = False,
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def compute(self) -> Tensor:
        """Modified PQ of everything seen."""
        return panoptic_result(self._counts(), False, False)
