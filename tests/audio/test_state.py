"""Constant memory, merging and bad input of the audio metrics."""

from __future__ import annotations

import pytest
import torch

import lightning_metrics.audio as lma
import lightning_metrics.functional.audio as lmf
from tests._bad_input import assert_rejected_untouched
from tests.audio._cases import mixtures, pair
from tests.audio.test_parity import MODULAR_CASES
from tests.reliability._registry import assert_close

CASES = MODULAR_CASES + [("PermutationInvariantTraining", {"metric_func": lmf.signal_noise_ratio}, "pit")]


def _id(value) -> str:
    """A test id without object addresses (xdist workers must collect the same ids)."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}={_id(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (tuple, list)):
        return "-".join(_id(v) for v in value)
    return getattr(value, "__name__", None) or str(value)


def _batch(kind, seed, dtype=torch.float64):
    return mixtures(3, dtype, seed) if kind == "pit" else pair(kind, dtype, seed)


def _bytes(metric):
    return sum(t.numel() * t.element_size() for t in metric.metric_state.values())


@pytest.mark.parametrize("case", CASES, ids=lambda c: _id(c[:2])[:100])
def test_state_size_does_not_grow_and_merge_state_is_exact(case):
    name, kwargs, kind = case
    metric = getattr(lma, name)(**kwargs)
    batch = _batch(kind, 0)
    metric.update(*batch)
    size, count = _bytes(metric), int(metric.count)
    for _ in range(199):
        metric.update(*batch)
    assert _bytes(metric) == size and int(metric.count) == 200 * count
    whole, first, second = (getattr(lma, name)(**kwargs) for _ in range(3))
    batches = [_batch(kind, seed) for seed in range(3)]
    for b in batches:
        whole.update(*b)
    for b in batches[:2]:
        first.update(*b)
    second.update(*batches[2])
    first.merge_state(second)
    assert int(first.count) == int(whole.count)
    assert_close(first.compute(), whole.compute(), rtol=1e-12, atol=1e-12)


BAD_ARGUMENTS = [
    ("SignalNoiseRatio", {"zero_mean": 1}, "`zero_mean`.*1"),
    ("ScaleInvariantSignalDistortionRatio", {"zero_mean": "no"}, "`zero_mean`.*'no'"),
    ("SignalDistortionRatio", {"filter_length": 0}, "`filter_length`.*0"),
    ("SignalDistortionRatio", {"use_cg_iter": -1}, "`use_cg_iter`.*-1"),
    ("SignalDistortionRatio", {"load_diag": "0.1"}, "`load_diag`.*'0.1'"),
    ("ComplexScaleInvariantSignalNoiseRatio", {"zero_mean": None}, "`zero_mean`.*None"),
    ("SourceAggregatedSignalDistortionRatio", {"scale_invariant": 0}, "`scale_invariant`.*0"),
    ("PermutationInvariantTraining", {"metric_func": lmf.signal_noise_ratio, "mode": "pair-wise"}, "`mode`.*'pair-wise'"),
    ("PermutationInvariantTraining", {"metric_func": lmf.signal_noise_ratio, "eval_func": "argmax"},
     "`eval_func`.*'argmax'"),
    ("PermutationInvariantTraining", {"metric_func": "si_sdr"}, "`metric_func`.*'si_sdr'"),
]


@pytest.mark.parametrize(("name", "kwargs", "message"), BAD_ARGUMENTS, ids=[_id(c[:2])[:80] for c in BAD_ARGUMENTS])
def test_bad_constructor_arguments(name, kwargs, message):
    with pytest.raises(ValueError, match=message):
        getattr(lma, name)(**kwargs)


BAD_BATCHES = [
    ("SignalNoiseRatio", {}, "mono", (torch.rand(4, 300), torch.rand(4, 299)), RuntimeError,
     r"same shape.*\(4, 300\).*\(4, 299\)"),
    ("ScaleInvariantSignalDistortionRatio", {}, "mono", (torch.ones(4, 3, dtype=torch.int64),) * 2, TypeError,
     "floating.*int64"),
    ("SignalDistortionRatio", {"filter_length": 16}, "mono", (torch.rand(2, 30), torch.rand(3, 30)), RuntimeError,
     "same shape"),
    ("ComplexScaleInvariantSignalNoiseRatio", {}, "spectrogram", (torch.rand(2, 5, 7), torch.rand(2, 5, 7)),
     RuntimeError, r"\(\.\.\., frequency, time, 2\).*\(2, 5, 7\)"),
    ("SourceAggregatedSignalDistortionRatio", {}, "speakers", (torch.rand(30), torch.rand(30)), RuntimeError,
     r"\(\.\.\., spk, time\).*\(30,\)"),
    ("PermutationInvariantTraining", {"metric_func": lmf.signal_noise_ratio}, "pit",
     (torch.rand(5, 3, 200), torch.rand(5, 2, 200)), RuntimeError,
     r"same batch and speaker sizes.*\(5, 3, 200\).*\(5, 2, 200\)"),
    ("PermutationInvariantTraining", {"metric_func": lmf.signal_noise_ratio}, "pit",
     (torch.rand(5), torch.rand(5)), ValueError, r"\(batch, speakers, \.\.\.\).*\(5,\)"),
]


@pytest.mark.parametrize("case", BAD_BATCHES, ids=lambda c: f"{c[0]}-{c[5]}"[:70])
def test_bad_batch_raises_and_leaves_the_state_untouched(case):
    name, kwargs, kind, bad, error, message = case
    good = [_batch(kind, seed, torch.float32) for seed in range(2)]
    assert_rejected_untouched(lambda: getattr(lma, name)(**kwargs), good, bad, errors=error, match=message)


def test_bad_function_arguments():
    preds, target = mixtures(2, torch.float32)
    with pytest.raises(ValueError, match="`eval_func`.*'median'"):
        lmf.permutation_invariant_training(preds, target, lmf.signal_noise_ratio, eval_func="median")
    with pytest.raises(RuntimeError, match="same batch and speaker sizes"):
        lmf.permutation_invariant_training(preds, target[:, :1], lmf.signal_noise_ratio)
    with pytest.raises(ValueError, match="`filter_length`.*-4"):
        lmf.signal_distortion_ratio(preds, target, filter_length=-4)
    with pytest.raises(TypeError, match="`preds` must be a tensor"):
        lmf.signal_noise_ratio([0.0], target)


def test_pit_with_many_speakers_uses_the_hungarian_solver():
    """Past 7 speakers the exhaustive search (8! permutations per mixture) gives way to SciPy's solver."""
    pytest.importorskip("scipy")
    preds, target = mixtures(8, torch.float64, seed=3, batch=2)
    best, perm = lmf.permutation_invariant_training(preds, target, lmf.scale_invariant_signal_distortion_ratio)
    matrix = torch.stack([torch.stack([lmf.scale_invariant_signal_distortion_ratio(preds[:, p], target[:, t])
                                       for p in range(8)], -1) for t in range(8)], -2)
    assert_close(best, torch.gather(matrix, 2, perm[..., None]).mean((-1, -2)), rtol=1e-12, atol=1e-12)
    assert sorted(perm[0].tolist()) == list(range(8))
