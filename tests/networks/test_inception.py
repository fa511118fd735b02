"""The FID Inception-v3 against torch-fidelity / torchmetrics 1.9, from the same random weight file.

The reference outputs were made once in the oracle venv by ``fixtures/make_inception_fixtures.py``;
here the same file (``_inception_weights.py``) goes through the real loading path (the user's path,
the ``LIGHTNING_METRICS_WEIGHTS`` folder with its checksum), and every output must equal the fixture to
1e-5. The network is slow on a CPU: few images, and the cheap outputs ('64', '192') where only the
resize differs.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import torch

from lightning_metrics import networks
from lightning_metrics.networks import weights
from lightning_metrics.networks.inception import FEATURES, FeatureExtractorInceptionV3
from lightning_metrics.networks.weights import WeightFile, WeightsChecksumError, WeightsUnavailableError
from tests.networks._inception_weights import FILENAME, images, our_inception_weights

FIXTURE = torch.load(Path(__file__).with_name("fixtures") / "inception_torchmetrics.pt", weights_only=True)


def assert_outputs(outputs, names, reference) -> None:
    """Each output equals the fixture's (1e-5; the wide ones through their stored slice, sums and norms)."""
    for name, value in zip(names, outputs):
        ref = reference[name]
        assert value.dtype == torch.float32 and value.ndim == 2
        if "values" in ref:
            torch.testing.assert_close(value, ref["values"], rtol=1e-5, atol=1e-6)
            continue
        wide = value.to(torch.float64)
        columns = FIXTURE["columns"]
        torch.testing.assert_close(value[:, :columns], ref["columns"], rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(wide.norm(dim=1), ref["row_norm"], rtol=1e-5, atol=0)
        tolerance = 1e-5 * ref["row_norm"] * wide.shape[1] ** 0.5  # a sum of d terms that may cancel
        assert ((wide.sum(dim=1) - ref["row_sum"]).abs() <= tolerance).all(), name


@pytest.fixture(scope="module")
def weight_file() -> Path:
    return our_inception_weights()


def test_keys_and_shapes_are_torch_fidelitys():
    ours = FeatureExtractorInceptionV3(["2048"], pretrained=False).state_dict()
    assert {k: list(v.shape) for k, v in ours.items()} == FIXTURE["template"]
    assert len(ours) == len(FIXTURE["template"]) > 500


def test_the_images_are_the_fixtures():
    for name, checksum in FIXTURE["checksums"].items():
        assert int(images(name).to(torch.int64).sum()) == checksum


def test_all_outputs_from_the_users_path(weight_file):
    """299 x 299 images (no resize) and 341 x 317 ones (torchmetrics' antialiased resize), every output."""
    net = FeatureExtractorInceptionV3(list(FEATURES), weights_path=str(weight_file))
    assert not net.training and not any(p.requires_grad for p in net.parameters())
    for name in ("full", "down"):
        with torch.no_grad():
            outputs = net(images(name))
        assert_outputs(outputs, FEATURES, FIXTURE["features"][f"{name}/antialias"])
    logits_unbiased, logits = outputs[4], outputs[5]
    torch.testing.assert_close(logits, logits_unbiased + net.fc.bias, rtol=0, atol=1e-5)
    # the requested order is kept, and the early exit gives the same values
    with torch.no_grad():
        first = FeatureExtractorInceptionV3(["192", "64"], weights_path=weight_file)(images("full"))
    assert_outputs(first, ["192", "64"], FIXTURE["features"]["full/antialias"])


def test_both_resizes_from_the_offline_folder(weight_file, tmp_path, monkeypatch):
    """Through ``LIGHTNING_METRICS_WEIGHTS`` (checksum checked) and the registry; TensorFlow 1.x's
    bilinear resize (``antialias=False``) and torch's antialiased one, down and up."""
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "empty_home"))
    monkeypatch.setenv(weights.ENV_VAR, str(weight_file.parent))
    with pytest.raises(WeightsChecksumError, match="6726825d"):  # the random file is not the published one
        networks.network("inception-v3-compat", features_list=["64"])
    row = weights.WEIGHT_FILES["inception-v3-compat"]
    digest = hashlib.sha256(weight_file.read_bytes()).hexdigest()
    monkeypatch.setitem(weights.WEIGHT_FILES, "inception-v3-compat", WeightFile(row.url, digest, row.used_by))
    for antialias, mode in ((True, "antialias"), (False, "tf1")):
        net = networks.network("inception-v3-compat", features_list=["64", "192"], antialias=antialias)
        for name in ("down", "up"):
            with torch.no_grad():
                outputs = net(images(name))
            assert_outputs(outputs, ["64", "192"], FIXTURE["features"][f"{name}/{mode}"])


def test_without_the_file_the_error_names_it(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv(weights.ENV_VAR, str(tmp_path))

    def offline(row, target):
        raise OSError("no network")

    monkeypatch.setattr(weights, "_download", offline)
    with pytest.raises(WeightsUnavailableError, match=FILENAME) as err:
        FeatureExtractorInceptionV3(["64"])
    assert "torch-fidelity/releases" in str(err.value) and weights.ENV_VAR in str(err.value)


def test_float64_and_frozen(weight_file):
    net = FeatureExtractorInceptionV3(["64"], weights_path=weight_file)
    imgs = images("up")
    with torch.no_grad():
        single = net(imgs)[0]
        double = net.double()(imgs)[0]
    assert double.dtype == torch.float64
    torch.testing.assert_close(double.float(), single, rtol=1e-5, atol=1e-6)
    assert not net.train().training


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="`features_list`.*'100'"):
        FeatureExtractorInceptionV3(["100"], pretrained=False)
    with pytest.raises(ValueError, match="`features_list`"):
        FeatureExtractorInceptionV3(["64", "64"], pretrained=False)
    with pytest.raises(TypeError, match="`features_list`"):
        FeatureExtractorInceptionV3("2048", pretrained=False)
    with pytest.raises(TypeError, match="`antialias`"):
        FeatureExtractorInceptionV3(["64"], antialias="yes", pretrained=False)
    net = FeatureExtractorInceptionV3(["64"], pretrained=False)
    with pytest.raises(TypeError, match="`x`.*float32"):
        net(torch.rand(1, 3, 8, 8))
    with pytest.raises(ValueError, match=r"`x`.*\(1, 1, 8, 8\)"):
        net(torch.zeros(1, 1, 8, 8, dtype=torch.uint8))
