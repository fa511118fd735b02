"""Kendall's pair counts by sorting (O(n log^2 n)) equal the definition over all pairs, and the
metric matches scipy on samples far larger than the pairwise form could take."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import lightning_metrics.regression as lm
from lightning_metrics.functional.regression import kendall_rank_corrcoef
from lightning_metrics.functional.regression.ranks import _inversions, _pair_counts, _tie_statistics


def _pairs_by_definition(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """C - D and C + D from the signs of every pair (the definition; infinities compare as values)."""
    sx = np.sign(np.subtract.outer(x, x, where=x[:, None] != x[None, :], out=np.zeros((len(x), len(x)))))
    sy = np.sign(np.subtract.outer(y, y, where=y[:, None] != y[None, :], out=np.zeros((len(y), len(y)))))
    prod = np.triu(sx * sy, k=1)
    return float(prod.sum()), float((prod != 0).sum())


# few distinct values, so that ties in x, in y and in both are common; some infinities
values = st.sampled_from([-np.inf, -2.0, -0.0, 0.0, 0.5, 1.0, 3.0, np.inf])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(values, values), min_size=0, max_size=70))
def test_pair_counts_equal_the_definition_with_ties(pairs):
    x = np.array([p[0] for p in pairs], dtype=np.float64)
    y = np.array([p[1] for p in pairs], dtype=np.float64)
    X, Y = torch.from_numpy(x), torch.from_numpy(y)
    s, untied = _pair_counts(X, Y, _tie_statistics(X)[0], _tie_statistics(Y)[0])
    assert (s.item(), untied.item()) == _pairs_by_definition(x, y)
    assert s.dtype == untied.dtype == torch.float64


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=0, max_size=100))
def test_inversions_count_strictly_greater_earlier_elements(seq):
    expected = sum(1 for i in range(len(seq)) for j in range(i + 1, len(seq)) if seq[i] > seq[j])
    assert _inversions(torch.tensor(seq, dtype=torch.float64)).item() == expected


def test_nan_gives_nan():
    x, y = torch.tensor([0.0, float("nan"), 1.0]), torch.tensor([1.0, 2.0, 3.0])
    s, untied = _pair_counts(x, y, _tie_statistics(x)[0], _tie_statistics(y)[0])
    assert s.isnan() and untied.isnan()


@pytest.mark.parametrize("variant", ["a", "b", "c"])
def test_large_sample_matches_scipy(variant):
    # 20,000 samples: 2e8 pairs, beyond what a pairwise count does in a test's time
    gen = torch.Generator().manual_seed(3)
    x = torch.randint(0, 50, (20_000,), generator=gen).double()  # heavy ties
    y = x * 0.004 + torch.randn(20_000, generator=gen, dtype=torch.float64)  # weak: a p-value far from 0
    tau, p_value = kendall_rank_corrcoef(x, y, variant=variant, t_test=True)
    ref = scipy.stats.kendalltau(x.numpy(), y.numpy(), variant="b" if variant == "a" else variant, method="asymptotic")
    if variant != "a":  # scipy has no variant "a"; b and c are compared directly (results are float32)
        assert tau.item() == pytest.approx(ref.statistic, rel=1e-6)
        assert p_value.item() == pytest.approx(ref.pvalue, rel=1e-5, abs=1e-30)
    metric = lm.KendallRankCorrCoef(variant=variant)
    for part in torch.split(torch.arange(20_000), 3_000):
        metric.update(x[part], y[part])
    torch.testing.assert_close(metric.compute(), tau)
