"""Fleiss' kappa against torchmetrics 1.9 and the textbook formula, counts and probabilities."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torchmetrics.functional.nominal as tmf
import torchmetrics.nominal as tmn

import lightning_metrics.functional.nominal as lmf
import lightning_metrics.nominal as lmn
from tests.nominal._cases import gen
from tests.reliability._registry import assert_identical


def _counts(key: str, samples: int, categories: int, raters: int, agreement: float) -> torch.Tensor:
    g = gen(key)
    favourite = torch.randint(0, categories, (samples, 1), generator=g)
    choices = torch.where(
        torch.rand(samples, raters, generator=g) < agreement,
        favourite,
        torch.randint(0, categories, (samples, raters), generator=g),
    )
    return torch.nn.functional.one_hot(choices, categories).sum(1)


COUNT_CASES = {
    "random-100-5-10": _counts("a", 100, 5, 10, 0.0),
    "agreeing-60-3-4": _counts("b", 60, 3, 4, 0.8),
    "two-raters-30-4": _counts("c", 30, 4, 2, 0.5),
    "unanimous-20-3-5": _counts("d", 20, 3, 5, 1.0),
    "int32-40-6-7": _counts("e", 40, 6, 7, 0.4).to(torch.int32),
}


def _probs(key: str, samples: int, categories: int, raters: int) -> torch.Tensor:
    return torch.randn(samples, categories, raters, generator=gen(key)).softmax(1)


# torchmetrics one-hot encodes the choices with `n_raters` classes: it needs n_categories <= n_raters
PROB_CASES = {"probs-50-3-6": _probs("f", 50, 3, 6), "probs-30-4-4": _probs("g", 30, 4, 4).double()}


def _textbook(counts: np.ndarray) -> float:
    n, raters = counts.shape[0], counts.sum(1).max()
    p_j = counts.sum(0) / (n * raters)
    p_i = ((counts * (counts - 1)).sum(1)) / (raters * (raters - 1))
    p_bar, p_e = p_i.mean(), (p_j**2).sum()
    return (p_bar - p_e) / (1 - p_e + 1e-5)  # torchmetrics' guard in the denominator


@pytest.mark.parametrize("key", sorted(COUNT_CASES))
def test_counts_match_torchmetrics_and_the_formula(key: str) -> None:
    ratings = COUNT_CASES[key]
    ours = lmf.fleiss_kappa(ratings)
    theirs = tmf.fleiss_kappa(ratings)
    assert ours.dtype == theirs.dtype == torch.float32
    torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-6)
    assert ours.item() == pytest.approx(_textbook(ratings.numpy().astype(np.float64)), rel=1e-6, abs=1e-7)
    metric, oracle = lmn.FleissKappa(), tmn.FleissKappa()
    for part in (ratings[:1], ratings[1:17], ratings[17:], ratings[:0]):
        metric.update(part)
        oracle.update(part)
    torch.testing.assert_close(metric.compute(), oracle.compute(), rtol=1e-5, atol=1e-6)
    assert_identical(metric.compute(), ours)


@pytest.mark.parametrize("key", sorted(PROB_CASES))
def test_probabilities_match_torchmetrics(key: str) -> None:
    ratings = PROB_CASES[key]
    ours = lmf.fleiss_kappa(ratings, mode="probs")
    torch.testing.assert_close(ours, tmf.fleiss_kappa(ratings, mode="probs"), rtol=1e-5, atol=1e-6)
    counts = torch.nn.functional.one_hot(ratings.argmax(1), ratings.shape[1]).sum(1)
    assert_identical(ours, lmf.fleiss_kappa(counts))
    metric = lmn.FleissKappa(mode="probs")
    for part in ratings.split(13):
        metric.update(part)
    assert_identical(metric.compute(), ours)


def test_more_categories_than_raters_in_probs_mode() -> None:
    """torchmetrics one-hot encodes with the number of raters and fails here; the counts are well defined."""
    ratings = _probs("h", 20, 6, 3)
    counts = torch.nn.functional.one_hot(ratings.argmax(1), 6).sum(1)
    assert_identical(lmf.fleiss_kappa(ratings, mode="probs"), lmf.fleiss_kappa(counts))


def test_merge_state_and_memory_per_update() -> None:
    ratings = COUNT_CASES["random-100-5-10"]
    a, b, whole = lmn.FleissKappa(), lmn.FleissKappa(), lmn.FleissKappa()
    a.update(ratings[:40])
    b.update(ratings[40:])
    whole.update(ratings)
    a.merge_state(b)
    assert_identical(a.compute(), whole.compute())
    assert [t.shape for t in a.category_totals] == [(1, 5), (1, 5)]  # one row per update, not per sample


@pytest.mark.parametrize(
    ("mode", "ratings", "needles"),
    [
        ("counts", torch.rand(4, 3), ("`ratings`", "torch.float32", "'counts'")),
        ("counts", torch.ones(4, 3, 2, dtype=torch.long), ("`ratings`", "(4, 3, 2)")),
        ("probs", torch.ones(4, 3, dtype=torch.long), ("`ratings`", "'probs'", "(4, 3)")),
    ],
)
def test_bad_ratings_leave_the_state_untouched(mode: str, ratings: torch.Tensor, needles: tuple) -> None:
    good = COUNT_CASES["agreeing-60-3-4"] if mode == "counts" else PROB_CASES["probs-50-3-6"]
    metric = lmn.FleissKappa(mode=mode)
    metric.update(good[:20])
    with pytest.raises(ValueError) as info:
        metric.update(ratings)
    for needle in needles:
        assert needle in str(info.value), info.value
    metric.update(good[20:])
    fresh = lmn.FleissKappa(mode=mode)
    fresh.update(good)
    assert_identical(metric.compute(), fresh.compute())


def test_changing_the_number_of_categories_is_rejected() -> None:
    metric = lmn.FleissKappa()
    metric.update(COUNT_CASES["agreeing-60-3-4"])
    with pytest.raises(ValueError, match="keep the 3 categories"):
        metric.update(COUNT_CASES["random-100-5-10"])
    with pytest.raises(ValueError, match=r"`mode` must be one of \('counts', 'probs'\), got 'votes'"):
        lmn.FleissKappa(mode="votes")
    with pytest.raises(ValueError, match="`mode`"):
        lmf.fleiss_kappa(COUNT_CASES["agreeing-60-3-4"], mode="votes")
