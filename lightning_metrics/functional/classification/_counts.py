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
from lightning_metrics.utilities.memo import derived

_LONG = torch.long


def histogram(codes: Tensor, size: int) -> Tensor:
    """How often each code in ``[0, size)`` occurs; code ``size`` is the discarded bin.

    >>> histogram(torch.tensor([0, 2, 2, 3]), 3)
    tensor([1, 0, 2])
    """
    codes = codes.reshape(-1)
    if codes.device.type == "cpu":
        return torch.bincount(codes, minlength=size + 1)[:size]
    # torch.bincount reads the maximum back to the host on accelerators; an accumulating index_put does not
    out = torch.zeros(size + 1, dtype=_LONG, device=codes.device)
    out.index_put_((codes,), torch.ones((), dtype=_LONG, device=codes.device).expand_as(codes), accumulate=True)
    return out[:size]


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
    weights: Tensor
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
        out = torch.zeros(self.shape, dtype=_LONG, device=self.codes.device)
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
        stand_in = torch.zeros((), dtype=_LONG, device=self.codes.device).expand(self.shape)
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


def confmat_codes(target: Tensor, pred: Tensor, valid: Optional[Tensor], num_classes: int) -> Codes:
    """The ``(C, C)`` confusion matrix (rows: target) of a batch as the codes ``target * C + pred``."""
    codes = pred.reshape(-1).add(target.reshape(-1), alpha=num_classes)  # pred + C * target, one kernel
    shape = (num_classes, num_classes)
    if valid is None:
        return Codes(codes, torch.ones_like(codes), shape)
    valid = valid.reshape(-1)
    return Codes(torch.where(valid, codes, 0), valid.long(), shape)


def label_counts(
    target: Tensor, pred: Tensor, valid: Optional[Tensor], num_classes: int, num_groups: int = 1
) -> Tensor:
    """One-vs-rest ``(G, C, 2, 2)`` counts of multiclass labels shaped ``(G, M)`` (G groups of M positions).

    Each position adds a true positive or a false negative to its target class and, when wrong, a
    false positive to its predicted class: one bincount over both codes; true negatives follow
    from the number of positions seen.
    """
    size = num_groups * num_classes * 3
    offset = torch.arange(num_groups, device=target.device).unsqueeze(1) * num_classes
    hit = pred == target
    t_codes = _discard((offset + target.long()) * 3 + torch.where(hit, 0, 2), valid, size)
    p_codes = _discard(torch.where(hit, size, (offset + pred) * 3 + 1), valid, size)
    tp, fp, fn = histogram(torch.cat([t_codes.reshape(-1), p_codes.reshape(-1)]), size).view(
        num_groups, num_classes, 3
    ).unbind(-1)
    seen = (tp + fn).sum(-1, keepdim=True)
    return torch.stack([seen - tp - fp - fn, fp, fn, tp], dim=-1).view(num_groups, num_classes, 2, 2)


def bit_counts(target: Tensor, pred: Tensor, valid: Optional[Tensor], samplewise: bool) -> Tensor:
    """One-vs-rest ``(G, L, 2, 2)`` counts of 0/1 labels shaped ``(N, L, M)``; G = N or 1."""
    n, labels = target.shape[:2]
    groups = n if samplewise else 1
    size = groups * labels * 4
    cell = torch.arange(labels, device=target.device).view(1, labels, 1)
    if samplewise:
        cell = cell + torch.arange(n, device=target.device).view(n, 1, 1) * labels
    codes = _discard(cell * 4 + target.long() * 2 + pred, valid, size)
    return histogram(codes, size).view(groups, labels, 2, 2)


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

    def batch(self, preds: Tensor, target: Tensor, increment: bool = False) -> dict[str, Any]:
        """The statistic of one batch, as a state dict (per-sample states as tensors); with ``increment`` a
        confusion matrix comes as its :class:`Codes`, to be added into the state in place (what ``update``
        does: a scatter of the batch instead of a histogram of C^2 bins and its sum with the state)."""
        if self.validate_args:
            self.validate(preds, target)
        valid = _inputs.valid_mask(target, self.ignore_index)
        if target.is_floating_point():  # whole-number float labels (e.g. BCE targets) count as ints
            target = target.long()
        if self.task == "multiclass":
            pred = _inputs.multiclass_labels(preds, target, self.top_k, check_nan=self.validate_args)
            return self._multiclass_batch(target, pred, valid, increment)
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
            return self._exact(ok.all(dim=1))
        if self.kind == "samples":
            return self._samples(target, pred, valid)
        counts = bit_counts(target, pred, valid, self.samplewise)
        if self.task == "binary":
            counts = counts[:, 0]
        return {"counts": counts if self.samplewise else counts[0]}

    def _multiclass_batch(
        self, target: Tensor, pred: Tensor, valid: Optional[Tensor], increment: bool = False
    ) -> dict[str, Any]:
        if self.kind == "confmat":
            codes = confmat_codes(target, pred, valid, self.size)
            return {"confmat": codes if increment else codes.dense()}
        n = target.shape[0] if target.ndim else 1
        if self.kind == "exact":
            ok = pred == target if valid is None else (pred == target) | ~valid
            return self._exact(ok.reshape(n, math.prod(ok.shape[1:])).all(dim=1, keepdim=True))
        if self.kind == "labels":  # right labels and labels, ignored positions in neither
            ok = pred == target if valid is None else (pred == target) & valid
            if self.samplewise:
                counted = torch.ones_like(ok) if valid is None else valid
                per_sample = (n, math.prod(ok.shape[1:]))
                return {"matches": torch.stack([ok.reshape(per_sample).sum(1), counted.reshape(per_sample).sum(1)], 1)}
            total = ok.new_full((), ok.numel(), dtype=_LONG) if valid is None else valid.sum()
            return {"correct": ok.sum(), "total": total}
        groups = n if self.samplewise else 1
        flat = (n, math.prod(target.shape[1:])) if self.samplewise else (1, target.numel())
        valid = None if valid is None else valid.reshape(flat)
        counts = label_counts(target.reshape(flat), pred.reshape(flat), valid, self.size, groups)
        return {"counts": counts if self.samplewise else counts[0]}

    def _exact(self, ok: Tensor) -> dict[str, Tensor]:
        """``ok``: (N, M) whether every label of each of M positions of N samples is right."""
        ok = ok.reshape(ok.shape[0], math.prod(ok.shape[1:]))
        if self.samplewise:
            total = torch.full_like(ok[:, 0], ok.shape[1], dtype=_LONG)
            return {"matches": torch.stack([ok.sum(1), total], dim=1)}
        return {"correct": ok.sum(), "total": torch.tensor(ok.numel(), device=ok.device)}

    def _samples(self, target: Tensor, pred: Tensor, valid: Optional[Tensor]) -> dict[str, Tensor]:
        """Per-example measure values summed; an example is one (sample, position) row of labels."""
        rows = (-1, self.size)
        t, p = target.movedim(1, -1).reshape(rows) == 1, pred.movedim(1, -1).reshape(rows) == 1
        v = None if valid is None else valid.movedim(1, -1).reshape(rows)

        def count(mask: Tensor) -> Tensor:
            return (mask if v is None else mask & v).sum(-1)

        counts = Counts(tp=count(t & p), fp=count(~t & p), tn=count(~t & ~p), fn=count(t & ~p))
        values, zero = samples_row_values(self.measure[0], counts, self.measure[1])
        seen = torch.ones_like(zero) if v is None else v.any(-1)
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
