"""The base of every modular count-based classification metric.

A metric is its statistic (a :class:`~lightning_metrics.functional.classification._counts.CountSpec`,
which is also its ``statistic_spec``) and a reduction (measure and averaging). ``update`` adds one
batch's statistic to the states, ``compute`` reduces them with the same code as the functions.
Metrics with equal specs hold identical states, so a ``MetricCollection`` updates them once.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Hashable, Optional

from torch import Tensor

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics._states import _finished
from lightning_metrics.functional.classification._core import (
    _MICRO_WITHOUT_CLASSES,
    Reduction,
    matrix_statistic,
    ratio_statistic,
    reads_only_summary,
    reduce_together,
)
from lightning_metrics.functional.classification._counts import Codes, CountSpec
from lightning_metrics.metric import Metric
from lightning_metrics.utilities import dim_zero_cat, memo


_TORCHMETRICS_COUNT_STATES = frozenset({"tp", "fp", "tn", "fn", "confmat"})

# The statistics of multiclass top-1 global inputs, each covering the ones before it: right labels and
# labels (micro averages), per-class one-vs-rest counts (3C histogram bins), the confusion matrix (C^2).
_MULTICLASS_LEVELS = ("labels", "counts", "confmat")


class CountingMetric(Metric):
    """Accumulates a count statistic and reduces it; subclasses only pick spec and reduction."""

    plot = _plot_methods.plot_value

    is_differentiable = False
    higher_is_better: Optional[bool] = True
    full_state_update = False
    additive_update = True
    plot_lower_bound: Optional[float] = 0.0
    plot_upper_bound: Optional[float] = 1.0

    def _setup(self, spec: CountSpec, reduction: Reduction) -> None:
        self._spec = spec
        self._reduction = reduction
        for name, (default, reduce_fx) in spec.defaults().items():
            self.add_state(name, default, dist_reduce_fx=reduce_fx)

    def _use_spec(self, spec: CountSpec) -> None:
        """Accumulate ``spec``'s statistic instead (before any update): drop the old states, add the new."""
        device = self.device
        for name in self._spec.state_names:
            for table in (self._defaults, self._persistent, self._reductions, self._reduction_kinds):
                table.pop(name, None)
            self.__dict__.pop(name, None)
        self._setup(spec, self._reduction)
        self._reset_states_only()  # the new defaults, on the metric's device
        self._device = device

    @property
    def statistic_spec(self) -> Hashable:
        """The statistic (kind, task, size, threshold, top_k, ignore_index, ...): equal specs share updates."""
        return self._spec

    @property
    def _statistic_lattice(self) -> Optional[tuple[Hashable, int]]:
        """(family, level) for multiclass top-1 global statistics, which a collection widens to share."""
        spec = self._spec
        if spec.task != "multiclass" or spec.samplewise or spec.top_k != 1 or spec.size is None:
            return None
        if spec.kind not in _MULTICLASS_LEVELS:
            return None
        return dataclasses.replace(spec, kind=""), _MULTICLASS_LEVELS.index(spec.kind)

    def _widen_statistic(self, level: int) -> bool:
        """Switch to the wider statistic of ``level``; possible only before the first update."""
        lattice = self._statistic_lattice
        if lattice is None or level < lattice[1] or self._update_count > 0:
            return False
        if level > lattice[1]:
            self._use_spec(dataclasses.replace(self._spec, kind=_MULTICLASS_LEVELS[level]))
        return True

    def __getattr__(self, name: str) -> object:
        # torchmetrics' state names (``metric.tp``, ``metric.confmat``), read by code written for it,
        # as views of our statistic; only reached when no attribute of that name exists
        if name in _TORCHMETRICS_COUNT_STATES:
            spec = self.__dict__.get("_spec")
            if spec is not None and spec.kind in ("counts", "confmat") and name not in spec.state_names:
                return self._torchmetrics_state(name)
            if spec is not None and spec.kind == "labels" and spec.size is not None and name != "confmat":
                return self._micro_state(name)
        return super().__getattr__(name)

    def _torchmetrics_state(self, name: str) -> Tensor:
        """``tp``/``fp``/``tn``/``fn`` shaped as torchmetrics keeps them, or the confusion matrix.

        Binary counts are ``(1,)``; multiclass micro averages (``top_k=1``) keep one summed entry;
        samplewise counts are one ``(N, ...)`` tensor (torchmetrics: a list of them, one per update).
        """
        spec = self._spec
        states = {}
        for state in spec.state_names:
            value = getattr(self, state)
            states[state] = dim_zero_cat(value) if isinstance(value, list) and value else value
            if isinstance(value, list) and not value:
                states[state] = spec.empty(state, self.device)
        if name == "confmat":
            return spec.confmat(states)
        value = getattr(spec.counts(states), name)
        if spec.task == "binary" and not spec.samplewise:
            return value.reshape(1)
        micro = getattr(self, "average", None) == "micro"
        if spec.task == "multiclass" and micro and spec.top_k == 1 and not spec.samplewise:
            return value.sum(-1, keepdim=True)
        return value

    def _micro_state(self, name: str) -> Tensor:
        """torchmetrics' summed ``(1,)`` micro counts from right labels and labels (multiclass top-1): a right
        label is a true positive, a wrong one a false positive and a false negative, the rest true negatives."""
        right, seen = self.__dict__["correct"], self.__dict__["total"]
        wrong = seen - right
        value = {"tp": right, "fp": wrong, "fn": wrong, "tn": self._spec.size * seen - right - 2 * wrong}[name]
        return value.reshape(1)

    def update(self, preds: Tensor, target: Tensor, *, sample_weight: Optional[Tensor] = None) -> None:
        """Add the statistic of one batch (checked first when ``validate_args``), weighted by
        ``sample_weight`` (the rules of :mod:`lightning_metrics.utilities.sample_weight`): the counts become
        float64 sums of weights from the first weighted batch until ``reset``.

        >>> import torch
        >>> from lightning_metrics.classification import MulticlassAccuracy
        >>> metric = MulticlassAccuracy(num_classes=3, average="micro")
        >>> metric.update(torch.tensor([0, 1, 2]), torch.tensor([0, 1, 1]))
        >>> metric.update(torch.tensor([2, 0]), torch.tensor([2, 1]), sample_weight=torch.tensor([3.0, 0.5]))
        >>> metric.compute()  # (2 + 3) / (3 + 3.5)
        tensor(0.7692)
        """
        increment = self._spec.batch(preds, target, increment=True, sample_weight=sample_weight)
        if sample_weight is not None:
            self._use_sample_weights()
        self._add_batch(increment)  # nothing can fail past this point: states stay consistent

    def _sample_weight_states(self) -> tuple[str, ...]:
        """The sum states of the statistic that hold float64 sums of weights once weighted (the per-sample
        ``cat`` states of ``samplewise`` take float64 rows of weighted batches as they come)."""
        spec = self.__dict__.get("_spec")
        if spec is None or spec.samplewise:
            return ()
        return spec.weighted_state_names

    def _splits_update(self) -> bool:
        return type(self).update is CountingMetric.update and not self.__dict__["_is_synced"]

    def _prepared_batch(self, preds: Tensor, target: Tensor, *, sample_weight: Optional[Tensor] = None) -> Any:
        if not self._splits_update():
            return None  # a subclass with its own update
        increment = self._spec.batch(preds, target, increment=True, sample_weight=sample_weight)
        # the batch's confusion matrix for its values; the state takes the codes (a scatter, not a C^2 sum),
        # or the matrix itself when it has no more bins than the batch has codes. A matrix much larger than
        # its batch stays codes here: :meth:`_batch_values` makes it, unless its readers need only its summary.
        batch = {n: v.dense() if isinstance(v, Codes) and not v.summarizes() else v for n, v in increment.items()}
        adds = {n: batch[n] if isinstance(v, Codes) and not v.scatters() else v for n, v in increment.items()}
        states = {n: [v] if isinstance(self._defaults[n], list) else v for n, v in batch.items()}
        return states, self._committer(lambda: self._add_batch(adds, sample_weight is not None))

    def _prepared_update(self, preds: Tensor, target: Tensor, *, sample_weight: Optional[Tensor] = None) -> Any:
        if not self._splits_update():
            return None
        increment = self._spec.batch(preds, target, increment=True, sample_weight=sample_weight)
        return self._committer(lambda: self._add_batch(increment, sample_weight is not None))

    def _add_batch(self, batch: dict[str, Any], weighted: bool = False) -> None:
        if weighted:
            self._use_sample_weights()
        for name, value in batch.items():
            state = getattr(self, name)
            if isinstance(state, list):
                state.append(value)
            elif isinstance(value, Codes):
                value.add_to(state)
            else:
                state.add_(value)

    def _batch_value_fn(self) -> Any:
        if not self._reads_batch(self._spec):
            return None
        detach = self.is_differentiable is False
        names = self._spec.state_names
        return lambda batch: _finished(self._reduce({name: batch[name] for name in names}), detach)

    def _batch_values(self, members: list[Metric], batch: dict[str, Any]) -> Optional[list[Any]]:
        """The members' batch values, the count-ratio measures among them in one pass (``reduce_together``).

        A batch matrix left as codes by :meth:`_prepared_batch` becomes, in ``batch``, a stand-in whose summary is
        counted from the codes when every member reads only that (in a collection's ``forward``), else the
        matrix itself."""
        spec = self._spec
        together = len(members) > 1 and all(isinstance(m, CountingMetric) and m._reads_batch(spec) for m in members)
        reductions = [m._reduction for m in members] if together else []
        deferred = [name for name, value in batch.items() if isinstance(value, Codes)]
        if deferred:
            summary_only = together and memo.scope_open() and reads_only_summary(spec, reductions)
            for name in deferred:
                codes = batch[name]
                batch[name] = codes.summary_stand_in() if summary_only else codes.dense_confmat()
        if not together:
            return super()._batch_values(members, batch)
        states = self._concatenated({name: batch[name] for name in spec.state_names})
        values, made_together = reduce_together(spec, states, reductions)
        # a tensor state of the batch (the confusion matrix) is the caller's once: nothing keeps it
        unclaimed = {id(state) for name, state in batch.items() if not isinstance(self._defaults[name], list)}

        def owned(t: Tensor) -> bool:
            if id(t) in unclaimed:
                unclaimed.discard(id(t))
                return True
            return False

        return [
            _finished(value, m.is_differentiable is False, (lambda t: True) if i in made_together else owned)
            for i, (m, value) in enumerate(zip(members, values))
        ]

    def _reads_batch(self, spec: CountSpec) -> bool:
        """Whether this metric's batch value is its reduction of ``spec``'s batch states (``_batch_value_fn``)."""
        attrs = self.__dict__
        if not self._computes_like(CountingMetric):
            return False  # a subclass with its own compute, or a value that needs a sync
        if attrs["_spec"] is spec:
            return True
        if attrs["_spec"] == spec:
            # equal frozen specs: keep one object, so that the next forward finds it by identity
            attrs["_spec"] = spec
            return True
        return False

    def compute(self) -> Tensor:
        """The measure of everything accumulated."""
        return self._reduce({name: getattr(self, name) for name in self._spec.state_names})

    def _reduce(self, raw: dict[str, Any]) -> Tensor:
        """The measure of the states ``raw`` (list states not yet concatenated)."""
        return self._reduction(self._spec, self._concatenated(raw))

    def _concatenated(self, raw: dict[str, Any]) -> dict[str, Tensor]:
        """The states ``raw`` with list states concatenated (empty ones as the spec's empty tensors)."""
        states = {}
        for name, value in raw.items():
            if isinstance(value, list):
                value = dim_zero_cat(value) if value else self._spec.empty(name, self.device)
            elif value.numel() == 0 and isinstance(self._defaults[name], list):
                value = self._spec.empty(name, self.device)  # synced with no samples anywhere: tensor([])
            states[name] = value
        return states




class RatioMetric(CountingMetric):
    """A count-ratio measure of one task (stat scores, accuracy, precision, ..., hamming distance).

    A subclass names its task and measure (``_task, _measure = "multiclass", "accuracy"``) and
    its ``__init__`` is torchmetrics' signature with the body ``self._configure(locals())``;
    :meth:`_build` makes the statistic and the reduction from the recorded arguments.
    """

    _keyword_arguments = {"zero_division": 0}  # torchmetrics takes it through **kwargs
    _task: str
    _measure: str

    def _build(self) -> None:
        spec, reduction = ratio_statistic(self._task, self._measure, self.__dict__)
        self._setup(_smallest(spec, reduction), reduction)


def _smallest(spec: CountSpec, reduction: Reduction) -> CountSpec:
    """The smallest statistic a count-ratio measure needs: alone, a multiclass top-1 measure keeps per-class
    one-vs-rest counts (3C bins) rather than the confusion matrix (C^2) unless C^2 is small, and a micro average of a measure
    without true negatives only the right labels and the labels."""
    if spec.kind != "confmat":
        return spec
    if reduction.average == "micro" and reduction.measure in _MICRO_WITHOUT_CLASSES:
        return dataclasses.replace(spec, kind="labels")
    # a small confusion matrix is one bincount and fewer kernels than the one-vs-rest counts (measured)
    return spec if spec.size * spec.size <= _SMALL_CONFMAT else dataclasses.replace(spec, kind="counts")


_SMALL_CONFMAT = 1024  # bins


class MatrixMetric(CountingMetric):
    """A measure read off the whole confusion matrix (Jaccard, MCC, Cohen's kappa, the matrix itself)
    or exact match: like :class:`RatioMetric`, a subclass names ``_task, _measure`` and its
    ``__init__`` body is ``self._configure(locals())``."""

    _task: str
    _measure: str

    def _build(self) -> None:
        self._setup(*matrix_statistic(self._task, self._measure, self.__dict__))
