"""NISQA against torchmetrics' values and librosa's features, with random weights in the checkpoint's layout.

The checkpoint is written by the test (``tests/networks/_arniqa_nisqa_weights.py``) and loaded
through the real path (``LIGHTNING_METRICS_WEIGHTS``, torch.hub's cache, torchmetrics' own
``~/.torchmetrics/NISQA``); torchmetrics' values and librosa's features for the same file and
signals were computed once in the oracle environment
(``tests/networks/fixtures/make_arniqa_nisqa_fixtures.py``: torchmetrics needs librosa).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from lightning_metrics.audio import NonIntrusiveSpeechQualityAssessment
from lightning_metrics.functional.audio.nisqa import (
    mel_spectrogram_db,
    non_intrusive_speech_quality_assessment,
)
from lightning_metrics.networks import ENV_VAR, WeightsChecksumError, WeightsUnavailableError, network
from tests.networks._arniqa_nisqa_weights import NISQA_ARGS, nisqa_signals, write_nisqa_file

FIXTURES = json.loads(
    (Path(__file__).parents[1] / "networks" / "fixtures" / "nisqa_torchmetrics.json").read_text()
)
CASES = FIXTURES["cases"]


def _signals(case):
    return nisqa_signals(case["seed"], case["fs"], case["seconds"], tuple(case["batch"]), case["dtype"])


def _no_download(url, *args, **kwargs):
    raise OSError(f"no network in the tests ({url})")


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    return write_nisqa_file(tmp_path_factory.mktemp("nisqa_weights"))


@pytest.fixture()
def isolated(monkeypatch, tmp_path):
    """No offline folder, an empty torch.hub cache and home, no download."""
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch_home"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr(torch.hub, "download_url_to_file", _no_download)
    return tmp_path


@pytest.fixture()
def offline(checkpoint, isolated, monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(checkpoint.parent))
    return checkpoint


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"fs{c['fs']}-{c['dtype']}")
def test_functional_equals_torchmetrics(offline, case):
    preds = _signals(case)
    value = non_intrusive_speech_quality_assessment(preds, case["fs"])
    expected = torch.tensor(case["value"], dtype=torch.float64)
    assert value.dtype == torch.float32 and value.shape == (*case["batch"], 5)
    torch.testing.assert_close(value.double(), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"fs{c['fs']}-{c['dtype']}")
def test_features_equal_librosa(case):
    """librosa computes in the input's precision: float64 signals agree to rounding, float32 ones to
    librosa's float32 error (under 1e-5 dB on these signals)."""
    preds = _signals(case)
    mel = mel_spectrogram_db(preds.reshape(-1, preds.shape[-1]), case["fs"], NISQA_ARGS)
    expected = torch.tensor(case["mel_first"], dtype=torch.float64)
    tolerance = 1e-7 if case["dtype"] == "float64" else 2e-5
    torch.testing.assert_close(mel[0, :, : expected.shape[1]], expected, rtol=0, atol=tolerance)


def test_modular_equals_mean_of_torchmetrics(offline):
    metric = NonIntrusiveSpeechQualityAssessment(16000)
    expected = []
    for case in (CASES[0], CASES[3]):  # both at 16 kHz
        metric.update(_signals(case))
        expected.append(torch.tensor(case["value"], dtype=torch.float64).reshape(-1, 5))
    value = metric.compute()
    assert value.dtype == torch.float32 and int(metric.total) == 6
    torch.testing.assert_close(value.double(), torch.cat(expected).mean(0), rtol=1e-5, atol=1e-5)
    assert list(metric.state_dict()) == []  # the network is no submodule: checkpoints hold no weights
    batch = metric(_signals(CASES[0]))
    torch.testing.assert_close(batch.double(), expected[0].mean(0), rtol=1e-5, atol=1e-5)


def test_hub_cache_and_torchmetrics_home(checkpoint, isolated):
    case = CASES[2]
    expected = torch.tensor(case["value"], dtype=torch.float64)
    home = isolated / "home" / ".torchmetrics" / "NISQA"  # where torchmetrics downloaded it
    home.mkdir(parents=True)
    (home / "nisqa.tar").write_bytes(checkpoint.read_bytes())
    torch.testing.assert_close(
        non_intrusive_speech_quality_assessment(_signals(case), case["fs"]).double(),
        expected,
        rtol=1e-5,
        atol=1e-5,
    )
    (home / "nisqa.tar").unlink()
    hub = isolated / "torch_home" / "hub" / "checkpoints"
    hub.mkdir(parents=True)
    (hub / "nisqa.tar").write_bytes(checkpoint.read_bytes())
    torch.testing.assert_close(
        non_intrusive_speech_quality_assessment(_signals(case), case["fs"]).double(),
        expected,
        rtol=1e-5,
        atol=1e-5,
    )


def test_offline_error_names_file_and_url(isolated):
    with pytest.raises(WeightsUnavailableError, match=r"nisqa\.tar.*github\.com/gabrielmittag/NISQA"):
        non_intrusive_speech_quality_assessment(torch.randn(8000), 16000)
    metric = NonIntrusiveSpeechQualityAssessment(16000)  # torchmetrics too loads nothing before `update`
    with pytest.raises(WeightsUnavailableError, match="nisqa.tar"):
        metric.update(torch.randn(8000))
    assert int(metric.total) == 0


def test_checkpoint_without_args_is_refused(tmp_path):
    file = tmp_path / "nisqa.tar"
    torch.save({"model_state_dict": {}}, file)
    with pytest.raises(WeightsChecksumError, match="holds `args` and `model_state_dict`"):
        network("nisqa", weights=file)


@pytest.fixture(scope="module")
def random_net():
    torch.manual_seed(0)
    return network("nisqa", pretrained=False)


@pytest.mark.parametrize("fs", [0, -8000, 16000.0, True, "16000"])
def test_bad_fs(fs, random_net):
    with pytest.raises(ValueError, match="`fs` expected to be a positive integer, but got"):
        NonIntrusiveSpeechQualityAssessment(fs, model=random_net)
    with pytest.raises(ValueError, match="`fs` expected to be a positive integer"):
        non_intrusive_speech_quality_assessment(torch.randn(8000), fs, model=random_net)


def test_bad_signals_leave_the_state(random_net):
    metric = NonIntrusiveSpeechQualityAssessment(16000, model=random_net)
    metric.update(torch.randn(2, 8000))
    before = metric.sum_nisqa.clone()
    bad = [
        (torch.randn(2, 2000), RuntimeError, r"too short: `preds` has 2000 samples at fs=16000"),
        (torch.zeros(16000 * 53), RuntimeError, r"Maximum number of mel spectrogram windows exceeded.*1300"),
        (torch.full((1, 8000), float("nan")), ValueError, "NaN"),
        (torch.zeros(1, 8000, dtype=torch.int16), ValueError, r"`preds` must be a float tensor.*torch.int16"),
        (torch.tensor(0.5), ValueError, r"`preds` must be a float tensor of shape \(\.\.\., time\)"),
        ([0.5] * 8000, TypeError, "`preds` must be a tensor, got list"),
    ]
    for preds, error, match in bad:
        with pytest.raises(error, match=match):
            metric.update(preds)
        assert torch.equal(metric.sum_nisqa, before) and int(metric.total) == 2
    metric.update(torch.randn(8000))
    assert int(metric.total) == 3


def test_chunked_spectrograms_and_empty_batch(random_net, monkeypatch):
    import importlib

    module = importlib.import_module("lightning_metrics.functional.audio.nisqa")
    preds = torch.randn(3, 6000)
    whole = non_intrusive_speech_quality_assessment(preds, 16000, model=random_net)
    monkeypatch.setattr(module, "_SPECTRUM_ELEMENTS", 1)  # one signal per spectrogram chunk
    torch.testing.assert_close(non_intrusive_speech_quality_assessment(preds, 16000, model=random_net), whole)
    assert non_intrusive_speech_quality_assessment(torch.zeros(0, 6000), 16000, model=random_net).shape == (
        0,
        5,
    )


def test_shapes_and_frozen_network(random_net):
    preds = torch.randn(2, 3, 6000)
    value = non_intrusive_speech_quality_assessment(preds, 16000, model=random_net)
    assert value.shape == (2, 3, 5)
    single = non_intrusive_speech_quality_assessment(preds[1, 2], 16000, model=random_net)
    torch.testing.assert_close(single, value[1, 2], rtol=1e-5, atol=1e-5)
    random_net.train()
    assert not random_net.training and not any(p.requires_grad for p in random_net.parameters())
