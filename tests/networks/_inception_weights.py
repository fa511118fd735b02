"""Random weights for the FID Inception-v3 in torch-fidelity's key layout, and the seeded test images.

Used by the suite (in .venv) and by ``fixtures/make_inception_fixtures.py`` (in .venv-oracle): both
draw from numpy's ``default_rng`` (the same numbers on every numpy and torch version), key by key in
sorted order, so a template with torch-fidelity's keys and shapes gives the same file in both.

Scales keep the activations of all 94 convolutions alive: He-scaled convolutions, batch norms close
to the identity (weights and variances near 1, small means and biases), a classifier of unit gain.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import torch

FILENAME = "weights-inception-2015-12-05-6726825d.pth"  # torch-fidelity's name for the file

# name -> (number, height, width) of seeded uint8 images; 299 x 299 is passed through as it is,
# the others are resized (down from 341 x 317, up from 40 x 56)
IMAGE_SETS = {
    "full": (3, 299, 299),
    "down": (3, 341, 317),
    "up": (2, 40, 56),
}


def random_inception_state(template: Mapping[str, Sequence[int]], seed: int = 0) -> dict[str, torch.Tensor]:
    """A state dict with ``template``'s keys and shapes (``key -> shape``), drawn from ``default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    state = {}
    for key in sorted(template):
        shape = tuple(template[key])
        if key.endswith("num_batches_tracked"):
            state[key] = torch.tensor(0, dtype=torch.int64)
            continue
        if key.endswith("conv.weight"):
            fan_in = int(np.prod(shape[1:]))
            values = rng.normal(0.0, np.sqrt(2.0 / fan_in), shape)
        elif key.endswith(("bn.weight", "running_var")):
            values = rng.uniform(0.8, 1.2, shape)
        elif key.endswith(("bn.bias", "running_mean")):
            values = rng.normal(0.0, 0.05, shape)
        elif key == "fc.weight":
            values = rng.normal(0.0, 1.0 / np.sqrt(shape[1]), shape)
        elif key == "fc.bias":
            values = rng.normal(0.0, 0.1, shape)
        else:
            raise KeyError(f"no rule for the key {key!r}")
        state[key] = torch.from_numpy(np.asarray(values, dtype=np.float32))
    return state


def write_inception_weights(template: Mapping[str, Sequence[int]], folder: Path, seed: int = 0) -> Path:
    """Write :func:`random_inception_state` as ``folder/FILENAME``; its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / FILENAME
    torch.save(random_inception_state(template, seed), path)
    return path


@functools.cache
def our_inception_weights(seed: int = 0) -> Path:
    """The random file for our network's layout, written once per test session in a temporary folder."""
    from lightning_metrics.networks.inception import FeatureExtractorInceptionV3

    template = {k: tuple(v.shape) for k, v in FeatureExtractorInceptionV3(["64"], pretrained=False).state_dict().items()}
    folder = Path(tempfile.mkdtemp(prefix="lm-inception-"))
    atexit.register(shutil.rmtree, folder, True)
    return write_inception_weights(template, folder, seed)


def images(name: str, seed: int = 1) -> torch.Tensor:
    """The seeded uint8 images ``(N, 3, H, W)`` of the set ``name`` (smooth blobs plus noise, so the
    resizes have structure to act on)."""
    number, height, width = IMAGE_SETS[name]
    rng = np.random.default_rng([seed, height, width])
    coarse = rng.uniform(0, 255, (number, 3, 6, 6))
    rows = np.linspace(0, 5, height)
    cols = np.linspace(0, 5, width)
    r0 = np.floor(rows).astype(int).clip(0, 4)
    c0 = np.floor(cols).astype(int).clip(0, 4)
    fr, fc = (rows - r0)[:, None], (cols - c0)[None, :]
    smooth = (
        coarse[:, :, r0][:, :, :, c0] * (1 - fr) * (1 - fc)
        + coarse[:, :, r0 + 1][:, :, :, c0] * fr * (1 - fc)
        + coarse[:, :, r0][:, :, :, c0 + 1] * (1 - fr) * fc
        + coarse[:, :, r0 + 1][:, :, :, c0 + 1] * fr * fc
    )
    noisy = smooth + rng.normal(0, 20, smooth.shape)
    return torch.from_numpy(np.clip(np.rint(noisy), 0, 255).astype(np.uint8))
