"""ARNIQA against torchmetrics' values, with random weights in the release's file layout.

The weight files are written by the test (``tests/networks/_arniqa_nisqa_weights.py``) and loaded
through the real path (the ``LIGHTNING_METRICS_WEIGHTS`` folder, torch.hub's cache under
``TORCH_HOME``); torchmetrics' values for the same files and inputs were computed once in the
oracle environment (``tests/networks/fixtures/make_arniqa_nisqa_fixtures.py``, it needs torchvision).
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest
import torch

from lightning_metrics.functional.image.arniqa import arniqa
from lightning_metrics.image import ARNIQA
from lightning_metrics.networks import ENV_VAR, WeightsUnavailableError, network
from lightning_metrics.networks.arniqa import torchscript_tensors
from lightning_metrics.networks.weights import WeightsChecksumError
from tests.networks._arniqa_nisqa_weights import arniqa_images, arniqa_regressor_state, write_arniqa_files

arniqa_module = importlib.import_module(
    "lightning_metrics.functional.image.arniqa"
)  # the function shadows it
FIXTURES = json.loads(
    (Path(__file__).parents[1] / "networks" / "fixtures" / "arniqa_torchmetrics.json").read_text()
)


@pytest.fixture(scope="module")
def weights_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("arniqa_weights")
    write_arniqa_files(folder)
    return folder


@pytest.fixture()
def offline(weights_folder, monkeypatch, tmp_path):
    """The files in the LIGHTNING_METRICS_WEIGHTS folder; an empty torch.hub cache; no download."""
    monkeypatch.setenv(ENV_VAR, str(weights_folder))
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch_home"))
    monkeypatch.setattr(torch.hub, "download_url_to_file", _no_download)
    return weights_folder


def _no_download(url, *args, **kwargs):
    raise OSError(f"no network in the tests ({url})")


@pytest.mark.parametrize("case", FIXTURES["cases"], ids=lambda c: f"seed{c['seed']}")
def test_functional_equals_torchmetrics(offline, case):
    img = arniqa_images(case["seed"], tuple(case["shape"]), case["dtype"], case["normalized"])
    value = arniqa(img, **case["kwargs"])
    assert value.dtype == img.dtype
    expected = torch.tensor(case["value"], dtype=torch.float64)
    assert value.shape == expected.shape
    torch.testing.assert_close(value.double(), expected, rtol=1e-5, atol=1e-5)


def test_modular_equals_torchmetrics(offline):
    batches = [
        arniqa_images(c["seed"], tuple(c["shape"]), c["dtype"], c["normalized"])
        for c in FIXTURES["cases"][:2]
    ]
    model = network("arniqa")  # built once, shared by the three metrics
    for case in FIXTURES["modular"]:
        metric = ARNIQA(**case["kwargs"], model=model)
        for img in batches:
            metric.update(img)
        value = metric.compute()
        assert value.dtype == torch.float32 and value.shape == ()
        torch.testing.assert_close(
            value.double(), torch.tensor(case["value"], dtype=torch.float64), rtol=1e-5, atol=1e-5
        )


def test_module_checkpoint_keys_are_torchmetrics(offline):
    assert list(ARNIQA().state_dict()) == FIXTURES["state_dict_keys"]


def test_hub_cache_and_functional_cache(weights_folder, monkeypatch, tmp_path):
    """The same files in torch.hub's cache (TORCH_HOME) load too; the network is built once per files."""
    checkpoints = tmp_path / "hub" / "checkpoints"
    checkpoints.mkdir(parents=True)
    for file in weights_folder.iterdir():
        (checkpoints / file.name).write_bytes(file.read_bytes())
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    monkeypatch.setattr(torch.hub, "download_url_to_file", _no_download)
    case = FIXTURES["cases"][0]
    img = arniqa_images(case["seed"], tuple(case["shape"]), case["dtype"], case["normalized"])
    torch.testing.assert_close(
        arniqa(img, reduction="none").double(),
        torch.tensor(case["value"], dtype=torch.float64),
        rtol=1e-5,
        atol=1e-5,
    )
    first = next(iter(arniqa_module._cache.values()))
    arniqa(img)
    assert next(iter(arniqa_module._cache.values())) is first


def test_offline_error_names_file_and_url(monkeypatch, tmp_path):
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "empty"))
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch_home"))
    monkeypatch.setattr(torch.hub, "download_url_to_file", _no_download)
    with pytest.raises(WeightsUnavailableError, match=r"ARNIQA\.pth.*github\.com/miccunifi/ARNIQA/releases"):
        ARNIQA()
    with pytest.raises(WeightsUnavailableError, match="ARNIQA.pth"):
        arniqa(torch.rand(1, 3, 8, 8))


def test_regressor_archive_read_without_torchscript(weights_folder, tmp_path):
    tensors = torchscript_tensors(weights_folder / "regressor_kadid10k.pth")
    expected = arniqa_regressor_state("kadid10k")
    assert sorted(tensors) == ["biases", "weights"]
    assert torch.equal(tensors["weights"], torch.from_numpy(expected["weights"]))
    assert tensors["biases"].shape == () and float(tensors["biases"]) == float(expected["biases"])
    plain = tmp_path / "plain.pth"
    torch.save({"weights": torch.ones(1, 4), "biases": torch.tensor(0.5)}, plain)
    assert torch.equal(torchscript_tensors(plain)["weights"], torch.ones(1, 4))
    not_archive = tmp_path / "text.pth"
    not_archive.write_text("not weights")
    with pytest.raises(WeightsChecksumError, match="not a TorchScript archive"):
        torchscript_tensors(not_archive)
    net = network("arniqa", pretrained=False)
    with pytest.raises(WeightsChecksumError, match=r"holds `weights` and `biases`, found \['weights'\]"):
        net.load_regressor({"weights": torch.ones(1, 4096)})


@pytest.fixture(scope="module")
def random_net():
    torch.manual_seed(0)
    return network("arniqa", pretrained=False)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"regressor_dataset": "live"}, "`regressor_dataset` must be one of .*'live'"),
        ({"reduction": "max"}, "`reduction` must be one of .*'max'"),
        ({"normalize": 1}, "`normalize` must be a bool, got 1"),
        ({"autocast": "yes"}, "`autocast` must be a bool, got 'yes'"),
    ],
)
def test_bad_arguments(random_net, kwargs, match):
    with pytest.raises(ValueError, match=match):
        ARNIQA(model=random_net, **kwargs)
    with pytest.raises(ValueError, match=match):
        arniqa(torch.rand(1, 3, 8, 8), model=random_net, **kwargs)


def test_bad_images_leave_the_state(random_net):
    metric = ARNIQA(model=random_net)
    metric.update(torch.rand(2, 3, 16, 16))
    before = (metric.sum_scores.clone(), metric.num_scores.clone())
    bad = [
        (torch.rand(2, 1, 16, 16), ValueError, r"`img` must have shape \(N, 3, H, W\), got \(2, 1, 16, 16\)"),
        (torch.rand(3, 16, 16), ValueError, r"`img` must have shape"),
        (
            torch.rand(2, 3, 16, 16) * 2,
            ValueError,
            r"`img` must hold values in \[0, 1\] when `normalize=True`",
        ),
        (torch.full((1, 3, 8, 8), float("nan")), ValueError, "NaN"),
        (torch.zeros(1, 3, 8, 8, dtype=torch.uint8), ValueError, "floating point"),
        ([[0.5]], TypeError, "`img` must be a tensor, got list"),
    ]
    for img, error, match in bad:
        with pytest.raises(error, match=match):
            metric.update(img)
        assert torch.equal(metric.sum_scores, before[0]) and torch.equal(metric.num_scores, before[1])
    metric.update(torch.rand(1, 3, 16, 16))
    assert int(metric.num_scores) == 3


def test_network_is_frozen_and_follows_dtype(random_net):
    metric = ARNIQA(model=random_net)
    metric.train()
    assert not metric.model.training and not any(p.requires_grad for p in metric.model.parameters())
    img = torch.rand(2, 3, 16, 16)
    single = arniqa(img[:1], model=random_net, reduction="none")
    assert single.shape == ()  # torchmetrics squeezes one image's score to a scalar
    in64 = arniqa(img.double(), model=random_net, reduction="none")
    in32 = arniqa(img, model=random_net, reduction="none")
    assert in64.dtype == torch.float64 and in32.dtype == torch.float32
    torch.testing.assert_close(in64.float(), in32, rtol=1e-5, atol=1e-6)
