"""InfoLM against torchmetrics 1.9, with a tiny masked language model built here (nothing is downloaded).

torchmetrics puts the sentence distributions back in order with the sorting permutation instead
of its inverse (Lightning-AI/torchmetrics#2728, as in BERTScore): the oracle comparisons use corpora
whose predictions and references both get longer, where sorting changes nothing.
"""

from __future__ import annotations

import warnings

import pytest
import torch

pytest.importorskip("transformers")

from torchmetrics.functional.text.infolm import infolm as tm_infolm
from torchmetrics.text.infolm import InfoLM as TMInfoLM

from lightning_metrics.functional.text.infolm import InformationMeasure, default_max_length, infolm
from lightning_metrics.text.infolm import InfoLM
from tests._tiny_models import bert_tokenizer, length_sorted_pairs, sentences, tiny_bert
from tests.text._helpers import assert_same

TOL = {"rtol": 1e-5, "atol": 1e-6}
MEASURES = {
    "kl_divergence": {},
    "alpha_divergence": {"alpha": 0.5},
    "beta_divergence": {"beta": 0.5},
    "ab_divergence": {"alpha": 0.5, "beta": 0.3},
    "renyi_divergence": {"alpha": 2.0},
    "l1_distance": {},
    "l2_distance": {},
    "l_infinity_distance": {},
    "fisher_rao_distance": {},
}


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mlm")
    tokenizer = bert_tokenizer(folder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tiny_bert(tokenizer, masked_lm=True).save_pretrained(folder)
        tokenizer.save_pretrained(folder)
    preds, target = length_sorted_pairs(tokenizer, n=14)
    return {
        "path": str(folder),
        "preds": preds,
        "target": target,
        "kwargs": {"max_length": 32, "verbose": False},
    }


@pytest.mark.parametrize("idf", [True, False])
@pytest.mark.parametrize("measure", MEASURES)
def test_functional_matches_torchmetrics(setup, measure, idf):
    kwargs = {
        **setup["kwargs"],
        "information_measure": measure,
        "idf": idf,
        "return_sentence_level_score": True,
        "model_name_or_path": setup["path"],
        **MEASURES[measure],
    }
    ours = infolm(setup["preds"], setup["target"], **kwargs)
    theirs = tm_infolm(setup["preds"], setup["target"], **kwargs)
    assert_same(ours, theirs, **TOL)


@pytest.mark.parametrize("idf", [True, False])
def test_modular_matches_torchmetrics_over_batches(setup, idf):
    kwargs = {**setup["kwargs"], "idf": idf, "return_sentence_level_score": True, "temperature": 0.5}
    ours, theirs = InfoLM(setup["path"], **kwargs), TMInfoLM(setup["path"], **kwargs)
    for metric in (ours, theirs):
        for start, stop in ((0, 4), (4, 5), (5, 14)):
            metric.update(setup["preds"][start:stop], setup["target"][start:stop])
    assert_same(ours.compute(), theirs.compute(), **TOL)


@pytest.mark.parametrize("idf", [True, False])
def test_merged_halves_equal_one_process(setup, idf):
    preds, target = setup["preds"], setup["target"]
    first, second = (
        InfoLM(setup["path"], idf=idf, return_sentence_level_score=True, **setup["kwargs"]) for _ in range(2)
    )
    first.update(preds[:6], target[:6])
    second.update(preds[6:], target[6:])
    second.merge_state(first)  # the incoming state comes first
    expected = infolm(
        preds, target, setup["path"], idf=idf, return_sentence_level_score=True, **setup["kwargs"]
    )
    assert_same(second.compute(), expected, **TOL)


def test_any_order_pairs_score_alone_without_idf(setup):
    """Duplicates, one-word and empty sentences in no order: without idf each pair scores on its own."""
    preds, target = sentences(13)
    preds, target = [*preds, "", "hello"], [*target, "the cat", ""]
    kwargs = {
        **setup["kwargs"],
        "idf": False,
        "model_name_or_path": setup["path"],
        "information_measure": "l1_distance",
    }
    _, ours = infolm(preds, target, return_sentence_level_score=True, **kwargs)
    for i in range(len(preds)):
        assert_same(ours[i], tm_infolm([preds[i]], [target[i]], **kwargs), **TOL)


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="information_measure"):
        InformationMeasure("kl")
    with pytest.raises(ValueError, match="alpha"):
        InformationMeasure("alpha_divergence", alpha=1)  # an int, as torchmetrics refuses
    with pytest.raises(ValueError, match="beta"):
        InformationMeasure("beta_divergence", beta=-1.0)
    with pytest.raises(ValueError, match="alpha"):
        InformationMeasure("ab_divergence", alpha=0.5, beta=-0.5)
    with pytest.raises(ValueError, match="temperature"):
        infolm(["a"], ["a"], temperature=0)


def test_bad_input_leaves_the_state(setup):
    metric = InfoLM(setup["path"], **setup["kwargs"])
    metric.update(["a cat"], ["a dog"])
    with pytest.raises(ValueError, match="same length"):
        metric.update(["a", "b"], ["a"])
    assert [len(v) for v in metric.metric_state.values()] == [1, 1, 1, 1]


def test_higher_is_better_follows_the_measure(setup):
    for measure, extra in MEASURES.items():
        ours = InfoLM(setup["path"], information_measure=measure, **extra, **setup["kwargs"])
        theirs = TMInfoLM(setup["path"], information_measure=measure, **extra, **setup["kwargs"])
        assert ours.higher_is_better == theirs.higher_is_better


def test_default_max_length_is_the_configurations_or_20():
    class Model:
        config = type("Config", (), {})()

    assert default_max_length(Model(), None) == 20
    Model.config.max_length = 7
    assert default_max_length(Model(), None) == 7
    assert default_max_length(Model(), 5) == 5
    torch.testing.assert_close(
        InformationMeasure("l1_distance")(torch.ones(1, 2) / 2, torch.ones(1, 2) / 2), torch.zeros(1)
    )
