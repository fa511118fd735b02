"""DNSMOS through ``onnxruntime`` (optional: these tests skip without it) against torchmetrics 1.9,
with the same small random models in the real files' layout (tests/audio/_dnsmos_models.py): the
features against librosa's, the values of the function and of the class at 8, 16 and 22.05 kHz,
short (looped) and multi-segment signals, personalized or not; the loading path (offline folder,
checksums, torchmetrics' own copy, the error without files); the errors naming the extra; bad
arguments and bad batches."""

from __future__ import annotations

import dataclasses
import sys

import numpy as np
import pytest
import torch

import lightning_metrics.audio as lma
import lightning_metrics.functional.audio as lmf
from lightning_metrics.functional.audio import dnsmos
from lightning_metrics.networks import weights
from tests._bad_input import assert_rejected_untouched
from tests.audio._dnsmos_models import random_models, write_models
from tests.audio._speech import speech

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")


@pytest.fixture
def homes(tmp_path, monkeypatch):
    """A fresh HOME (torchmetrics' ~/.torchmetrics) and torch.hub cache; no offline folder."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch_home"))
    monkeypatch.delenv(weights.ENV_VAR, raising=False)
    return tmp_path


@pytest.fixture
def models(homes):
    """The random models (seed 7) in our offline folder and, the same files, in torchmetrics' folder."""
    write_models(str(homes / "home" / ".torchmetrics" / "DNSMOS"), seed=7, layout="torchmetrics")
    with random_models(seed=7, folder=str(homes / "offline")) as folder:
        yield folder


def _signals(seed: int, fs: int, batch: int, seconds: float) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    clean = speech(gen, batch, seconds, fs)
    noise = torch.randn(clean.shape, generator=gen, dtype=clean.dtype)
    return (clean + noise * torch.linspace(0.0, 0.3, batch).unsqueeze(-1)).float()


def test_features_equal_librosa():
    librosa = pytest.importorskip("librosa")
    tm_dnsmos = pytest.importorskip("torchmetrics.functional.audio.dnsmos")
    np.testing.assert_allclose(dnsmos.mel_filterbank(), librosa.filters.mel(sr=16000, n_fft=321, n_mels=120),
                               rtol=0, atol=1e-8)
    audio = _signals(1, 16000, 3, 9.0)[:, :144000]
    audio[2] *= torch.linspace(1e-4, 1.0, 144000)  # a quiet start: the 80 dB floor is reached
    theirs = tm_dnsmos._audio_melspec(audio.numpy().copy())
    ours = dnsmos.mel_features(audio)
    assert ours.shape == theirs.shape == (3, 900, 120) and ours.dtype == torch.float64
    np.testing.assert_allclose(ours.numpy(), theirs, rtol=0, atol=1e-5)
    assert float(ours.min()) == pytest.approx(-1.0)  # (-80 dB + 40) / 40


@pytest.mark.parametrize(
    ("fs", "seconds", "personalized"),
    [(16000, 1.0, False), (8000, 3.0, True), (16000, 10.6, False), (22050, 2.0, True)],
)
def test_functional_equals_torchmetrics(models, fs, seconds, personalized, monkeypatch):
    tmf = pytest.importorskip("torchmetrics.functional.audio.dnsmos")
    pytest.importorskip("librosa")
    monkeypatch.setattr(dnsmos, "_CHUNK", 4)  # several model calls per batch (10.6 s: 3 signals x 2 segments)
    preds = _signals(int(fs * seconds) % 97, fs, 3, seconds)
    ours = lmf.deep_noise_suppression_mean_opinion_score(preds, fs, personalized)
    theirs = tmf.deep_noise_suppression_mean_opinion_score(preds, fs, personalized, cache_session=False)
    assert ours.dtype == theirs.dtype == torch.float64 and ours.shape == theirs.shape == (3, 4)
    torch.testing.assert_close(ours, theirs, rtol=0, atol=1e-5)
    assert float((ours[:, 1:] - ours[0, 1:]).abs().max()) > 1e-3  # the noise levels give different scores
    nested = lmf.deep_noise_suppression_mean_opinion_score(preds[:2].reshape(2, 1, -1), fs, personalized)
    assert nested.shape == (2, 1, 4)
    torch.testing.assert_close(nested.reshape(2, 4), ours[:2], rtol=0, atol=1e-12)


def test_modular_streams_equal_torchmetrics(models):
    tma = pytest.importorskip("torchmetrics.audio")
    pytest.importorskip("librosa")
    ours = lma.DeepNoiseSuppressionMeanOpinionScore(16000, False, num_threads=1)
    theirs = tma.DeepNoiseSuppressionMeanOpinionScore(16000, False, num_threads=1, cache_sessions=False)
    for seed, batch in ((0, 2), (1, 1)):
        preds = _signals(20 + seed, 16000, batch, 1.5)
        torch.testing.assert_close(ours(preds), theirs(preds), rtol=0, atol=1e-5)
    value, expected = ours.compute(), theirs.compute()
    assert value.dtype == expected.dtype == torch.float64 and value.shape == (4,) and int(ours.total) == 3
    torch.testing.assert_close(value, expected, rtol=0, atol=1e-5)


def test_sessions_are_cached_per_file(models):
    p808, _ = dnsmos.model_paths(False)
    first = dnsmos._session(p808, torch.device("cpu"), None, cache=True)
    assert dnsmos._session(p808, torch.device("cpu"), None, cache=True) is first
    assert dnsmos._session(p808, torch.device("cpu"), None, cache=False) is not first
    inputs = first.get_inputs()[0]
    assert (inputs.name, inputs.shape[1:]) == ("input_1", [900, 120])


def test_a_file_that_is_not_the_published_one_is_refused(homes, monkeypatch):
    write_models(str(homes / "offline"), seed=1)  # random files under the real names, real checksums
    monkeypatch.setenv(weights.ENV_VAR, str(homes / "offline"))
    with pytest.raises(weights.WeightsChecksumError, match=r"DNSMOS_model_v8\.onnx.*SHA-256"):
        lmf.deep_noise_suppression_mean_opinion_score(torch.zeros(16000), 16000, False)


def test_torchmetrics_copy_is_used_and_checked(homes, monkeypatch):
    paths = write_models(str(homes / "home" / ".torchmetrics" / "DNSMOS"), seed=2, layout="torchmetrics")
    for name, path in paths.items():
        row = weights.WEIGHT_FILES[name]
        monkeypatch.setitem(weights.WEIGHT_FILES, name, dataclasses.replace(row, checksum=weights.sha256_of(path)))
    assert dnsmos.model_paths(True) == (paths["dnsmos-p808"], paths["dnsmos-personalized-sig-bak-ovr"])
    # a copy that is not the published file is passed over: the download is tried (and fails here)
    monkeypatch.setitem(weights.WEIGHT_FILES, "dnsmos-p808", dataclasses.replace(
        weights.WEIGHT_FILES["dnsmos-p808"], checksum="0" * 64))
    monkeypatch.setattr(weights, "_download", lambda row, target: (_ for _ in ()).throw(OSError("no network")))
    with pytest.raises(weights.WeightsUnavailableError) as err:
        dnsmos.model_paths(False)
    message = str(err.value)
    assert "DNSMOS_model_v8.onnx" in message and "DNS-Challenge/master/DNSMOS/DNSMOS/model_v8.onnx" in message
    assert weights.ENV_VAR in message


def test_missing_packages_name_the_extra(models, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import onnxruntime -> ImportError
    preds = torch.zeros(8000)
    for call in (lambda: lma.DeepNoiseSuppressionMeanOpinionScore(16000, False),
                 lambda: lmf.deep_noise_suppression_mean_opinion_score(preds, 16000, False)):
        with pytest.raises(ModuleNotFoundError, match=r"`onnxruntime`.*pip install lightning_metrics\[dnsmos\]"):
            call()
    monkeypatch.delitem(sys.modules, "onnxruntime")
    monkeypatch.setitem(sys.modules, "soxr", None)
    with pytest.raises(ModuleNotFoundError, match=r"`soxr`.*pip install lightning_metrics\[dnsmos\]"):
        lmf.deep_noise_suppression_mean_opinion_score(preds, 8000, False)


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [({"fs": 0}, "`fs`"), ({"fs": 16000.0}, "`fs`"), ({"personalized": "no"}, "`personalized`"),
     ({"num_threads": 0}, "`num_threads`"), ({"device": "gpu:x"}, "`device`"),
     ({"cache_sessions": 1}, "`cache_sessions`")],
)
def test_bad_arguments_name_themselves(kwargs, needle):
    arguments = {"fs": 16000, "personalized": False, **kwargs}
    with pytest.raises(ValueError, match=needle):
        lma.DeepNoiseSuppressionMeanOpinionScore(**arguments)


def test_bad_batches_leave_the_state_untouched(models):
    good = [(_signals(3, 16000, 1, 0.5),), (_signals(4, 16000, 2, 0.5),)]
    nan = good[0][0].clone()
    nan[0, 10] = float("nan")
    build = lambda: lma.DeepNoiseSuppressionMeanOpinionScore(16000, False)
    assert_rejected_untouched(build, good, (nan,), needles=("preds", "nan"))
    assert_rejected_untouched(build, good, (torch.zeros(2, 0),), needles=("preds",))


def _dnsmos_on_ranks(rank: int, world: int, folder: str) -> torch.Tensor:
    # each rank writes its own copy (the same bytes): two ranks writing one file race with each other's checksum
    with random_models(seed=7, folder=f"{folder}/rank{rank}"):
        metric = lma.DeepNoiseSuppressionMeanOpinionScore(16000, False, num_threads=1)
        signals = _signals(30, 16000, 3, 1.0)
        metric.update(signals[:2] if rank == 0 else signals[2:])  # uneven shards: 2 and 1 signals
        return metric.compute()


def test_two_processes_equal_one(models):
    from tests._distributed import run_distributed

    results = run_distributed(_dnsmos_on_ranks, str(models), timeout=180)
    single = lma.DeepNoiseSuppressionMeanOpinionScore(16000, False)
    single.update(_signals(30, 16000, 3, 1.0))
    for value in results:
        torch.testing.assert_close(value, single.compute(), rtol=0, atol=1e-12)


def test_the_callback_logs_each_score(models):
    import lightning.pytorch as L
    from torch.utils.data import DataLoader, TensorDataset

    import lightning_metrics as lm
    from tests._lightning import quiet_trainer

    class Model(L.LightningModule):
        def validation_step(self, batch, batch_idx):
            return {"preds": batch[0]}

    signals = _signals(31, 16000, 5, 1.0)
    callback = lm.MetricsCallback({"dnsmos": lma.DeepNoiseSuppressionMeanOpinionScore(16000, False)},
                                  stages=("val",), inputs={"preds": "preds"})
    trainer = quiet_trainer(callbacks=[callback])
    trainer.validate(Model(), DataLoader(TensorDataset(signals), batch_size=2))
    direct = lma.DeepNoiseSuppressionMeanOpinionScore(16000, False)
    direct.update(signals)
    for name, value in zip(("p808_mos", "mos_sig", "mos_bak", "mos_ovr"), direct.compute()):
        assert float(trainer.callback_metrics[f"val/dnsmos/{name}"]) == pytest.approx(float(value), rel=1e-5)
