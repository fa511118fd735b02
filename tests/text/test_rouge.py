"""ROUGE against torchmetrics 1.9 and Google's rouge-score.

ROUGE-Lsum splits sentences with nltk's punkt model, which is not on this machine and is never
downloaded by the tests: both libraries get the same stand-in splitter here (a test of the
summary-level LCS, not of punkt), and the fetch on first use is tested with nltk's downloader
stood in for.
"""

from __future__ import annotations

import itertools

import pytest
import torch
import torchmetrics.functional.text.rouge as tm_rouge
import torchmetrics.text as TM
from rouge_score import rouge_scorer

import lightning_metrics.text as M
from lightning_metrics.functional.text import rouge
from tests.text._corpora import corpus, edge_cases, real
from tests.text._helpers import assert_same, in_batches


def _split(text: str) -> list[str]:
    parts = [p for p in text.replace("!", ".").replace("?", ".").split(".") if p.strip()]
    return parts or [text]


@pytest.fixture(autouse=True)
def _same_sentence_splitter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tm_rouge, "_split_sentence", _split)
    monkeypatch.setattr(rouge, "_split_sentence", _split)


CORPORA = [corpus(seed, n=8) for seed in range(4)] + [real()] + edge_cases()
KEYS = [
    ("rouge1", "rouge2", "rougeL", "rougeLsum"),
    ("rouge3", "rouge9"),
    "rougeL",
    ("rougeLsum", "rouge4", "rouge1"),
]
CASES = list(itertools.product(("best", "avg"), (False, True), range(len(KEYS))))


@pytest.mark.parametrize(("accumulate", "use_stemmer", "keys"), CASES)
def test_rouge_equals_torchmetrics(accumulate: str, use_stemmer: bool, keys: int) -> None:
    rouge_keys = KEYS[keys]
    for preds, target in CORPORA[::2]:
        ours = rouge.rouge_score(preds, target, accumulate, use_stemmer, rouge_keys=rouge_keys)
        assert_same(ours, tm_rouge.rouge_score(preds, target, accumulate, use_stemmer, rouge_keys=rouge_keys))
    preds = [p for c in CORPORA for p in c[0]]
    target = [t for c in CORPORA for t in c[1]]
    args = {"use_stemmer": use_stemmer, "accumulate": accumulate, "rouge_keys": rouge_keys}
    assert_same(
        in_batches(M.ROUGEScore(**args), preds, target, (3, 8)),
        in_batches(TM.ROUGEScore(**args), preds, target, (5,)),
    )


def test_rouge_input_layouts_and_custom_tokenization() -> None:
    assert_same(rouge.rouge_score("a b c", "a c"), tm_rouge.rouge_score("a b c", "a c"))
    assert_same(rouge.rouge_score("a b c", ["a c", "b c"]), tm_rouge.rouge_score("a b c", ["a c", "b c"]))
    assert_same(
        rouge.rouge_score(["a b", "c"], ["a", "c d"]), tm_rouge.rouge_score(["a b", "c"], ["a", "c d"])
    )
    args = {
        "normalizer": lambda s: s.upper(),
        "tokenizer": lambda s: list(s.replace(" ", "")),
        "rouge_keys": ("rouge1", "rouge2", "rougeL"),
    }
    preds, target = corpus(9, n=6)
    assert_same(rouge.rouge_score(preds, target, **args), tm_rouge.rouge_score(preds, target, **args))


@pytest.mark.parametrize("use_stemmer", [False, True])
def test_rouge_equals_rouge_score_package(use_stemmer: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """rouge-score (Google's reference): per pair, then the best reference by F-measure and the mean
    over predictions. Its ROUGE-Lsum splits on newlines: ours is given the same splitter."""
    monkeypatch.setattr(rouge, "_split_sentence", lambda text: text.split("\n"))
    keys = ["rouge1", "rouge2", "rouge4", "rougeL", "rougeLsum"]
    scorer = rouge_scorer.RougeScorer(keys, use_stemmer=use_stemmer)
    preds, target = real()
    preds = [p.replace(", ", ",\n") for p in preds]  # several sentences for Lsum
    sums = {k: torch.zeros(3, dtype=torch.float64) for k in keys}
    for p, refs in zip(preds, target):
        for key, score in scorer.score_multi(refs, p).items():
            sums[key] += torch.tensor([score.fmeasure, score.precision, score.recall], dtype=torch.float64)
    ours = rouge.rouge_score(preds, target, use_stemmer=use_stemmer, rouge_keys=tuple(keys))
    for key in keys:
        for i, kind in enumerate(("fmeasure", "precision", "recall")):
            assert ours[f"{key}_{kind}"].item() == pytest.approx(
                sums[key][i].item() / len(preds), rel=1e-5, abs=1e-6
            )


def _missing_punkt(nltk, monkeypatch: pytest.MonkeyPatch, installed: list) -> None:
    """nltk without punkt_tab until ``installed`` holds something (no network is used)."""
    real_find = nltk.data.find

    def find(resource, *args, **kwargs):
        if resource == "tokenizers/punkt_tab" and not installed:
            raise LookupError(resource)
        if resource == "tokenizers/punkt_tab":
            return "fake/punkt_tab"
        return real_find(resource, *args, **kwargs)

    monkeypatch.setattr(nltk.data, "find", find)


@pytest.mark.parametrize("failure", ["raises", "returns False"])
def test_rouge_lsum_fetches_punkt_once_and_says_what_to_do_when_it_cannot(
    monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    """torchmetrics fetches punkt_tab on first use: so do we (nltk's downloader, stood in for here:
    the tests never reach the network); without the network the error names the command."""
    import nltk

    monkeypatch.undo()  # the real splitter
    installed: list = []
    _missing_punkt(nltk, monkeypatch, installed)
    calls: list = []

    def no_network(info_or_id, **kwargs):
        calls.append((info_or_id, kwargs.get("quiet")))
        if failure == "raises":
            raise ValueError("<urlopen error [Errno -3] Temporary failure in name resolution>")
        return False

    monkeypatch.setattr(nltk, "download", no_network)
    with pytest.raises(OSError, match=r"python -m nltk.downloader punkt_tab") as caught:
        rouge.rouge_score(["a. b."], [["a. b."]], rouge_keys="rougeLsum")
    assert calls == [("punkt_tab", True)]
    if failure == "raises":
        assert "name resolution" in str(caught.value)


def test_rouge_lsum_uses_punkt_once_fetched(monkeypatch: pytest.MonkeyPatch) -> None:
    import nltk

    monkeypatch.undo()
    installed: list = []
    _missing_punkt(nltk, monkeypatch, installed)
    monkeypatch.setattr(nltk, "download", lambda info_or_id, **kwargs: installed.append(info_or_id) or True)
    monkeypatch.setattr(nltk, "sent_tokenize", lambda text, *a, **k: [p for p in text.split(". ") if p])
    value = rouge.rouge_score(["a b. c d."], [["a b. c d."]], rouge_keys="rougeLsum")["rougeLsum_fmeasure"]
    assert installed == ["punkt_tab"] and value.item() == 1.0
    rouge.rouge_score(["a b."], [["a b."]], rouge_keys="rougeLsum")
    assert installed == ["punkt_tab"]  # found on disk the second time: fetched once
