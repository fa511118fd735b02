"""Audio metrics against independent oracles: mir_eval's BSS-eval and fast-bss-eval for SDR,
float64 NumPy formulas for SNR / SI-SDR / SA-SDR, and a brute-force search for PIT."""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pytest
import torch

import lightning_metrics.functional.audio as lmf
from lightning_metrics.functional.audio.distortion import correlations, toeplitz_conjugate_gradient, toeplitz_solve
from tests.audio._cases import mixtures, pair

EPS = np.finfo(np.float64).eps


@pytest.mark.filterwarnings("ignore::FutureWarning")  # mir_eval deprecates bss_eval_sources for museval
def test_sdr_equals_mir_eval_bss_eval_sources():
    """One source: BSS-eval's SDR (512-tap distortion filter) is 10 log10(|P e|^2 / |e - P e|^2)."""
    mir_eval = pytest.importorskip("mir_eval")
    preds, target = pair("long", torch.float64, seed=1)
    ours = lmf.signal_distortion_ratio(preds, target)
    for i in range(preds.shape[0]):
        for j in range(preds.shape[1]):
            sdr, *_ = mir_eval.separation.bss_eval_sources(target[i, j : j + 1].numpy(), preds[i, j : j + 1].numpy())
            assert abs(float(ours[i, j]) - float(sdr[0])) < 1e-6


def test_sdr_equals_fast_bss_eval():
    fast_bss_eval = pytest.importorskip("fast_bss_eval")
    preds, target = pair("long", torch.float64, seed=2)
    for length in (64, 512):
        expected = fast_bss_eval.sdr(target.numpy(), preds.numpy(), filter_length=length, use_cg_iter=None,
                                     zero_mean=False, clamp_db=None, load_diag=None)
        np.testing.assert_allclose(lmf.signal_distortion_ratio(preds, target, filter_length=length).numpy(), expected,
                                   rtol=1e-8, atol=1e-8)


def test_toeplitz_solvers_agree_with_a_dense_solve():
    preds, target = pair("mono", torch.float64, seed=3)
    target = target / target.norm(dim=-1, keepdim=True)
    preds = preds / preds.norm(dim=-1, keepdim=True)
    column, rhs = correlations(target, preds, 24)
    column = column + torch.cat([torch.full_like(column[..., :1], 0.1), torch.zeros_like(column[..., 1:])], -1)
    dense = np.stack([np.linalg.solve(np.array([[c[abs(i - j)] for j in range(24)] for i in range(24)]), b)
                      for c, b in zip(column.numpy(), rhs.numpy())])
    np.testing.assert_allclose(toeplitz_solve(column, rhs).numpy(), dense, rtol=1e-9, atol=1e-12)
    # conjugate gradient converges to the same solution on a well-conditioned (loaded) system
    # (its step-size guards stall it near 1e-4 once the residual is below 1e-6)
    np.testing.assert_allclose(toeplitz_conjugate_gradient(column, rhs, 60).numpy(), dense, rtol=0, atol=2e-3)


def _np(x):
    return x.numpy().astype(np.float64)


@pytest.mark.parametrize("zero_mean", [False, True])
def test_snr_and_si_sdr_equal_numpy(zero_mean):
    preds, target = (_np(x) for x in pair("speakers", torch.float64, seed=4))
    if zero_mean:
        preds, target = preds - preds.mean(-1, keepdims=True), target - target.mean(-1, keepdims=True)
    snr = 10 * np.log10(((target**2).sum(-1) + EPS) / (((target - preds) ** 2).sum(-1) + EPS))
    alpha = ((preds * target).sum(-1, keepdims=True) + EPS) / ((target**2).sum(-1, keepdims=True) + EPS)
    projection = alpha * target
    si_sdr = 10 * np.log10(((projection**2).sum(-1) + EPS) / (((projection - preds) ** 2).sum(-1) + EPS))
    p, t = pair("speakers", torch.float64, seed=4)
    np.testing.assert_allclose(lmf.signal_noise_ratio(p, t, zero_mean=zero_mean).numpy(), snr, rtol=1e-12)
    np.testing.assert_allclose(lmf.scale_invariant_signal_distortion_ratio(p, t, zero_mean=zero_mean).numpy(), si_sdr,
                               rtol=1e-12)


def test_sa_sdr_equals_numpy():
    p, t = pair("speakers", torch.float64, seed=5)
    preds, target = _np(p), _np(t)
    alpha = ((preds * target).sum((-1, -2), keepdims=True) + EPS) / ((target**2).sum((-1, -2), keepdims=True) + EPS)
    scaled = alpha * target
    expected = 10 * np.log10(((scaled**2).sum((-1, -2)) + EPS) / (((scaled - preds) ** 2).sum((-1, -2)) + EPS))
    np.testing.assert_allclose(lmf.source_aggregated_signal_distortion_ratio(p, t).numpy(), expected, rtol=1e-12)


@pytest.mark.parametrize("speakers", [2, 3, 4])
@pytest.mark.parametrize("eval_func", ["max", "min"])
def test_pit_equals_a_brute_force_search(speakers, eval_func):
    preds, target = mixtures(speakers, torch.float64, seed=speakers + 10)
    best, perm = lmf.permutation_invariant_training(preds, target, lmf.scale_invariant_signal_distortion_ratio,
                                                    eval_func=eval_func)
    pick = max if eval_func == "max" else min
    for b in range(preds.shape[0]):
        scores = {
            order: float(np.mean([float(lmf.scale_invariant_signal_distortion_ratio(preds[b, order[t]], target[b, t]))
                                  for t in range(speakers)]))
            for order in permutations(range(speakers))
        }
        order = pick(scores, key=scores.get)
        assert tuple(perm[b].tolist()) == order
        assert abs(float(best[b]) - scores[order]) < 1e-10
    reordered = lmf.pit_permutate(preds, perm)
    assert torch.equal(reordered[0, 0], preds[0, perm[0, 0]])
