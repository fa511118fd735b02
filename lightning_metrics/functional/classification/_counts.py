"""The sufficient statistics of count-based classification metrics.

One statistic per input spec, each filled with ONE histogram per batch (the confusion matrix: one
scatter of the batch's codes into the state, :class:`Codes`):

=============  ==================================================  =============================
kind           input spec                                          state
=============  ==================================================  =============================
``confmat``    multiclass, ``top_k=1``, global                     ``confmat`` (C, C) int64
``counts``     binary / multilabel / multiclass ``top_k>1``, or    ``counts`` (..., 2, 2) int64,
               samplewise                                          ``[[tn, fp], [fn, tp]]`` per
                                                                   class; per sample: ``cat``
``exact``      exact match                                         ``correct``, ``total``
``labels``     multiclass micro without ``num_classes``            ``correct``, ``total`` labels
``samples``    multilabel ``average="samples"``                    running sum, 0/0 count, count
=============  ==================================================  =============================

:class:`CountSpec` is hashable and is the ``statistic_spec`` of the modular metrics: two metrics
with equal specs keep identical states, so a collection updates them once. The spec holds what
shapes the state (task, size, threshold, top_k, ignore_index, per-sample or not, validation) and
nothing that only ``compute`` uses (average, zero_division, beta, normalization).

Ignored positions are sent to one extra histogram bin that is dropped (or add weight 0), so ``update`` has no
data-dependent shapes and no host sync when ``validate_args=False``.

Sample weights (``sample_weight``, the rules of :mod:`lightning_metrics.utilities.sample_weight`) make every
count a float64 sum of weights: the histogram adds each code's weight instead of 1 (``torch.bincount`` with
``weights`` on CPU, an accumulating ``index_put_`` elsewhere), and an ignored position still counts nowhere.
Without weights nothing changes: one ``if``. The ``exact`` and ``samples`` statistics count examples (a
sample, or a sample's position in its extra dimensions), so they take one weight per sample.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, NamedTuple, Optional

import torch
from torch import Tensor

from lightning_metrics.functional.classification import _inputs, _matrix_measures
from lightning_metrics.functional.classification._measures import Counts, samples_row_values
from lightning_metrics.utilities import memo
from lightning_metrics.utilities.exceptions import MetricInputError
from lightning_metrics.utilities.memo import derived
from lightning_metrics.utilities.sample_weight import as_sample_weight

_LONG = torch.long
_WEIGHTED = torch.float64


def histogram(codes: Tensor, size: int, weights: Optional[Tensor] = None) -> Tensor:
    """How often each code in ``[0, size)`` occurs (with ``weights``: the float64 sum of its weights); code
    ``size`` is the discarded bin.

    >>> histogram(torch.tensor([0, 2, 2, 3]), 3)
    tensor([1, 0, 2])
    >>> histogram(torch.tensor([0, 2, 2, 3]), 3, weights=torch.tensor([0.5, 1.0, 2.0, 7.0]))
    tensor([0.5000, 0.0000, 3.0000], dtype=torch.float64)
    """
    codes = codes.reshape(-1)
    if weights is not None:
        weights = weights.reshape(-1).to(_WEIGHTED)
    if codes.device.type == "cpu":
        return torch.bincount(codes, weights=weights, minlength=size + 1)[:size]
    # torch.bincount reads the maximum back to the host on accelerators; an accumulating index_put does not
    dtype = _LONG if weights is None else _WEIGHTED
    out = torch.zeros(size + 1, dtype=dtype, device=codes.device)
    if weights is None:
        weights = torch.ones((), dtype=_LONG, device=codes.device).expand_as(codes)
    out.index_put_((codes,), weights, accumulate=True)
    return out[:size]


def _weighted_where(valid: Optional[Tensor], weight: Optional[Tensor]) -> Optional[Tensor]:
    """The weight of each position: 0 where ``valid`` is false (``None`` without weights)."""
    if weight is None or valid is None:
        return weight
    return torch.where(valid, weight, 0.0)


def _discard(codes: Tensor, valid: Optional[Tensor], bin_: int) -> Tensor:
    return codes if valid is None else torch.where(valid, codes, bin_)


class Codes(NamedTuple):
    """A histogram not made yet: ``codes`` in ``[0, size)`` each adding its ``weight`` (1, or 0 for an ignored
    position) to a bin of a ``shape``-shaped state. :meth:`add_to` adds them into the state in place, one
    scatter of the batch, however many bins the state has (a confusion matrix of C^2 bins is not
    made and added whole); :meth:`dense` is the histogram itself.

    >>> state = torch.zeros(2, 2, dtype=torch.long)
    >>> codes = Codes(torch.tensor([0, 3, 3]), torch.tensor([1, 1, 0]), (2, 2))
    >>> codes.add_to(state)
    >>> state
    tensor([[1, 0],
            [0, 1]])
    >>> codes.dense()
    tensor([[1, 0],
            [0, 1]])
    """

    codes: Tensor
    weights: Tensor  # int64 counts, or float64 sample weights
    shape: tuple

    def add_to(self, state: Tensor) -> None:
        weights = self.weights if self.weights.dtype == state.dtype else self.weights.to(state.dtype)
        if not state.is_contiguous():
            state.add_(self.dense().to(state.dtype))
        elif state.device.type == "cpu":
            state.view(-1).index_add_(0, self.codes, weights)
        else:  # accumulating index_put is deterministic on accelerators (integer sums are exact anyway)
            state.view(-1).index_put_((self.codes,), weights, accumulate=True)

    def scatters(self) -> bool:
        """Whether the histogram has more bins than the batch has codes: added by scattering the codes, rather
        than as the dense histogram."""
        return math.prod(self.shape) > self.codes.numel()

    def dense(self) -> Tensor:
        dtype = self.weights.dtype if self.weights.is_floating_point() else _LONG
        out = torch.zeros(self.shape, dtype=dtype, device=self.codes.device)
        self.add_to(out)
        return out

    def dense_confmat(self) -> Tensor:
        """:meth:`dense` of a ``(C, C)`` confusion matrix; one much larger than its batch has its row and column
        sums counted from the codes too (a scatter of the batch each, not a pass over C^2 bins), for the
        readers of its summary in an open ``shared_derivations`` scope (a collection's ``forward``)."""
        out = self.dense()
        if self.summarizes() and memo.scope_open():
            _, rows, cols = self._marginals(diagonal=False)
            _matrix_measures.seed_summary(out, out.diagonal().to(rows.dtype), rows, cols)
        return out

    def summarizes(self) -> bool:
        """Whether this ``(C, C)`` matrix is so much larger than its batch that its summary is best counted
        from the codes."""
        num_classes = self.shape[1]
        return num_classes * num_classes > _SUMMARY_FROM_CODES * self.codes.numel()

    def summary_stand_in(self) -> Tensor:
        """A ``(C, C)`` stand-in for the matrix, for readers of its summary only (``confmat_summary``: count-ratio
        measures, MCC, unweighted kappa) in an open ``shared_derivations`` scope: the summary is counted from
        the codes (diagonal, row and column sums: a scatter of the batch each) and seeded for it, and the C^2
        bins are never made. Its entries are NOT the matrix's (one zero, broadcast): nothing may read them."""
        if not memo.scope_open():
            raise RuntimeError("a confusion-matrix stand-in needs an open shared_derivations scope")
        diagonal, rows, cols = self._marginals(diagonal=True)
        dtype = self.weights.dtype if self.weights.is_floating_point() else _LONG
        stand_in = torch.zeros((), dtype=dtype, device=self.codes.device).expand(self.shape)
        _matrix_measures.seed_summary(stand_in, diagonal, rows, cols)
        return stand_in

    def _marginals(self, diagonal: bool) -> tuple[Optional[Tensor], Tensor, Tensor]:
        """The diagonal (when asked), row sums and column sums of the ``(C, C)`` matrix, counted from the codes
        in the exact float dtype (the same scatter as the state's: deterministic on accelerators too)."""
        num_classes = self.shape[1]
        exact = _matrix_measures.exact_dtype(self.codes.device)
        target = self.codes.div(num_classes, rounding_mode="floor")
        pred = self.codes - target * num_classes
        sums = [torch.zeros(num_classes, dtype=exact, device=self.codes.device) for _ in range(2 + diagonal)]
        Codes(target, self.weights, (num_classes,)).add_to(sums[0])
        Codes(pred, self.weights, (num_classes,)).add_to(sums[1])
        if diagonal:
            Codes(target, self.weights * (target == pred), (num_classes,)).add_to(sums[2])
        return (sums[2] if diagonal else None), sums[0], sums[1]


_SUMMARY_FROM_CODES = 4  # bins per code above which marginals from the codes beat two passes over the matrix


def confmat_codes(
    target: Tensor, pred: Tensor, valid: Optional[Tensor], num_classes: int, weight: Optional[Tensor] = None
) -> Codes:
    """The ``(C, C)`` confusion matrix (rows: target) of a batch as the codes ``target * C + pred``; each adds
    its ``weight`` (float64, shaped like ``target``) when given."""
    codes = pred.reshape(-1).add(target.reshape(-1), alpha=num_classes)  # pred + C * target, one kernel
    shape = (num_classes, num_classes)
    if weight is not None:
        weight = weight.reshape(-1)
        if valid is None:
            return Codes(codes, weight, shape)
        valid = valid.reshape(-1)
        return Codes(torch.where(valid, codes, 0), torch.where(valid, weight, 0.0), shape)
    if valid is None:
        return Codes(codes, torch.ones_like(codes), shape)
    valid = valid.reshape(-1)
    return Codes(torch.where(valid, codes, 0), valid.long(), shape)


def label_counts(
    target: Tensor,
    pred: Tensor,
    valid: Optional[Tensor],
    num_classes: int,
    num_groups: int = 1,
    weight: Optional[Tensor] = None,
) -> Tensor:
    """One-vs-rest ``(G, C, 2, 2)`` counts of multiclass labels shaped ``(G, M)`` (G groups of M positions).

    Each position adds a true positive or a false negative to its target class and, when wrong, a
    false positive to its predicted class: one bincount over both codes; true negatives follow
    from the number of positions seen. With ``weight`` (float64, shaped like ``target``) each position
    adds its weight instead of 1.
    """
    size = num_groups * num_classes * 3
    offset = torch.arange(num_groups, device=target.device).unsqueeze(1) * num_classes
    hit = pred == target
    t_codes = _discard((offset + target.long()) * 3 + torch.where(hit, 0, 2), valid, size)
    p_codes = _discard(torch.where(hit, size, (offset + pred) * 3 + 1), valid, size)
    weights = None if weight is None else torch.cat([weight.reshape(-1), weight.reshape(-1)])
    tp, fp, fn = histogram(torch.cat([t_codes.reshape(-1), p_codes.reshape(-1)]), size, weights).view(
        num_groups, num_classes, 3
    ).unbind(-1)
    seen = (tp + fn).sum(-1, keepdim=True)
    return torch.stack([seen - tp - fp - fn, fp, fn, tp], dim=-1).view(num_groups, num_classes, 2, 2)


def bit_counts(
    target: Tensor, pred: Tensor, valid: Optional[Tensor], samplewise: bool, weight: Optional[Tensor] = None
) -> Tensor:
    """One-vs-rest ``(G, L, 2, 2)`` counts of 0/1 labels shaped ``(N, L, M)``; G = N or 1. With ``weight``
    (float64, shaped like ``target``) the float64 sums of the positions' weights."""
    n, labels = target.shape[:2]
    groups = n if samplewise else 1
    size = groups * labels * 4
    cell = torch.arange(labels, device=target.device).view(1, labels, 1)
    if samplewise:
        cell = cell + torch.arange(n, device=target.device).view(n, 1, 1) * labels
    codes = _discard(cell * 4 + target.long() * 2 + pred, valid, size)
    return histogram(codes, size, weight).view(groups, labels, 2, 2)


@dataclass(frozen=True)
class CountSpec:
    """What a count-based metric accumulates; equal specs share one state and one update."""

    kind: str  # "confmat" | "counts" | "exact" | "labels" | "samples"
    task: str  # "binary" | "multiclass" | "multilabel"
    size: Optional[int] = 1  # number of classes or labels (1 for binary; None: "labels" only)
    threshold: Optional[float] = None  # binary / multilabel only
    top_k: int = 1
    samplewise: bool = False
    ignore_index: Optional[int] = None
    validate_args: bool = True
    measure: Optional[tuple] = None  # "samples" only: (measure name, beta)

    @classmethod
    def make(
        cls,
        task: str,
        size: Optional[int] = 1,
        threshold: float = 0.5,
        top_k: int = 1,
        multidim_average: str = "global",
        ignore_index: Optional[int] = None,
        validate_args: bool = True,
        need: str = "counts",
        measure: Optional[tuple] = None,
    ) -> CountSpec:
        """The statistic for an input spec; ``need`` is "counts", "confmat", "exact", "labels" or "samples"."""
        samplewise = multidim_average == "samplewise"
        kind = need
        if need in ("counts", "confmat"):
            kind = "confmat" if task == "multiclass" and top_k == 1 and not samplewise else "counts"
        return cls(
            kind=kind,
            task=task,
            size=size if task != "binary" else 1,
            threshold=None if task == "multiclass" else float(threshold),
            top_k=top_k if task == "multiclass" and kind not in ("exact", "labels") else 1,
            samplewise=samplewise,
            ignore_index=ignore_index,
            validate_args=validate_args,
            measure=measure if kind == "samples" else None,
        )

    # -------------------------------------------------------------- states
    def defaults(self) -> dict[str, tuple[Any, str]]:
        """State name -> (default, reduction)."""
        if self.kind == "confmat":
            return {"confmat": (torch.zeros(self.size, self.size, dtype=_LONG), "sum")}
        if self.kind in ("exact", "labels"):
            if self.samplewise:
                return {"matches": ([], "cat")}
            return {"correct": (torch.zeros((), dtype=_LONG), "sum"), "total": (torch.zeros((), dtype=_LONG), "sum")}
        if self.kind == "samples":
            return {
                "sample_sum": (torch.zeros((), dtype=torch.float64), "sum"),
                "sample_zero": (torch.zeros((), dtype=_LONG), "sum"),
                "sample_count": (torch.zeros((), dtype=_LONG), "sum"),
            }
        if self.samplewise:
            return {"counts": ([], "cat")}
        return {"counts": (torch.zeros(self._class_shape() + (2, 2), dtype=_LONG), "sum")}

    @functools.cached_property
    def state_names(self) -> tuple[str, ...]:
        """The names of :meth:`defaults`, without building the default tensors."""
        return tuple(self.defaults())

    @functools.cached_property
    def weighted_state_names(self) -> tuple[str, ...]:
        """The states that hold float64 sums of weights once weighted: the integer counts (and the
        per-sample ``cat`` states of ``samplewise``).

        >>> CountSpec.make("multiclass", 3).weighted_state_names
        ('confmat',)
        >>> CountSpec.make("multilabel", 3, need="samples", measure=("recall", 1.0)).weighted_state_names
        ('sample_zero', 'sample_count')
        """
        return tuple(name for name in self.state_names if name != "sample_sum")

    def _class_shape(self) -> tuple:
        return () if self.task == "binary" else (self.size,)

    def empty(self, name: str, device: torch.device) -> Tensor:
        """The concatenation of no samples, for per-sample states read before any update."""
        per_sample = (2,) if name == "matches" else self._class_shape() + (2, 2)
        return torch.zeros((0,) + per_sample, dtype=_LONG, device=device)

    # -------------------------------------------------------------- one batch
    def validate(self, preds: Tensor, target: Tensor) -> None:
        average = "samplewise" if self.samplewise else "global"
        if self.task == "binary":
            _inputs.validate_binary(preds, target, average, self.ignore_index)
        elif self.task == "multilabel":
            _inputs.validate_multilabel(preds, target, self.size, average, self.ignore_index)
        else:
            # the scores' NaN check runs on the row maxima that the labels are read from (multiclass_labels)
            _inputs.validate_multiclass(preds, target, self.size, average, self.ignore_index, self.top_k, nan=False)

    def batch(
        self, preds: Tensor, target: Tensor, increment: bool = False, sample_weight: Any = None
    ) -> dict[str, Any]:
        """The statistic of one batch, as a state dict (per-sample states as tensors); with ``increment`` a
        confusion matrix comes as its :class:`Codes`, to be added into the state in place (what ``update``
        does: a scatter of the batch instead of a histogram of C^2 bins and its sum with the state).

        With ``sample_weight`` (checked here, before anything is added) the counts are float64 sums of
        weights.
        """
        if self.validate_args:
            self.validate(preds, target)
        weight = None if sample_weight is None else self._weight(sample_weight, target)
        valid = _inputs.valid_mask(target, self.ignore_index)
        if target.is_floating_point():  # whole-number float labels (e.g. BCE targets) count as ints
            target = target.long()
        if self.task == "multiclass":
            pred = _inputs.multiclass_labels(preds, target, self.top_k, check_nan=self.validate_args)
            return self._multiclass_batch(target, pred, valid, increment, weight)
        pred = _inputs.binary_labels(preds, self.threshold)
        n = target.shape[0] if target.ndim else 1
        # explicit sizes, not -1: a reshape of an empty batch cannot infer a dimension
        if self.task == "binary":  # (N, 1, M): one label
            shape = (n, 1, math.prod(target.shape[1:])) if self.samplewise else (1, 1, target.numel())
        else:
            shape = (n, self.size, math.prod(target.shape[2:]))
        target, pred = target.reshape(shape), pred.reshape(shape)
        valid = None if valid is None else valid.reshape(shape)
        if self.kind == "exact":
            ok = pred == target if valid is None else (pred == target) | ~valid
            return self._exact(ok.all(dim=1), weight)
        if self.kind == "samples":
            return self._samples(target, pred, valid, weight)
        if weight is not None:
            weight = weight.reshape(shape)
        counts = bit_counts(target, pred, valid, self.samplewise, weight)
        if self.task == "binary":
            counts = counts[:, 0]
        return {"counts": counts if self.samplewise else counts[0]}

    def _weight(self, sample_weight: Any, target: Tensor) -> Tensor:
        """``sample_weight`` checked and broadcast (float64): to ``target``'s shape, or for the statistics of
        examples (``exact``, ``samples``) to one weight per sample and position of its extra dimensions."""
        shape = tuple(target.shape)
        if self.kind in ("exact", "samples"):
            if isinstance(sample_weight, Tensor) and sample_weight.ndim > 1:
                raise MetricInputError(
                    f"Argument `sample_weight` must hold one weight per sample for {self._example_name()}: "
                    f"shape ({shape[0] if shape else 1},) or a scalar, got shape {tuple(sample_weight.shape)}"
                )
            if self.task == "multilabel":
                shape = shape[:1] + shape[2:]  # an example: a sample's labels at one position
            else:
                shape = shape[:1]
        return as_sample_weight(sample_weight, shape, device=target.device, validate=self.validate_args)

    def _example_name(self) -> str:
        return "exact match" if self.kind == "exact" else "`average`='samples'"

    def _multiclass_batch(
        self,
        target: Tensor,
        pred: Tensor,
        valid: Optional[Tensor],
        increment: bool = False,
        weight: Optional[Tensor] = None,
    ) -> dict[str, Any]:
        if self.kind == "confmat":
            codes = confmat_codes(target, pred, valid, self.size, weight)
            return {"confmat": codes if increment else codes.dense()}
        n = target.shape[0] if target.ndim else 1
        if self.kind == "exact":
            ok = pred == target if valid is None else (pred == target) | ~valid
            return self._exact(ok.reshape(n, math.prod(ok.shape[1:])).all(dim=1, keepdim=True), weight)
        if self.kind == "labels":  # right labels and labels, ignored positions in neither
            ok = pred == target if valid is None else (pred == target) & valid
            if weight is not None:
                return self._weighted_labels(ok, valid, weight, n)
            if self.samplewise:
                counted = torch.ones_like(ok) if valid is None else valid
                per_sample = (n, math.prod(ok.shape[1:]))
                return {"matches": torch.stack([ok.reshape(per_sample).sum(1), counted.reshape(per_sample).sum(1)], 1)}
            total = ok.new_full((), ok.numel(), dtype=_LONG) if valid is None else valid.sum()
            return {"correct": ok.sum(), "total": total}
        groups = n if self.samplewise else 1
        flat = (n, math.prod(target.shape[1:])) if self.samplewise else (1, target.numel())
        valid = None if valid is None else valid.reshape(flat)
        weight = None if weight is None else weight.reshape(flat)
        counts = label_counts(target.reshape(flat), pred.reshape(flat), valid, self.size, groups, weight)
        return {"counts": counts if self.samplewise else counts[0]}

    def _weighted_labels(
        self, ok: Tensor, valid: Optional[Tensor], weight: Tensor, n: int
    ) -> dict[str, Tensor]:
        """Weighted right labels and labels (float64 sums of the positions' weights)."""
        counted = _weighted_where(valid, weight)
        right = torch.where(ok, counted, 0.0)
        if self.samplewise:
            per_sample = (n, math.prod(ok.shape[1:]))
            sums = [right.reshape(per_sample).sum(1), counted.reshape(per_sample).sum(1)]
            return {"matches": torch.stack(sums, 1)}
        return {"correct": right.sum(), "total": counted.sum()}

    def _exact(self, ok: Tensor, weight: Optional[Tensor] = None) -> dict[str, Tensor]:
        """``ok``: (N, M) whether every label of each of M positions of N samples is right; ``weight``: the
        examples' weights, ``(N,)`` or ``(N, M)``."""
        ok = ok.reshape(ok.shape[0], math.prod(ok.shape[1:]))
        if weight is not None:
            if ok.numel():
                weight = weight.reshape(weight.shape[:1] + (-1,)).expand(ok.shape)
            else:
                weight = weight.new_zeros(ok.shape)
            right = torch.where(ok, weight, 0.0)
            if self.samplewise:
                return {"matches": torch.stack([right.sum(1), weight.sum(1)], dim=1)}
            return {"correct": right.sum(), "total": weight.sum()}
        if self.samplewise:
            total = torch.full_like(ok[:, 0], ok.shape[1], dtype=_LONG)
            return {"matches": torch.stack([ok.sum(1), total], dim=1)}
        return {"correct": ok.sum(), "total": torch.tensor(ok.numel(), device=ok.device)}

    def _samples(
        self, target: Tensor, pred: Tensor, valid: Optional[Tensor], weight: Optional[Tensor] = None
    ) -> dict[str, Tensor]:
        """Per-example measure values summed; an example is one (sample, position) row of labels. With
        ``weight`` (one per example) the weighted sums: scikit-learn's weighted average over examples."""
        rows = (-1, self.size)
        t, p = target.movedim(1, -1).reshape(rows) == 1, pred.movedim(1, -1).reshape(rows) == 1
        v = None if valid is None else valid.movedim(1, -1).reshape(rows)

        def count(mask: Tensor) -> Tensor:
            return (mask if v is None else mask & v).sum(-1)

        counts = Counts(tp=count(t & p), fp=count(~t & p), tn=count(~t & ~p), fn=count(t & ~p))
        values, zero = samples_row_values(self.measure[0], counts, self.measure[1])
        seen = torch.ones_like(zero) if v is None else v.any(-1)
        if weight is not None:
            weight = torch.where(seen, weight.reshape(-1), 0.0)
            return {
                "sample_sum": (values * weight).sum(),
                "sample_zero": torch.where(zero, weight, 0.0).sum(),
                "sample_count": weight.sum(),
            }
        return {
            "sample_sum": (values * seen).sum(),
            "sample_zero": (zero & seen).sum(),
            "sample_count": seen.sum(),
        }

    # -------------------------------------------------------------- reading states back
    def counts(self, states: dict[str, Tensor]) -> Counts:
        if self.kind == "confmat":  # the metrics of a compute group share it within a collection compute
            return derived("counts_from_confmat", states["confmat"], Counts.from_confmat)
        return derived("counts_from_ovr", states["counts"], Counts.from_ovr)

    def confmat(self, states: dict[str, Tensor]) -> Tensor:
        """``(C, C)``, binary ``(2, 2)`` or multilabel ``(L, 2, 2)`` confusion matrix."""
        return states["confmat"] if self.kind == "confmat" else states["counts"]
