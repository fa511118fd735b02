"""The edit-distance family: WER, CER, MER, WIL, WIP and the Levenshtein edit distance.

One statistic feeds the error rates, as in jiwer: per batch, the summed edit distance between
prediction and reference, the reference and prediction lengths and the summed longer length
(:func:`edit_counts`, an int64 vector). Each rate is a formula over those counts
(:data:`ERROR_RATES`), so a modular metric keeps four integers and a collection of WER, MER, WIL
and WIP aligns every pair once.

>>> preds = ["this is the prediction", "there is an other sample"]
>>> target = ["this is the reference", "there is another one"]
>>> word_error_rate(preds, target)
tensor(0.5000)
>>> char_error_rate(preds, target)
tensor(0.3415)
>>> match_error_rate(preds, target), word_information_lost(preds, target)
(tensor(0.4444), tensor(0.6528))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import torch
from torch import Tensor

from lightning_metrics.functional.text._encoding import Vocabulary, char_ids, padded, word_ids
from lightning_metrics.functional.text._inputs import TextInput, paired_sentences
from lightning_metrics.functional.text._levenshtein import (
    banded_edit_distance,
    levenshtein,
    levenshtein_small,
)
from lightning_metrics.utilities.checks import check_choice

Unit = Literal["word", "char"]
# indices into the edit counts
ERRORS, TARGET_TOTAL, PREDS_TOTAL, LONGER_TOTAL = range(4)
REDUCTIONS = ("mean", "sum", "none", None)


def _encoded(preds: list[str], target: list[str], unit: Unit) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    if unit == "word":
        vocab = Vocabulary()
        p_ids, p_len = word_ids([s.split() for s in preds], vocab)
        t_ids, t_len = word_ids([s.split() for s in target], vocab)
    else:
        p_ids, p_len = char_ids(preds)
        t_ids, t_len = char_ids(target)
    return padded(p_ids, p_len, -1), p_len, padded(t_ids, t_len, -2), t_len


# Below these many pairs the pair-by-pair bit-parallel loop (with the common prefix and suffix
# trimmed) beats the batched one (measured on CPU, one thread:
# a batched step is a few dozen tensor calls whatever the batch size).
BATCHED_FROM = {"word": 2048, "char": 2048}


def edit_counts(preds: TextInput, target: TextInput, unit: Unit = "word") -> Tensor:
    """``[edits, reference length, prediction length, longer length]`` summed over the pairs (int64).

    >>> edit_counts(["a b c", "d"], ["a x c", "d e"]).tolist()
    [2, 5, 4, 5]
    """
    p, t = paired_sentences(preds, target)
    if len(p) < BATCHED_FROM[unit]:
        pairs = [(a.split(), b.split()) for a, b in zip(p, t)] if unit == "word" else list(zip(p, t))
        edits = sum(levenshtein_small(pairs))
        p_len, t_len = [len(a) for a, _ in pairs], [len(b) for _, b in pairs]
        longer = sum(map(max, p_len, t_len))
        return torch.tensor([edits, sum(t_len), sum(p_len), longer], dtype=torch.int64)
    pred, p_len_t, ref, t_len_t = _encoded(p, t, unit)
    distance = levenshtein(pred, p_len_t, ref, t_len_t)
    return torch.stack([distance.sum(), t_len_t.sum(), p_len_t.sum(), torch.maximum(p_len_t, t_len_t).sum()])


def _as_float(counts: Tensor) -> list[Tensor]:
    return list(counts.to(torch.float32).unbind())


def wer_from_counts(counts: Tensor) -> Tensor:
    """Edits per reference word (or character)."""
    errors, target_total, _, _ = _as_float(counts)
    return errors / target_total


def mer_from_counts(counts: Tensor) -> Tensor:
    """Edits per aligned position, counted as the longer of the two lengths (torchmetrics)."""
    errors, _, _, longer = _as_float(counts)
    return errors / longer


def wip_from_counts(counts: Tensor) -> Tensor:
    """``(h / N) * (h / P)`` with ``h = longer - edits`` (torchmetrics' stand-in for the hits)."""
    errors, target_total, preds_total, longer = _as_float(counts)
    hits = errors - longer  # negative: squared below, as torchmetrics does
    return (hits / target_total) * (hits / preds_total)


def wil_from_counts(counts: Tensor) -> Tensor:
    """``1 - WIP``."""
    return 1 - wip_from_counts(counts)


ERROR_RATES: dict[str, Callable[[Tensor], Tensor]] = {
    "wer": wer_from_counts,
    "cer": wer_from_counts,
    "mer": mer_from_counts,
    "wil": wil_from_counts,
    "wip": wip_from_counts,
}


def word_error_rate(preds: TextInput, target: TextInput) -> Tensor:
    """Word error rate: word edits (Levenshtein) over the number of reference words.

    >>> word_error_rate(["this is the prediction"], ["this is the reference"])
    tensor(0.2500)
    """
    return wer_from_counts(edit_counts(preds, target, "word"))


def char_error_rate(preds: TextInput, target: TextInput) -> Tensor:
    """Character error rate: character edits over the number of reference characters.

    >>> char_error_rate(["kitten"], ["sitting"])
    tensor(0.4286)
    """
    return wer_from_counts(edit_counts(preds, target, "char"))


def match_error_rate(preds: TextInput, target: TextInput) -> Tensor:
    """Match error rate: word edits over the summed longer length of each pair.

    >>> match_error_rate(["a b c"], ["a d"])
    tensor(0.6667)
    """
    return mer_from_counts(edit_counts(preds, target, "word"))


def word_information_lost(preds: TextInput, target: TextInput) -> Tensor:
    """Word information lost, ``1 - WIP``.

    >>> word_information_lost(["a b c"], ["a d"])
    tensor(0.8333)
    """
    return wil_from_counts(edit_counts(preds, target, "word"))


def word_information_preserved(preds: TextInput, target: TextInput) -> Tensor:
    """Word information preserved, torchmetrics' definition (see :func:`wip_from_counts`).

    >>> word_information_preserved(["a b c"], ["a d"])
    tensor(0.1667)
    """
    return wip_from_counts(edit_counts(preds, target, "word"))


# --------------------------------------------------------------------------- edit distance
def check_substitution_cost(substitution_cost: object) -> None:
    if isinstance(substitution_cost, bool) or not isinstance(substitution_cost, int) or substitution_cost < 0:
        raise ValueError(
            f"Argument `substitution_cost` must be a non-negative integer, got {substitution_cost!r}"
        )


def check_reduction(reduction: object) -> None:
    check_choice("reduction", reduction, REDUCTIONS)


def edit_distances(preds: TextInput, target: TextInput, substitution_cost: int = 1) -> Tensor:
    """Character edit distance of every pair (int32), torchmetrics' beam-limited programme.

    >>> edit_distances(["rain", "lnaguaeg"], ["shine", "language"]).tolist()
    [3, 4]
    """
    p, t = paired_sentences(preds, target)
    pred, p_len, ref, t_len = _encoded(p, t, "char")
    distance, _ = banded_edit_distance(pred, p_len, ref, t_len, substitution_cost)
    return distance.to(torch.int32)


def reduce_edit_distances(total: Tensor, count: Tensor, reduction: str | None) -> Tensor:
    """``mean`` (float) or ``sum`` (int64) of the distances; torchmetrics' int32 zero when there are none."""
    if int(count) == 0:
        return torch.tensor(0, dtype=torch.int32, device=total.device)
    return total / count if reduction == "mean" else total


def edit_distance(
    preds: TextInput,
    target: TextInput,
    substitution_cost: int = 1,
    reduction: Literal["mean", "sum", "none"] | None = "mean",
) -> Tensor:
    """Levenshtein edit distance between characters of each pair, reduced over the pairs.

    >>> edit_distance(["rain"], ["shine"])
    tensor(3.)
    >>> edit_distance(["rain"], ["shine"], substitution_cost=2)
    tensor(5.)
    >>> edit_distance(["rain", "lnaguaeg"], ["shine", "language"], reduction=None)
    tensor([3, 4], dtype=torch.int32)
    """
    check_substitution_cost(substitution_cost)
    check_reduction(reduction)
    distances = edit_distances(preds, target, substitution_cost)
    if reduction in ("none", None):
        if distances.numel() == 0:
            return torch.tensor(0, dtype=torch.int32)
        return distances
    return reduce_edit_distances(distances.sum(), torch.tensor(distances.numel()), reduction)
