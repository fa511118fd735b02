"""Procrustes disparity against torchmetrics 1.9 and scipy.spatial.procrustes: batches of 2-D and
3-D point clouds (noisy rotated, scaled and shifted copies, reflections, unrelated clouds), both
reductions of the class, streamed batches, and bad input."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lightning_metrics.functional.shape import procrustes_disparity
from lightning_metrics.shape import ProcrustesDisparity
from tests._bad_input import assert_rejected_untouched

NAN = float("nan")


def _clouds(seed: int, batch: int = 8, points: int = 40, dims: int = 3, dtype=torch.float64):
    """Pairs: a cloud and a rotated (or reflected), scaled, shifted copy with noise of growing size."""
    gen = torch.Generator().manual_seed(seed)
    first = torch.randn(batch, points, dims, generator=gen, dtype=torch.float64)
    rotation, _ = torch.linalg.qr(torch.randn(batch, dims, dims, generator=gen, dtype=torch.float64))
    noise = torch.linspace(0.0, 1.5, batch, dtype=torch.float64).reshape(-1, 1, 1)
    second = 3 * first @ rotation + 5 + noise * torch.randn(first.shape, generator=gen, dtype=torch.float64)
    return first.to(dtype), second.to(dtype)


@pytest.mark.parametrize(("dims", "dtype"), [(2, torch.float32), (3, torch.float64), (5, torch.float64)])
def test_equals_torchmetrics_and_scipy(dims, dtype):
    tm = pytest.importorskip("torchmetrics.functional.shape")
    scipy_procrustes = pytest.importorskip("scipy.spatial").procrustes
    first, second = _clouds(dims, dims=dims, dtype=dtype)
    ours = procrustes_disparity(first, second)
    theirs = tm.procrustes_disparity(first, second)
    assert ours.dtype == theirs.dtype == dtype and ours.shape == (8,)
    tol = 1e-5 if dtype == torch.float32 else 1e-12
    torch.testing.assert_close(ours, theirs, rtol=tol, atol=tol)
    expected = [scipy_procrustes(a.double().numpy(), b.double().numpy())[2] for a, b in zip(first, second)]
    np.testing.assert_allclose(ours.double().numpy(), expected, rtol=tol, atol=tol)
    disparity, scale, rotation = procrustes_disparity(first, second, return_all=True)
    their_disparity, their_scale, their_rotation = tm.procrustes_disparity(first, second, return_all=True)
    assert scale.shape == their_scale.shape == (8, 1) and rotation.shape == their_rotation.shape == (8, dims, dims)
    torch.testing.assert_close((disparity, scale, rotation), (their_disparity, their_scale, their_rotation),
                               rtol=tol, atol=tol)
    assert 0.0 <= float(ours.min()) < 1e-6 and float(ours.max()) > 0.05  # exact copies to noisy ones


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_modular_streams_equal_torchmetrics(reduction):
    tm = pytest.importorskip("torchmetrics.shape")
    ours, theirs = ProcrustesDisparity(reduction), tm.ProcrustesDisparity(reduction)
    for seed in range(3):
        batch = _clouds(10 + seed, batch=4 + seed, dims=2, dtype=torch.float32)
        torch.testing.assert_close(ours(*batch), theirs(*batch), rtol=1e-5, atol=1e-5)
    value, expected = ours.compute(), theirs.compute()
    assert value.dtype == expected.dtype == torch.float32 and int(ours.count) == 15
    torch.testing.assert_close(value, expected, rtol=1e-5, atol=1e-5)


def test_one_repeated_point_raises_and_nan_gives_nan():
    first, second = _clouds(20, batch=3)
    flat = second.clone()
    flat[1] = 2.0
    with pytest.raises(ValueError, match="`point_cloud2`.*one repeated point at batch index 1"):
        procrustes_disparity(first, flat)
    poisoned = second.clone()
    poisoned[2, 4, 1] = NAN
    values = procrustes_disparity(first, poisoned)
    assert values[2].isnan() and not values[:2].isnan().any()


def _poisoned(index, value, where=0):
    batch = [t.clone() for t in _clouds(30, batch=3, dims=2, dtype=torch.float32)]
    batch[where][index] = value
    return tuple(batch)


BAD_BATCHES = [
    (_poisoned((1, 3, 0), NAN), ValueError, r"`point_cloud1` must be finite.*nan.*\(1, 3, 0\)"),
    (_poisoned((2, 0, 1), float("inf"), where=1), ValueError, r"`point_cloud2` must be finite.*inf.*\(2, 0, 1\)"),
    ((torch.rand(3, 40, 2), torch.rand(3, 39, 2)), RuntimeError, r"same shape.*\(3, 40, 2\).*\(3, 39, 2\)"),
    ((torch.rand(40, 2), torch.rand(40, 2)), ValueError, r"\(N, M, D\).*2 dimensions"),
    ((torch.rand(3, 40, 2), torch.ones(3, 40, 2)), ValueError, "`point_cloud2`.*one repeated point at batch index 0"),
    ((torch.ones(3, 40, 2, dtype=torch.int64), torch.rand(3, 40, 2)), TypeError, "`point_cloud1`.*floating.*int64"),
]


@pytest.mark.parametrize("case", BAD_BATCHES, ids=lambda c: c[2][:40])
def test_bad_batch_leaves_the_state_untouched(case):
    bad, error, message = case
    good = [_clouds(40 + seed, batch=3, dims=2, dtype=torch.float32) for seed in range(2)]
    assert_rejected_untouched(ProcrustesDisparity, good, bad, errors=error, match=message)


def test_bad_arguments():
    with pytest.raises(ValueError, match="`reduction`.*'none'"):
        ProcrustesDisparity("none")
    with pytest.raises(ValueError, match="`return_all`.*1"):
        procrustes_disparity(*_clouds(50, batch=1), return_all=1)
