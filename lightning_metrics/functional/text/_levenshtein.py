"""Edit distances of a batch of token-id sequences, computed in torch over the whole batch.

Two engines:

- :func:`levenshtein` — the exact unit-cost Levenshtein distance by the bit-parallel algorithm of
  Myers (1999) in Hyyrö's (2003) block form: the longer side of each pair is a bit pattern in
  64-bit words, the other is read token by token, and one step updates every pair of the batch
  with a dozen integer operations per word. Error rates (WER, CER, MER, WIL, WIP) use it.
- :func:`levenshtein_small` — the same recurrences on Python integers, pair by pair, for small
  batches (a few hundred pairs), where one batched step costs more in tensor calls than it saves.
- :func:`banded_edit_distance` — the dynamic programme torchmetrics' ``EditDistance`` and TER
  run (sacrebleu's ``lib_ter``): rows over the prediction, a beam of 25 cells around the
  diagonal (wider for very unequal lengths), a substitution cost, and optionally the edit
  operation of every cell, for the trace TER shifts on. One row is a few tensor operations over
  the batch: the left-to-right insertion chain is a running minimum (``cummin``).

Sequences come padded, ``(batch, length)`` with their true lengths beside them.

>>> a = torch.tensor([[1, 2, 3, 4], [5, 6, 0, 0]])
>>> b = torch.tensor([[1, 3, 4, 7], [6, 0, 0, 0]])
>>> levenshtein(a, torch.tensor([4, 2]), b, torch.tensor([4, 1])).tolist()
[2, 1]
>>> banded_edit_distance(a, torch.tensor([4, 2]), b, torch.tensor([4, 1]), substitution_cost=2)[0].tolist()
[2, 1]
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

WORD = 64
BEAM_WIDTH = 25  # sacrebleu / torchmetrics: cells computed on each side of the diagonal
INFINITY = 10**16  # the cost of a cell outside the beam, as in torchmetrics
OP_DIAGONAL, OP_DELETE, OP_INSERT = 0, 1, 2  # the diagonal is a substitution or a match


TABLE_BUDGET = 2**23  # entries of a (pair, symbol) bit table built without a sort


def _symbol_keys(pattern: Tensor, text: Tensor) -> tuple[Tensor, Tensor, int]:
    """Ids of the symbols of each pair, numbered within the pair: ``(pattern_keys, text_keys, size)``
    with ``key = pair * size + symbol``. Where the batch's alphabet is small the global id is the
    symbol; otherwise a row-wise sort numbers each pair's own tokens."""
    batch = pattern.shape[0]
    top = 1 + max((int(t.max()) for t in (pattern, text) if t.numel()), default=0)
    # a table over the batch's alphabet when it is small next to the tokens (characters);
    # otherwise (words: ids up to the number of tokens) each pair's own symbols, by a row sort
    if batch * top <= min(TABLE_BUDGET, 4 * (pattern.numel() + text.numel()) + 4096):
        rows = torch.arange(batch)[:, None] * top
        return rows + pattern.clamp(min=0), rows + text.clamp(min=0), top
    both = torch.cat([pattern, text], 1)
    ordered, order = both.sort(dim=1)
    starts = torch.ones_like(ordered, dtype=torch.bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    local = torch.empty_like(both).scatter_(1, order, starts.cumsum(1) - 1)
    size = int(local.max()) + 1
    local += torch.arange(batch)[:, None] * size
    return local[:, : pattern.shape[1]], local[:, pattern.shape[1] :], size


class _TableMasks:
    """Bit masks read from a ``(pair, symbol) -> words`` table built once (long patterns)."""

    def __init__(self, pattern: Tensor, m: Tensor, text: Tensor, words: int) -> None:
        batch, width = pattern.shape
        pattern_keys, text_keys, size = _symbol_keys(pattern, text)
        position = torch.arange(width)
        bits = torch.where(position < m[:, None], torch.ones_like(position) << (position % WORD), 0)
        table = torch.zeros(batch * size * words, dtype=torch.int64)
        # bit 63 is the sign bit: sums of distinct bits wrap, exactly as an OR
        table.index_add_(0, (pattern_keys * words + position // WORD).reshape(-1), bits.reshape(-1))
        self.table = table.view(-1, words)
        self.rows = text_keys.t().contiguous()  # row j: the symbols read at step j

    def __call__(self, j: int, k: int) -> Tensor:
        return self.table.index_select(0, self.rows[j, :k])


def _one_word(masks: _TableMasks, m: Tensor, n: Tensor, steps: int) -> Tensor:
    """Distances of patterns that fit one word (the usual case for words): the same recurrences
    as the block loop of :func:`levenshtein`, in place, with the score bits read after the loop."""
    batch = m.numel()
    positive = torch.full((batch,), -1, dtype=torch.int64)
    negative = torch.zeros(batch, dtype=torch.int64)
    rises = torch.zeros((steps, batch), dtype=torch.int64)
    falls = torch.zeros((steps, batch), dtype=torch.int64)
    active = torch.bincount(n, minlength=steps + 1).flip(0).cumsum(0).flip(0).tolist()
    for j in range(steps):
        k = active[j + 1]
        vp, vn = positive[:k], negative[:k]
        x = masks(j, k)[:, 0]
        x |= vn
        d0 = x & vp
        d0 += vp
        d0 ^= vp
        d0 |= x
        hp = d0 | vp
        hp.bitwise_not_()
        hp |= vn
        hn = vp & d0
        rises[j, :k] = hp
        falls[j, :k] = hn
        hp <<= 1
        hp |= 1  # the top boundary row rises by one per token
        hn <<= 1
        torch.bitwise_or(d0, hp, out=vp)
        vp.bitwise_not_()
        vp |= hn
        torch.bitwise_and(hp, d0, out=vn)
    shift = (m - 1).clamp(min=0)
    score = m + ((rises >> shift) & 1).sum(0) - ((falls >> shift) & 1).sum(0)
    return torch.where(m == 0, n, score)


def levenshtein(a: Tensor, a_len: Tensor, b: Tensor, b_len: Tensor) -> Tensor:
    """Exact unit-cost edit distances of the pairs ``(a[i, :a_len[i]], b[i, :b_len[i]])``, int64.

    Token ids are non-negative; padding values negative.
    """
    batch = a_len.numel()
    if batch == 0:
        return torch.zeros(0, dtype=torch.int64)
    if a.shape[1] > b.shape[1]:  # the longer side is the bit pattern: fewer steps
        a, a_len, b, b_len = b, b_len, a, a_len
    # pairs by text length, longest first: step j updates a prefix of the batch (views, no copies)
    n, order = a_len.sort(descending=True)
    text, pattern, m = a.index_select(0, order), b.index_select(0, order), b_len.index_select(0, order)
    words = max(1, -(-pattern.shape[1] // WORD))
    masks = _TableMasks(pattern, m, text, words)
    last_word = ((m - 1).clamp(min=0) // WORD)[:, None]
    last_bit = (m - 1).clamp(min=0) % WORD
    if words == 1:
        return torch.empty_like(m).scatter_(0, order, _one_word(masks, m, n, text.shape[1]))
    positive = torch.full((batch, words), -1, dtype=torch.int64)  # vertical deltas +1 (all ones)
    negative = torch.zeros((batch, words), dtype=torch.int64)
    score = m.clone()
    ones, zeros = torch.ones(batch, dtype=torch.int64), torch.zeros(batch, dtype=torch.int64)
    active = torch.bincount(n, minlength=text.shape[1] + 1).flip(0).cumsum(0).flip(0).tolist()
    for j in range(text.shape[1]):
        k = active[j + 1]  # pairs whose text is longer than j
        step_masks = masks(j, k)
        carry_p, carry_n = ones[:k], zeros[:k]  # the top boundary row rises by one per token
        outs_p, outs_n = [], []
        for w in range(words):
            vp, vn = positive[:k, w], negative[:k, w]
            x = step_masks[:, w] | carry_n
            d0 = (((x & vp) + vp) ^ vp) | x | vn
            hp = vn | ~(d0 | vp)
            hn = d0 & vp
            outs_p.append(hp)
            outs_n.append(hn)
            hp_shifted = (hp << 1) | carry_p
            hn_shifted = (hn << 1) | carry_n
            if w + 1 < words:
                carry_p, carry_n = (hp >> 63) & 1, (hn >> 63) & 1
            positive[:k, w] = hn_shifted | ~(d0 | hp_shifted)
            negative[:k, w] = hp_shifted & d0
        if words == 1:
            hp_last, hn_last = outs_p[0], outs_n[0]
        else:
            hp_last = torch.stack(outs_p, 1).gather(1, last_word[:k])[:, 0]
            hn_last = torch.stack(outs_n, 1).gather(1, last_word[:k])[:, 0]
        score[:k] += ((hp_last >> last_bit[:k]) & 1) - ((hn_last >> last_bit[:k]) & 1)
    distance = torch.where(m == 0, n, score)
    return torch.empty_like(distance).scatter_(0, order, distance)


def levenshtein_small(pairs: Sequence[tuple[Sequence, Sequence]]) -> list[int]:
    """The same bit-parallel recurrences as :func:`levenshtein`, pair by pair on Python integers
    (unbounded, so one "word" holds any pattern): for small batches, where a step of the batched
    version costs more in tensor calls than it saves."""
    out = []
    for a, b in pairs:
        # a common prefix and suffix cost nothing (exact for unit costs) and are common in practice
        start, limit = 0, min(len(a), len(b))
        while start < limit and a[start] == b[start]:
            start += 1
        end = 0
        while end < limit - start and a[-1 - end] == b[-1 - end]:
            end += 1
        a, b = a[start : len(a) - end], b[start : len(b) - end]
        if len(a) > len(b):
            a, b = b, a
        m = len(b)
        if m == 0:
            out.append(len(a))
            continue
        masks: dict = {}
        for i, token in enumerate(b):
            masks[token] = masks.get(token, 0) | (1 << i)
        ones, top = (1 << m) - 1, 1 << (m - 1)
        vp, vn, score = ones, 0, m
        get = masks.get
        for token in a:
            x = get(token, 0) | vn
            d0 = (((x & vp) + vp) ^ vp) | x
            hp = vn | ~(d0 | vp)
            hn = vp & d0
            score += 1 if hp & top else -1 if hn & top else 0
            hp = (hp << 1) | 1
            vp = ((hn << 1) | ~(d0 | hp)) & ones
            vn = hp & d0
        out.append(score)
    return out


_SIGN = -(2**63)


def _unsigned_less(a: Tensor, b: Tensor) -> Tensor:
    return (a ^ _SIGN) < (b ^ _SIGN)


def _popcount(x: Tensor) -> Tensor:
    """Set bits of each int64 (the masks keep arithmetic shifts from smearing the sign bit)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


def lcs_length(a: Tensor, a_len: Tensor, b: Tensor, b_len: Tensor) -> Tensor:
    """Longest common subsequence length of every pair (int64), bit-parallel (Allison and Dix,
    Hyyrö): ``V <- (V + (V & M)) | (V & ~M)`` per text token, the LCS is the zeros of ``V``."""
    batch = a_len.numel()
    if batch == 0:
        return torch.zeros(0, dtype=torch.int64)
    if a.shape[1] > b.shape[1]:
        a, a_len, b, b_len = b, b_len, a, a_len
    n, order = a_len.sort(descending=True)
    text, pattern, m = a.index_select(0, order), b.index_select(0, order), b_len.index_select(0, order)
    words = max(1, -(-pattern.shape[1] // WORD))
    masks = _TableMasks(pattern, m, text, words)
    v = torch.full((batch, words), -1, dtype=torch.int64)
    active = torch.bincount(n, minlength=text.shape[1] + 1).flip(0).cumsum(0).flip(0).tolist()
    for j in range(text.shape[1]):
        k = active[j + 1]
        step_masks = masks(j, k)
        carry = torch.zeros(k, dtype=torch.int64)
        for w in range(words):
            vw = v[:k, w]
            u = vw & step_masks[:, w]
            total = vw + u
            with_carry = total + carry
            carry = (_unsigned_less(total, vw) | _unsigned_less(with_carry, total)).long()
            v[:k, w] = with_carry | (vw & ~u)
    bit = torch.arange(words * WORD).view(words, WORD)
    valid = torch.where(bit[None] < m[:, None, None], torch.ones_like(bit) << (bit % WORD), 0).sum(-1)
    lcs = _popcount(~v & valid).sum(1)
    return torch.empty_like(lcs).scatter_(0, order, lcs)


def _beam(n: Tensor, m: Tensor) -> tuple[Tensor, Tensor]:
    ratio = torch.where(n > 0, m.double() / n.clamp(min=1).double(), torch.ones_like(n, dtype=torch.float64))
    wide = ratio / 2 > BEAM_WIDTH
    beam = torch.where(wide, torch.ceil(ratio / 2 + BEAM_WIDTH), torch.full_like(ratio, BEAM_WIDTH))
    return ratio, beam.long()


def banded_edit_distance(
    pred: Tensor,
    n: Tensor,
    ref: Tensor,
    m: Tensor,
    substitution_cost: int = 1,
    return_ops: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """Edit distances (int64) of torchmetrics' beam-limited programme, rows over ``pred``.

    With ``return_ops`` also the ``(batch, rows + 1, cols + 1)`` int8 table of the operation
    that reached each cell (first of diagonal, deletion, insertion with the least cost, the
    order torchmetrics tries them in); row 0 is insertions, column 0 deletions.
    """
    batch, rows = pred.shape
    cols = ref.shape[1]
    j = torch.arange(cols + 1)
    current = j.expand(batch, cols + 1).clone()  # row 0: j insertions
    ops = None
    if return_ops:
        ops = torch.full((batch, rows + 1, cols + 1), OP_INSERT, dtype=torch.int8)
    ratio, beam = _beam(n, m)
    for i in range(1, rows + 1):
        diagonal = torch.floor(i * ratio).long()
        low = (diagonal - beam).clamp(min=0)[:, None]
        high = torch.where(n == i, m + 1, torch.minimum(m + 1, diagonal + beam))[:, None]
        in_beam = (j >= low) & (j < high)
        cost = torch.where(pred[:, i - 1 : i] == ref, 0, substitution_cost)
        from_diagonal = current[:, :-1] + cost
        from_above = current + 1
        reach = from_above.clone()
        reach[:, 1:] = torch.minimum(from_diagonal, from_above[:, 1:])
        reach = torch.where(in_beam, reach, INFINITY)
        row = torch.cummin(reach - j, dim=1).values + j  # the insertion chain along the row
        row = torch.where(in_beam, row.clamp(max=INFINITY), INFINITY)
        live = (i <= n)[:, None]
        if ops is not None:
            op = torch.where(from_above == row, OP_DELETE, OP_INSERT)
            op[:, 1:] = torch.where(from_diagonal == row[:, 1:], OP_DIAGONAL, op[:, 1:])
            op[:, 0] = OP_DELETE
            ops[:, i] = torch.where(live, op, ops[:, i]).to(torch.int8)
        current = torch.where(live, row, current)
    distance = current.gather(1, m[:, None])[:, 0]
    return distance, ops
