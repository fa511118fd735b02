"""Strings to integer tensors: equal tokens get equal ids, so the counting runs in torch.

Only equality matters downstream, so ids need not be dense: a word's id is the position of its
first occurrence in the batch (one dict lookup per token, done by ``map`` in C). Characters are
their code points, read in one ``encode`` of the joined batch.

>>> ids, lengths = word_ids([["a", "b", "a"], [], ["b"]])
>>> ids.tolist(), lengths.tolist()
([0, 1, 0, 1], [3, 0, 1])
>>> codes, lengths = char_ids(["ab", "", "é"])
>>> codes.tolist(), lengths.tolist()
([97, 98, 233], [2, 0, 1])
>>> padded(torch.tensor([1, 2, 3]), torch.tensor([2, 0, 1]), pad=-1).tolist()
[[1, 2], [-1, -1], [3, -1]]
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from itertools import chain, count

import torch
from torch import Tensor


def _int64(values: Iterable[int]) -> Tensor:
    buffer = array("q", values)
    if not buffer:
        return torch.zeros(0, dtype=torch.int64)
    return torch.frombuffer(buffer, dtype=torch.int64).clone()


def lengths_of(items: Sequence[Sequence]) -> Tensor:
    """``len`` of every item, as int64."""
    return _int64(map(len, items))


class Vocabulary:
    """Token -> id, shared by several :meth:`encode` calls (ids stay distinct across them)."""

    def __init__(self) -> None:
        self.ids: dict = {}
        self.next_id = 0

    def encode(self, token_lists: Sequence[Sequence[str]]) -> tuple[Tensor, Tensor]:
        """Flat int64 ids of all tokens (equal strings, equal ids) and the number of tokens per list."""
        positions = count(self.next_id)  # an id is the position of the token's first occurrence
        ids = _int64(map(self.ids.setdefault, chain.from_iterable(token_lists), positions))
        self.next_id = next(positions)
        return ids, lengths_of(token_lists)


def word_ids(token_lists: Sequence[Sequence[str]], vocab: Vocabulary | None = None) -> tuple[Tensor, Tensor]:
    """Flat int64 ids of all tokens (equal strings, equal ids) and the number of tokens per list;
    a shared ``vocab`` keeps ids consistent over several calls."""
    return (vocab or Vocabulary()).encode(token_lists)


def char_ids(strings: Sequence[str]) -> tuple[Tensor, Tensor]:
    """Flat int64 code points of all strings and the number of characters of each."""
    joined = "".join(strings).encode("utf-32-le", "surrogatepass")
    if not joined:
        return torch.zeros(0, dtype=torch.int64), lengths_of(strings)
    codes = torch.frombuffer(bytearray(joined), dtype=torch.int32).to(torch.int64)
    return codes, lengths_of(strings)


def padded(flat: Tensor, lengths: Tensor, pad: int, width: int | None = None) -> Tensor:
    """Rows of ``lengths[i]`` values taken in order from ``flat``, right-padded with ``pad``."""
    rows = lengths.numel()
    width = int(lengths.max()) if width is None and rows else (width or 0)
    out = torch.full((rows, width), pad, dtype=flat.dtype)
    if flat.numel():
        out.masked_scatter_(torch.arange(width) < lengths[:, None], flat)
    return out


def segment_ids(counts: Tensor) -> Tensor:
    """``i`` repeated ``counts[i]`` times, in order: ``arange(len(counts)).repeat_interleave(counts)``
    by a cumulative sum (``repeat_interleave`` starts threads, which may cost milliseconds).

    >>> segment_ids(torch.tensor([2, 0, 1])).tolist()
    [0, 0, 2]
    """
    total = int(counts.sum()) if counts.numel() else 0
    marks = torch.zeros(total + 1, dtype=torch.int64)
    marks.index_add_(0, counts.cumsum(0), torch.ones_like(counts))
    return marks[:total].cumsum(0)


def rank_within(counts: Tensor) -> Tensor:
    """``0, 1, ..., counts[i] - 1`` for every ``i``, concatenated.

    >>> rank_within(torch.tensor([2, 0, 3])).tolist()
    [0, 1, 0, 1, 2]
    """
    segments = segment_ids(counts)
    starts = counts.cumsum(0) - counts
    return torch.arange(segments.numel()) - starts.index_select(0, segments)
