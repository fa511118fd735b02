"""Random weight files in the real layouts, written once per session, and the folders the loading path reads.

Test modules import these fixtures (``from tests.networks._weight_fixtures import *``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from lightning_metrics.networks import weights
from lightning_metrics.networks.weights import WeightFile
from tests.networks import _random_weights as rw

PERCEPTUAL_FILES = ("alexnet", "vgg16", "squeezenet1_1", "lpips-alex", "lpips-vgg", "lpips-squeeze", "dists")
REFERENCE = Path(__file__).with_name("fixtures") / "perceptual_reference.json"


@pytest.fixture(scope="session")
def perceptual_reference() -> dict:
    return json.loads(REFERENCE.read_text())


@pytest.fixture(scope="session")
def random_weight_folder(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """Every LPIPS / DISTS file, random, under its published name, and their SHA-256. The trunk
    files hold a ``classifier.`` key too (torchvision's files do; the trunks must ignore it)."""
    folder = tmp_path_factory.mktemp("random_weights")
    digests = {}
    for name in PERCEPTUAL_FILES:
        extra = (
            {"classifier.1.weight": np.ones((2, 2), np.float32)}
            if "-" not in name and name != "dists"
            else None
        )
        path = rw.write(name, folder / weights.WEIGHT_FILES[name].filename, extra)
        digests[name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return folder, digests


@pytest.fixture()
def offline_weights(random_weight_folder, tmp_path, monkeypatch) -> Path:
    """The random files as the offline folder (``LIGHTNING_METRICS_WEIGHTS``), an empty torch.hub
    cache, and the registry's checksums set to the random files' own (so that they are verified)."""
    folder, digests = random_weight_folder
    monkeypatch.setenv(weights.ENV_VAR, str(folder))
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch_home"))
    for name in PERCEPTUAL_FILES:
        row = weights.WEIGHT_FILES[name]
        monkeypatch.setitem(weights.WEIGHT_FILES, name, WeightFile(row.url, digests[name], row.used_by))
    return folder


__all__ = ["offline_weights", "perceptual_reference", "random_weight_folder"]
