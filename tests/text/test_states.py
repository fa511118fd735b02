"""States of the text metrics: streaming, ``forward``, ``merge_state``, shared compute groups, bad input
(a clear error, the state untouched) and 2-process gloo sync with uneven shards and an empty rank."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
import torch

import lightning_metrics.text as M
from lightning_metrics import MetricCollection
from tests._distributed import run_distributed
from tests.reliability._registry import assert_identical
from tests.text._corpora import corpus, real

PREDS, TARGET = corpus(21, n=30)
SINGLE = [t[0] for t in TARGET]

# (factory, target layout): every class, sentence-level and cat states included
METRICS: dict[str, tuple[Callable[[], Any], str]] = {
    "wer": (M.WordErrorRate, "single"),
    "cer": (M.CharErrorRate, "single"),
    "mer": (M.MatchErrorRate, "single"),
    "wil": (M.WordInfoLost, "single"),
    "wip": (M.WordInfoPreserved, "single"),
    "edit_mean": (lambda: M.EditDistance(substitution_cost=2), "single"),
    "edit_none": (lambda: M.EditDistance(reduction="none"), "single"),
    "bleu": (lambda: M.BLEUScore(smooth=True), "multi"),
    "sacrebleu": (lambda: M.SacreBLEUScore(tokenize="intl", lowercase=True), "multi"),
    "sacrebleu_sb": (lambda: M.SacreBLEUScore(smooth="exp", convention="sacrebleu"), "multi"),
    "chrf": (lambda: M.CHRFScore(return_sentence_level_score=True), "multi"),
    "chrf_sb": (lambda: M.CHRFScore(n_word_order=0, convention="sacrebleu"), "multi"),
    "ter": (lambda: M.TranslationEditRate(return_sentence_level_score=True), "multi"),
    "rouge": (lambda: M.ROUGEScore(rouge_keys=("rouge1", "rouge2", "rougeL")), "multi"),
    "eed": (lambda: M.ExtendedEditDistance(return_sentence_level_score=True), "multi"),
}


def _target(layout: str, start: int, stop: int) -> list:
    return SINGLE[start:stop] if layout == "single" else TARGET[start:stop]


def _feed(metric: Any, layout: str, bounds: list[tuple[int, int]]) -> Any:
    for start, stop in bounds:
        metric.update(PREDS[start:stop], _target(layout, start, stop))
    return metric


@pytest.mark.parametrize("name", sorted(METRICS))
def test_streaming_forward_and_merge_state(name: str) -> None:
    factory, layout = METRICS[name]
    whole = _feed(factory(), layout, [(0, 30)]).compute()
    streamed = _feed(factory(), layout, [(0, 7), (7, 7), (7, 19), (19, 30)])
    assert_identical(streamed.compute(), whole)
    forwarded = factory()
    batch_values = [forwarded(PREDS[a:b], _target(layout, a, b)) for a, b in ((0, 11), (11, 30))]
    assert_identical(forwarded.compute(), whole)
    assert_identical(batch_values[1], _feed(factory(), layout, [(11, 30)]).compute())
    left, right = _feed(factory(), layout, [(0, 13)]), _feed(factory(), layout, [(13, 30)])
    right.merge_state(left)  # the incoming state comes first in ``cat`` states
    assert_identical(right.compute(), whole)


def test_word_rates_share_one_update_in_a_collection() -> None:
    collection = MetricCollection(
        {"wer": M.WordErrorRate(), "mer": M.MatchErrorRate(), "wil": M.WordInfoLost(), "wip": M.WordInfoPreserved(),
         "cer": M.CharErrorRate(), "bleu": M.BLEUScore(), "bleu_smooth": M.BLEUScore(smooth=True)}
    )  # fmt: skip
    groups = sorted(sorted(g) for g in collection.compute_groups.values())
    assert groups == [["bleu", "bleu_smooth"], ["cer"], ["mer", "wer", "wil", "wip"]]
    collection.update(PREDS, SINGLE)
    values = collection.compute()
    for name, cls in (("wer", M.WordErrorRate), ("wip", M.WordInfoPreserved), ("cer", M.CharErrorRate)):
        alone = cls()
        alone.update(PREDS, SINGLE)
        assert_identical(values[name], alone.compute())
    smooth = M.BLEUScore(smooth=True)
    smooth.update(PREDS, SINGLE)
    assert_identical(values["bleu_smooth"], smooth.compute())


# ------------------------------------------------------------------ bad input
GOOD = (["the cat sat", "a dog"], ["the cat sat down", "a dog ran"])
GOOD_MULTI = (["the cat sat", "a dog"], [["the cat sat down"], ["a dog ran", "dogs"]])
BAD_UPDATES = [
    ("wer", M.WordErrorRate, GOOD, (["a", 3], ["a", "b"]), ("`preds`", "3", "index 1")),
    ("cer", M.CharErrorRate, GOOD, (["a", "b"], ["a"]), ("`preds`", "`target`", "2 and 1")),
    ("edit", M.EditDistance, GOOD, (["a"], [None]), ("`target`", "None")),
    ("bleu", M.BLEUScore, GOOD_MULTI, (["a", "b"], [["a"]]), ("`preds`", "`target`", "2 and 1")),
    ("bleu_refs", M.BLEUScore, GOOD_MULTI, (["a"], [["a", 7]]), ("`target`", "7", "[0][1]")),
    ("bleu_no_ref", M.BLEUScore, GOOD_MULTI, (["a"], [[]]), ("`target`", "no reference")),
    ("sacrebleu", M.SacreBLEUScore, GOOD_MULTI, ([b"bytes"], [["a"]]), ("`preds`", "bytes")),
    ("chrf", M.CHRFScore, GOOD_MULTI, (["a", "b", "c"], [["a"], ["b"]]), ("`preds`", "`target`", "3 and 2")),
    ("ter", M.TranslationEditRate, GOOD_MULTI, ("a", 5), ("`target`", "5")),
    ("rouge", lambda: M.ROUGEScore(rouge_keys="rouge1"), GOOD_MULTI, (["a"], [["a"], ["b"]]), ("`preds`", "`target`", "1 and 2")),
    ("eed", M.ExtendedEditDistance, GOOD_MULTI, ([1.5], ["a"]), ("`preds`", "1.5")),
    ("squad", M.SQuAD, ([{"prediction_text": "a", "id": "1"}], [{"answers": {"text": ["a"]}, "id": "1"}]),
     ([{"text": "a", "id": "1"}], [{"answers": {"text": ["a"]}, "id": "1"}]), ("`preds`", "prediction_text")),
    ("perplexity_rank", M.Perplexity, (torch.zeros(2, 3, 4), torch.zeros(2, 3, dtype=torch.int64)),
     (torch.zeros(2, 4), torch.zeros(2, 3, dtype=torch.int64)), ("`preds`", "3 dimensions", "(2, 4)")),
    ("perplexity_vocab", M.Perplexity, (torch.zeros(2, 3, 4), torch.zeros(2, 3, dtype=torch.int64)),
     (torch.zeros(2, 3, 4), torch.tensor([[0, 1, 4], [0, 0, 0]])), ("`target`", "4", "[0, 4)")),
    ("perplexity_negative", lambda: M.Perplexity(ignore_index=-100), (torch.zeros(2, 3, 4), torch.zeros(2, 3, dtype=torch.int64)),
     (torch.zeros(2, 3, 4), torch.tensor([[0, -1, -100], [0, 0, 0]])), ("`target`", "-1", "-100")),
    ("perplexity_dtype", M.Perplexity, (torch.zeros(2, 3, 4), torch.zeros(2, 3, dtype=torch.int64)),
     (torch.zeros(2, 3, 4), torch.zeros(2, 3, dtype=torch.int32)), ("`target`", "int32")),
]  # fmt: skip


@pytest.mark.parametrize(
    ("factory", "good", "bad", "needles"), [c[1:] for c in BAD_UPDATES], ids=[c[0] for c in BAD_UPDATES]
)
def test_bad_update_names_the_argument_and_leaves_the_state(
    factory: Callable, good: tuple, bad: tuple, needles: tuple
) -> None:
    metric, reference = factory(), factory()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        metric.update(*good)
        for call in (metric.update, metric.forward):
            with pytest.raises((ValueError, TypeError)) as info:
                call(*bad)
            for needle in needles:
                assert needle in str(info.value), (needle, str(info.value))
        metric.update(*good)
        reference.update(*good)
        reference.update(*good)
        assert metric.update_count == reference.update_count
        assert_identical(metric.compute(), reference.compute())


BAD_ARGUMENTS = [
    (lambda: M.BLEUScore(n_gram=0), ("`n_gram`", "0")),
    (lambda: M.SacreBLEUScore(n_gram=-2), ("`n_gram`", "-2")),
    (lambda: M.BLEUScore(n_gram=2, weights=[1.0]), ("`weights`", "[1.0]")),
    (lambda: M.SacreBLEUScore(tokenize="moses"), ("`tokenize`", "'moses'")),
    (lambda: M.SacreBLEUScore(smooth="exp"), ("`smooth`", "'exp'")),
    (lambda: M.SacreBLEUScore(convention="nltk"), ("`convention`", "'nltk'")),
    (lambda: M.CHRFScore(n_char_order=0), ("`n_char_order`", "0")),
    (lambda: M.CHRFScore(n_word_order=-1), ("`n_word_order`", "-1")),
    (lambda: M.CHRFScore(beta=-1.0), ("`beta`", "-1.0")),
    (lambda: M.TranslationEditRate(normalize="yes"), ("`normalize`", "'yes'")),
    (lambda: M.EditDistance(substitution_cost=-1), ("`substitution_cost`", "-1")),
    (lambda: M.EditDistance(reduction="max"), ("`reduction`", "'max'")),
    (lambda: M.ExtendedEditDistance(language="de"), ("`language`", "'de'")),
    (lambda: M.ExtendedEditDistance(alpha=-2.0), ("`alpha`", "-2.0")),
    (lambda: M.ExtendedEditDistance(rho=1), ("`rho`", "1")),
    (lambda: M.ROUGEScore(rouge_keys=("rouge1", "rouge10")), ("`rouge_keys`", "'rouge10'")),
    (lambda: M.ROUGEScore(accumulate="max"), ("`accumulate`", "'max'")),
    (lambda: M.Perplexity(ignore_index=1.5), ("`ignore_index`", "1.5")),
]


@pytest.mark.parametrize(("factory", "needles"), BAD_ARGUMENTS, ids=[n[0] + n[1] for _, n in BAD_ARGUMENTS])
def test_bad_arguments_name_the_argument_and_value(factory: Callable, needles: tuple) -> None:
    with pytest.raises((ValueError, TypeError)) as info:
        factory()
    for needle in needles:
        assert needle in str(info.value), (needle, str(info.value))


# ------------------------------------------------------------------ 2-process gloo
SHARDS = {0: [(0, 5), (5, 6), (6, 17)], 1: [(17, 19), (19, 30)]}  # uneven; rank 1 has none in "empty" runs


def _shards(rank: int, empty_rank: int | None) -> list[tuple[int, int]]:
    if empty_rank is None:
        return SHARDS[rank]
    return [] if rank == empty_rank else [(0, 30)]


def _collection() -> MetricCollection:
    return MetricCollection(
        {
            "wer": M.WordErrorRate(),
            "mer": M.MatchErrorRate(),
            "wip": M.WordInfoPreserved(),
            "cer": M.CharErrorRate(),
        }
    )


def _worker(rank: int, world: int) -> dict:
    out = {}
    for empty_rank in (None, 1):
        for name, (factory, layout) in METRICS.items():
            metric = _feed(factory(), layout, _shards(rank, empty_rank))
            out[(empty_rank, name)] = metric.compute()
        collection = _collection()
        for start, stop in _shards(rank, empty_rank):
            collection.update(PREDS[start:stop], SINGLE[start:stop])
        out[(empty_rank, "collection")] = collection.compute()
    return out


def test_two_process_sync_equals_one_process() -> None:
    results = run_distributed(_worker, timeout=240)
    for empty_rank in (None, 1):
        bounds = SHARDS[0] + SHARDS[1] if empty_rank is None else [(0, 30)]
        for name, (factory, layout) in METRICS.items():
            expected = _feed(factory(), layout, bounds).compute()
            for rank in (0, 1):
                assert_identical(results[rank][(empty_rank, name)], expected)
        collection = _collection()
        collection.update(PREDS, SINGLE)
        for rank in (0, 1):
            assert_identical(results[rank][(empty_rank, "collection")], collection.compute())


def test_real_corpus_in_a_collection_of_every_family() -> None:
    preds, target = real()
    collection = MetricCollection(
        {"bleu": M.SacreBLEUScore(), "chrf": M.CHRFScore(), "ter": M.TranslationEditRate(), "eed": M.ExtendedEditDistance(),
         "rouge": M.ROUGEScore(rouge_keys=("rouge1", "rougeL"))}
    )  # fmt: skip
    collection.update(preds, target)
    values = collection.compute()
    assert set(values) == {"bleu", "chrf", "ter", "eed", "rouge1_fmeasure", "rouge1_precision", "rouge1_recall",
                           "rougeL_fmeasure", "rougeL_precision", "rougeL_recall"}  # fmt: skip
    assert all(torch.isfinite(v) for v in values.values())
