"""Contingency tables of two labelings, and the statistics every association and clustering score reads.

A table counts how often each pair of labels occurs together: one row per ``target`` label, one
column per ``preds`` label. Two builders:

- :func:`dense_table` for labels of any integer values (cluster ids): each labeling is relabelled
  ``0..K-1`` with ``torch.unique``, so the table has no empty row or column;
- :func:`fixed_table` for labels known to lie in ``[0, num_classes)``: one ``bincount`` into a
  ``num_classes x num_classes`` table, the streaming state of the nominal metrics and of
  ``ClusterAccuracy``.

:class:`TableStats` reads one table, drops its empty rows and columns, and derives what the measures
need (marginals, entropies, mutual information, its expectation under chance, pair counts,
chi-squared), each at most once and in float64 on the CPU: the tables are small, and the measures
branch on their values. Every score in :mod:`lightning_metrics.functional._contingency_measures`
is a formula over these.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable
from functools import cached_property
from typing import Any

import torch
from torch import Tensor

from lightning_metrics.utilities.memo import derived

# pairs (i, j) of the expected-mutual-information sum are evaluated in chunks of about this many terms
_EMI_CHUNK = 1 << 20
# hypergeometric probabilities below exp(-60) are left out of the expected mutual information
_EMI_LOG_FLOOR = -60.0


def dense_table(preds: Tensor, target: Tensor) -> Tensor:
    """The ``(T, P)`` int64 table of two 1-D labelings of any values (rows: ``target``, sorted).

    >>> dense_table(torch.tensor([7, 7, 3, 3]), torch.tensor([0, 0, 0, 5]))
    tensor([[1, 2],
            [1, 0]])
    """
    if preds.numel() == 0:
        return torch.zeros(0, 0, dtype=torch.int64, device=preds.device)
    preds_values, cols = torch.unique(preds, return_inverse=True)
    target_values, rows = torch.unique(target, return_inverse=True)
    num_rows, num_cols = target_values.numel(), preds_values.numel()
    flat = rows.reshape(-1) * num_cols + cols.reshape(-1)
    return torch.bincount(flat, minlength=num_rows * num_cols).reshape(num_rows, num_cols)


def fixed_table(preds: Tensor, target: Tensor, num_classes: int) -> Tensor:
    """The ``(C, C)`` int64 table of labels already checked to lie in ``[0, num_classes)``.

    >>> fixed_table(torch.tensor([0, 1, 1]), torch.tensor([0, 0, 1]), 3)
    tensor([[1, 1, 0],
            [0, 1, 0],
            [0, 0, 0]])
    """
    flat = target.reshape(-1).long() * num_classes + preds.reshape(-1).long()
    return torch.bincount(flat, minlength=num_classes * num_classes).reshape(num_classes, num_classes)


def check_label_range(preds: Tensor, target: Tensor, num_classes: int) -> None:
    """Every label in ``[0, num_classes)``, or a ``ValueError`` naming the argument and the offenders.

    One host read of the four extremes; the offending values are looked up only on failure. Floating
    labels (whole numbers) are shown as integers, infinities as they are; NaN must be gone already.

    >>> check_label_range(torch.tensor([0, 3]), torch.tensor([1, 1]), 3)
    Traceback (most recent call last):
    ...
    ValueError: Argument `preds` must hold labels in [0, 2] for `num_classes`=3, got [3]
    """
    if preds.numel() == 0:
        return
    preds_low, preds_high, target_low, target_high = torch.stack(
        [preds.min(), preds.max(), target.min(), target.max()]
    ).tolist()
    if min(preds_low, target_low) >= 0 and max(preds_high, target_high) < num_classes:
        return
    for name, value in (("preds", preds), ("target", target)):
        bad = value[(value < 0) | (value >= num_classes)]
        if bad.numel():
            values = bad.unique()
            listed = [int(v) if math.isfinite(v) else v for v in values[:8].tolist()]
            shown = f"{listed}{' ...' if values.numel() > 8 else ''}"
            allowed = f"[0, {num_classes - 1}] for `num_classes`={num_classes}"
            raise ValueError(f"Argument `{name}` must hold labels in {allowed}, got {shown}")


def check_num_classes(num_classes: Any) -> None:
    if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 1:
        raise ValueError(f"Argument `num_classes` must be a positive integer, got {num_classes!r}")


def _entropy(counts: Tensor, n: Tensor) -> Tensor:
    """Shannon entropy (nats) of a vector of positive counts summing to ``n``."""
    if counts.numel() <= 1:
        return torch.zeros((), dtype=torch.float64)
    return -((counts / n) * (counts.log() - n.log())).sum()


class TableStats:
    """What the measures read from one contingency table (rows: target, columns: preds).

    Empty rows and columns are dropped first, so ``shape`` counts the labels that occur. Scalars are
    0-dim float64 CPU tensors (IEEE semantics for 0/0), except the exact integer pair counts.

    >>> stats = TableStats(torch.tensor([[2, 0, 0], [0, 1, 1], [0, 0, 0]]))
    >>> stats.shape, int(stats.n)
    ((2, 3), 4)
    >>> round(float(stats.mutual_info), 4), round(float(stats.entropy_preds), 4)
    (0.6931, 1.0397)
    """

    def __init__(self, table: Tensor) -> None:
        self.device = table.device
        counts = table.detach().to("cpu", torch.int64)
        counts = counts[counts.sum(1) != 0]
        self.counts = counts[:, counts.sum(0) != 0]
        self.shape: tuple[int, int] = (int(self.counts.shape[0]), int(self.counts.shape[1]))

    def transposed(self) -> TableStats:
        """The same table with the roles of ``preds`` and ``target`` swapped."""
        return TableStats(self.counts.T)

    # ---------------------------------------------------------------- marginals
    @cached_property
    def table(self) -> Tensor:
        return self.counts.double()

    @cached_property
    def n(self) -> Tensor:
        return self.table.sum()

    @cached_property
    def target_sizes(self) -> Tensor:
        return self.table.sum(1)

    @cached_property
    def preds_sizes(self) -> Tensor:
        return self.table.sum(0)

    # ---------------------------------------------------------------- information
    @cached_property
    def entropy_target(self) -> Tensor:
        return _entropy(self.target_sizes, self.n)

    @cached_property
    def entropy_preds(self) -> Tensor:
        return _entropy(self.preds_sizes, self.n)

    @cached_property
    def mutual_info(self) -> Tensor:
        """Mutual information (nats); exactly 0 when either labeling has a single label."""
        if min(self.shape) <= 1:
            return torch.zeros((), dtype=torch.float64)
        rows, cols = torch.nonzero(self.counts, as_tuple=True)
        joint = self.table[rows, cols]
        log_outer = self.target_sizes[rows].log() + self.preds_sizes[cols].log()
        return (joint / self.n * (self.n.log() + joint.log() - log_outer)).sum()

    @cached_property
    def expected_mutual_info(self) -> Tensor:
        """The mutual information expected between random labelings with these marginals."""
        if min(self.shape) <= 1:
            return torch.zeros((), dtype=torch.float64)
        return expected_mutual_info(self.target_sizes, self.preds_sizes)

    # ---------------------------------------------------------------- pairs
    @cached_property
    def pair_counts(self) -> tuple[int, int, int, int]:
        """Ordered pairs of samples ``(tn, fp, fn, tp)``: ``tp`` together in both labelings, ``fp``
        together in the target only, ``fn`` in the prediction only (exact Python integers)."""
        n = int(self.counts.sum())
        same_both = int((self.counts**2).sum())
        same_target = int((self.counts.sum(1) ** 2).sum())
        same_preds = int((self.counts.sum(0) ** 2).sum())
        tp = same_both - n
        fp = same_target - same_both
        fn = same_preds - same_both
        return n * n - fp - fn - same_both, fp, fn, tp

    # ---------------------------------------------------------------- independence
    def chi_squared(self, yates: bool = False) -> Tensor:
        """Pearson's chi-squared statistic of independence; with ``yates`` the continuity
        correction is applied to 2x2 tables (one degree of freedom), as scipy does."""
        rows, cols = self.shape
        if (rows - 1) * (cols - 1) == 0:
            return torch.zeros((), dtype=torch.float64)
        expected = torch.outer(self.target_sizes, self.preds_sizes) / self.n
        observed = self.table
        if yates and (rows - 1) * (cols - 1) == 1:
            diff = expected - observed
            observed = observed + diff.sign() * diff.abs().clamp(max=0.5)
        return ((observed - expected) ** 2 / expected).sum()

    def result(self, value: float | Tensor, dtype: torch.dtype | None = torch.float32) -> Tensor:
        """A measure's value as a tensor on the table's device."""
        out = torch.as_tensor(value)
        return out.to(device=self.device, dtype=dtype if dtype is not None else out.dtype)


def expected_mutual_info(target_sizes: Tensor, preds_sizes: Tensor) -> Tensor:
    """``E[MI]`` over random labelings with these cluster sizes (float64; Vinh, Epps and Bailey 2010).

    The sum runs over every cell ``(i, j)`` and every feasible count ``n_ij`` of the hypergeometric
    probability of ``n_ij`` times its share of the mutual information. Counts whose probability is
    below ``exp(-60)`` are left out: the hypergeometric law is unimodal (and its mode has probability
    at least ``1/(n+1)``), so a bisection per cell from the mode finds the window of the others
    exactly. A share is at most ``log n`` in size, so what is left out is below
    ``R * K * n * log(n) * exp(-60)``: 1e-13 at a million samples in 1,000 x 1,000 clusters. At 100k
    samples in 50 clusters about 130 of the 2,000 feasible counts per cell remain. They are evaluated
    vectorised over the ragged windows, in chunks of about a million terms.

    >>> round(float(expected_mutual_info(torch.tensor([2.0, 3.0]), torch.tensor([1.0, 4.0]))), 6)
    0.160354
    """
    n = float(target_sizes.sum())
    a = target_sizes.double().repeat_interleave(preds_sizes.numel())
    b = preds_sizes.double().repeat(target_sizes.numel())
    # log of the hypergeometric normaliser per cell, without the n_ij-dependent factorials
    cell_log = (
        torch.lgamma(a + 1) + torch.lgamma(b + 1) + torch.lgamma(n - a + 1) + torch.lgamma(n - b + 1)
    ) - math.lgamma(n + 1)

    def log_p(cell: Tensor, nij: Tensor) -> Tensor:
        ai, bj = a[cell], b[cell]
        return (
            cell_log[cell]
            - torch.lgamma(nij + 1)
            - torch.lgamma(ai - nij + 1)
            - torch.lgamma(bj - nij + 1)
            - torch.lgamma(n - ai - bj + nij + 1)
        )

    cells = torch.arange(a.numel())
    first, last = torch.clamp(a + b - n, min=1.0), torch.minimum(a, b)
    mode = torch.floor((a + 1) * (b + 1) / (n + 2)).clamp(min=first, max=last)
    first = _bisect(lambda k: log_p(cells, k) >= _EMI_LOG_FLOOR, first, mode, rising=True)
    last = _bisect(lambda k: log_p(cells, k) >= _EMI_LOG_FLOOR, mode, last, rising=False)
    lengths = (last - first + 1).clamp(min=0).long()
    total = torch.zeros((), dtype=torch.float64)
    for chunk in _chunks(lengths, _EMI_CHUNK):
        count = lengths[chunk]
        cell = chunk.repeat_interleave(count)
        begin = torch.cumsum(count, 0) - count
        nij = first[cell] + (
            torch.arange(int(count.sum()), dtype=torch.float64) - begin.repeat_interleave(count)
        )
        share = nij / n * (math.log(n) + nij.log() - a[cell].log() - b[cell].log())
        total = total + (share * log_p(cell, nij).exp()).sum()
    return total


def _bisect(holds: Callable[[Tensor], Tensor], low: Tensor, high: Tensor, rising: bool) -> Tensor:
    """Per cell, the end of the run of integers in ``[low, high]`` where ``holds`` is true: the first
    one when ``holds`` rises over the range (true at ``high``), the last when it falls (true at ``low``)."""
    low, high = low.clone(), high.clone()
    while bool((low < high).any()):
        mid = torch.floor((low + high + (0 if rising else 1)) / 2)
        ok = holds(mid)
        if rising:
            high, low = torch.where(ok, mid, high), torch.where(ok, low, mid + 1)
        else:
            low, high = torch.where(ok, mid, low), torch.where(ok, high, mid - 1)
    return low


def stats_of_state(tag: str, state: Tensor, build: Callable[[Tensor], Tensor] = lambda t: t) -> TableStats:
    """:class:`TableStats` of the table ``build(state)``, shared by the metrics of a compute group
    within one ``compute`` (see :mod:`lightning_metrics.utilities.memo`)."""
    return derived(tag, state, lambda s: TableStats(build(s)))


def _chunks(lengths: Tensor, budget: int) -> list[Tensor]:
    """Consecutive runs of cells whose lengths sum to at most ``budget`` (a longer cell on its own)."""
    ends = torch.cumsum(lengths, 0).tolist()
    out, begin = [], 0
    while begin < len(ends):
        limit = (ends[begin - 1] if begin else 0) + budget
        stop = max(begin + 1, bisect.bisect_right(ends, limit, lo=begin))
        out.append(torch.arange(begin, stop))
        begin = stop
    return out
