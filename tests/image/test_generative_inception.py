"""FID, KID, IS and MiFID with ``feature=`` an Inception output equal torchmetrics 1.9's values.

torchmetrics' values come from ``tests/networks/fixtures/make_inception_fixtures.py`` (oracle venv),
from the same random weight file and seeded images (real: three 299 x 299 images, fake: three
341 x 317 ones, resized). KID and MiFID use the cheap '64' output: the integer path is the same for
every output, and the full network is checked by FID at 2048 and by the Inception score.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import torch

import lightning_metrics.image as lmi
from lightning_metrics.networks import weights
from lightning_metrics.networks.weights import WeightFile
from tests.networks._inception_weights import images, our_inception_weights

FIXTURE = torch.load(
    Path(__file__).parents[1] / "networks" / "fixtures" / "inception_torchmetrics.pt", weights_only=True
)
REAL, FAKE = images("full"), images("down")


@pytest.fixture(scope="module")
def weight_file() -> Path:
    return our_inception_weights()


@pytest.fixture
def offline_folder(weight_file, tmp_path, monkeypatch):
    """The random file in ``LIGHTNING_METRICS_WEIGHTS`` (KID, IS and MiFID take no path), its checksum
    registered in place of the published one; an empty torch.hub cache."""
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "empty_home"))
    monkeypatch.setenv(weights.ENV_VAR, str(weight_file.parent))
    row = weights.WEIGHT_FILES["inception-v3-compat"]
    digest = hashlib.sha256(weight_file.read_bytes()).hexdigest()
    monkeypatch.setitem(weights.WEIGHT_FILES, "inception-v3-compat", WeightFile(row.url, digest, row.used_by))
    return weight_file.parent


def _fed(metric, real_and_fake: bool = True):
    if real_and_fake:
        metric.update(REAL, real=True)
        metric.update(FAKE, real=False)
    else:
        metric.update(FAKE)
    return metric


@pytest.mark.parametrize(
    ("key", "kwargs"),
    [
        ("fid/64", {"feature": 64}),
        ("fid/192", {"feature": 192}),
        ("fid/64/tf1", {"feature": 64, "antialias": False}),
    ],
)
def test_fid_small_outputs(weight_file, key, kwargs):
    fid = _fed(lmi.FrechetInceptionDistance(feature_extractor_weights_path=str(weight_file), **kwargs))
    value = fid.compute()
    assert value.dtype == torch.float32
    torch.testing.assert_close(value, FIXTURE["metrics"][key], rtol=1e-5, atol=1e-6)


def test_fid_float64_after_set_dtype(weight_file):
    fid = lmi.FrechetInceptionDistance(feature=64, feature_extractor_weights_path=weight_file)
    fid.set_dtype(torch.float64)
    value = _fed(fid).compute()
    assert value.dtype == torch.float64
    torch.testing.assert_close(value, FIXTURE["metrics"]["fid/64/float64"], rtol=1e-6, atol=1e-8)


def test_fid_2048(weight_file):
    """The full network; three images per side, so the 2048 x 2048 covariances have rank 2 (torchmetrics
    takes ``eigvals(S1 @ S2)``, ours the symmetric product with rounding-level eigenvalues dropped)."""
    fid = _fed(lmi.FrechetInceptionDistance(feature=2048, feature_extractor_weights_path=weight_file))
    torch.testing.assert_close(fid.compute(), FIXTURE["metrics"]["fid/2048"], rtol=1e-5, atol=0)


def test_kid_mifid_is_from_the_offline_folder(offline_folder):
    kid = _fed(lmi.KernelInceptionDistance(feature=64, subsets=4, subset_size=2))
    torch.manual_seed(0)
    torch.testing.assert_close(torch.stack(kid.compute()), FIXTURE["metrics"]["kid/64"], rtol=1e-5, atol=1e-7)

    mifid = _fed(lmi.MemorizationInformedFrechetInceptionDistance(feature=64))
    torch.testing.assert_close(mifid.compute(), FIXTURE["metrics"]["mifid/64"], rtol=1e-5, atol=0)

    # the scores are exp(KL) ~ 1.001 in torchmetrics' float32 (ours sum in float64): 1e-6 is its rounding
    inception = _fed(lmi.InceptionScore(splits=2), real_and_fake=False)
    torch.manual_seed(0)
    torch.testing.assert_close(
        torch.stack(inception.compute()), FIXTURE["metrics"]["is/logits_unbiased"], rtol=1e-5, atol=1e-6
    )
