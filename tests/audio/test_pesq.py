"""PESQ through the ``pesq`` package (optional: these tests skip without it) against torchmetrics 1.9:
speech-like batches at 8 and 16 kHz, narrow and wide band, one and two processes; the error that
names the extra when ``pesq`` is missing; bad arguments and bad batches."""

from __future__ import annotations

import importlib
import sys

import pytest
import torch

import lightning_metrics.audio as lma
import lightning_metrics.functional.audio as lmf
from tests._bad_input import assert_rejected_untouched
from tests.audio._speech import degraded, speech

pesq = pytest.importorskip("pesq")


def _pair(seed: int, fs: int, batch: int = 4, seconds: float = 2.0):
    gen = torch.Generator().manual_seed(seed)
    clean = speech(gen, batch, seconds, fs)
    return degraded(gen, clean, torch.linspace(0.0, 25.0, batch)).float(), clean.float()


@pytest.mark.parametrize(("fs", "mode", "n_processes"), [(8000, "nb", 1), (16000, "wb", 1), (16000, "nb", 2)])
def test_functional_equals_torchmetrics(fs, mode, n_processes):
    tmf = pytest.importorskip("torchmetrics.functional.audio")
    preds, target = _pair(fs // 1000 + n_processes, fs)
    ours = lmf.perceptual_evaluation_speech_quality(preds, target, fs, mode, n_processes=n_processes)
    theirs = tmf.perceptual_evaluation_speech_quality(preds, target, fs, mode, n_processes=n_processes)
    assert ours.dtype == theirs.dtype == torch.float32 and ours.shape == theirs.shape == (4,)
    assert torch.equal(ours, theirs)
    assert float(ours.max() - ours.min()) > 0.5  # the batch spans poor to good estimates
    single = lmf.perceptual_evaluation_speech_quality(preds[0], target[0], fs, mode)
    assert single.shape == () and torch.equal(single, tmf.perceptual_evaluation_speech_quality(
        preds[0], target[0], fs, mode))
    nested = lmf.perceptual_evaluation_speech_quality(preds.reshape(2, 2, -1), target.reshape(2, 2, -1), fs, mode)
    assert torch.equal(nested.reshape(-1), ours)  # shape (...): torchmetrics flattens it


def test_modular_streams_equal_torchmetrics():
    tma = pytest.importorskip("torchmetrics.audio")
    ours, theirs = lma.PerceptualEvaluationSpeechQuality(16000, "wb"), tma.PerceptualEvaluationSpeechQuality(16000, "wb")
    for seed in range(2):
        preds, target = _pair(40 + seed, 16000, batch=2)
        torch.testing.assert_close(ours(preds, target), theirs(preds, target), rtol=0, atol=1e-6)
    value, expected = ours.compute(), theirs.compute()
    assert value.dtype == expected.dtype and int(ours.count) == 4
    torch.testing.assert_close(value, expected, rtol=0, atol=1e-6)


def test_missing_pesq_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pesq", None)  # import pesq -> ImportError
    preds, target = _pair(50, 8000, batch=1, seconds=0.5)
    for call in (lambda: lma.PerceptualEvaluationSpeechQuality(8000, "nb"),
                 lambda: lmf.perceptual_evaluation_speech_quality(preds, target, 8000, "nb")):
        with pytest.raises(ModuleNotFoundError, match=r"`pesq`.*pip install lightning_metrics\[audio\]"):
            call()
    importlib.import_module("lightning_metrics.audio.pesq")  # importing our module never needs pesq


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"fs": 44100, "mode": "wb"}, "`fs`.*44100"),
    ({"fs": 16000, "mode": "swb"}, "`mode`.*'swb'"),
    ({"fs": 8000, "mode": "wb"}, "`mode` 'wb'.*fs=8000"),
    ({"fs": 16000, "mode": "wb", "n_processes": 0}, "`n_processes`.*0"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        lma.PerceptualEvaluationSpeechQuality(**kwargs)
    preds, target = _pair(51, 8000, batch=1, seconds=0.5)
    with pytest.raises(ValueError, match=message):
        lmf.perceptual_evaluation_speech_quality(preds, target, **kwargs)


def test_bad_batches_leave_the_state_untouched():
    good = [_pair(52 + seed, 8000, batch=1, seconds=1.0) for seed in range(2)]
    preds, target = _pair(54, 8000, batch=2, seconds=1.0)
    preds[1, 5] = float("nan")
    build = lambda: lma.PerceptualEvaluationSpeechQuality(8000, "nb")
    assert_rejected_untouched(build, good, (preds, target), match=r"`preds` must be finite.*nan.*\(1, 5\)")
    assert_rejected_untouched(build, good, (target[:, :100], target), errors=RuntimeError, match="same shape")
    short = target[:, :800]  # a tenth of a second: the reference code's own error, nothing counted
    assert_rejected_untouched(build, good, (short, short), errors=pesq.BufferTooShortError, match="1/4 of a second")
    two = lambda: lma.PerceptualEvaluationSpeechQuality(8000, "nb", n_processes=2)
    assert_rejected_untouched(two, good, (short, short), errors=pesq.BufferTooShortError,
                              match="signal 0 of the batch.*1/4 of a second", modes=("update",))
