"""Tercom's translation edit rate for a batch: greedy block shifts, then the edit distance.

For each pair, one side (``moving``) is shifted block by block towards the other (``fixed``):
every round aligns the two (beam-limited edit distance with its trace), lists the candidate
shifts Tercom allows (matching blocks of at most 9 or 10 words at most 50 positions apart that
the alignment gets wrong), and keeps the one that lowers the edit distance most (ties: the
longer block, then the earlier start, then the earlier destination). Rounds stop when no shift
helps or 1000 candidates were tried. The edits are the shifts plus the final edit distance.

The batch moves in lockstep: one round aligns every unfinished pair in one call of
:func:`~lightning_metrics.functional.text._levenshtein.banded_edit_distance` and evaluates the
candidates of all of them in another; only the candidate listing is Python, per pair.

>>> edits([[0, 1, 2, 3]], [[2, 3, 0, 1]], max_shift_size=10).tolist()
[1]
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from itertools import chain

import torch
from torch import Tensor

from lightning_metrics.functional.text._encoding import padded
from lightning_metrics.functional.text._levenshtein import (
    OP_DELETE,
    OP_DIAGONAL,
    OP_INSERT,
    banded_edit_distance,
)

MAX_SHIFT_DISTANCE = 50
MAX_CANDIDATES = 1000


def _ids(seqs: Sequence[Sequence[int]], pad: int) -> tuple[Tensor, Tensor]:
    lengths = torch.tensor([len(s) for s in seqs], dtype=torch.int64)
    flat = array("q", chain.from_iterable(seqs))
    values = torch.frombuffer(flat, dtype=torch.int64).clone() if flat else torch.zeros(0, dtype=torch.int64)
    return padded(values, lengths, pad), lengths


def _alignment(ops: list[list[int]], n: int, m: int, fixed: Sequence[int], moving: Sequence[int]) -> tuple:
    """Walk the trace back from (n, m): the moving position aligned to each fixed position, and
    which positions of each side are in error (rows of ``ops`` run over ``moving``)."""
    steps = []
    i, j = n, m
    while i > 0 or j > 0:
        op = ops[i][j]
        steps.append(op)
        if op == OP_DIAGONAL:
            i, j = i - 1, j - 1
        elif op == OP_INSERT:
            j -= 1
        else:
            i -= 1
    aligned: dict[int, int] = {}
    fixed_errors: list[int] = []
    moving_errors: list[int] = []
    f_pos = w_pos = -1
    for op in reversed(steps):
        if op == OP_DIAGONAL:
            f_pos, w_pos = f_pos + 1, w_pos + 1
            aligned[f_pos] = w_pos
            error = int(fixed[f_pos] != moving[w_pos])
            fixed_errors.append(error)
            moving_errors.append(error)
        elif op == OP_DELETE:  # a moving word without a fixed counterpart
            w_pos += 1
            moving_errors.append(1)
        else:  # a fixed word without a moving counterpart
            f_pos += 1
            aligned[f_pos] = w_pos
            fixed_errors.append(1)
    return aligned, fixed_errors, moving_errors


def _shifted(words: list[int], start: int, length: int, target: int) -> list[int]:
    if target < start:
        return words[:target] + words[start : start + length] + words[target:start] + words[start + length :]
    if target > start + length:
        return words[:start] + words[start + length : target] + words[start : start + length] + words[target:]
    return (
        words[:start]
        + words[start + length : length + target]
        + words[start : start + length]
        + words[length + target :]
    )


def _candidates(
    moving: list[int], fixed: Sequence[int], ops: list[list[int]], checked: int, max_shift_size: int
) -> tuple[list[tuple[int, int, int]], list[list[int]], int]:
    """Tercom's shift candidates of one round, in its order: keys ``(length, -start, -target)``,
    the shifted words, and the candidates tried so far."""
    aligned, fixed_errors, moving_errors = _alignment(ops, len(moving), len(fixed), fixed, moving)
    keys, shifted = [], []
    n, m = len(moving), len(fixed)
    for start in range(n):
        for f_start in range(m):
            if abs(f_start - start) > MAX_SHIFT_DISTANCE:
                continue
            for length in range(1, max_shift_size + 1):
                if moving[start + length - 1] != fixed[f_start + length - 1]:
                    break
                useful = (
                    sum(moving_errors[start : start + length])
                    and sum(fixed_errors[f_start : f_start + length])
                    and not start <= aligned[f_start] < start + length
                )
                if useful:
                    previous = -1
                    for offset in range(-1, length):
                        if f_start + offset == -1:
                            target = 0
                        elif f_start + offset in aligned:
                            target = aligned[f_start + offset] + 1
                        else:
                            break
                        if target == previous:
                            continue
                        previous = target
                        keys.append((length, -start, -target))
                        shifted.append(_shifted(moving, start, length, target))
                        checked += 1
                    if checked >= MAX_CANDIDATES:  # Tercom stops after the block that reached the limit
                        return keys, shifted, checked
                if start + length == n or f_start + length == m:
                    break
    return keys, shifted, checked


def edits(moving: Sequence[Sequence[int]], fixed: Sequence[Sequence[int]], max_shift_size: int) -> Tensor:
    """Shifts plus edit distance of every pair (int64); every ``fixed`` side non-empty."""
    words = [list(w) for w in moving]
    shifts = [0] * len(words)
    checked = [0] * len(words)
    active = list(range(len(words)))
    while active:
        pred, pred_len = _ids([words[i] for i in active], -1)
        ref, ref_len = _ids([fixed[i] for i in active], -2)
        distance, ops = banded_edit_distance(pred, pred_len, ref, ref_len, return_ops=True)
        rounds = []
        for row, i in enumerate(active):
            n, m = len(words[i]), len(fixed[i])
            table = ops[row, : n + 1, : m + 1].tolist()  # type: ignore[index]
            keys, shifted, checked[i] = _candidates(words[i], fixed[i], table, checked[i], max_shift_size)
            rounds.append((i, keys, shifted))
        flat = [s for _, _, shifted in rounds for s in shifted]
        if flat:
            cand, cand_len = _ids(flat, -1)
            owners = [row for row, (_, keys, _) in enumerate(rounds) for _ in keys]
            owners_t = torch.tensor(owners, dtype=torch.int64)
            owner_ref, owner_len = ref.index_select(0, owners_t), ref_len.index_select(0, owners_t)
            cand_distance = banded_edit_distance(cand, cand_len, owner_ref, owner_len)[0].tolist()
        position = 0
        still = []
        base = distance.tolist()
        for row, (i, keys, shifted) in enumerate(rounds):
            best = None
            for key, words_after in zip(keys, shifted):
                candidate = (base[row] - cand_distance[position], *key)
                position += 1
                if best is None or candidate > best[0]:
                    best = (candidate, words_after)
            if checked[i] >= MAX_CANDIDATES or best is None or best[0][0] <= 0:
                continue
            shifts[i] += 1
            words[i] = best[1]
            still.append(i)
        active = still
    pred, pred_len = _ids(words, -1)
    ref, ref_len = _ids(list(fixed), -2)
    final = banded_edit_distance(pred, pred_len, ref, ref_len)[0]
    return final + torch.tensor(shifts, dtype=torch.int64)
