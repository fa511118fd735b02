"""BLEU and SacreBLEU against torchmetrics 1.9 (default convention) and sacrebleu (``convention="sacrebleu"``);
the causes of their disagreement, one by one; nltk's brevity penalty."""

from __future__ import annotations

import itertools
import random

import pytest
import sacrebleu
import torch
import torchmetrics.functional.text as TF
import torchmetrics.text as TM
from nltk.translate.bleu_score import corpus_bleu

import lightning_metrics.functional.text as F
import lightning_metrics.text as M
from lightning_metrics.functional.text._sacrebleu_tokenize import tokenizer
from tests.text._corpora import corpus, edge_cases, real, rectangular
from tests.text._helpers import assert_same, in_batches

TOKENIZERS = ("none", "13a", "zh", "intl", "char")
CORPORA = (
    [corpus(seed, n=10) for seed in range(4)] + [real()] + [c for c in edge_cases() if len(c[0][0]) < 200]
)


@pytest.mark.parametrize(
    ("n_gram", "smooth", "weights"),
    [(4, False, None), (2, True, None), (3, False, [0.5, 0.3, 0.2]), (1, True, None), (5, True, None)],
)
def test_bleu_equals_torchmetrics(n_gram: int, smooth: bool, weights: list | None) -> None:
    for preds, target in CORPORA:
        assert_same(
            F.bleu_score(preds, target, n_gram, smooth, weights),
            TF.bleu_score(preds, target, n_gram, smooth, weights),
        )
    preds = [p for c in CORPORA for p in c[0]]
    target = [t for c in CORPORA for t in c[1]]
    ours = in_batches(M.BLEUScore(n_gram, smooth, weights), preds, target, (3, 8))
    assert_same(ours, in_batches(TM.BLEUScore(n_gram, smooth, weights), preds, target, (5,)))


CASES = list(itertools.product(TOKENIZERS, (False, True)))


@pytest.mark.parametrize(("tokenize", "lowercase"), CASES, ids=[f"{t}-{lc}" for t, lc in CASES])
def test_sacrebleu_score_equals_torchmetrics(tokenize: str, lowercase: bool) -> None:
    rng = random.Random(hash((tokenize, lowercase)) % 1000)
    for preds, target in CORPORA:
        n_gram, smooth = rng.randint(1, 4), rng.random() < 0.5
        ours = F.sacre_bleu_score(preds, target, n_gram, smooth, tokenize, lowercase)
        assert_same(ours, TF.sacre_bleu_score(preds, target, n_gram, smooth, tokenize, lowercase))
    preds = [p for c in CORPORA for p in c[0]]
    target = [t for c in CORPORA for t in c[1]]
    ours = in_batches(M.SacreBLEUScore(tokenize=tokenize, lowercase=lowercase), preds, target, (4, 1, 7))
    assert_same(
        ours, in_batches(TM.SacreBLEUScore(tokenize=tokenize, lowercase=lowercase), preds, target, (6,))
    )


@pytest.mark.parametrize(("tokenize", "lowercase"), CASES, ids=[f"{t}-{lc}" for t, lc in CASES])
def test_sacrebleu_convention_equals_sacrebleu(tokenize: str, lowercase: bool) -> None:
    """``convention="sacrebleu"``: sacrebleu's corpus BLEU / 100, with each of its smoothing methods."""
    for seed, method in enumerate(("exp", "none", "floor", "add-k")):
        for refs in (1, 2):
            preds, target = corpus(100 + seed, n=12, max_refs=1)
            if refs == 2:
                target = [t + [corpus(seed, n=1)[0][0]] for t in target]
            expected = sacrebleu.BLEU(
                tokenize=tokenize, lowercase=lowercase, smooth_method=method
            ).corpus_score(preds, rectangular(preds, target))
            ours = F.sacre_bleu_score(
                preds, target, smooth=method, tokenize=tokenize, lowercase=lowercase, convention="sacrebleu"
            )
            assert ours.item() == pytest.approx(expected.score / 100, rel=1e-6, abs=1e-9)
    metric = M.SacreBLEUScore(smooth="exp", tokenize=tokenize, lowercase=lowercase, convention="sacrebleu")
    preds, target = real()
    target = [t[:1] for t in target]
    expected = sacrebleu.corpus_bleu(
        preds, rectangular(preds, target), tokenize=tokenize, lowercase=lowercase
    )
    assert in_batches(metric, preds, target, (3,)).item() == pytest.approx(expected.score / 100, rel=1e-6)


# ------------------------------------------------------------------ why torchmetrics and sacrebleu differ
def test_divergence_smoothing_and_zero_orders() -> None:
    """torchmetrics returns 0 as soon as one order has no match (and has no 'exp' smoothing, sacrebleu's
    default); sacrebleu returns 0 only when nothing matches."""
    preds, target = ["the cat sat on the mat"], [["the cat lay on a mat"]]  # no 4-gram (nor 3-gram) matches
    assert F.sacre_bleu_score(preds, target).item() == 0.0 == TF.sacre_bleu_score(preds, target).item()
    exp = sacrebleu.corpus_bleu(preds, rectangular(preds, target)).score / 100
    assert exp > 0
    assert F.sacre_bleu_score(preds, target, smooth="exp", convention="sacrebleu").item() == pytest.approx(
        exp, rel=1e-6
    )


def test_divergence_brevity_penalty_on_equally_close_references() -> None:
    """Two references as close to the prediction in length: torchmetrics takes the first listed,
    sacrebleu and nltk the shorter. Listing the shorter first makes them agree."""
    preds = ["a b c d e"]
    longer_first = [["a b c d e f g", "a b c"]]  # 7 and 3 words, both 2 away from 5
    shorter_first = [["a b c", "a b c d e f g"]]
    tm_long, tm_short = (TF.bleu_score(preds, t, n_gram=2).item() for t in (longer_first, shorter_first))
    assert tm_long < tm_short  # the 7-word reference sets a brevity penalty
    nltk_value = corpus_bleu([[r.split() for r in longer_first[0]]], [preds[0].split()], weights=(0.5, 0.5))
    assert nltk_value == pytest.approx(tm_short, rel=1e-6)
    assert F.bleu_score(preds, longer_first, n_gram=2).item() == pytest.approx(tm_long, rel=1e-6)
    sb = sacrebleu.BLEU(tokenize="none", smooth_method="none", max_ngram_order=2).corpus_score(
        preds, rectangular(preds, longer_first)
    )
    ours = F.sacre_bleu_score(preds, longer_first, n_gram=2, tokenize="none", convention="sacrebleu")
    assert ours.item() == pytest.approx(sb.score / 100, rel=1e-6) == pytest.approx(tm_short, rel=1e-6)


def test_divergence_lowercase_before_or_after_tokenizing() -> None:
    """sacrebleu lowercases the line, then tokenizes; torchmetrics tokenizes, then lowercases. They part
    where lowercasing changes the length: 'İ' (one character) lowercases to 'i̇' (two), which the
    'char' tokenizer then splits in two."""
    preds, target = ["İstanbul İzmir"], [["i̇stanbul i̇zmir"]]
    tm_value = TF.sacre_bleu_score(preds, target, tokenize="char", lowercase=True).item()
    sb_value = (
        sacrebleu.corpus_bleu(
            preds, rectangular(preds, target), tokenize="char", lowercase=True, smooth_method="none"
        ).score
        / 100
    )
    assert tm_value != pytest.approx(sb_value)
    assert F.sacre_bleu_score(preds, target, tokenize="char", lowercase=True).item() == pytest.approx(
        tm_value, rel=1e-6
    )
    ours_sb = F.sacre_bleu_score(preds, target, tokenize="char", lowercase=True, convention="sacrebleu")
    assert ours_sb.item() == pytest.approx(sb_value, rel=1e-6)


# ------------------------------------------------------------------ tokenizers and optional packages
def test_tokenizers_equal_sacrebleu() -> None:
    lines = [p for c in CORPORA for p in c[0]] + [t for c in CORPORA for g in c[1] for t in g]
    lines += [
        "a-\nb",
        "x &amp; y &lt;z&gt; &quot;q&quot;",
        "<skipped> 3-4 1,000.5 end.",
        "foo\u2001bar\u2a6d\u2f81x",
    ]
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
    from sacrebleu.tokenizers.tokenizer_char import TokenizerChar
    from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International
    from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

    for name, reference in (
        ("13a", Tokenizer13a()),
        ("zh", TokenizerZh()),
        ("intl", TokenizerV14International()),
        ("char", TokenizerChar()),
    ):
        ours = tokenizer(name)
        for line in lines:
            assert ours(line).split() == reference(line).split(), (name, line)


@pytest.mark.parametrize(
    ("tokenize", "package"),
    [
        ("ja-mecab", "mecab-python3"),
        ("ko-mecab", "mecab_ko"),
        ("flores101", "sentencepiece"),
        ("flores200", "sentencepiece"),
    ],
)
def test_optional_tokenizers_name_their_package(tokenize: str, package: str) -> None:
    pytest.importorskip("torch")  # the packages are not installed here: the error must name them
    with pytest.raises(ModuleNotFoundError, match=package):
        M.SacreBLEUScore(tokenize=tokenize)
    with pytest.raises(ModuleNotFoundError, match=package):
        F.sacre_bleu_score(["a"], [["a"]], tokenize=tokenize)


def test_statistics_add_up_over_batches_and_states_are_int64() -> None:
    preds, target = corpus(7, n=20)
    whole = F.bleu_score(preds, target)
    metric = M.BLEUScore()
    for i in range(0, 20, 6):
        metric.update(preds[i : i + 6], target[i : i + 6])
    assert metric.numerator.dtype == torch.int64 and metric.preds_len.dtype == torch.int64
    assert_same(metric.compute(), whole)
