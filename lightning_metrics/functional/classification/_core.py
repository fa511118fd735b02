"""Glue shared by the functional and the modular count-based metrics.

A metric is a :class:`~._counts.CountSpec` (what to accumulate, checked once here) and a
:class:`Reduction` (what to compute from it). A function builds both, takes one batch and reduces
it; a modular metric keeps the spec's states across batches and reduces them in ``compute``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from torch import Tensor

from lightning_metrics.functional.classification import _inputs
from lightning_metrics.functional.classification._counts import CountSpec
from lightning_metrics.functional.classification._measures import (
    MEASURES,
    cohen_kappa,
    matthews_corrcoef,
    normalize_confmat,
    reduce_measure,
    reduce_stat_scores,
    safe_divide,
)

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
        name = self.measure
        if spec.kind == "exact":
            if spec.samplewise:
                return safe_divide(states["matches"][:, 0], states["matches"][:, 1])
            return safe_divide(states["correct"], states["total"])
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


def evaluate(spec: CountSpec, reduction: Reduction, preds: Tensor, target: Tensor) -> Tensor:
    """The functional path: one batch's statistic, reduced."""
    return reduction(spec, spec.batch(preds, target))


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


def multiclass_spec(
    num_classes: int,
    top_k: int = 1,
    multidim_average: str = "global",
    ignore_index: Optional[int] = None,
    validate_args: bool = True,
    need: str = "counts",
) -> CountSpec:
    _inputs.check_count("num_classes", num_classes)
    _inputs.check_top_k(top_k, num_classes)
    _inputs.check_in("multidim_average", multidim_average, _inputs.MULTIDIM_AVERAGES)
    _inputs.check_ignore_index(ignore_index)
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

