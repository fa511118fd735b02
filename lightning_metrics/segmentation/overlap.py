"""Modular mean IoU, Dice and generalized Dice: one count table, reduced by the functional code.

Each metric keeps the per-sample ``(N, C, 3)`` table of true positives, false positives and false
negatives (a ``cat`` state of ``3 * C`` int64 per sample; ``DiceScore(aggregation_level="global")``
keeps one ``(C, 3)`` sum instead). ``update`` adds one batch's table, counted in one pass over the
pixels without one-hot expansion; ``compute`` reduces everything seen with the same code as the
functions. The table holds every class, so metrics that differ only in what ``compute`` does
(background, averaging, per class, weights) have equal ``statistic_spec`` and share one state and
one update in a :class:`~lightning_metrics.MetricCollection` (except ``MeanIoU`` with class-index
input, which reads an unbatched map differently: see
:class:`~lightning_metrics.functional.segmentation._counts.OverlapSpec`).
"""

from __future__ import annotations

from typing import Any, Hashable, Optional

import torch
from torch import Tensor

from lightning_metrics._additive_score import AdditiveScore
from lightning_metrics.functional.segmentation._counts import OverlapSpec
from lightning_metrics.functional.segmentation.overlap import (
    check_dice_args,
    check_generalized_dice_args,
    check_overlap_args,
    dice_of_table,
    drop_background,
    generalized_dice_of_table,
    mean_iou_of_table,
)
from lightning_metrics.utilities.checks import check_bool


class OverlapMetric(AdditiveScore):
    """The family base: a count table (:class:`OverlapSpec`) and a reduction of it."""

    # as torchmetrics' MeanIoU: num_classes may be read from the input; an unbatched map is one sample
    _classes_optional = False
    _unbatched_map_is_one_sample = False

    # the constructor arguments (set by ``_configure``)
    num_classes: Optional[int]
    include_background: bool
    input_format: str
    ignore_index: Optional[int]
    validate_args: bool

    def _build(self) -> None:
        check_overlap_args(
            self.num_classes,
            self.include_background,
            self.input_format,
            self.ignore_index,
            self.validate_args,
            optional_classes=self._classes_optional,
        )
        self._check_measure_args()
        self._spec = OverlapSpec(
            num_classes=self.num_classes,
            input_format=self.input_format,
            ignore_index=self.ignore_index,
            samplewise=self._samplewise(),
            promote_unbatched=self._unbatched_map_is_one_sample and self.input_format == "index",
            validate_args=self.validate_args,
        )
        for name, (default, reduce_fx) in self._spec.defaults().items():
            self.add_state(name, default, dist_reduce_fx=reduce_fx)

    def _check_measure_args(self) -> None:
        """The arguments only ``compute`` uses."""

    def _samplewise(self) -> bool:
        return True

    @property
    def statistic_spec(self) -> Hashable:
        """The count table (input format, classes, ignored label): equal specs share updates."""
        return self._spec

    def update(self, preds: Tensor, target: Tensor) -> None:
        """Add the counts of one batch (its labels and masks checked first when ``validate_args``)."""
        counts = self._spec.batch(preds, target)
        seen = self._seen_classes()
        if seen is not None and counts.shape[-2] != seen:
            raise ValueError(
                f"Argument `preds` has {counts.shape[-2]} classes, but the earlier batches had {seen} "
                "(set `num_classes` to fix it)"
            )
        state = self.counts
        if isinstance(state, list):  # nothing can fail past this point: the state stays consistent
            state.append(counts)
        elif self._spec.samplewise:  # a concatenated table (after a merge)
            self.counts = torch.cat([state, counts])
        else:
            state.add_(counts)

    def _seen_classes(self) -> Optional[int]:
        """The number of classes of the rows seen so far (read from shapes: no host sync)."""
        state = self.counts
        if isinstance(state, list):
            return state[0].shape[-2] if state else None
        return state.shape[-2] if state.numel() or not self._spec.samplewise else None

    def _table(self) -> Tensor:
        """Everything seen: ``(N, C, 3)``, or ``(1, C, 3)`` for a global sum."""
        state = self.counts
        if isinstance(state, list):
            state = torch.cat(state) if state else self._spec.empty(self.device)
        table = state if self._spec.samplewise else state.unsqueeze(0)
        return drop_background(table, self.include_background)


class MeanIoU(OverlapMetric):
    """Mean intersection over union for semantic segmentation (torchmetrics' ``MeanIoU``).

    IoU is computed per sample and class, then averaged over the (sample, class) pairs where the
    class is present in preds or target; with ``per_class``, one mean per class (-1 for a class
    never present). Inputs as in :func:`~lightning_metrics.functional.segmentation.mean_iou`:
    ``(N, C, ...)`` masks or scores, ``(N, ...)`` class indices (``input_format="index"``), or
    one of each (``"mixed"``); ``num_classes`` is read from dim 1 when not given (not for index).

    Extensions: ``ignore_index`` (a target label, e.g. 255, whose pixels count nowhere; needs
    class-index targets) and ``validate_args`` (``False`` skips the value checks and their host
    sync). State: ``3 * C`` int64 per sample.

    >>> import torch
    >>> from lightning_metrics.segmentation import MeanIoU
    >>> preds = torch.tensor([[[0, 1], [1, 2]], [[2, 2], [0, 0]]])
    >>> target = torch.tensor([[[0, 1], [2, 2]], [[2, 2], [0, 1]]])
    >>> miou = MeanIoU(num_classes=3, input_format="index")
    >>> miou(preds, target)
    tensor(0.5833)
    >>> MeanIoU(num_classes=3, per_class=True, input_format="index")(preds, target)
    tensor([0.7500, 0.2500, 0.7500])
    >>> void = torch.tensor([[[0, 1], [255, 2]], [[2, 2], [0, 255]]])
    >>> MeanIoU(num_classes=3, input_format="index", ignore_index=255)(preds, void)
    tensor(1.)
    """

    _classes_optional = True
    _unbatched_map_is_one_sample = True

    def __init__(
        self,
        num_classes: Optional[int] = None,
        include_background: bool = True,
        per_class: bool = False,
        input_format: str = "one-hot",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _check_measure_args(self) -> None:
        check_bool("per_class", self.per_class)

    def compute(self) -> Tensor:
        """The mean IoU of everything seen."""
        return mean_iou_of_table(self._table(), self.per_class)


class DiceScore(OverlapMetric):
    """Dice score ``2 tp / (2 tp + fp + fn)`` for semantic segmentation (torchmetrics' ``DiceScore``).

    ``aggregation_level="samplewise"`` averages the per-sample scores (samples where it is
    undefined are skipped); ``"global"`` scores all pixels at once. ``average``: ``"micro"``,
    ``"macro"`` (default), ``"weighted"``, or ``"none"`` / ``None`` for one score per class.
    Inputs and extensions (``ignore_index``, ``validate_args``) as in :class:`MeanIoU`;
    ``num_classes`` is required. State: ``3 * C`` int64 per sample (``"samplewise"``) or one
    ``(C, 3)`` sum (``"global"``).

    >>> import torch
    >>> from lightning_metrics.segmentation import DiceScore
    >>> preds = torch.tensor([[[0, 1], [1, 2]], [[2, 2], [0, 0]]])
    >>> target = torch.tensor([[[0, 1], [2, 2]], [[2, 2], [0, 1]]])
    >>> DiceScore(num_classes=3, input_format="index")(preds, target)
    tensor(0.6667)
    >>> dice = DiceScore(num_classes=3, average="none", aggregation_level="global", input_format="index")
    >>> dice(preds, target)
    tensor([0.8000, 0.5000, 0.8571])
    """

    def __init__(
        self,
        num_classes: int,
        include_background: bool = True,
        average: Optional[str] = "macro",
        aggregation_level: Optional[str] = "samplewise",
        input_format: str = "one-hot",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _check_measure_args(self) -> None:
        check_dice_args(self.average, self.aggregation_level)

    def _samplewise(self) -> bool:
        return self.aggregation_level == "samplewise"

    def compute(self) -> Tensor:
        """The Dice score of everything seen."""
        level = self.aggregation_level if self._spec.samplewise else "samplewise"  # a global table is one row
        values = dice_of_table(self._table(), self.average, level)
        return values.double().nanmean(dim=0).to(values.dtype)  # float64: the same in any sample order


class GeneralizedDiceScore(OverlapMetric):
    """Generalized Dice score, averaged over samples (torchmetrics' ``GeneralizedDiceScore``).

    Per sample ``2 sum_c w_c tp_c / sum_c w_c (2 tp_c + fp_c + fn_c)`` with class weights of
    ``weight_type`` (``"square"`` ``1 / t_c**2``, ``"simple"`` ``1 / t_c``, ``"linear"`` 1; ``t_c``
    the class's target pixels in the sample); ``per_class`` keeps one score per class. A class
    absent from a sample's target gets weight 0, so a sample's score does not depend on the other
    samples of its batch (a deliberate difference, see
    :func:`~lightning_metrics.functional.segmentation.generalized_dice_score`). Inputs and
    extensions as in :class:`DiceScore`. State: ``3 * C`` int64 per sample.

    >>> import torch
    >>> from lightning_metrics.segmentation import GeneralizedDiceScore
    >>> preds = torch.tensor([[[0, 1], [1, 2]], [[2, 2], [0, 0]]])
    >>> target = torch.tensor([[[0, 1], [2, 2]], [[2, 2], [0, 1]]])
    >>> GeneralizedDiceScore(num_classes=3, input_format="index")(preds, target)
    tensor(0.6913)
    """

    def __init__(
        self,
        num_classes: int,
        include_background: bool = True,
        per_class: bool = False,
        weight_type: str = "square",
        input_format: str = "one-hot",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _check_measure_args(self) -> None:
        check_generalized_dice_args(self.per_class, self.weight_type)

    def compute(self) -> Tensor:
        """The mean over samples of the generalized Dice score."""
        scores = generalized_dice_of_table(self._table(), self.weight_type, self.per_class)
        return (scores.double().sum(0) / scores.shape[0]).to(scores.dtype)
