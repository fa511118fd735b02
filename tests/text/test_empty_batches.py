"""Empty inputs for the text metrics, with torchmetrics as the oracle (issue 36, point 9).

An empty batch (``preds=[]``) adds nothing and raises nothing, in the middle of an epoch or alone;
``compute`` over empty batches only gives torchmetrics' value; a metric fed real batches with an
empty one in between equals the metric fed the real batches only.

Where torchmetrics itself raises on empty input (``extended_edit_distance([], [])``, an empty
``ExtendedEditDistance.update``, the sentence-level ``compute`` of chrF/TER/EED with no sentence),
the oracle is torchmetrics' value for a metric that saw no update (0.0), and the sentence-level
scores are an empty tensor.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
import torch
import torchmetrics.functional.text as TF
import torchmetrics.text as TT

import lightning_metrics.functional.text as LF
import lightning_metrics.text as LT
from tests.text._corpora import real
from tests.text._helpers import assert_same

PREDS, TARGET = real()
SINGLE = [t[0] for t in TARGET]

# name -> (factory given the module, target layout)
CLASSES: dict[str, tuple[Callable[[Any], Any], str]] = {
    "bleu": (lambda m: m.BLEUScore(), "multi"),
    "bleu_smooth": (lambda m: m.BLEUScore(n_gram=2, smooth=True), "multi"),
    "sacrebleu": (lambda m: m.SacreBLEUScore(), "multi"),
    "sacrebleu_intl": (lambda m: m.SacreBLEUScore(tokenize="intl", lowercase=True), "multi"),
    "eed": (lambda m: m.ExtendedEditDistance(), "multi"),
    "eed_sentence": (lambda m: m.ExtendedEditDistance(return_sentence_level_score=True), "multi"),
    "ter": (lambda m: m.TranslationEditRate(), "multi"),
    "ter_sentence": (lambda m: m.TranslationEditRate(return_sentence_level_score=True), "multi"),
    "chrf": (lambda m: m.CHRFScore(), "multi"),
    "chrf_sentence": (lambda m: m.CHRFScore(return_sentence_level_score=True), "multi"),
    "rouge": (lambda m: m.ROUGEScore(rouge_keys=("rouge1", "rouge2", "rougeL")), "multi"),  # no punkt data offline
    "cer": (lambda m: m.CharErrorRate(), "single"),
    "wer": (lambda m: m.WordErrorRate(), "single"),
    "mer": (lambda m: m.MatchErrorRate(), "single"),
    "wil": (lambda m: m.WordInfoLost(), "single"),
    "wip": (lambda m: m.WordInfoPreserved(), "single"),
    "edit_mean": (lambda m: m.EditDistance(), "single"),
    "edit_sum": (lambda m: m.EditDistance(reduction="sum"), "single"),
    "edit_none": (lambda m: m.EditDistance(reduction="none"), "single"),
}
# the reference-group metrics also take ``[[]]`` (one empty group) as the target of an empty batch
GROUPED = {"bleu", "bleu_smooth", "sacrebleu", "sacrebleu_intl", "eed", "eed_sentence", "ter",
           "ter_sentence", "chrf", "chrf_sentence", "rouge"}
# torchmetrics raises on these with only empty batches (an IndexError in EED's update, torch.cat or
# torch.stack of no sentence score in compute); the oracle is then the corpus score of no update
TM_RAISES_EMPTY = {"eed", "eed_sentence", "chrf_sentence", "ter_sentence"}


def _batch(layout: str, lo: int, hi: int) -> tuple[list[str], list]:
    return PREDS[lo:hi], (SINGLE if layout == "single" else TARGET)[lo:hi]


def _quiet(fn: Callable[[], Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def _oracle_empty(name: str) -> Any:
    factory, _ = CLASSES[name]
    if name in TM_RAISES_EMPTY:
        corpus_factory = CLASSES[name.removesuffix("_sentence")][0]  # the same metric, corpus score only
        corpus_score = _quiet(corpus_factory(TT).compute)
        if name.endswith("_sentence"):
            return corpus_score, torch.zeros(0)
        return corpus_score
    metric = factory(TT)
    metric.update([], [])
    return _quiet(metric.compute)


@pytest.mark.parametrize("name", list(CLASSES))
def test_only_empty_batches_match_torchmetrics(name: str) -> None:
    factory, _ = CLASSES[name]
    metric = factory(LT)
    metric.update([], [])
    metric.update([], [])
    if name in GROUPED:
        metric.update([], [[]])
    assert_same(_quiet(metric.compute), _oracle_empty(name))


@pytest.mark.parametrize("name", list(CLASSES))
def test_empty_batch_in_the_middle_adds_nothing(name: str) -> None:
    factory, layout = CLASSES[name]
    real_only, with_empty = factory(LT), factory(LT)
    for lo, hi in ((0, 4), (4, 10)):
        real_only.update(*_batch(layout, lo, hi))
    with_empty.update([], [])
    with_empty.update(*_batch(layout, 0, 4))
    with_empty.update([], [])
    if name in GROUPED:
        with_empty.update([], [[]])
    with_empty.update(*_batch(layout, 4, 10))
    with_empty.update([], [])
    ours = with_empty.compute()
    assert_same(ours, real_only.compute(), rtol=0, atol=0)

    oracle = factory(TT)
    if not name.startswith("eed"):
        oracle.update([], [])  # torchmetrics takes the empty batch too (EED's update raises)
    for lo, hi in ((0, 4), (4, 10)):
        oracle.update(*_batch(layout, lo, hi))
    assert_same(ours, oracle.compute(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["bleu", "sacrebleu", "chrf", "ter", "cer", "wer", "rouge", "edit_mean"])
def test_forward_on_an_empty_batch(name: str) -> None:
    factory, layout = CLASSES[name]
    ours, oracle = factory(LT), factory(TT)
    for metric in (ours, oracle):
        metric.update(*_batch(layout, 0, 4))
    batch_ours, batch_oracle = _quiet(lambda: ours([], [])), _quiet(lambda: oracle([], []))
    assert_same(batch_ours, batch_oracle)
    assert_same(ours.compute(), oracle.compute(), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------------------------------
# functional forms

FUNCTIONAL: list[tuple[str, Callable[[Any], Callable], tuple[Any, Any]]] = [
    ("chrf_[[]]", lambda m: m.chrf_score, ([], [[]])),
    ("chrf_[[],[]]", lambda m: m.chrf_score, ([], [[], []])),
    ("chrf", lambda m: m.chrf_score, ([], [])),
    ("bleu", lambda m: m.bleu_score, ([], [])),
    ("sacrebleu", lambda m: m.sacre_bleu_score, ([], [])),
    ("ter", lambda m: m.translation_edit_rate, ([], [])),
    ("ter_[[]]", lambda m: m.translation_edit_rate, ([], [[]])),
    ("cer", lambda m: m.char_error_rate, ([], [])),
    ("wer", lambda m: m.word_error_rate, ([], [])),
    ("mer", lambda m: m.match_error_rate, ([], [])),
    ("wil", lambda m: m.word_information_lost, ([], [])),
    ("wip", lambda m: m.word_information_preserved, ([], [])),
    ("edit", lambda m: m.edit_distance, ([], [])),
    ("rouge", lambda m: m.rouge_score, ([], [])),
    ("rouge_[[]]", lambda m: m.rouge_score, ([], [[]])),
    ("squad", lambda m: m.squad, ([], [])),
]


@pytest.mark.parametrize(("name", "fn", "args"), FUNCTIONAL, ids=[c[0] for c in FUNCTIONAL])
def test_functional_empty_matches_torchmetrics(name: str, fn: Callable, args: tuple) -> None:
    assert_same(_quiet(lambda: fn(LF)(*args)), _quiet(lambda: fn(TF)(*args)))


def test_chrf_empty_is_zero() -> None:
    value = LF.chrf_score([], [[]])
    assert value.dtype == torch.float32 and value.shape == () and value.item() == 0.0


@pytest.mark.parametrize("target", [[], [[]], [[], []]])
def test_functional_eed_empty_is_the_no_update_value(target: list) -> None:
    # torchmetrics' extended_edit_distance([], []) raises IndexError; its class gives 0.0 with no update
    oracle = _quiet(TT.ExtendedEditDistance().compute)
    assert_same(LF.extended_edit_distance([], target), oracle)
    score, sentences = LF.extended_edit_distance([], target, return_sentence_level_score=True)
    assert_same(score, oracle)
    assert sentences.shape == (0,)


@pytest.mark.parametrize("fn", [LF.bleu_score, LF.chrf_score, LF.translation_edit_rate, LF.rouge_score])
def test_empty_preds_with_references_still_raise(fn: Callable) -> None:
    # references for no prediction: a length mismatch (torchmetrics ignores the references there)
    with pytest.raises(ValueError, match="`preds` and `target` must have the same length, got 0 and 1"):
        fn([], [["a b"]])


def test_squad_empty_batch_in_the_middle() -> None:
    preds = [{"prediction_text": "1976", "id": "a"}, {"prediction_text": "the cat", "id": "b"}]
    target = [
        {"answers": {"answer_start": [97], "text": ["1976"]}, "id": "a"},
        {"answers": {"answer_start": [0], "text": ["a cat"]}, "id": "b"},
    ]
    ours, real_only, oracle = LT.SQuAD(), LT.SQuAD(), TT.SQuAD()
    for metric in (ours, oracle):
        metric.update([], [])
        metric.update(preds[:1], target[:1])
        metric.update([], [])
        metric.update(preds[1:], target[1:])
    real_only.update(preds[:1], target[:1])
    real_only.update(preds[1:], target[1:])
    assert_same(ours.compute(), real_only.compute(), rtol=0, atol=0)
    assert_same(ours.compute(), oracle.compute())
    empty, empty_oracle = LT.SQuAD(), TT.SQuAD()
    empty.update([], [])
    empty_oracle.update([], [])
    assert_same(empty.compute(), empty_oracle.compute())


@pytest.mark.parametrize("shape", [(0, 5, 7), (2, 0, 7)], ids=["no_sequence", "no_token"])
def test_perplexity_empty_batch(shape: tuple[int, int, int]) -> None:
    gen = torch.Generator().manual_seed(3)
    preds = torch.randn(3, 5, 7, generator=gen)
    target = torch.randint(7, (3, 5), generator=gen)
    empty_p, empty_t = torch.zeros(shape), torch.zeros(shape[:2], dtype=torch.long)
    ours, real_only, oracle = LT.Perplexity(), LT.Perplexity(), TT.Perplexity()
    for metric in (ours, oracle):
        metric.update(preds[:1], target[:1])
        metric.update(empty_p, empty_t)
        metric.update(preds[1:], target[1:])
    real_only.update(preds[:1], target[:1])
    real_only.update(preds[1:], target[1:])
    assert_same(ours.compute(), real_only.compute(), rtol=0, atol=0)
    assert_same(ours.compute(), oracle.compute(), rtol=1e-5, atol=1e-6)
    empty, empty_oracle = LT.Perplexity(), TT.Perplexity()
    empty.update(empty_p, empty_t)
    empty_oracle.update(empty_p, empty_t)
    assert_same(empty.compute(), empty_oracle.compute())
