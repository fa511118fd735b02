"""BERTScore against torchmetrics 1.9, with tiny BERT and RoBERTa models built here (nothing is downloaded).

torchmetrics sorts the sentences by length and puts the embeddings back with the sorting permutation
instead of its inverse (Lightning-AI/torchmetrics#2728): its i-th prediction meets its i-th reference
only when sorting changes nothing. The oracle comparisons therefore use corpora whose predictions
and references both get longer (``length_sorted_pairs``); on any other corpus ours is checked
against torchmetrics one pair at a time (where its sorting is the identity) and for invariance to
the order of the pairs.
"""

from __future__ import annotations

import sys
import warnings

import pytest
import torch

pytest.importorskip("transformers")

from torchmetrics.functional.text.bert import bert_score as tm_bert_score
from torchmetrics.text.bert import BERTScore as TMBERTScore

from lightning_metrics.functional.text.bert import bert_score
from lightning_metrics.text.bert import BERTScore
from tests._distributed import run_distributed
from tests._tiny_models import (
    bert_tokenizer,
    length_sorted_pairs,
    roberta_tokenizer,
    sentences,
    tiny_bert,
    tiny_roberta,
)
from tests.text._helpers import assert_same

TOL = {"rtol": 1e-5, "atol": 1e-5}


class UserTokenizer:
    """A user's tokenizer: torchmetrics' class calls ``tokenizer(sentences, max_length)``, its function
    calls it as a transformers tokenizer (keywords)."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer

    def __call__(self, texts, max_length=None, **kwargs):
        if kwargs:
            return self.tokenizer(texts, max_length=max_length, **kwargs)
        return self.tokenizer(
            texts, padding="max_length", max_length=max_length, truncation=True, return_tensors="pt"
        )


@pytest.fixture(scope="module", params=["bert", "roberta"])
def setup(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp(request.param)
    tokenizer = bert_tokenizer(folder) if request.param == "bert" else roberta_tokenizer(folder)
    model = tiny_bert(tokenizer) if request.param == "bert" else tiny_roberta(tokenizer)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.save_pretrained(folder)
        tokenizer.save_pretrained(folder)
    preds, target = length_sorted_pairs(tokenizer, n=24)
    return {"path": str(folder), "tokenizer": tokenizer, "model": model, "preds": preds, "target": target}


CASES = {
    "plain": {},
    "idf": {"idf": True},
    "layer1_idf": {"num_layers": 1, "idf": True},
    "layer0": {"num_layers": 0},
    "all_layers_idf": {"all_layers": True, "idf": True},
    "batch3_idf": {"batch_size": 3, "idf": True},
}


@pytest.mark.parametrize("case", CASES)
def test_functional_matches_torchmetrics(setup, case):
    kwargs = CASES[case]
    args = (setup["preds"], setup["target"])
    ours = bert_score(*args, model_name_or_path=setup["path"], **kwargs)
    assert_same(ours, tm_bert_score(*args, model_name_or_path=setup["path"], **kwargs), **TOL)
    assert ours["f1"].shape[-1] == len(setup["preds"])


def test_several_references_score_the_best(setup):
    preds, target = (
        setup["preds"][:12],
        [[setup["target"][2 * i], setup["target"][2 * i + 1]] for i in range(12)],
    )
    for idf in (False, True):
        ours = bert_score(preds, target, model_name_or_path=setup["path"], idf=idf)
        assert_same(ours, tm_bert_score(preds, target, model_name_or_path=setup["path"], idf=idf), **TOL)


@pytest.mark.parametrize("idf", [False, True])
def test_modular_matches_torchmetrics_over_batches(setup, idf):
    ours, theirs = (
        BERTScore(setup["path"], idf=idf, max_length=64),
        TMBERTScore(setup["path"], idf=idf, max_length=64),
    )
    for metric in (ours, theirs):
        for start, stop in ((0, 5), (5, 6), (6, 24)):
            metric.update(setup["preds"][start:stop], setup["target"][start:stop])
    assert_same(ours.compute(), theirs.compute(), **TOL)


def test_user_model_tokenizer_and_forward_function(setup):
    model, tokenizer = setup["model"], UserTokenizer(setup["tokenizer"])

    def forward(model, batch):
        return model(batch["input_ids"], batch["attention_mask"]).last_hidden_state

    args = (setup["preds"], setup["target"])
    for extra in ({}, {"user_forward_fn": forward}):
        kwargs = {"model": model, "user_tokenizer": tokenizer, "max_length": 64, "idf": True, **extra}
        assert_same(bert_score(*args, **kwargs), tm_bert_score(*args, **kwargs), **TOL)
        ours, theirs = BERTScore(**kwargs), TMBERTScore(**kwargs)
        for metric in (ours, theirs):
            metric.update(args[0][:10], args[1][:10])
            metric.update(args[0][10:], args[1][10:])
        assert_same(ours.compute(), theirs.compute(), **TOL)


def test_any_order_equals_torchmetrics_pair_by_pair(setup):
    """A corpus with duplicates, one-word and empty sentences, in no particular order."""
    preds, target = sentences(16)
    preds, target = [*preds, "", "hello", ""], [*target, "the cat", "", ""]
    kwargs = {"model": setup["model"], "user_tokenizer": UserTokenizer(setup["tokenizer"]), "max_length": 64}
    ours = bert_score(preds, target, **kwargs)
    for i in range(len(preds)):
        theirs = tm_bert_score([preds[i]], [target[i]], **kwargs)
        assert_same({k: v[i] for k, v in ours.items()}, theirs, **TOL)
    assert ours["f1"][3] == pytest.approx(1.0, abs=1e-5)  # the exact match
    assert torch.isnan(ours["precision"][-1]) and ours["f1"][-1] == 0  # two empty sentences, as torchmetrics


def test_idf_is_invariant_to_the_order_of_the_pairs(setup):
    preds, target = sentences(20)
    order = torch.randperm(20, generator=torch.Generator().manual_seed(1)).tolist()
    ours = bert_score(preds, target, model_name_or_path=setup["path"], idf=True)
    shuffled = bert_score(
        [preds[i] for i in order], [target[i] for i in order], model_name_or_path=setup["path"], idf=True
    )
    assert_same(shuffled, {k: v[order] for k, v in ours.items()}, **TOL)


def test_merged_halves_equal_one_process(setup):
    preds, target = setup["preds"], setup["target"]
    first, second = BERTScore(setup["path"], idf=True), BERTScore(setup["path"], idf=True)
    first.update(preds[:7], target[:7])
    second.update(preds[7:], target[7:])
    second.merge_state(first)  # the incoming state comes first
    assert_same(
        second.compute(), bert_score(preds, target, model_name_or_path=setup["path"], idf=True), **TOL
    )


def _write_baseline(path, layers):
    rows = ["LAYER,P,R,F"] + [
        f"{i},{0.5 + 0.01 * i},{0.4 + 0.02 * i},{0.45 + 0.01 * i}" for i in range(layers + 1)
    ]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_rescale_with_a_baseline_file_or_url(setup, tmp_path):
    baseline = _write_baseline(tmp_path / "baseline.tsv", 2)
    args = (setup["preds"], setup["target"])
    for kwargs in (
        {"baseline_path": str(baseline)},
        {"baseline_url": baseline.as_uri()},
        {"baseline_path": str(baseline), "all_layers": True},
        {"baseline_path": str(baseline), "num_layers": 1},
    ):
        kwargs = {"model_name_or_path": setup["path"], "rescale_with_baseline": True, **kwargs}
        assert_same(bert_score(*args, **kwargs), tm_bert_score(*args, **kwargs), **TOL)
        ours, theirs = BERTScore(**kwargs), TMBERTScore(**kwargs)
        ours.update(*args)
        theirs.update(*args)
        assert_same(ours.compute(), theirs.compute(), **TOL)


def test_a_baseline_that_cannot_be_downloaded_says_what_to_do(setup, tmp_path):
    url = (tmp_path / "missing.tsv").as_uri()
    with pytest.raises(OSError, match="baseline_path"):
        BERTScore(setup["path"], rescale_with_baseline=True, baseline_url=url)
    with pytest.raises(OSError, match="Could not download the BERTScore baseline"):
        bert_score(
            ["a"], ["a"], model_name_or_path=setup["path"], rescale_with_baseline=True, baseline_url=url
        )


def test_hash_and_empty_input(setup):
    kwargs = {"model_name_or_path": setup["path"], "num_layers": 1, "idf": True, "return_hash": True}
    assert (
        bert_score(["a cat"], ["a dog"], **kwargs)["hash"]
        == tm_bert_score(["a cat"], ["a dog"], **kwargs)["hash"]
    )
    with pytest.warns(UserWarning, match="empty"):
        ours = bert_score([], [], **kwargs)
    assert ours == {"precision": [0.0], "recall": [0.0], "f1": [0.0], "hash": ours["hash"]}
    metric = BERTScore(**kwargs)
    with pytest.warns(UserWarning):
        assert metric.compute()["f1"] == [0.0]


def test_bad_input_names_the_argument_and_leaves_the_state(setup):
    metric = BERTScore(setup["path"])
    metric.update(["a cat"], ["a dog"])
    before = {k: [t.clone() for t in v] for k, v in metric.metric_state.items()}
    with pytest.raises(ValueError, match="same length"):
        metric.update(["a", "b"], ["a"])
    with pytest.raises(ValueError, match="preds"):
        metric.update(["a", 3], ["a", "b"])
    with pytest.raises(ValueError, match="no reference"):
        metric.update(["a"], [[]])
    for name, value in metric.metric_state.items():
        assert len(value) == len(before[name]) and all(torch.equal(a, b) for a, b in zip(value, before[name]))
    for kwargs, match in (
        ({"idf": 1}, "idf"),
        ({"num_layers": 5}, "num_layers"),
        ({"batch_size": 0}, "batch_size"),
        ({"all_layers": True, "user_forward_fn": lambda m, b: b}, "all_layers"),
    ):
        with pytest.raises(ValueError, match=match):
            BERTScore(setup["path"], **kwargs)


def test_a_training_model_is_scored_in_evaluation_mode(setup):
    model = setup["model"].train()
    try:
        kwargs = {"model": model, "user_tokenizer": UserTokenizer(setup["tokenizer"]), "max_length": 64}
        first = bert_score(setup["preds"], setup["target"], **kwargs)
        assert model.training  # left as it was
        assert_same(bert_score(setup["preds"], setup["target"], **kwargs), first, rtol=0, atol=0)
    finally:
        model.eval()


def _ddp_shard(rank, world, path, preds, target):
    metric = BERTScore(path, idf=True)
    cut = 5  # uneven shards
    shard = slice(0, cut) if rank == 0 else slice(cut, None)
    metric.update(preds[shard], target[shard])
    return metric.compute()


def test_two_processes_with_uneven_shards_equal_one(setup):
    if setup["tokenizer"].__class__.__name__.startswith("Roberta"):
        pytest.skip("one model family is enough for the distributed run")
    results = run_distributed(_ddp_shard, setup["path"], setup["preds"], setup["target"])
    expected = bert_score(setup["preds"], setup["target"], model_name_or_path=setup["path"], idf=True)
    for result in results:
        assert_same(result, expected, **TOL)


def test_transformers_is_imported_lazily_and_named_when_missing(monkeypatch):
    from lightning_metrics import _transformers
    from tests._imports import heavy_modules_loaded

    assert (
        heavy_modules_loaded(
            ["lightning_metrics.text", "lightning_metrics.functional.text"], ("transformers",)
        )
        == []
    )
    monkeypatch.setitem(sys.modules, "transformers", None)
    with pytest.raises(ModuleNotFoundError, match=r"lightning_metrics\[transformers\]"):
        _transformers.require("BERTScore")
    with pytest.raises(ModuleNotFoundError, match="transformers"):
        BERTScore("some/model")


def test_state_dict_round_trip_and_forward(setup):
    metric = BERTScore(setup["path"], idf=True)
    batch = metric(setup["preds"][:4], setup["target"][:4])  # the batch's own value, accumulated too
    assert_same(
        batch,
        bert_score(setup["preds"][:4], setup["target"][:4], model_name_or_path=setup["path"], idf=True),
        **TOL,
    )
    metric.update(setup["preds"][4:9], setup["target"][4:9])
    assert metric.state_dict() == {}  # a loaded model is no submodule; states are not persistent by default
    metric.persistent(True)
    restored = BERTScore(setup["path"], idf=True)
    restored.load_state_dict(metric.state_dict())
    with pytest.warns(UserWarning, match="before the ``update``"):  # loaded states, no update counted
        assert_same(restored.compute(), metric.compute(), rtol=0, atol=0)
