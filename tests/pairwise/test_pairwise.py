"""Pairwise similarities and distances against torchmetrics 1.9 and float64 definitions."""

from __future__ import annotations

import itertools

import pytest
import torch

from lightning_metrics.functional import pairwise as ours

tm_pairwise = pytest.importorskip("torchmetrics.functional.pairwise")

NAMES = [
    "pairwise_cosine_similarity",
    "pairwise_euclidean_distance",
    "pairwise_linear_similarity",
    "pairwise_manhattan_distance",
    "pairwise_minkowski_distance",
]


def _data(dtype):
    gen = torch.Generator().manual_seed(0)
    return torch.randn(7, 4, generator=gen).to(dtype), torch.randn(5, 4, generator=gen).to(dtype)


@pytest.mark.parametrize(
    ("name", "with_y", "reduction", "zero_diagonal", "dtype"),
    list(itertools.product(NAMES, [False, True], [None, "mean", "sum", "none"], [None, True, False],
                           [torch.float32, torch.float64]))[::2],
)
def test_values_dtypes_and_shapes_equal_torchmetrics(name, with_y, reduction, zero_diagonal, dtype):
    x, y = _data(dtype)
    args = (x, y) if with_y else (x,)
    kwargs = {"reduction": reduction, "zero_diagonal": zero_diagonal}
    mine, reference = getattr(ours, name)(*args, **kwargs), getattr(tm_pairwise, name)(*args, **kwargs)
    assert mine.dtype == reference.dtype and mine.shape == reference.shape
    torch.testing.assert_close(mine, reference, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("exponent", [1, 1.5, 3])
def test_minkowski_is_the_p_norm_of_the_differences(exponent):
    x, y = _data(torch.float64)
    expected = ((x[:, None] - y[None]).abs() ** exponent).sum(-1) ** (1 / exponent)
    torch.testing.assert_close(ours.pairwise_minkowski_distance(x, y, exponent=exponent), expected)


def test_euclidean_distance_of_a_row_with_itself_is_zero_not_nan():
    x = torch.tensor([[1e4, 1e-3], [1e4, 1e-3]], dtype=torch.float32)
    assert torch.equal(ours.pairwise_euclidean_distance(x, x.clone()), torch.zeros(2, 2))


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda: ours.pairwise_cosine_similarity(torch.zeros(3)), "`x`"),
        (lambda: ours.pairwise_linear_similarity(torch.zeros(3, 2), torch.zeros(3, 4)), "`y`"),
        (lambda: ours.pairwise_manhattan_distance(torch.zeros(3, 2), reduction="max"), "`reduction`"),
        (lambda: ours.pairwise_minkowski_distance(torch.zeros(3, 2), exponent=0.5), "`exponent`"),
    ],
)
def test_bad_input_names_the_argument(call, needle):
    with pytest.raises(Exception, match=needle):
        call()
