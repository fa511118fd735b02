"""The LPIPS and DISTS networks and their trunks, with random weights in the real files' layouts,
loaded through the real path (the offline folder, torch.hub's cache), against the references
(the ``lpips`` package, ``DISTS_pytorch``) from ``fixtures/perceptual_reference.json``."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import torch

from lightning_metrics.networks import network, weights
from lightning_metrics.networks.weights import WeightsChecksumError, WeightsUnavailableError
from tests.networks import _random_weights as rw
from tests.networks._weight_fixtures import *  # noqa: F403  (the fixtures)

NETS = {"alex": "alexnet", "vgg": "vgg16", "squeeze": "squeezenet1_1"}


def _pair(seed, shape, low=-1.0, high=1.0):
    both = torch.from_numpy(rw.images(seed, (2, *shape), low, high))
    return both[0], both[1]


@pytest.mark.parametrize("name", ["alexnet", "vgg16", "squeezenet1_1"])
def test_trunks_load_torchvisions_features_keys_and_ignore_the_classifier(name, offline_weights):
    trunk = network(name)
    expected = rw.trunk_state(name)
    got = trunk.state_dict()
    assert sorted(got) == sorted(f"features.{key[len('features.') :]}" for key in expected)
    for key, value in expected.items():
        assert np.array_equal(got[key].numpy(), value), key
    assert not trunk.training and not any(p.requires_grad for p in trunk.parameters())


def test_a_trunk_file_without_a_features_key_is_refused_naming_it(tmp_path):
    state = {k: torch.from_numpy(v) for k, v in rw.trunk_state("alexnet").items() if k != "features.3.bias"}
    torch.save(state, tmp_path / "alexnet.pth")
    with pytest.raises(RuntimeError, match=r"features\.3\.bias|3\.bias"):
        network("alexnet", weights_path=tmp_path / "alexnet.pth")


@pytest.mark.parametrize("net_type", ["alex", "vgg", "squeeze"])
def test_lpips_network_equals_the_lpips_package(net_type, offline_weights, perceptual_reference):
    net = network("lpips", net_type=net_type)
    cases = perceptual_reference["lpips"][net_type]["pairs"]
    for case in cases if net_type != "vgg" else cases[:1]:  # the function's test runs VGG on all pairs
        img1, img2 = _pair(case["seed"], tuple(case["shape"]), case["low"], case["high"])
        with torch.no_grad():
            got = net(img1, img2, normalize=case["normalize"]).flatten()
        assert got.shape == (case["shape"][0],)
        torch.testing.assert_close(got, torch.tensor(case["lpips"]), rtol=1e-5, atol=1e-5)


def test_lpips_network_loads_from_torch_hubs_cache(
    random_weight_folder, tmp_path, monkeypatch, perceptual_reference
):
    """No offline folder: the files are found in ``$TORCH_HOME/hub/checkpoints`` (and verified there)."""
    folder, digests = random_weight_folder
    monkeypatch.delenv(weights.ENV_VAR, raising=False)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "home"))
    cache = tmp_path / "home" / "hub" / "checkpoints"
    cache.mkdir(parents=True)
    for name in ("squeezenet1_1", "lpips-squeeze"):
        row = weights.WEIGHT_FILES[name]
        shutil.copy(folder / row.filename, cache / row.filename)
        monkeypatch.setitem(
            weights.WEIGHT_FILES, name, weights.WeightFile(row.url, digests[name], row.used_by)
        )
    net = network("lpips", net_type="squeeze", download=False)
    case = perceptual_reference["lpips"]["squeeze"]["pairs"][0]
    got = net(*_pair(case["seed"], tuple(case["shape"]))).flatten()
    torch.testing.assert_close(got, torch.tensor(case["lpips"]), rtol=1e-5, atol=1e-5)
    # the published checksum (the registry's own row) refuses the random file in the cache
    monkeypatch.setitem(weights.WEIGHT_FILES, "lpips-squeeze", row)
    with pytest.raises(WeightsChecksumError, match="squeeze.pth"):
        network("lpips", net_type="squeeze", download=False)


def test_without_the_files_the_error_names_the_file_and_its_url(tmp_path, monkeypatch):
    monkeypatch.delenv(weights.ENV_VAR, raising=False)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "empty"))
    with pytest.raises(
        WeightsUnavailableError, match=r"alexnet-owt-7be5be79\.pth.*https://download\.pytorch\.org"
    ):
        network("lpips", net_type="alex", download=False)
    with pytest.raises(WeightsUnavailableError, match=r"vgg16-397923af\.pth"):
        network("dists", download=False)


def test_dists_network_equals_dists_pytorch(offline_weights, perceptual_reference):
    net = network("dists")
    assert torch.equal(net.alpha, torch.from_numpy(rw.dists_state()["alpha"]))
    for case in perceptual_reference["dists"]["pairs"]:
        x, y = _pair(case["seed"], tuple(case["shape"]), 0.0, 1.0)
        got = net(x, y).reshape(-1)
        torch.testing.assert_close(got, torch.tensor(case["dists_pytorch"]), rtol=1e-5, atol=1e-5)


def test_dists_weights_with_a_wrong_shape_are_refused(tmp_path):
    from lightning_metrics.networks.dists import DISTSNetwork

    net = DISTSNetwork(pretrained=False)
    with pytest.raises(KeyError, match=r"'beta' of shape \(1, 1475, 1, 1\), got \(1, 3, 1, 1\)"):
        net.load_alpha_beta({"alpha": torch.zeros(1, 1475, 1, 1), "beta": torch.zeros(1, 3, 1, 1)})


def test_lpips_rejects_an_unknown_net_type():
    with pytest.raises(ValueError, match="Argument `net_type` must be one of .* got 'resnet'"):
        network("lpips", net_type="resnet", pretrained=False)


@pytest.mark.parametrize(
    ("net_type", "first"),
    [
        ("alex", "net.slice1.0.weight"),
        ("vgg", "net.slice5.28.bias"),
        ("squeeze", "net.slices.6.12.expand3x3.weight"),
    ],
)
def test_lpips_state_dict_is_in_torchmetrics_layout_and_loads_back(net_type, first):
    torch.manual_seed(0)
    source = network("lpips", net_type=net_type, pretrained=False)
    torch.manual_seed(1)
    target = network("lpips", net_type=net_type, pretrained=False)
    state = source.state_dict()
    assert first in state and "lin0.model.1.weight" in state and "lins.0.model.1.weight" in state
    assert not any(key.startswith("net.features.") for key in state)
    target.load_state_dict(state, strict=True)
    for (name, a), b in zip(source.named_parameters(), target.parameters()):
        assert torch.equal(a, b), name


def test_the_random_weights_are_those_the_fixtures_were_made_with(perceptual_reference):
    """numpy draws the weights here as it drew them in the oracle environment (another numpy could not)."""
    for name, expected in perceptual_reference["weight_sums"].items():
        got = float(sum(np.abs(value.astype(np.float64)).sum() for value in rw.state(name).values()))
        assert got == pytest.approx(expected, rel=1e-12), name
