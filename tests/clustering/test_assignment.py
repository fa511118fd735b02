"""The torch linear sum assignment against scipy's and against brute force (hypothesis)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment as scipy_assignment

from lightning_metrics.functional._assignment import linear_sum_assignment, max_weight_matching


@st.composite
def cost_matrices(draw, max_side: int = 7, max_value: int = 6):
    rows, cols = draw(st.integers(1, max_side)), draw(st.integers(1, max_side))
    values = draw(st.lists(st.integers(0, max_value), min_size=rows * cols, max_size=rows * cols))
    return torch.tensor(values, dtype=torch.int64).reshape(rows, cols)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(cost_matrices())
def test_optimal_and_complete_like_scipy(cost: torch.Tensor) -> None:
    rows, cols = linear_sum_assignment(cost)
    expected_rows, expected_cols = scipy_assignment(cost.numpy())
    assert len(rows) == len(expected_rows) == min(cost.shape)
    assert torch.equal(rows, torch.sort(rows).values)
    assert len(set(rows.tolist())) == len(rows) and len(set(cols.tolist())) == len(cols)
    assert int(cost[rows, cols].sum()) == int(cost.numpy()[expected_rows, expected_cols].sum())


@settings(max_examples=60, deadline=None, derandomize=True)
@given(cost_matrices(max_side=5, max_value=3))
def test_max_weight_matching_equals_brute_force(weight: torch.Tensor) -> None:
    rows, cols = weight.shape
    small, large = (rows, cols) if rows <= cols else (cols, rows)
    w = weight if rows <= cols else weight.T
    best = max(
        sum(int(w[i, j]) for i, j in enumerate(perm)) for perm in itertools.permutations(range(large), small)
    )
    assert max_weight_matching(weight) == best


@pytest.mark.parametrize("size", [30, 120])
def test_large_random_and_diagonal_tables(size: int) -> None:
    g = torch.Generator().manual_seed(size)
    for weight in (
        torch.randint(0, 1000, (size, size), generator=g),
        torch.diag(torch.randint(50, 100, (size,), generator=g))[torch.randperm(size, generator=g)]
        + torch.randint(0, 3, (size, size), generator=g),
        torch.full((size, size), 7),  # every matching ties
    ):
        rows, cols = scipy_assignment(weight.numpy(), maximize=True)
        assert max_weight_matching(weight) == int(weight.numpy()[rows, cols].sum())


def test_rejects_what_it_cannot_solve() -> None:
    with pytest.raises(TypeError, match="`cost` must hold integers"):
        linear_sum_assignment(torch.rand(2, 2))
    with pytest.raises(ValueError, match="`cost` must be a matrix"):
        linear_sum_assignment(torch.zeros(3, dtype=torch.long))
    assert max_weight_matching(torch.zeros(0, 0, dtype=torch.long)) == 0
    assert np.isscalar(max_weight_matching(torch.tensor([[3]])))
