"""Count-based measures, each written once, and the one averaging operator over them.

Every measure is a ratio of sums of the four counts (true/false positives/negatives) of one class
or label against the rest; :data:`MEASURES` lists them. :func:`reduce_measure` applies one with
torchmetrics' averaging rules:

- ``"binary"``: the ratio of the counts as they are;
- ``"micro"``: the ratio of the counts summed over classes;
- ``"macro"`` / ``"weighted"``: per-class ratios averaged with weight 1 / the support ``tp + fn``;
  in multiclass ``"macro"`` a class that appears nowhere (``tp + fp + fn == 0``, or ``tp + fn == 0``
  for the measures torchmetrics computes that way when ``top_k > 1``) gets weight 0;
- ``"none"`` / ``None``: the per-class ratios;
- 0/0 gives ``zero_division`` for the measures that take it and 0 otherwise, and an average with
  no weight at all is 0 (NaN for the Jaccard index, as in torchmetrics).

The measures over a whole confusion matrix (MCC, Cohen's kappa, the normalized matrix) and its summary,
which :func:`confmat_measures` reads too, live in :mod:`._matrix_measures`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, NamedTuple, Optional, Sequence

import torch
from torch import Tensor

from lightning_metrics.functional.classification._matrix_measures import confmat_summary, exact_dtype
from lightning_metrics.utilities.memo import derived


class Counts(NamedTuple):
    """True/false positives/negatives, one entry per class (last dim) or a scalar for binary."""

    tp: Tensor
    fp: Tensor
    tn: Tensor
    fn: Tensor

    @classmethod
    def from_ovr(cls, ovr: Tensor) -> Counts:
        """From one-vs-rest matrices ``(..., 2, 2)`` laid out ``[[tn, fp], [fn, tp]]``."""
        return cls(tp=ovr[..., 1, 1], fp=ovr[..., 0, 1], tn=ovr[..., 0, 0], fn=ovr[..., 1, 0])

    @classmethod
    def from_confmat(cls, confmat: Tensor) -> Counts:
        """Per-class counts of a ``(C, C)`` confusion matrix (rows: target, columns: prediction)."""
        rows, cols, _, total = confmat_marginals(confmat)
        tp = confmat.diagonal()
        fp = cols - tp
        fn = rows - tp
        return cls(tp=tp, fp=fp, tn=total - tp - fp - fn, fn=fn)

    def summed(self) -> Counts:
        """Counts summed over the class dimension (micro averaging)."""
        return Counts(*(c.sum(-1) for c in self))


def confmat_marginals(confmat: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Row sums (targets), column sums (predictions), trace and total of a ``(C, C)`` confusion matrix:
    two passes over the matrix, shared by every measure read off the same matrix (``derived``)."""
    return derived("confmat_marginals", confmat, _marginals)


def _marginals(confmat: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    rows = confmat.sum(1)
    return rows, confmat.sum(0), confmat.diagonal().sum(), rows.sum()


def safe_divide(num: Tensor, den: Tensor, zero_division: float = 0.0) -> Tensor:
    """``num / den`` in float, with ``zero_division`` where ``den == 0``.

    >>> safe_divide(torch.tensor([1, 2]), torch.tensor([0, 4]))
    tensor([0.0000, 0.5000])
    """
    num = num if num.is_floating_point() else num.float()
    den = den if den.is_floating_point() else den.float()
    return torch.where(den != 0, num / den, float(zero_division))  # a Python scalar takes num's dtype


Ratio = Callable[[Counts, float], "tuple[Tensor, Tensor]"]


@dataclass(frozen=True)
class Measure:
    """One count-based measure: ``num / den`` of the counts (``beta`` is the F-beta weight)."""

    ratio: Ratio
    multiclass_ratio: Optional[Ratio] = None  # per-class form for multiclass input, when it differs
    complement: bool = False  # report 1 - ratio (hamming distance)
    takes_zero_division: bool = True
    support_weights_top_k: bool = False  # torchmetrics drops classes with tp + fn == 0 when top_k > 1
    higher_is_better: Optional[bool] = True
    nan_without_weight: bool = False  # torchmetrics' Jaccard divides macro/weighted sums unguarded

    def value(self, counts: Counts, multiclass: bool = False, zero_division: float = 0.0, beta: float = 1.0) -> Tensor:
        ratio = self.multiclass_ratio if multiclass and self.multiclass_ratio else self.ratio
        num, den = ratio(counts, beta)
        value = safe_divide(num, den, zero_division if self.takes_zero_division else 0.0)
        return 1 - value if self.complement else value


def _all(c: Counts) -> Tensor:
    return c.tp + c.fp + c.tn + c.fn


def _fbeta(c: Counts, beta: float) -> tuple[Tensor, Tensor]:
    b2 = beta**2
    return (1 + b2) * c.tp, (1 + b2) * c.tp + b2 * c.fn + c.fp


# Multiclass accuracy and hamming distance are per class "recall": a class's true negatives are
# other classes' business (torchmetrics' definition); binary and multilabel ones count them.
MEASURES: dict[str, Measure] = {
    "accuracy": Measure(
        ratio=lambda c, b: (c.tp + c.tn, _all(c)),
        multiclass_ratio=lambda c, b: (c.tp, c.tp + c.fn),
        takes_zero_division=False,
        support_weights_top_k=True,
    ),
    "hamming_distance": Measure(
        ratio=lambda c, b: (c.tp + c.tn, _all(c)),
        multiclass_ratio=lambda c, b: (c.tp, c.tp + c.fn),
        complement=True,
        takes_zero_division=False,
        higher_is_better=False,
    ),
    "precision": Measure(ratio=lambda c, b: (c.tp, c.tp + c.fp), support_weights_top_k=True),
    "recall": Measure(ratio=lambda c, b: (c.tp, c.tp + c.fn), support_weights_top_k=True),
    "fbeta": Measure(ratio=_fbeta),
    "specificity": Measure(ratio=lambda c, b: (c.tn, c.tn + c.fp), takes_zero_division=False, higher_is_better=None),
    "negative_predictive_value": Measure(
        ratio=lambda c, b: (c.tn, c.tn + c.fn), support_weights_top_k=True, higher_is_better=None
    ),
    "jaccard_index": Measure(ratio=lambda c, b: (c.tp, c.tp + c.fp + c.fn), nan_without_weight=True),
}


def reduce_measure(
    name: str,
    counts: Counts,
    average: Optional[str],
    *,
    multiclass: bool = False,
    top_k: int = 1,
    zero_division: float = 0.0,
    beta: float = 1.0,
    dropped_class: Optional[int] = None,
) -> Tensor:
    """Apply measure ``name`` to ``counts`` and average over the last (class) dimension.

    ``dropped_class`` leaves one class out of micro/macro averages (Jaccard with an in-range
    ``ignore_index``, as torchmetrics does).

    >>> c = Counts(tp=torch.tensor([2, 0, 1]), fp=torch.tensor([1, 0, 0]),
    ...            tn=torch.tensor([3, 6, 5]), fn=torch.tensor([0, 0, 1]))
    >>> reduce_measure("precision", c, None, multiclass=True)
    tensor([0.6667, 0.0000, 1.0000])
    >>> reduce_measure("precision", c, "macro", multiclass=True)  # class 1 is absent: weight 0
    tensor(0.8333)
    >>> reduce_measure("precision", c, "micro", multiclass=True)
    tensor(0.7500)
    """
    measure = MEASURES[name]

    def value(c: Counts) -> Tensor:
        return measure.value(c, multiclass, zero_division, beta)

    if average == "binary":
        return value(counts)
    if dropped_class is not None and average in ("micro", "macro"):
        keep = torch.arange(counts.tp.shape[-1], device=counts.tp.device) != dropped_class
        counts = Counts(*(c * keep for c in counts))
    if average == "micro":
        return value(counts.summed())
    scores = value(counts)
    if average is None or average == "none":
        return scores
    if average == "weighted":
        weights = (counts.tp + counts.fn).to(scores.dtype)
    else:
        weights = torch.ones_like(scores)
        if multiclass:
            by_support = top_k > 1 and measure.support_weights_top_k
            seen = counts.tp + counts.fn if by_support else counts.tp + counts.fp + counts.fn
            weights = weights * (seen != 0)
        if dropped_class is not None:
            weights = weights * keep
    if measure.nan_without_weight:
        return (weights * scores / weights.sum(-1, keepdim=True)).sum(-1)
    return safe_divide(weights * scores, weights.sum(-1, keepdim=True)).sum(-1)


class MeasureRequest(NamedTuple):
    """One count-ratio measure asked of :func:`reduce_measures` (its :func:`reduce_measure` arguments)."""

    name: str
    average: Optional[str]
    zero_division: float = 0.0
    beta: float = 1.0


def reduce_measures(
    counts: Counts, requests: Sequence[MeasureRequest], *, multiclass: bool = False, top_k: int = 1
) -> list[Tensor]:
    """Several measures of the same counts at once, each equal to :func:`reduce_measure`'s value.

    Every measure's numerator and denominator (and the class weights of its average) are linear in the
    four counts, with coefficients that its ratio gives on unit counts. So one product of a coefficient
    matrix with the stacked counts yields them all, for every class and for the micro sums, and the
    division, the zero-division rule and the averaging run once over all the measures (a few kernels
    instead of a dozen per measure: what a collection's ``forward`` pays for each batch).

    >>> c = Counts(tp=torch.tensor([2, 0, 1]), fp=torch.tensor([1, 0, 0]),
    ...            tn=torch.tensor([3, 6, 5]), fn=torch.tensor([0, 0, 1]))
    >>> reduce_measures(c, [MeasureRequest("precision", "macro"), MeasureRequest("recall", "micro"),
    ...                     MeasureRequest("jaccard_index", None)], multiclass=True)
    [tensor(0.8333), tensor(0.7500), tensor([0.6667, 0.0000, 0.5000])]
    """
    plan = _plan(tuple(requests), multiclass, top_k, counts.tp.device)
    stacked = torch.stack(tuple(counts))  # (4, ..., C), or (4, ...) for binary counts
    if plan.binary:
        stacked = stacked.unsqueeze(-1)
    return _evaluate(plan, plan.coefficients, stacked.to(plan.coefficients.dtype), requests)


def confmat_measures(confmat: Tensor, requests: Sequence[MeasureRequest], *, top_k: int = 1) -> list[Tensor]:
    """:func:`reduce_measures` of the per-class counts of a ``(C, C)`` multiclass confusion matrix, read off its
    :func:`confmat_summary` (which MCC and Cohen's kappa of the same matrix read too): the counts are
    linear in the summary's basis, so their coefficients are folded into the measures' and the counts
    themselves are never made.

    >>> confmat_measures(torch.tensor([[2, 1], [0, 3]]), [MeasureRequest("precision", "macro"),
    ...                                                   MeasureRequest("recall", None)])
    [tensor(0.8750), tensor([0.6667, 1.0000])]
    """
    plan = _plan(tuple(requests), True, top_k, confmat.device)
    basis, _ = confmat_summary(confmat)
    return _evaluate(plan, plan.on_confmat, basis, requests)


def _evaluate(plan: _Plan, coefficients: Tensor, stacked: Tensor, requests: Sequence[MeasureRequest]) -> list[Tensor]:
    """The measures of ``plan`` from the exact ``stacked`` rows (``(K, ..., C)``) that ``coefficients``
    ``(3M, K)`` map to their numerators, denominators and weight supports."""
    classes = stacked.shape[-1]
    if plan.micro:
        stacked = torch.cat([stacked, stacked.sum(-1, keepdim=True)], -1)  # the last column: micro sums
    if stacked.ndim == 2:
        linear = (coefficients @ stacked).float()
        flags = plan  # the per-measure flags are (M, 1) columns against the (M, C) values
    else:
        linear = torch.tensordot(coefficients, stacked, dims=1).float()
        rows = (len(requests),) + (1,) * (stacked.ndim - 1)
        flags = plan._replace(**{name: getattr(plan, name).view(rows) for name in _FLAGS})
    num, den, seen = linear.view(3, len(requests), *linear.shape[1:]).unbind(0)
    scores = torch.where(den != 0, num / den, flags.zero_division)
    if plan.complements:
        scores = torch.where(flags.complement, 1 - scores, scores)
    if plan.weighted:
        per_class, seen = (scores[..., :classes], seen[..., :classes]) if plan.micro else (scores, seen)
        # weight 1 for a class seen (as a bool: the same products and sums), else the support
        weights = seen != 0 if plan.all_present else torch.where(flags.present, seen != 0, seen)
        if plan.uniform_rows:
            weights = torch.where(flags.uniform, 1.0, weights)
        total = weights.sum(-1, keepdim=True)
        # no weight at all: 0, or NaN for the measures whose average torchmetrics divides unguarded
        averaged = torch.where(total != 0, weights * per_class / total, flags.weightless).sum(-1).unbind(0)
    kinds = {
        "binary": lambda: scores[..., 0].unbind(0),
        "micro": lambda: scores[..., -1].unbind(0),
        "macro": lambda: averaged,
        "weighted": lambda: averaged,
    }
    per_kind: dict = {}
    values = []
    for i, request in enumerate(requests):
        kind = request.average if request.average in kinds else "none"
        if kind not in per_kind:
            per_kind[kind] = kinds[kind]() if kind in kinds else scores[..., :classes].unbind(0)
        values.append(per_kind[kind][i])
    return values


class _Plan(NamedTuple):
    binary: bool  # counts without a class dimension (``average="binary"``)
    micro: bool  # some measure averages the summed counts
    weighted: bool  # some measure averages per-class values
    complements: bool  # some measure reports 1 - ratio
    uniform_rows: bool  # some measure weighs every class alike
    all_present: bool  # every measure weighs a class seen 1, one never seen 0 (multiclass macro)
    coefficients: Tensor  # (3M, 4): numerators, denominators, weight supports of the M measures
    on_confmat: Tensor  # (3M, 4): the same over the basis of a confusion matrix's summary
    # the flags, (M, 1) columns: the value of 0/0; report 1 - ratio; weight 1 for a class seen, 0 otherwise
    # (multiclass macro); weight 1 for every class (macro otherwise); an average without any weight (0, or NaN)
    zero_division: Tensor
    complement: Tensor
    present: Tensor
    uniform: Tensor
    weightless: Tensor


_FLAGS = ("zero_division", "complement", "present", "uniform", "weightless")


_UNIT = Counts(*torch.eye(4, dtype=torch.float64).unbind(0))  # tp, fp, tn, fn: coefficients of the counts
# the counts over a confusion matrix's summary basis (diagonal, rows, cols, total): tp = diagonal,
# fp = cols - diagonal, tn = total - rows - cols + diagonal, fn = rows - diagonal
_COUNTS_ON_CONFMAT = torch.tensor(
    [[1, 0, 0, 0], [-1, 0, 1, 0], [1, -1, -1, 1], [-1, 1, 0, 0]], dtype=torch.float64
)
_PLANS: dict = {}


def _plan(requests: tuple, multiclass: bool, top_k: int, device: torch.device) -> _Plan:
    key = (requests, multiclass, top_k, device)
    plan = _PLANS.get(key)
    if plan is None:
        if len(_PLANS) > 256:  # a long-lived process that builds many metrics
            _PLANS.clear()
        plan = _PLANS[key] = _make_plan(requests, multiclass, top_k, device)
    return plan


def _make_plan(requests: tuple, multiclass: bool, top_k: int, device: torch.device) -> _Plan:
    nums, dens, supports, flags = [], [], [], []
    for request in requests:
        measure = MEASURES[request.name]
        ratio = measure.multiclass_ratio if multiclass and measure.multiclass_ratio else measure.ratio
        num, den = ratio(_UNIT, request.beta)
        if request.average == "weighted" or (top_k > 1 and measure.support_weights_top_k):
            support = _UNIT.tp + _UNIT.fn
        else:
            support = _UNIT.tp + _UNIT.fp + _UNIT.fn
        nums.append(num)
        dens.append(den)
        supports.append(support)
        macro = request.average == "macro"
        flags.append((
            request.zero_division if measure.takes_zero_division else 0.0,
            measure.complement,
            macro and multiclass,
            macro and not multiclass,
            measure.nan_without_weight,
        ))
    exact = exact_dtype(device)
    coefficients = torch.stack(nums + dens + supports)
    zero_division, complement, present, uniform, unguarded = zip(*flags)
    averages = {r.average for r in requests}
    return _Plan(
        binary="binary" in averages,
        micro="micro" in averages,
        weighted=bool(averages & {"macro", "weighted"}),
        complements=any(complement),
        uniform_rows=any(uniform),
        all_present=all(present),
        coefficients=coefficients.to(device=device, dtype=exact),
        on_confmat=(coefficients @ _COUNTS_ON_CONFMAT).to(device=device, dtype=exact),
        zero_division=torch.tensor(zero_division, dtype=torch.float32, device=device).unsqueeze(1),
        complement=torch.tensor(complement, device=device).unsqueeze(1),
        present=torch.tensor(present, device=device).unsqueeze(1),
        uniform=torch.tensor(uniform, device=device).unsqueeze(1),
        weightless=torch.tensor(
            [math.nan if u else 0.0 for u in unguarded], dtype=torch.float32, device=device
        ).unsqueeze(1),
    )


def reduce_stat_scores(counts: Counts, average: Optional[str], pool_support: bool = False) -> Tensor:
    """``[tp, fp, tn, fn, support]`` along a new last dim, averaged over classes like torchmetrics.

    The weighted average divides by the total support unguarded (NaN without support), as torchmetrics;
    with ``pool_support`` (multilabel samplewise, as torchmetrics) by the support summed over every
    sample too, so a sample whose labels are all absent contributes zeros instead of NaN.

    >>> counts = Counts(tp=torch.tensor([[0, 0], [1, 2]]), fp=torch.tensor([[1, 0], [0, 0]]),
    ...                 tn=torch.tensor([[1, 2], [1, 0]]), fn=torch.tensor([[0, 0], [0, 0]]))
    >>> reduce_stat_scores(counts, "weighted", pool_support=True)[:, 0]
    tensor([0.0000, 1.6667])
    """
    res = torch.stack([counts.tp, counts.fp, counts.tn, counts.fn, counts.tp + counts.fn], dim=-1)
    if average in ("binary", None, "none"):
        return res
    if average == "micro":
        return res.sum(-2)
    if average == "macro":
        return (res if res.is_floating_point() else res.float()).mean(-2)
    support = counts.tp + counts.fn
    total = support.sum() if pool_support else support.sum(-1, keepdim=True)
    return (res * (support / total).unsqueeze(-1)).sum(-2)


def samples_row_values(name: str, counts: Counts, beta: float = 1.0) -> tuple[Tensor, Tensor]:
    """Per-example values of measure ``name`` (0/0 -> 0) and a mask of the 0/0 examples."""
    measure = MEASURES[name]
    _, den = measure.ratio(counts, beta)
    return measure.value(counts, False, 0.0, beta).double(), den == 0
