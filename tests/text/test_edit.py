"""The edit-distance family against torchmetrics 1.9 and jiwer; the alignment cores against plain
dynamic programmes (hypothesis)."""

from __future__ import annotations

import random

import jiwer
import pytest
import torch
import torchmetrics.functional.text as TF
import torchmetrics.text as TM
from hypothesis import given, settings
from hypothesis import strategies as st
from torchmetrics.functional.text.helper import _LevenshteinEditDistance

import lightning_metrics.functional.text as F
import lightning_metrics.text as M
from lightning_metrics.functional.text import edit as edit_module
from lightning_metrics.functional.text._encoding import padded
from lightning_metrics.functional.text._levenshtein import (
    banded_edit_distance,
    lcs_length,
    levenshtein,
    levenshtein_small,
)
from lightning_metrics.functional.text.edit import edit_counts
from tests.text._corpora import corpus, edge_cases, real, single_reference
from tests.text._helpers import assert_same, in_batches

RATES = [
    ("word_error_rate", "WordErrorRate"),
    ("char_error_rate", "CharErrorRate"),
    ("match_error_rate", "MatchErrorRate"),
    ("word_information_lost", "WordInfoLost"),
    ("word_information_preserved", "WordInfoPreserved"),
]


def _pairs() -> list[tuple[list[str], list[str]]]:
    # (the 150-word edge case is left to the word-level test below: torchmetrics' character
    # programme is a Python double loop, half a second on it)
    cases = [(p, single_reference(t)) for p, t in edge_cases() if t and all(t) and len(p[0]) < 200]
    cases += [(p, single_reference(t)) for p, t in (corpus(seed, n=12) for seed in range(6))]
    cases.append((real()[0], single_reference(real()[1])))
    return cases


PAIRS = _pairs()


@pytest.mark.parametrize("path", ["pairwise", "batched"])
@pytest.mark.parametrize(("function", "cls"), RATES, ids=[c for _, c in RATES])
def test_rates_equal_torchmetrics(
    function: str, cls: str, path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both engines: pair by pair on Python integers (small batches) and batched in torch."""
    monkeypatch.setattr(
        edit_module,
        "BATCHED_FROM",
        {"word": 0, "char": 0} if path == "batched" else {"word": 10**9, "char": 10**9},
    )
    for preds, target in PAIRS:
        assert_same(
            getattr(F, function)(preds, target), getattr(TF, function)(preds, target), path=str(preds)[:60]
        )
    preds = [p for p, _ in PAIRS for p in p]
    target = [t for _, t in PAIRS for t in t]
    ours = in_batches(getattr(M, cls)(), preds, target, (5, 1, 9))
    assert_same(ours, in_batches(getattr(TM, cls)(), preds, target, (7,)))
    assert_same(getattr(F, function)("a b c", "a c"), getattr(TF, function)("a b c", "a c"))  # bare strings


@pytest.mark.parametrize(
    ("reduction", "substitution_cost"), [("mean", 1), ("sum", 2), ("none", 0), (None, 3), ("mean", 0)]
)
def test_edit_distance_equals_torchmetrics(reduction: str, substitution_cost: int) -> None:
    for preds, target in PAIRS[::4]:
        ours = F.edit_distance(preds, target, substitution_cost, reduction)
        assert_same(ours, TF.edit_distance(preds, target, substitution_cost, reduction))
    preds = [p for p, _ in PAIRS for p in p]
    target = [t for _, t in PAIRS for t in t]
    ours = in_batches(M.EditDistance(substitution_cost, reduction), preds, target, (4, 11))
    assert_same(ours, in_batches(TM.EditDistance(substitution_cost, reduction), preds, target, (13,)))


def test_long_pairs_equal_torchmetrics() -> None:
    preds, target = edge_cases()[8]
    target = single_reference(target)
    for function, _ in RATES:
        if function != "char_error_rate":
            assert_same(getattr(F, function)(preds, target), getattr(TF, function)(preds, target))


def test_edit_distance_keeps_torchmetrics_beam_on_long_unequal_strings() -> None:
    """torchmetrics' EditDistance runs sacrebleu's beam-limited programme (25 cells off the diagonal):
    on long strings of unequal lengths it may exceed the true Levenshtein distance; we match it."""
    rng = random.Random(5)
    shared = "".join(rng.choice("abcdefghijklmnopqrst") for _ in range(120))
    # a long common block that the beam cannot follow: it sits far from the proportional diagonal
    preds = [shared + "x" * k for k in (40, 60, 80)] + ["y" * 10 + shared]
    target = ["z" * k + shared for k in (40, 60, 80)] + [shared + "w" * 90]
    ours = F.edit_distance(preds, target, reduction="none")
    assert_same(ours, TF.edit_distance(preds, target, reduction="none"))
    p_ids, p_len = _batch([[ord(c) for c in s] for s in preds], -1)
    t_ids, t_len = _batch([[ord(c) for c in s] for s in target], -2)
    exact = levenshtein(p_ids, p_len, t_ids, t_len)
    assert bool((ours >= exact).all()) and bool((ours > exact).any())


# ------------------------------------------------------------------ jiwer
def _jiwer_counts(preds: list[str], target: list[str], chars: bool = False) -> tuple[int, int, int, int]:
    out = (jiwer.process_characters if chars else jiwer.process_words)(target, preds)
    return out.hits, out.substitutions, out.deletions, out.insertions


@pytest.mark.parametrize("seed", range(4))
def test_wer_and_cer_equal_jiwer(seed: int) -> None:
    preds, target = corpus(seed, n=30)
    preds = [p if p.strip() else "x" for p in preds]
    target = [t[0] if t[0].strip() else "y" for t in target]
    # jiwer drops surrounding whitespace and splits on any run of it, as str.split does
    assert F.word_error_rate(preds, target).item() == pytest.approx(jiwer.wer(target, preds), rel=1e-6)
    stripped_p, stripped_t = [" ".join(p.split()) for p in preds], [" ".join(t.split()) for t in target]
    cer = F.char_error_rate(stripped_p, stripped_t).item()
    assert cer == pytest.approx(jiwer.cer(stripped_t, stripped_p), rel=1e-6)


@pytest.mark.parametrize("seed", range(4))
def test_mer_wil_wip_differ_from_jiwer_only_by_torchmetrics_definitions(seed: int) -> None:
    """jiwer 4 counts hits H, substitutions S, deletions D, insertions I on one alignment:
    MER = (S + D + I) / (H + S + D + I), WIP = H^2 / (N P). torchmetrics (and so we, by default)
    replaces H + S + D + I by the summed max(N_i, P_i) and H by sum(max(N_i, P_i) - E_i): equal
    without insertions or without deletions in a pair, larger MER / smaller WIP otherwise.
    Check that exactly this accounts for the gap, with jiwer's own counts."""
    preds, target = corpus(seed, n=30)
    preds = [p if p.strip() else "x" for p in preds]
    target = [t[0] if t[0].strip() else "y" for t in target]
    hits, subs, dels, ins = _jiwer_counts(preds, target)
    edits = subs + dels + ins
    n_ref = sum(len(t.split()) for t in target)
    n_hyp = sum(len(p.split()) for p in preds)
    longer = sum(max(len(p.split()), len(t.split())) for p, t in zip(preds, target))
    assert F.match_error_rate(preds, target).item() == pytest.approx(edits / longer, rel=1e-6)
    assert jiwer.mer(target, preds) == pytest.approx(edits / (hits + edits), rel=1e-9)
    assert F.word_information_preserved(preds, target).item() == pytest.approx(
        (longer - edits) ** 2 / (n_ref * n_hyp), rel=1e-5
    )
    assert jiwer.wip(target, preds) == pytest.approx(hits**2 / (n_ref * n_hyp), rel=1e-9)
    assert F.word_information_lost(preds, target).item() == pytest.approx(
        1 - (longer - edits) ** 2 / (n_ref * n_hyp), rel=1e-5
    )


def test_edit_counts_share_one_statistic() -> None:
    assert edit_counts(["a b c", "d"], ["a x c", "d e"]).tolist() == [2, 5, 4, 5]
    assert edit_counts(["ab", ""], ["b", "xyz"], unit="char").tolist() == [4, 4, 2, 5]


# ------------------------------------------------------------------ the cores
def _dp(a: list[int], b: list[int]) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def _lcs_dp(a: list[int], b: list[int]) -> int:
    row = [0] * (len(b) + 1)
    for x in a:
        prev = 0
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], prev + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


sequences = st.lists(st.lists(st.integers(0, 5), max_size=150), min_size=1, max_size=6)


def _batch(seqs: list[list[int]], pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    lengths = torch.tensor([len(s) for s in seqs])
    return padded(torch.tensor([x for s in seqs for x in s], dtype=torch.int64), lengths, pad), lengths


@settings(max_examples=40, deadline=None, derandomize=True)
@given(a=sequences, b=sequences, substitution_cost=st.integers(0, 3))
def test_alignment_cores_match_the_plain_programmes(a: list, b: list, substitution_cost: int) -> None:
    """Bit-parallel Levenshtein and LCS (one or several 64-bit words), and the banded programme with
    its costs, against the textbook recurrences and torchmetrics' own beam class."""
    b = (b * len(a))[: len(a)]
    x, x_len = _batch(a, -1)
    y, y_len = _batch(b, -2)
    expected = [_dp(p, q) for p, q in zip(a, b)]
    assert levenshtein(x, x_len, y, y_len).tolist() == expected
    assert levenshtein_small(list(zip(a, b))) == expected
    assert lcs_length(x, x_len, y, y_len).tolist() == [_lcs_dp(p, q) for p, q in zip(a, b)]
    banded = banded_edit_distance(x, x_len, y, y_len, substitution_cost)[0].tolist()
    assert banded == [
        _LevenshteinEditDistance(q, op_substitute=substitution_cost)(p)[0] for p, q in zip(a, b)
    ]
