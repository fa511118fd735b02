"""STOI against pystoi (the reference torchmetrics calls per signal) and torchmetrics 1.9: speech-like
batches at 8, 10, 16, 22.05 and 44.1 kHz with pauses of silence, noisy and smeared estimates, both
STOI and extended STOI; the modular state, bad input and the short-signal fallback."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import lightning_metrics.audio as lma
import lightning_metrics.functional.audio as lmf
from lightning_metrics.functional.audio.stoi import resample_to_stoi_rate
from tests._bad_input import assert_rejected_untouched
from tests.audio._speech import degraded, speech

NAN = float("nan")


def _pair(seed: int, fs: int, batch: int = 8, seconds: float = 2.5, dtype=torch.float32):
    gen = torch.Generator().manual_seed(seed)
    clean = speech(gen, batch, seconds, fs)
    return degraded(gen, clean, torch.linspace(-5.0, 20.0, batch)).to(dtype), clean.to(dtype)


def _pystoi(preds, target, fs, extended):
    stoi = pytest.importorskip("pystoi").stoi
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        rows = zip(target.reshape(-1, target.shape[-1]).numpy(), preds.reshape(-1, preds.shape[-1]).numpy())
        return np.array([stoi(x, y, fs, extended) for x, y in rows]).reshape(preds.shape[:-1])


CASES = [(8000, False, 0), (8000, True, 1), (16000, False, 2), (16000, True, 3), (10000, False, 4),
         (10000, True, 5), (22050, False, 6), (44100, True, 7)]


@pytest.mark.parametrize(("fs", "extended", "seed"), CASES)
def test_equals_pystoi(fs, extended, seed):
    preds, target = _pair(seed, fs, seconds=2.0 if fs > 16000 else 2.5)
    ours = lmf.short_time_objective_intelligibility(preds, target, fs, extended)
    assert ours.dtype == torch.float64 and ours.shape == (8,)
    np.testing.assert_allclose(ours.numpy(), _pystoi(preds, target, fs, extended), rtol=0, atol=1e-9)


def test_resampling_equals_pystoi_resample_oct():
    utils = pytest.importorskip("pystoi.utils")
    signal = _pair(9, 16000, batch=2, seconds=0.5, dtype=torch.float64)[1]
    for fs in (8000, 16000, 44100, 20000):
        x = signal[:, : int(0.5 * fs)]
        expected = np.stack([utils.resample_oct(row.numpy(), 10000, fs) for row in x])
        np.testing.assert_allclose(resample_to_stoi_rate(x, fs).numpy(), expected, rtol=0, atol=1e-12)


def test_equals_torchmetrics_with_leading_dimensions_and_silence():
    tmf = pytest.importorskip("torchmetrics.functional.audio")
    pytest.importorskip("pystoi")
    preds, target = _pair(11, 16000)
    preds[0] = 0.0  # a silent estimate
    target[1, 4000:] = 0.0  # 0.25 s of speech: too few frames, 1e-5 with a warning
    preds, target = preds.reshape(2, 4, -1), target.reshape(2, 4, -1)
    with pytest.warns(RuntimeWarning, match="1 of 8 signals have fewer than 30 frames"):
        ours = lmf.short_time_objective_intelligibility(preds, target, 16000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = tmf.short_time_objective_intelligibility(preds, target, 16000)
    assert ours.shape == theirs.shape == (2, 4) and ours.dtype == theirs.dtype
    torch.testing.assert_close(ours, theirs, rtol=0, atol=1e-9)
    assert ours[0, 1] == 1e-5 and ours[0, 0] == 0.0
    single = lmf.short_time_objective_intelligibility(preds[1, 2], target[1, 2], 16000, True)
    assert single.shape == () and abs(float(single) - float(ours.new_tensor(_pystoi(preds[1, 2], target[1, 2],
                                                                                     16000, True)))) < 1e-9


def test_modular_streams_equal_torchmetrics():
    tma = pytest.importorskip("torchmetrics.audio")
    pytest.importorskip("pystoi")
    ours, theirs = lma.ShortTimeObjectiveIntelligibility(8000, extended=True), tma.ShortTimeObjectiveIntelligibility(
        8000, extended=True)
    for seed in range(3):
        preds, target = _pair(20 + seed, 8000, batch=4)
        torch.testing.assert_close(ours(preds, target), theirs(preds, target), rtol=0, atol=1e-6)
    value, expected = ours.compute(), theirs.compute()
    assert value.dtype == expected.dtype == torch.float32 and int(ours.count) == 12
    torch.testing.assert_close(value, expected, rtol=0, atol=1e-6)
    assert ours.value_sum.dtype == torch.float64


def test_signals_too_short_for_one_segment_score_1e5():
    preds, target = _pair(30, 10000, batch=2, seconds=0.4)
    with pytest.warns(RuntimeWarning, match="2 of 2 signals"):
        values = lmf.short_time_objective_intelligibility(preds, target, 10000)
    assert values.tolist() == [1e-5, 1e-5]
    assert lmf.short_time_objective_intelligibility(preds[:0], target[:0], 10000).shape == (0,)


def test_keep_same_device():
    preds, target = _pair(31, 8000, batch=2, seconds=1.0)
    assert lmf.short_time_objective_intelligibility(preds, target, 8000, keep_same_device=True).device == preds.device


@pytest.mark.parametrize(("kwargs", "message"), [({"fs": 0}, "`fs`.*0"), ({"fs": 8000.0}, "`fs`.*8000.0"),
                                                 ({"fs": 8000, "extended": 1}, "`extended`.*1")])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        lma.ShortTimeObjectiveIntelligibility(**kwargs)
    preds, target = _pair(32, 8000, batch=1, seconds=0.6)
    with pytest.raises(ValueError, match=message):
        lmf.short_time_objective_intelligibility(preds, target, **{"fs": 8000, **kwargs})


def _poisoned(index, value, where=0):
    batch = list(_pair(33, 8000, batch=2, seconds=1.0))
    batch[where][index] = value
    return tuple(batch)


BAD_BATCHES = [
    (_poisoned((1, 100), NAN), ValueError, r"`preds` must be finite.*nan.*\(1, 100\)"),
    (_poisoned((0, 7999), float("inf"), where=1), ValueError, r"`target` must be finite.*inf.*\(0, 7999\)"),
    ((torch.rand(2, 8000), torch.rand(2, 7999)), RuntimeError, r"same shape.*\(2, 8000\).*\(2, 7999\)"),
    ((torch.ones(2, 8000, dtype=torch.int16), torch.ones(2, 8000)), TypeError, "floating.*int16"),
]


@pytest.mark.parametrize("case", BAD_BATCHES, ids=lambda c: c[2][:40])
def test_bad_batch_leaves_the_state_untouched(case):
    bad, error, message = case
    good = [_pair(34 + seed, 8000, batch=2, seconds=1.0) for seed in range(2)]
    assert_rejected_untouched(lambda: lma.ShortTimeObjectiveIntelligibility(8000), good, bad, errors=error,
                              match=message)
