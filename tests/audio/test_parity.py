"""Every audio function and class against torchmetrics 1.9: values, dtypes and shapes over
generated cases (four dtypes, zero_mean, silent signals, PIT with 2-4 speakers, streamed batches)."""

from __future__ import annotations

import warnings

import pytest
import torch

import lightning_metrics.audio as lma
import lightning_metrics.functional.audio as lmf
from tests.audio._cases import FLOATS, HALVES, mixtures, pair, tolerance
from tests.reliability._registry import assert_close

tmf = pytest.importorskip("torchmetrics.functional.audio")
tma = pytest.importorskip("torchmetrics.audio")
_FAST_BSS_EVAL = pytest.importorskip("torchmetrics.utilities.imports")._FAST_BSS_EVAL_AVAILABLE

RATIO_CASES = [
    ("signal_noise_ratio", {}, "mono"),
    ("signal_noise_ratio", {"zero_mean": True}, "speakers"),
    ("signal_noise_ratio", {}, "silent_target"),
    ("signal_noise_ratio", {"zero_mean": True}, "silent_preds"),
    ("scale_invariant_signal_distortion_ratio", {}, "mono"),
    ("scale_invariant_signal_distortion_ratio", {"zero_mean": True}, "speakers"),
    ("scale_invariant_signal_distortion_ratio", {}, "silent_target"),
    ("scale_invariant_signal_distortion_ratio", {}, "silent_preds"),
    ("scale_invariant_signal_noise_ratio", {}, "mono"),
    ("scale_invariant_signal_noise_ratio", {}, "speakers"),
    ("complex_scale_invariant_signal_noise_ratio", {}, "spectrogram"),
    ("complex_scale_invariant_signal_noise_ratio", {"zero_mean": True}, "complex"),
    ("source_aggregated_signal_distortion_ratio", {}, "speakers"),
    ("source_aggregated_signal_distortion_ratio", {"scale_invariant": False}, "speakers"),
    ("source_aggregated_signal_distortion_ratio", {"zero_mean": True}, "long"),
    ("source_aggregated_signal_distortion_ratio", {}, "silent_preds"),
    ("signal_distortion_ratio", {}, "long"),
    ("signal_distortion_ratio", {"filter_length": 32, "zero_mean": True}, "speakers"),
    ("signal_distortion_ratio", {"filter_length": 16, "load_diag": 1e-4}, "mono"),
    ("signal_distortion_ratio", {"filter_length": 64, "use_cg_iter": 10}, "long"),
    ("signal_distortion_ratio", {"filter_length": 16, "use_cg_iter": 3, "zero_mean": True}, "mono"),
    ("signal_distortion_ratio", {"filter_length": 16}, "silent_preds"),
]


def _ids(case):
    name, kwargs, kind = case
    return f"{name}({','.join(f'{k}={v}' for k, v in kwargs.items())})[{kind}]"


def _call(module, name, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(module, name)(*args, **kwargs)


@pytest.mark.parametrize("dtype", FLOATS + HALVES, ids=str)
@pytest.mark.parametrize("case", RATIO_CASES, ids=_ids)
def test_ratio_functions_match_torchmetrics(case, dtype):
    name, kwargs, kind = case
    if "use_cg_iter" in kwargs and not _FAST_BSS_EVAL:
        pytest.skip("torchmetrics solves exactly without fast-bss-eval; our CG matches fast-bss-eval's")
    if kind == "complex" and dtype in HALVES:
        pytest.skip("no complex half tensors")
    if dtype in HALVES and name == "signal_distortion_ratio" and kind != "long":
        pytest.skip("sampled: SDR runs in float64 whatever the input dtype")
    preds, target = pair(kind, dtype, seed=len(name))
    ours, theirs = _call(lmf, name, preds, target, **kwargs), _call(tmf, name, preds, target, **kwargs)
    assert (ours.dtype, ours.shape) == (theirs.dtype, theirs.shape)
    assert_close(ours, theirs, **tolerance(dtype), path=_ids(case))


def _si_sdr(lib):
    return lib.scale_invariant_signal_distortion_ratio


PIT_CASES = [(s, mode, ev) for s in (2, 3, 4) for mode in ("speaker-wise", "permutation-wise") for ev in ("max", "min")]


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize(("speakers", "mode", "eval_func"), PIT_CASES)
def test_pit_matches_torchmetrics(speakers, mode, eval_func, dtype):
    preds, target = mixtures(speakers, dtype, seed=speakers)
    best, perm = lmf.permutation_invariant_training(preds, target, _si_sdr(lmf), mode, eval_func)
    their_best, their_perm = _call(tmf, "permutation_invariant_training", preds, target, _si_sdr(tmf), mode, eval_func)
    assert (best.dtype, best.shape, perm.dtype, perm.shape) == (
        their_best.dtype, their_best.shape, their_perm.dtype, their_perm.shape)
    assert_close(best, their_best, **tolerance(dtype))
    assert torch.equal(perm, their_perm)
    assert torch.equal(lmf.pit_permutate(preds, perm), tmf.pit_permutate(preds, their_perm))


def test_pit_passes_keywords_to_the_metric_function():
    preds, target = mixtures(3, torch.float64, seed=1)
    kwargs = {"zero_mean": True}
    best, perm = lmf.permutation_invariant_training(preds, target, _si_sdr(lmf), **kwargs)
    their_best, their_perm = tmf.permutation_invariant_training(preds, target, _si_sdr(tmf), **kwargs)
    assert_close(best, their_best, rtol=1e-12, atol=1e-12)
    assert torch.equal(perm, their_perm)


MODULAR_CASES = [
    ("SignalNoiseRatio", {}, "mono"),
    ("SignalNoiseRatio", {"zero_mean": True}, "speakers"),
    ("ScaleInvariantSignalNoiseRatio", {}, "mono"),
    ("ScaleInvariantSignalDistortionRatio", {}, "speakers"),
    ("ScaleInvariantSignalDistortionRatio", {"zero_mean": True}, "mono"),
    ("SignalDistortionRatio", {"filter_length": 32}, "speakers"),
    ("SignalDistortionRatio", {"filter_length": 16, "zero_mean": True, "load_diag": 1e-3}, "mono"),
    ("ComplexScaleInvariantSignalNoiseRatio", {}, "spectrogram"),
    ("ComplexScaleInvariantSignalNoiseRatio", {"zero_mean": True}, "spectrogram"),
    ("SourceAggregatedSignalDistortionRatio", {}, "speakers"),
    ("SourceAggregatedSignalDistortionRatio", {"scale_invariant": False, "zero_mean": True}, "speakers"),
]


@pytest.mark.parametrize("dtype", FLOATS + (torch.float16,), ids=str)
@pytest.mark.parametrize("case", MODULAR_CASES, ids=_ids)
def test_modular_streams_match_torchmetrics(case, dtype):
    name, kwargs, kind = case
    ours, theirs = getattr(lma, name)(**kwargs), getattr(tma, name)(**kwargs)
    for seed in range(3):
        preds, target = pair(kind, dtype, seed)
        batch_value, expected = ours(preds, target), theirs(preds, target)
        assert_close(batch_value, expected, **_tolerance(dtype, expected))
    value, expected = ours.compute(), theirs.compute()
    assert (value.dtype, value.shape) == (expected.dtype, expected.shape)
    assert_close(value, expected, **_tolerance(dtype, expected))


def _tolerance(dtype, expected):
    """float32's where torchmetrics returns float32 for float64 inputs (its running sums are
    float32, ours float64); half inputs keep theirs (torchmetrics sums each batch in half)."""
    return tolerance(torch.float32 if expected.dtype == torch.float32 and dtype == torch.float64 else dtype)


@pytest.mark.parametrize(("speakers", "mode", "eval_func"), [(2, "speaker-wise", "max"), (3, "permutation-wise", "min"),
                                                            (4, "speaker-wise", "min")])
def test_modular_pit_matches_torchmetrics(speakers, mode, eval_func):
    ours = lma.PermutationInvariantTraining(_si_sdr(lmf), mode=mode, eval_func=eval_func, zero_mean=True)
    theirs = tma.PermutationInvariantTraining(_si_sdr(tmf), mode=mode, eval_func=eval_func, zero_mean=True)
    for seed in range(3):
        preds, target = mixtures(speakers, torch.float32, seed)
        assert_close(ours(preds, target), theirs(preds, target), rtol=1e-5, atol=1e-5)
    value, expected = ours.compute(), theirs.compute()
    assert value.dtype == expected.dtype and value.shape == expected.shape
    assert_close(value, expected, rtol=1e-5, atol=1e-5)
    assert ours.kwargs == {"zero_mean": True}
