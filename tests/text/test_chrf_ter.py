"""chrF and TER against torchmetrics 1.9 (default convention) and sacrebleu (``convention="sacrebleu"``),
and the causes of their disagreement."""

from __future__ import annotations

import pytest
import sacrebleu
import torchmetrics.functional.text as TF
import torchmetrics.text as TM

import lightning_metrics.functional.text as F
import lightning_metrics.text as M
from lightning_metrics.functional.text.chrf import chrf_statistics
from tests.text._corpora import corpus, edge_cases, real, rectangular
from tests.text._helpers import assert_same, in_batches

# torchmetrics' chrF builds a tensor per n-gram (seconds per hundred sentences): small corpora
CORPORA = [corpus(seed, n=5, high=8) for seed in range(3)] + [c for c in edge_cases() if len(c[0][0]) < 200]
CHRF_ARGS = [
    {},
    {"n_char_order": 3, "n_word_order": 0, "beta": 1.0},
    {"n_char_order": 1, "n_word_order": 1, "lowercase": True},
    {"whitespace": True, "beta": 3.0},
    {"n_char_order": 4, "n_word_order": 2, "beta": 0.5, "lowercase": True, "whitespace": True},
]


@pytest.mark.parametrize(
    "args", CHRF_ARGS, ids=lambda a: ",".join(f"{k}={v}" for k, v in a.items()) or "default"
)
def test_chrf_equals_torchmetrics(args: dict) -> None:
    for preds, target in CORPORA:
        ours = F.chrf_score(preds, target, **args, return_sentence_level_score=True)
        assert_same(ours, TF.chrf_score(preds, target, **args, return_sentence_level_score=True))
    preds = [p for c in CORPORA for p in c[0]]
    target = [t for c in CORPORA for t in c[1]]
    ours = in_batches(M.CHRFScore(**args, return_sentence_level_score=True), preds, target, (2, 5))
    assert_same(ours, in_batches(TM.CHRFScore(**args, return_sentence_level_score=True), preds, target, (4,)))


def test_chrf_of_real_looking_sentences() -> None:
    preds, target = real()
    assert_same(F.chrf_score(preds, target), TF.chrf_score(preds, target))


@pytest.mark.parametrize(
    "args", CHRF_ARGS, ids=lambda a: ",".join(f"{k}={v}" for k, v in a.items()) or "default"
)
def test_chrf_sacrebleu_convention_equals_sacrebleu(args: dict) -> None:
    sb_args = {
        "char_order": args.get("n_char_order", 6), "word_order": args.get("n_word_order", 2), "beta": args.get("beta", 2.0),
        "lowercase": args.get("lowercase", False), "whitespace": args.get("whitespace", False),
    }  # fmt: skip
    for seed in range(4):
        for refs in (1, 2):
            preds, target = corpus(50 + seed, n=12, max_refs=1)
            if refs == 2:
                target = [t + [corpus(seed, n=1)[0][0]] for t in target]
            expected = sacrebleu.CHRF(**sb_args).corpus_score(preds, rectangular(preds, target)).score / 100
            ours = F.chrf_score(preds, target, **args, convention="sacrebleu")
            assert ours.item() == pytest.approx(expected, rel=1e-6, abs=1e-9)


def test_chrf_divergence_causes() -> None:
    """Where torchmetrics' chrF and sacrebleu's part, cause by cause.

    1. A prediction whose references all score 0 adds no reference n-grams in torchmetrics
       (sacrebleu adds its first reference's): recall, and the score, come out higher. This is the
       large one on corpora with hopeless predictions (+0.0135 on the generated corpus below).
    2. torchmetrics averages the per-order F-scores; sacrebleu (the reference chrF++.py) takes the
       F-score of the precision and recall averaged over the orders: 1e-4 on ordinary text.
    3. ``whitespace=False`` removes spaces only in torchmetrics, all whitespace in sacrebleu.
    4. sacrebleu counts a prediction's n-grams of an order only where the reference has n-grams of it.
    (And the defaults differ: sacrebleu's CHRF is chrF, ``word_order=0``; torchmetrics' chrF++.)
    """
    preds, target = real()
    target = [t[:1] for t in target]
    tm_value, sb_value = (
        F.chrf_score(preds, target).item(),
        F.chrf_score(preds, target, convention="sacrebleu").item(),
    )
    assert tm_value == pytest.approx(TF.chrf_score(preds, target).item(), rel=1e-6)
    assert 0 < abs(tm_value - sb_value) < 1e-4  # 2. only the averaging differs on these sentences
    stats, _ = chrf_statistics(preds, target)
    hyp, ref, match = stats.double()
    p, r = (match / hyp).mean().item(), (match / ref).mean().item()
    assert sb_value == pytest.approx(5 * p * r / (4 * p + r), rel=1e-6)  # the same counts, the other formula

    preds, target = corpus(3, n=100, max_refs=1)
    tm_stats, sentence = chrf_statistics(preds, target)
    sb_stats, _ = chrf_statistics(preds, target, convention="sacrebleu")
    hopeless = [i for i in range(len(preds)) if sentence[i] == 0]
    assert len(hopeless) > 10
    missing, _ = chrf_statistics(
        [preds[i] for i in hopeless], [target[i] for i in hopeless], convention="sacrebleu"
    )
    assert (sb_stats[1] - tm_stats[1]).tolist() == missing[1].tolist()  # 1. exactly their reference n-grams
    assert (
        F.chrf_score(preds, target).item() - F.chrf_score(preds, target, convention="sacrebleu").item() > 0.01
    )
    # 3. tabs and newlines
    tab = (["a\tb"], [["ab"]])
    assert (
        F.chrf_score(*tab, n_word_order=0).item()
        < 1.0
        == F.chrf_score(*tab, n_word_order=0, convention="sacrebleu").item()
    )
    # 4. a one-character reference has no bigrams: sacrebleu then does not count the prediction's
    assert chrf_statistics(["abc"], [["a"]], 2, 0, convention="sacrebleu")[0][0].tolist() == [3, 0]
    assert chrf_statistics(["abc"], [["a"]], 2, 0)[0][0].tolist() == [3, 2]


# ------------------------------------------------------------------ TER
TER_ARGS = [
    {},
    {"normalize": True},
    {"no_punctuation": True, "lowercase": False},
    {"normalize": True, "asian_support": True, "no_punctuation": True},
    {"lowercase": False, "asian_support": True},
]
TER_CORPORA = [corpus(seed, n=8, high=14) for seed in range(4)] + [real()] + edge_cases()


@pytest.mark.parametrize(
    "args", TER_ARGS, ids=lambda a: ",".join(f"{k}={v}" for k, v in a.items()) or "default"
)
def test_ter_equals_torchmetrics(args: dict) -> None:
    for preds, target in TER_CORPORA:
        assert_same(
            F.translation_edit_rate(preds, target, **args, return_sentence_level_score=True),
            TF.translation_edit_rate(preds, target, **args, return_sentence_level_score=True),
        )
    preds = [p for c in TER_CORPORA for p in c[0]]
    target = [t for c in TER_CORPORA for t in c[1]]
    ours = in_batches(M.TranslationEditRate(**args, return_sentence_level_score=True), preds, target, (3, 7))
    assert_same(
        ours,
        in_batches(TM.TranslationEditRate(**args, return_sentence_level_score=True), preds, target, (5,)),
    )


@pytest.mark.parametrize(
    "args", TER_ARGS, ids=lambda a: ",".join(f"{k}={v}" for k, v in a.items()) or "default"
)
def test_ter_sacrebleu_convention_equals_sacrebleu(args: dict) -> None:
    sb = sacrebleu.TER(
        normalized=args.get("normalize", False), no_punct=args.get("no_punctuation", False),
        asian_support=args.get("asian_support", False), case_sensitive=not args.get("lowercase", True),
    )  # fmt: skip
    for seed in range(4):
        preds, target = corpus(70 + seed, n=10, max_refs=1, high=16)
        if seed % 2:
            target = [t + [corpus(seed, n=1)[0][0]] for t in target]
        expected = sb.corpus_score(preds, rectangular(preds, target)).score / 100
        assert F.translation_edit_rate(preds, target, **args, convention="sacrebleu").item() == pytest.approx(
            expected, rel=1e-6
        )


def test_ter_divergence_causes() -> None:
    """torchmetrics passes (reference, prediction) where Tercom expects (prediction, reference): it
    shifts the reference towards the prediction, and its beam runs over the prediction. It also caps
    shifted blocks at 9 words (sacrebleu: 10) and scores an empty prediction 0 edits (sacrebleu:
    an empty reference costs one edit per predicted word)."""
    preds = ["a b c d e f g h"]
    target = [["e f g h x a b c d"]]
    tm_value = TF.translation_edit_rate(preds, target).item()
    sb_value = sacrebleu.corpus_ter(preds, rectangular(preds, target)).score / 100
    assert F.translation_edit_rate(preds, target).item() == pytest.approx(tm_value, rel=1e-6)
    assert F.translation_edit_rate(preds, target, convention="sacrebleu").item() == pytest.approx(
        sb_value, rel=1e-6
    )
    swapped = (
        sacrebleu.corpus_ter([target[0][0]], [[preds[0]]]).score
        / 100
        * len(preds[0].split())
        / len(target[0][0].split())
    )
    assert tm_value == pytest.approx(swapped, rel=1e-6)  # torchmetrics' edits are those of the swapped call
    assert F.translation_edit_rate([""], [["a b"]]).item() == 0.0
    assert F.translation_edit_rate(["a b"], [[""]], convention="sacrebleu").item() == 1.0
