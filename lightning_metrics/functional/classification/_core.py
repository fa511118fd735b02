"""Glue shared by the functional and the modular count-based metrics.

A metric is a :class:`~._counts.CountSpec` (what to accumulate, checked once here) and a
:class:`Reduction` (what to compute from it). A function builds both, takes one batch and reduces
it; a modular metric keeps the spec's states across batches and reduces them in ``compute``.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional

import torch
from torch import Tensor

from lightning_metrics.functional.classification import _inputs
from lightning_metrics.functional.classification._counts import CountSpec
from lightning_metrics.functional.classification._inputs import check_task
from lightning_metrics.functional.classification._matrix_measures import (
    cohen_kappa,
    matthews_corrcoef,
    normalize_confmat,
)
from lightning_metrics.functional.classification._measures import (
    MEASURES,
    MeasureRequest,
    confmat_measures,
    reduce_measure,
    reduce_measures,
    reduce_stat_scores,
    safe_divide,
)
from lightning_metrics.utilities.memo import IdentityCache

SAMPLES_AVERAGES = (*_inputs.AVERAGES, "samples")


@dataclass(frozen=True)
class Reduction:
    """What ``compute`` makes of a statistic: a measure and its compute-only arguments."""

    measure: str  # a MEASURES key, "stat_scores", "confusion_matrix", "matthews_corrcoef", ...
    average: Optional[str] = "micro"
    zero_division: float = 0.0
    beta: float = 1.0
    normalize: Optional[str] = None
    weights: Optional[str] = None

    def __call__(self, spec: CountSpec, states: dict[str, Tensor]) -> Tensor:
        value = self._value(spec, states)
        if value.dtype == torch.float64 and not self.counts_valued():
            return value.float()  # a ratio of weighted (float64) counts: the dtype of the unweighted value
        return value

    def counts_valued(self) -> bool:
        """Whether the value is counts (stat scores, the confusion matrix not normalized): float64 sums of
        weights when weighted."""
        return self.measure == "stat_scores" or (
            self.measure == "confusion_matrix" and self.normalize in (None, "none")
        )

    def _value(self, spec: CountSpec, states: dict[str, Tensor]) -> Tensor:
        name = self.measure
        if spec.kind in ("exact", "labels"):  # exact match, or a micro measure without a number of classes
            right, seen = states["matches"].unbind(-1) if spec.samplewise else (states["correct"], states["total"])
            zero_division = self.zero_division if name in ("precision", "recall", "fbeta") else 0.0
            value = safe_divide(right, seen, zero_division)
            return 1 - value if name == "hamming_distance" else value
        if spec.kind == "samples":
            total = states["sample_sum"] + self.zero_division * states["sample_zero"]
            return safe_divide(total, states["sample_count"]).float()
        if name == "confusion_matrix":
            return normalize_confmat(spec.confmat(states), self.normalize)
        if name == "matthews_corrcoef":
            return matthews_corrcoef(spec.confmat(states))
        if name == "cohen_kappa":
            return cohen_kappa(spec.confmat(states), self.weights)
        counts = spec.counts(states)
        average = "binary" if spec.task == "binary" else self.average
        if name == "stat_scores":
            # torchmetrics weighs multilabel samplewise supports by their total over all samples
            pooled = spec.task == "multilabel" and spec.samplewise
            return reduce_stat_scores(counts, average, pool_support=pooled)
        dropped = None
        if name == "jaccard_index" and spec.task == "multiclass" and spec.ignore_index is not None:
            dropped = spec.ignore_index if 0 <= spec.ignore_index < spec.size else None
        return reduce_measure(
            name,
            counts,
            average,
            multiclass=spec.task == "multiclass",
            top_k=spec.top_k,
            zero_division=self.zero_division,
            beta=self.beta,
            dropped_class=dropped,
        )

    def joins(self, spec: CountSpec) -> bool:
        """Whether this reduction of ``spec``'s statistic is a count-ratio measure that :func:`reduce_together`
        evaluates with others in one pass."""
        if self.measure not in MEASURES or spec.kind not in ("confmat", "counts"):
            return False
        return self.measure != "jaccard_index" or spec.ignore_index is None or spec.task != "multiclass"


def reduce_together(
    spec: CountSpec, states: dict[str, Tensor], reductions: list[Reduction]
) -> tuple[list[Tensor], frozenset[int]]:
    """The values of several reductions of one statistic, each equal to ``reduction(spec, states)``: the
    count-ratio measures among them in one :func:`reduce_measures` pass, the others one by one. Also the
    indices of the values made together: new tensors that nothing else holds (distinct elements of one
    result, or a whole-matrix measure's new value), which the caller need not copy."""
    joined, requests, made_together = _together(spec, reductions)
    values: list = [None] * len(reductions)
    if joined:
        if spec.kind == "confmat" and spec.task == "multiclass" and not spec.samplewise:
            # off the matrix's summary, which its MCC and Cohen's kappa read too: no per-class counts made
            together = confmat_measures(states["confmat"], requests, top_k=spec.top_k)
        else:
            counts = spec.counts(states)
            together = reduce_measures(counts, requests, multiclass=spec.task == "multiclass", top_k=spec.top_k)
        for i, value in zip(joined, together):
            values[i] = value
    values = [reduction(spec, states) if value is None else value for reduction, value in zip(reductions, values)]
    return values, made_together


def reads_only_summary(spec: CountSpec, reductions: list[Reduction]) -> bool:
    """Whether :func:`reduce_together` of ``reductions`` reads a multiclass confusion matrix only through its
    summary (``confmat_summary``): the count-ratio measures it joins in one pass, MCC and unweighted kappa.
    Then a stand-in whose summary is seeded serves for the matrix (``Codes.summary_stand_in``)."""
    if spec.kind != "confmat" or spec.task != "multiclass" or spec.samplewise:
        return False
    joined = _together(spec, reductions)[0]
    return all(
        i in joined
        or r.measure == "matthews_corrcoef"
        or (r.measure == "cohen_kappa" and r.weights not in ("linear", "quadratic"))
        for i, r in enumerate(reductions)
    )


def _together(spec: CountSpec, reductions: list[Reduction]) -> tuple[tuple[int, ...], tuple, frozenset[int]]:
    """Which of ``reductions`` join one pass, their requests, and the indices of the new values; the same
    objects (a collection's members, on every ``forward``) are answered from a cache."""
    return _TOGETHER.get((spec, *reductions), lambda: _plan_together(spec, reductions))


def _plan_together(spec: CountSpec, reductions: list[Reduction]) -> tuple[tuple[int, ...], tuple, frozenset[int]]:
    joined = tuple(i for i, r in enumerate(reductions) if r.joins(spec))
    if len(joined) < 2:
        joined = ()
    binary = spec.task == "binary"
    requests = tuple(
        MeasureRequest(r.measure, "binary" if binary else r.average, r.zero_division, r.beta)
        for r in map(reductions.__getitem__, joined)
    )
    made_together = frozenset(joined) | {i for i, r in enumerate(reductions) if r.measure in _FRESH_VALUES}
    return joined, requests, made_together


_TOGETHER = IdentityCache()


# whole-matrix measures whose value is always a new tensor, computed from the states (never one of them)
_FRESH_VALUES = frozenset({"matthews_corrcoef", "cohen_kappa"})


def evaluate(
    spec: CountSpec, reduction: Reduction, preds: Tensor, target: Tensor, sample_weight: Any = None
) -> Tensor:
    """The functional path: one batch's statistic (weighted by ``sample_weight``), reduced."""
    return reduction(spec, spec.batch(preds, target, sample_weight=sample_weight))


# ---------------------------------------------------------------- checked constructors
def binary_spec(
    threshold: float = 0.5,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
    need: str = "counts",
) -> CountSpec:
    _inputs.check_threshold(threshold)
    _inputs.check_in("multidim_average", multidim_average, _inputs.MULTIDIM_AVERAGES)
    _inputs.check_ignore_index(ignore_index)
    return CountSpec.make("binary", 1, threshold, 1, multidim_average, ignore_index, bool(validate_args), need)


# Measures whose micro average needs no number of classes: a right label is a true positive, a
# wrong one a false positive and a false negative, and true negatives never enter.
_MICRO_WITHOUT_CLASSES = ("accuracy", "precision", "recall", "fbeta", "hamming_distance")


def multiclass_spec(
    num_classes: Optional[int],
    top_k: int = 1,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
    need: str = "counts",
    reduction: Optional[Reduction] = None,
) -> CountSpec:
    """``num_classes=None`` (micro averages of :data:`_MICRO_WITHOUT_CLASSES` only, as torchmetrics
    allows) keeps the number of right labels and of labels instead of per-class counts."""
    _inputs.check_in("multidim_average", multidim_average, _inputs.MULTIDIM_AVERAGES)
    _inputs.check_ignore_index(ignore_index)
    if num_classes is None:
        measure = None if reduction is None else reduction.measure
        if reduction is None or reduction.average != "micro" or measure not in _MICRO_WITHOUT_CLASSES:
            raise ValueError(
                "Argument `num_classes`=None needs `average`='micro' and a measure that counts no true negatives "
                f"({', '.join(_MICRO_WITHOUT_CLASSES)}), got {measure!r} with `average`="
                f"{None if reduction is None else reduction.average!r}"
            )
        if top_k != 1:
            raise ValueError(f"Argument `top_k`={top_k} needs `num_classes`, got None")
        return CountSpec.make("multiclass", None, 0.5, 1, multidim_average, ignore_index, bool(validate_args), "labels")
    _inputs.check_count("num_classes", num_classes)
    _inputs.check_top_k(top_k, num_classes)
    return CountSpec.make(
        "multiclass", num_classes, 0.5, top_k, multidim_average, ignore_index, bool(validate_args), need
    )


def multilabel_spec(
    num_labels: int,
    threshold: float = 0.5,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
    need: str = "counts",
    reduction: Optional[Reduction] = None,
) -> CountSpec:
    """``reduction`` with ``average="samples"`` selects the per-example statistic of its measure."""
    _inputs.check_count("num_labels", num_labels)
    _inputs.check_threshold(threshold)
    _inputs.check_in("multidim_average", multidim_average, _inputs.MULTIDIM_AVERAGES)
    _inputs.check_ignore_index(ignore_index)
    measure = None
    if reduction is not None and reduction.average == "samples":
        if reduction.measure not in MEASURES:
            raise ValueError(f"Argument `average`='samples' is not available for {reduction.measure}")
        if multidim_average != "global":
            raise ValueError(
                f"Argument `average`='samples' needs `multidim_average`='global', got {multidim_average!r}"
            )
        need, measure = "samples", (reduction.measure, reduction.beta)
    return CountSpec.make(
        "multilabel", num_labels, threshold, 1, multidim_average, ignore_index, bool(validate_args), need, measure
    )


def reduction(
    measure: str,
    average: Optional[str] = "micro",
    zero_division: float = 0.0,
    beta: float = 1.0,
    normalize: Optional[str] = None,
    weights: Optional[str] = None,
    samples: bool = False,
) -> Reduction:
    """A checked :class:`Reduction` (``samples`` allows ``average="samples"``, multilabel only)."""
    _inputs.check_in("average", average, SAMPLES_AVERAGES if samples else _inputs.AVERAGES)
    _inputs.check_zero_division(zero_division)
    _inputs.check_beta(beta)
    _inputs.check_in("normalize", normalize, _inputs.NORMALIZATIONS)
    _inputs.check_in("weights", weights, _inputs.KAPPA_WEIGHTS)
    return Reduction(measure, average, float(zero_division), float(beta), normalize, weights)



def ratio_statistic(task: str, measure: str, arguments: Mapping[str, Any]) -> tuple[CountSpec, Reduction]:
    """The checked statistic and reduction of a count-ratio measure, from its torchmetrics arguments.

    One place for the functions (``arguments`` is their ``locals()``) and the modular classes (their
    recorded arguments): ``threshold``, ``num_classes``/``num_labels``, ``average``, ``top_k``,
    ``multidim_average``, ``ignore_index``, ``validate_args``, ``zero_division`` and ``beta``.

    >>> spec, red = ratio_statistic("multiclass", "accuracy", {"num_classes": 3, "average": "macro"})
    >>> spec.kind, red.average
    ('confmat', 'macro')
    """
    get = arguments.get
    zero_division, beta = get("zero_division", 0), get("beta", 1.0)
    common = (get("multidim_average", "global"), get("ignore_index"), get("validate_args", True))
    if task == "binary":
        return binary_spec(get("threshold", 0.5), *common), reduction(measure, zero_division=zero_division, beta=beta)
    if task == "multiclass":
        red = reduction(measure, get("average", "macro"), zero_division, beta)
        return multiclass_spec(get("num_classes"), get("top_k", 1), *common, reduction=red), red
    red = reduction(measure, get("average", "macro"), zero_division, beta, samples=measure in MEASURES)
    return multilabel_spec(get("num_labels"), get("threshold", 0.5), *common, reduction=red), red


def matrix_statistic(task: str, measure: str, arguments: Mapping[str, Any]) -> tuple[CountSpec, Reduction]:
    """The checked statistic and reduction of a measure read off a whole confusion matrix
    (``jaccard_index``, ``matthews_corrcoef``, ``cohen_kappa``, ``confusion_matrix``) or of exact
    match, from its torchmetrics arguments; like :func:`ratio_statistic`, for functions and classes.

    >>> spec, red = matrix_statistic("multiclass", "cohen_kappa", {"num_classes": 3, "weights": "linear"})
    >>> spec.kind, red.weights
    ('confmat', 'linear')
    """
    get = arguments.get
    need = "exact" if measure == "exact_match" else "confmat"
    samples = task == "multilabel" and measure == "jaccard_index"
    red = reduction(measure, get("average", "micro"), get("zero_division", 0.0), normalize=get("normalize"),
                    weights=get("weights"), samples=samples)
    common = (get("multidim_average", "global"), get("ignore_index"), get("validate_args", True), need)
    if task == "binary":
        return binary_spec(get("threshold", 0.5), *common), red
    if task == "multiclass":
        return multiclass_spec(get("num_classes"), 1, *common), red
    return multilabel_spec(get("num_labels"), get("threshold", 0.5), *common, reduction=red), red


# the argument that sizes each task's inputs (a binary task has none); the curve modules read it too
_SIZES = {"multiclass": "num_classes", "multilabel": "num_labels"}


@functools.lru_cache(maxsize=None)
def _parameters(target: Callable) -> frozenset:
    return frozenset(inspect.signature(target).parameters)


def call_for_task(arguments: Mapping[str, Any], targets: Mapping[str, Callable], **extra: Any) -> Any:
    """The body of every ``task=`` wrapper: call the task's function (or class) with the arguments it takes.

    ``arguments`` is the wrapper's ``locals()``; ``targets`` maps the tasks it offers to their
    function or class; ``extra`` (a class wrapper's ``**kwargs``) goes through as it is. The
    multiclass and multilabel targets need an int ``num_classes`` / ``num_labels``.

    >>> call_for_task({"task": "binary", "x": 1, "num_classes": None}, {"binary": lambda x: x + 1})
    2
    """
    task = check_task(arguments["task"], tuple(targets))
    size = _SIZES.get(task)
    if size in arguments and (isinstance(arguments[size], bool) or not isinstance(arguments[size], int)):
        raise ValueError(f"Argument `{size}` must be an int for task={task!r}, got {arguments[size]!r}")
    target = targets[task]
    accepted = _parameters(target)
    return target(**{k: v for k, v in arguments.items() if k in accepted}, **extra)
