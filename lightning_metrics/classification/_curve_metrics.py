"""Modular precision-recall curve, ROC, AUROC and average precision on one shared curve statistic.

Every curve metric keeps the same state for the same input spec: the scores (exact,
``thresholds=None``: ``preds``/``target`` lists reduced by ``cat``) or one multi-threshold
confusion matrix ``confmat`` of shape ``(T, [C,] 2, 2)`` (binned, reduced by ``sum``). Their
``statistic_spec`` says so, so a ``MetricCollection`` of ROC, AUROC, AP and the PR curve on the
same input updates once per batch. Subclasses only choose what ``compute`` reads from the state.

``update(preds, target, sample_weight=None)`` weighs the samples (the rules of
:mod:`lightning_metrics.utilities.sample_weight`, their meaning for curves in
:mod:`lightning_metrics.functional.classification._curve_functions`). Exact: a third ``cat`` state,
``weights``, always declared and empty while no weighted batch came; from the first weighted batch on it
holds one float64 weight per entry of ``target`` (the earlier samples, and later unweighted batches,
weigh 1). Binned: ``confmat`` becomes float64 sums of weights. ``reset`` returns to the unweighted state.
"""

from __future__ import annotations

from typing import Any, Hashable, Optional, Union

import torch
from torch import Tensor

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics.functional.classification._core import _SIZES
from lightning_metrics.functional.classification._curve_core import CurveSpec, CurveState, curve_update
from lightning_metrics.functional.classification._curve_functions import (
    CURVE_AVERAGES,
    Thresholds,
    curve_measure,
)
from lightning_metrics.functional.classification._scores import (
    check_average,
    check_ignore_index,
    check_max_fpr,
    check_num,
    check_thresholds,
    threshold_tensor,
)
from lightning_metrics.metric import Metric
from lightning_metrics.utilities.data import dim_zero_cat


class CurveMetric(Metric):
    """Base of all curve metrics: the exact or binned statistic of one task, updated in one place.

    A class names its task and measure (``task, _measure = "multiclass", "auroc"``, the measures of
    :func:`~lightning_metrics.functional.classification._curve_functions.curve_measure`) and its
    ``__init__`` is torchmetrics' signature with the body ``self._configure(locals())``; the
    ``average`` values it takes come from the functions' table (``CURVE_AVERAGES``).
    """

    is_differentiable: bool = False
    higher_is_better: Optional[bool] = None
    full_state_update: bool = False
    additive_update = True
    plot = _plot_methods.plot_curve  # a curve, unbounded: the summaries' mixins set their own hints
    plot_lower_bound = plot_upper_bound = None
    task: str = "binary"
    _measure: str = "pr"
    exact_dtype_states = ("weights",)  # sample weights stay float64 through ``.half()`` / ``set_dtype``

    def _build(self) -> None:
        """Check the recorded arguments and declare the statistic; families add their checks after this."""
        task, size = self.task, _SIZES.get(self.task)
        num = 1 if size is None else getattr(self, size)
        if task != "binary":
            check_num(size, num)
        # sorted thresholds are what makes the one-bincount update correct: always checked
        check_thresholds(self.thresholds)
        check_ignore_index(self.ignore_index)
        normalization = self.normalization = getattr(self, "normalization", "sigmoid")
        if normalization not in ("sigmoid", "softmax", None):  # anything else would fail obscurely in update
            raise ValueError(
                f"Argument `normalization` must be one of ('sigmoid', 'softmax', None), got {normalization!r}"
            )
        if task == "multiclass" and "average" not in self.__dict__:
            self.average = None  # the curve average of the classes whose signature has none
        if (task, self._measure) in CURVE_AVERAGES:
            check_average(self.average, CURVE_AVERAGES[task, self._measure])
        self._num = num
        tensor = threshold_tensor(self.__dict__.pop("thresholds"))  # the argument gives way to the buffer
        if tensor is None:
            self.thresholds = None
            self._thresholds_key: Hashable = None
            self.add_state("preds", default=[], dist_reduce_fx="cat")
            self.add_state("target", default=[], dist_reduce_fx="cat")
            self.add_state("weights", default=[], dist_reduce_fx="cat")  # empty until a weighted batch
        else:
            self.register_buffer("thresholds", tensor, persistent=False)
            self._thresholds_key = (tuple(tensor.tolist()), str(tensor.dtype))
            shape = (len(tensor), 2, 2) if task == "binary" else (len(tensor), num, 2, 2)
            self.add_state("confmat", default=torch.zeros(shape, dtype=torch.long), dist_reduce_fx="sum")

    def compute(self) -> Any:
        """The class's measure of the curve statistic, by the functions' code."""
        return curve_measure(self._measure, self._spec, self._state(), self.__dict__)

    @property
    def statistic_spec(self) -> Hashable:
        """Everything that shapes the curve statistic; averaging and the measure itself are left out."""
        return (
            "curve",
            self.task,
            self._num,
            self._thresholds_key,
            self.ignore_index,
            self.normalization,
            self.validate_args,
        )

    @property
    def _spec(self) -> CurveSpec:
        return CurveSpec(self.task, self._num, self.thresholds, self.ignore_index, self.normalization)

    def update(self, preds: Tensor, target: Tensor, *, sample_weight: Optional[Tensor] = None) -> None:
        """Add a batch of scores (probabilities or logits) and integer targets, weighted by
        ``sample_weight`` (one weight per sample; checked before any state changes)."""
        spec = self._spec
        state = curve_update(spec, preds, target, self.validate_args, sample_weight)
        if sample_weight is not None:
            self._use_sample_weights()
        if isinstance(state, Tensor):
            self.confmat += state
            return
        if len(state) > 2:
            self.weights.append(state[2])
        elif self._is_sample_weighted:  # an unweighted batch of a weighted metric: its samples weigh 1
            self.weights.append(_ones_like(state[1]))
        self.preds.append(state[0])
        self.target.append(state[1])

    def _state(self) -> CurveState:
        if self.thresholds is None:
            if self._is_sample_weighted:
                return dim_zero_cat(self.preds), dim_zero_cat(self.target), dim_zero_cat(self.weights)
            return dim_zero_cat(self.preds), dim_zero_cat(self.target)
        return self.confmat

    # ------------------------------------------------------------------ sample weights
    def _sample_weight_states(self) -> tuple[str, ...]:
        """Binned: the confusion matrix holds sums of weights once weighted (the exact path keeps its
        weights in the ``weights`` list state)."""
        return ("confmat",) if "confmat" in self.__dict__.get("_defaults", ()) else ()

    @property
    def _is_sample_weighted(self) -> bool:
        if "weights" in self.__dict__.get("_defaults", ()):
            return _holds_entries(self.__dict__["weights"])
        return super()._is_sample_weighted

    def _use_sample_weights(self) -> None:
        """As the base; exact: the samples already kept weigh 1 from now on (ones beside their targets)."""
        super()._use_sample_weights()
        if "weights" in self._defaults and not self._is_sample_weighted:
            filled = _ones_for(self.__dict__["target"])
            if isinstance(filled, list):
                self.__dict__["weights"].extend(filled)  # in place: the list a compute group shares
            else:
                self.__dict__["weights"] = filled

    def _weighted_states_for_sync(self, states: dict[str, Any]) -> dict[str, Any]:
        """This rank's states in the layout of a weighted metric: exact, a weight of 1 per sample kept."""
        out = super()._weighted_states_for_sync(states)
        if "weights" in out and not _holds_entries(out["weights"]):
            out["weights"] = _ones_for(out["target"])
        return out

    def merge_state(self, incoming_state: Any) -> None:
        """As :meth:`Metric.merge_state`; a state dict without weights (torchmetrics' ``preds``/``target``
        only, or one saved before weights existed) merges as unweighted samples."""
        if isinstance(incoming_state, dict) and "weights" in self._defaults and "weights" not in incoming_state:
            incoming_state = {**incoming_state, "weights": []}
        super().merge_state(incoming_state)

    def _merge_states(self, incoming: dict[str, Any]) -> None:
        """Exact: both sides in the weighted layout first when one of them is weighted (``forward`` and
        ``merge_state``), so that the weights stay aligned with the targets."""
        if "weights" in self._defaults and "weights" in incoming:
            mine, theirs = self._is_sample_weighted, _holds_entries(incoming["weights"])
            if theirs and not mine:
                self._use_sample_weights()
            elif mine and not theirs:
                incoming = self._weighted_states_for_sync(incoming)
        super()._merge_states(incoming)


def _holds_entries(state: Union[list, Tensor]) -> bool:
    """Whether a ``cat`` state holds anything (a non-empty list, or a non-empty tensor after a sync)."""
    return state.numel() > 0 if isinstance(state, Tensor) else len(state) > 0


def _ones_like(target: Tensor) -> Tensor:
    return torch.ones(target.shape, dtype=torch.float64, device=target.device)


def _ones_for(target: Union[list, Tensor]) -> Union[list, Tensor]:
    """Weights of 1 laid out as a ``target`` state (a list of batches, or one tensor)."""
    return _ones_like(target) if isinstance(target, Tensor) else [_ones_like(t) for t in target]


# --------------------------------------------------------------------------- PR curve
class _Bounded:
    """Plotting hints of the summaries of a curve (values in [0, 1], as torchmetrics gives them);
    mixed in before the curve class they derive from, whose own hints are unset."""

    plot_lower_bound: Optional[float] = 0.0
    plot_upper_bound: Optional[float] = 1.0


class _PerClass(_Bounded):
    plot_legend_name: Optional[str] = "Class"


class _PerLabel(_Bounded):
    plot_legend_name: Optional[str] = "Label"


class _Summary:
    """A number (or one per column) read from the curve: plotted as a value, higher is better."""

    plot = _plot_methods.plot_value
    higher_is_better: Optional[bool] = True


class BinaryPrecisionRecallCurve(CurveMetric):
    """Precision-recall curve of binary scores: ``(precision, recall, thresholds)``.

    >>> import torch
    >>> metric = BinaryPrecisionRecallCurve(thresholds=5)
    >>> metric.update(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    >>> metric.compute()
    (tensor([0.5000, 0.6667, 1.0000, 1.0000,    nan, 1.0000]),
     tensor([1.0000, 1.0000, 0.5000, 0.5000, 0.0000, 0.0000]),
     tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000]))
    """

    def __init__(self, thresholds: Thresholds = None, ignore_index: Optional[int] = None,
                 validate_args: bool = True, normalization: Optional[str] = "sigmoid", **kwargs: Any) -> None:
        self._configure(locals())


class MulticlassPrecisionRecallCurve(CurveMetric):
    """One-vs-rest precision-recall curves per class, or one ``micro`` / ``macro`` averaged curve.

    >>> import torch
    >>> metric = MulticlassPrecisionRecallCurve(num_classes=3, thresholds=3)
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6]])
    >>> target = torch.tensor([0, 1, 1])
    >>> metric.update(preds, target)
    >>> metric.compute()[1]
    tensor([[1.0000, 1.0000, 0.0000, 0.0000],
            [1.0000, 0.5000, 0.0000, 0.0000],
            [   nan,    nan,    nan, 0.0000]])
    """

    task = "multiclass"

    def __init__(self, num_classes: int, thresholds: Thresholds = None, average: Optional[str] = None,
                 ignore_index: Optional[int] = None, validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


class MultilabelPrecisionRecallCurve(CurveMetric):
    """Precision-recall curve of every label.

    >>> import torch
    >>> metric = MultilabelPrecisionRecallCurve(num_labels=2)
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]])
    >>> target = torch.tensor([[1, 0], [0, 1], [0, 0]])
    >>> metric.update(preds, target)
    >>> metric.compute()[0]
    [tensor([0.3333, 0.5000, 1.0000, 1.0000]), tensor([0.3333, 0.5000, 0.0000, 1.0000])]
    """

    task = "multilabel"

    def __init__(self, num_labels: int, thresholds: Thresholds = None, ignore_index: Optional[int] = None,
                 validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())


# -------------------------------------------------------------------------------- ROC
class BinaryROC(_Bounded, BinaryPrecisionRecallCurve):
    """ROC curve of binary scores: ``(fpr, tpr, thresholds)`` with decreasing thresholds.

    >>> import torch
    >>> metric = BinaryROC()
    >>> metric.update(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    >>> metric.compute()[1]
    tensor([0.0000, 0.5000, 0.5000, 1.0000, 1.0000])
    """

    _measure = "roc"


class MulticlassROC(_PerClass, MulticlassPrecisionRecallCurve):
    """One-vs-rest ROC curves per class, or one ``micro`` / ``macro`` averaged curve.

    >>> import torch
    >>> metric = MulticlassROC(num_classes=3, thresholds=3)
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6]])
    >>> target = torch.tensor([0, 1, 1])
    >>> metric.update(preds, target)
    >>> metric.compute()[0]
    tensor([[0.0000, 0.0000, 1.0000],
            [0.0000, 0.0000, 1.0000],
            [0.0000, 0.3333, 1.0000]])
    """

    _measure = "roc"
    plot = _plot_methods.plot_curve_with_labels


class MultilabelROC(_PerLabel, MultilabelPrecisionRecallCurve):
    """ROC curve of every label.

    >>> import torch
    >>> metric = MultilabelROC(num_labels=2, thresholds=3)
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]])
    >>> target = torch.tensor([[1, 0], [0, 1], [0, 0]])
    >>> metric.update(preds, target)
    >>> metric.compute()[1]
    tensor([[0., 1., 1.],
            [0., 1., 1.]])
    """

    _measure = "roc"
    plot = _plot_methods.plot_curve_with_labels


# ------------------------------------------------------------------------------ AUROC
class BinaryAUROC(_Summary, _Bounded, BinaryPrecisionRecallCurve):
    """Area under the ROC curve; with ``max_fpr`` the McClish-standardized partial area.

    >>> import torch
    >>> metric = BinaryAUROC()
    >>> metric.update(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    >>> metric.compute()
    tensor(0.7500)

    With sample weights (an unweighted batch before the first weighted one weighs 1 per sample):

    >>> metric = BinaryAUROC()
    >>> metric.update(torch.tensor([0.1, 0.4]), torch.tensor([0, 0]))
    >>> metric.update(torch.tensor([0.35, 0.8]), torch.tensor([1, 1]), sample_weight=torch.tensor([2.0, 1.0]))
    >>> metric.compute(), metric.weights
    (tensor(0.6667), [tensor([1., 1.], dtype=torch.float64), tensor([2., 1.], dtype=torch.float64)])
    """

    _measure = "auroc"

    def __init__(self, max_fpr: Optional[float] = None, thresholds: Thresholds = None,
                 ignore_index: Optional[int] = None, validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())

    def _build(self) -> None:
        super()._build()
        check_max_fpr(self.max_fpr)


def _multiclass_summary_init(self, num_classes: int, average: Optional[str] = "macro", thresholds: Thresholds = None,
                             ignore_index: Optional[int] = None, validate_args: bool = True, **kwargs: Any) -> None:
    """torchmetrics' signature of the multiclass AUROC and average precision (their ``__init__``)."""
    self._configure(locals())


def _multilabel_summary_init(self, num_labels: int, average: Optional[str] = "macro", thresholds: Thresholds = None,
                             ignore_index: Optional[int] = None, validate_args: bool = True, **kwargs: Any) -> None:
    """torchmetrics' signature of the multilabel AUROC and average precision (their ``__init__``)."""
    self._configure(locals())


class MulticlassAUROC(_Summary, _PerClass, MulticlassPrecisionRecallCurve):
    """One-vs-rest AUROC averaged over classes (``macro``, ``weighted`` by support, ``none``).

    >>> import torch
    >>> metric = MulticlassAUROC(num_classes=3, average=None)
    >>> preds = torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6]])
    >>> metric.update(preds, torch.tensor([0, 1, 2]))
    >>> metric.compute()
    tensor([1., 1., 1.])
    """

    _measure = "auroc"
    __init__ = _multiclass_summary_init


class MultilabelAUROC(_Summary, _PerLabel, MultilabelPrecisionRecallCurve):
    """AUROC of every label, averaged (``micro``, ``macro``, ``weighted``, ``none``).

    >>> import torch
    >>> metric = MultilabelAUROC(num_labels=2, average="micro")
    >>> metric.update(torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]]), torch.tensor([[1, 0], [0, 1], [0, 0]]))
    >>> metric.compute()
    tensor(0.8125)
    """

    _measure = "auroc"
    __init__ = _multilabel_summary_init


# ------------------------------------------------------------------ average precision
class BinaryAveragePrecision(_Summary, _Bounded, BinaryPrecisionRecallCurve):
    """Average precision: the step-wise area under the precision-recall curve.

    >>> import torch
    >>> metric = BinaryAveragePrecision()
    >>> metric.update(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1]))
    >>> metric.compute()
    tensor(0.8333)
    """

    _measure = "average_precision"


class MulticlassAveragePrecision(_Summary, _PerClass, MulticlassPrecisionRecallCurve):
    """One-vs-rest average precision averaged over classes (``macro``, ``weighted``, ``none``).

    >>> import torch
    >>> metric = MulticlassAveragePrecision(num_classes=3)
    >>> metric.update(torch.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6]]), torch.tensor([0, 1, 1]))
    >>> metric.compute()
    tensor(0.9167)
    """

    _measure = "average_precision"
    __init__ = _multiclass_summary_init


class MultilabelAveragePrecision(_Summary, _PerLabel, MultilabelPrecisionRecallCurve):
    """Average precision of every label, averaged (``micro``, ``macro``, ``weighted``, ``none``).

    >>> import torch
    >>> metric = MultilabelAveragePrecision(num_labels=2, average=None)
    >>> preds = torch.tensor([[0.8, 0.2], [0.3, 0.6], [0.6, 0.7]])
    >>> metric.update(preds, torch.tensor([[1, 0], [0, 1], [0, 0]]))
    >>> metric.compute()
    tensor([1.0000, 0.5000])
    """

    _measure = "average_precision"
    __init__ = _multilabel_summary_init

