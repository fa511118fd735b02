"""Modular calibration error, hinge loss and multilabel ranking metrics: fixed-size summed states.

Calibration keeps a per-bin histogram (count, confidence sum, accuracy sum) instead of every
confidence; hinge and ranking keep a running sum and a count. All states reduce by ``sum``.
Constructors are torchmetrics' signatures over ``self._configure(locals())``; each family checks
the recorded arguments and declares its states in ``_build``.

Calibration, hinge and ranking take ``update(preds, target, sample_weight=None)`` (the rules of
:mod:`lightning_metrics.utilities.sample_weight`): the calibration histogram is float64 already and
sums weights; the sample count of hinge and ranking becomes a float64 weight sum from the first weighted
batch until ``reset``.
"""

from __future__ import annotations

from typing import Any, Hashable, Optional

import torch
from torch import Tensor

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics.functional.classification._calibration import (
    binary_calibration_statistic,
    calibration_compute,
    check_calibration_args,
    multiclass_calibration_statistic,
)
from lightning_metrics.functional.classification._hinge import (
    MULTICLASS_MODES,
    binary_hinge_statistic,
    check_hinge_args,
    multiclass_hinge_statistic,
)
from lightning_metrics.functional.classification._ranking import (
    coverage_error_statistic,
    ranking_average_precision_statistic,
    ranking_input,
    ranking_loss_statistic,
    ranking_weight,
)
from lightning_metrics.functional.classification._scores import check_ignore_index, check_num
from lightning_metrics.metric import Metric
from lightning_metrics.utilities.checks import check_choice


class _SummedScore(Metric):
    """Base of the calibration, hinge and ranking metrics: states summed over batches, a value to plot."""

    plot = _plot_methods.plot_value
    full_state_update: bool = False
    additive_update = True
    plot_lower_bound: float = 0.0
    plot_upper_bound: float = 1.0


# ------------------------------------------------------------------------- calibration error
class _CalibrationError(_SummedScore):
    is_differentiable: bool = False
    higher_is_better: bool = False

    def _build(self) -> None:
        if "num_classes" in self.__dict__:
            check_num("num_classes", self.num_classes)
        check_calibration_args(self.n_bins, self.norm, self.ignore_index)
        self.add_state("bins", torch.zeros(3, self.n_bins + 1, dtype=torch.float64), dist_reduce_fx="sum")

    def compute(self) -> Tensor:
        return calibration_compute(self.bins, self.norm)


class BinaryCalibrationError(_CalibrationError):
    """Calibration error (``l1`` expected, ``l2`` root-mean-square, ``max``) of binary probabilities.

    >>> import torch
    >>> metric = BinaryCalibrationError(n_bins=2)
    >>> metric.update(torch.tensor([0.25, 0.25, 0.55, 0.75, 0.75]), torch.tensor([0, 0, 1, 1, 1]))
    >>> metric.compute()
    tensor(0.2900)
    """

    def __init__(self, n_bins: int = 15, norm: str = "l1", ignore_index: Optional[int] = None,
                 validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())

    @property
    def statistic_spec(self) -> Hashable:
        return ("calibration", "binary", self.n_bins, self.ignore_index, self.validate_args)

    def update(self, preds: Tensor, target: Tensor, *, sample_weight: Optional[Tensor] = None) -> None:
        """Add a batch to the histogram (each sample counts its ``sample_weight``)."""
        binary_calibration_statistic(
            preds, target, self.n_bins, self.ignore_index, self.validate_args, self.bins, sample_weight
        )


class MulticlassCalibrationError(_CalibrationError):
    """Calibration error of the top-class confidence (logits pass through a softmax).

    >>> import torch
    >>> metric = MulticlassCalibrationError(num_classes=3, n_bins=3)
    >>> preds = torch.tensor([[0.25, 0.20, 0.55], [0.55, 0.05, 0.40], [0.10, 0.30, 0.60], [0.90, 0.05, 0.05]])
    >>> metric.update(preds, torch.tensor([0, 1, 2, 0]))
    >>> metric.compute()
    tensor(0.2000)
    """

    plot_legend_name = "Class"

    def __init__(self, num_classes: int, n_bins: int = 15, norm: str = "l1", ignore_index: Optional[int] = None,
                 validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())

    @property
    def statistic_spec(self) -> Hashable:
        return (
            "calibration",
            "multiclass",
            self.num_classes,
            self.n_bins,
            self.ignore_index,
            self.validate_args,
        )

    def update(self, preds: Tensor, target: Tensor, *, sample_weight: Optional[Tensor] = None) -> None:
        """Add a batch to the histogram (each sample counts its ``sample_weight``)."""
        multiclass_calibration_statistic(
            preds, target, self.num_classes, self.n_bins, self.ignore_index, self.validate_args, self.bins,
            sample_weight,
        )


# --------------------------------------------------------------------------------- hinge loss
class _HingeLoss(_SummedScore):
    is_differentiable: bool = True
    higher_is_better: bool = False

    def _build(self) -> None:
        size: tuple = ()
        if "num_classes" in self.__dict__:
            check_num("num_classes", self.num_classes)
            check_choice("multiclass_mode", self.multiclass_mode, MULTICLASS_MODES)
            size = () if self.multiclass_mode == "crammer-singer" else (self.num_classes,)
        check_hinge_args(self.squared, self.ignore_index)
        self.add_state("measures", default=torch.zeros(size), dist_reduce_fx="sum")
        self.add_state("total", default=torch.tensor(0), dist_reduce_fx="sum")

    def _sample_weight_states(self) -> tuple[str, ...]:
        """The sample count holds the weight sum once weighted."""
        return ("total",)

    def _add(self, measures: Tensor, total: Tensor) -> None:
        if total.is_floating_point():  # a weighted batch (checked already): weighted counts from now on
            self._use_sample_weights()
        self.measures = self.measures + measures.to(self.measures.dtype)  # out of place: autograd in forward
        self.total = self.total + total

    def compute(self) -> Tensor:
        return (self.measures / self.total).to(self.measures.dtype)


class BinaryHingeLoss(_HingeLoss):
    """Mean hinge loss ``max(0, 1 - margin)`` (squared with ``squared=True``) of binary scores.

    >>> import torch
    >>> metric = BinaryHingeLoss()
    >>> metric.update(torch.tensor([0.25, 0.25, 0.55, 0.75, 0.75]), torch.tensor([0, 0, 1, 1, 1]))
    >>> metric.compute()
    tensor(0.6900)
    """

    def __init__(self, squared: bool = False, ignore_index: Optional[int] = None, validate_args: bool = True,
                 **kwargs: Any) -> None:
        self._configure(locals())

    def update(self, preds: Tensor, target: Tensor, *, sample_weight: Optional[Tensor] = None) -> None:
        """Add a batch's losses (weighted by ``sample_weight``) and its sample count (weight sum)."""
        self._add(
            *binary_hinge_statistic(preds, target, self.squared, self.ignore_index, self.validate_args, sample_weight)
        )


class MulticlassHingeLoss(_HingeLoss):
    """Mean multiclass hinge loss: ``crammer-singer`` (a scalar) or ``one-vs-all`` (one per class).

    >>> import torch
    >>> metric = MulticlassHingeLoss(num_classes=3)
    >>> preds = torch.tensor([[0.25, 0.20, 0.55], [0.55, 0.05, 0.40], [0.10, 0.30, 0.60], [0.90, 0.05, 0.05]])
    >>> metric.update(preds, torch.tensor([0, 1, 2, 0]))
    >>> metric.compute()
    tensor(0.9125)
    """

    plot_legend_name = "Class"

    def __init__(self, num_classes: int, squared: bool = False, multiclass_mode: str = "crammer-singer",
                 ignore_index: Optional[int] = None, validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())

    def update(self, preds: Tensor, target: Tensor, *, sample_weight: Optional[Tensor] = None) -> None:
        """Add a batch's losses (weighted by ``sample_weight``) and its sample count (weight sum)."""
        self._add(
            *multiclass_hinge_statistic(
                preds, target, self.num_classes, self.squared, self.multiclass_mode, self.ignore_index,
                self.validate_args, sample_weight,
            )
        )


# ------------------------------------------------------------------------------------ ranking
class _RankingMetric(_SummedScore):
    is_differentiable: bool = False
    plot_legend_name = "Label"
    _statistic = staticmethod(coverage_error_statistic)

    def __init__(
        self, num_labels: int, ignore_index: Optional[int] = None, validate_args: bool = True, **kwargs: Any
    ) -> None:
        self._configure(locals())

    def _build(self) -> None:
        check_num("num_labels", self.num_labels)
        check_ignore_index(self.ignore_index)
        self.add_state("measure", torch.tensor(0.0), dist_reduce_fx="sum")
        self.add_state("total", torch.tensor(0), dist_reduce_fx="sum")

    def _sample_weight_states(self) -> tuple[str, ...]:
        """The sample count holds the weight sum once weighted."""
        return ("total",)

    def update(self, preds: Tensor, target: Tensor, *, sample_weight: Optional[Tensor] = None) -> None:
        """Add a batch's per-sample values (weighted by ``sample_weight``) and its sample count (weight sum)."""
        weight = ranking_weight(target, sample_weight, self.validate_args)
        inputs = ranking_input(preds, target, self.num_labels, self.ignore_index, self.validate_args)
        measure, total = self._statistic(*inputs, weight)
        if weight is not None:
            self._use_sample_weights()
        self.measure += measure
        self.total += total

    def compute(self) -> Tensor:
        return (self.measure / self.total).to(self.measure.dtype)


class MultilabelCoverageError(_RankingMetric):
    """Average number of top-ranked labels needed to cover every relevant label.

    >>> import torch
    >>> metric = MultilabelCoverageError(num_labels=3)
    >>> preds = torch.tensor([[0.8, 0.2, 0.5], [0.3, 0.6, 0.9], [0.6, 0.7, 0.1]])
    >>> metric.update(preds, torch.tensor([[1, 0, 0], [0, 1, 0], [0, 0, 1]]))
    >>> metric.compute()
    tensor(2.)
    """

    higher_is_better = False


class MultilabelRankingAveragePrecision(_RankingMetric):
    """Label ranking average precision (scikit-learn's LRAP).

    >>> import torch
    >>> metric = MultilabelRankingAveragePrecision(num_labels=3)
    >>> preds = torch.tensor([[0.8, 0.2, 0.5], [0.3, 0.6, 0.9], [0.6, 0.7, 0.1]])
    >>> metric.update(preds, torch.tensor([[1, 0, 0], [0, 1, 0], [0, 0, 1]]))
    >>> metric.compute()
    tensor(0.6111)
    """

    higher_is_better = True
    _statistic = staticmethod(ranking_average_precision_statistic)


class MultilabelRankingLoss(_RankingMetric):
    """Average fraction of wrongly ordered (relevant, irrelevant) label pairs.

    >>> import torch
    >>> metric = MultilabelRankingLoss(num_labels=3)
    >>> preds = torch.tensor([[0.8, 0.2, 0.5], [0.3, 0.6, 0.9], [0.6, 0.7, 0.1]])
    >>> metric.update(preds, torch.tensor([[1, 0, 0], [0, 1, 0], [0, 0, 1]]))
    >>> metric.compute()
    tensor(0.5000)
    """

    higher_is_better = False
    _statistic = staticmethod(ranking_loss_statistic)
