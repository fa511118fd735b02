"""Random weights in the real files' key layouts, the same in every environment.

Drawn with numpy's ``default_rng(seed)`` (stable across numpy versions), from key lists written
here (no torch module is built), so that the test environment and the oracle environment
(``tests/networks/fixtures/make_perceptual_fixtures.py``) write files with equal values:

- torchvision's ImageNet trunks (``features.N.weight`` / ``.bias``; only the ``features`` part:
  the classifier is never run by LPIPS or DISTS);
- the LPIPS heads (``lin0.model.1.weight``, ...), nonnegative as the published ones;
- DISTS' ``alpha`` and ``beta``.

Convolutions are drawn with He scaling so that activations keep their size through the trunk.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

SEEDS = {"alexnet": 11, "vgg16": 12, "squeezenet1_1": 13,
         "lpips-alex": 21, "lpips-vgg": 22, "lpips-squeeze": 23,
         "dists": 31}  # fmt: skip
HEAD_CHANNELS = {
    "alex": (64, 192, 384, 256, 256),
    "vgg": (64, 128, 256, 512, 512),
    "squeeze": (64, 128, 256, 384, 384, 512, 512),
}
DISTS_CHANNELS = 3 + 64 + 128 + 256 + 512 + 512


def _convs(name: str) -> list[tuple[str, int, int, int]]:
    """(key prefix, out channels, in channels, kernel) of every convolution of a trunk, in file order."""
    if name == "alexnet":
        spec = [(0, 64, 3, 11), (3, 192, 64, 5), (6, 384, 192, 3), (8, 256, 384, 3), (10, 256, 256, 3)]
        return [(f"features.{i}", o, c, k) for i, o, c, k in spec]
    if name == "vgg16":
        convs, index, channels = [], 0, 3
        for width in (64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"):
            if width == "M":
                index += 1
                continue
            convs.append((f"features.{index}", int(width), channels, 3))
            channels, index = int(width), index + 2
        return convs
    if name == "squeezenet1_1":
        convs = [("features.0", 64, 3, 3)]
        fires = [(3, 64, 16, 64), (4, 128, 16, 64), (6, 128, 32, 128), (7, 256, 32, 128),
                 (9, 256, 48, 192), (10, 384, 48, 192), (11, 384, 64, 256), (12, 512, 64, 256)]  # fmt: skip
        for index, inplanes, squeeze, expand in fires:
            convs += [(f"features.{index}.squeeze", squeeze, inplanes, 1),
                      (f"features.{index}.expand1x1", expand, squeeze, 1),
                      (f"features.{index}.expand3x3", expand, squeeze, 3)]  # fmt: skip
        return convs
    raise KeyError(name)


def trunk_state(name: str) -> dict[str, np.ndarray]:
    """The ``features`` weights of torchvision's ``name`` (alexnet, vgg16, squeezenet1_1), random."""
    rng = np.random.default_rng(SEEDS[name])
    state = {}
    for prefix, out, inp, kernel in _convs(name):
        scale = np.sqrt(2.0 / (inp * kernel * kernel))
        state[f"{prefix}.weight"] = (rng.standard_normal((out, inp, kernel, kernel)) * scale).astype(
            np.float32
        )
        state[f"{prefix}.bias"] = (rng.standard_normal(out) * 0.05).astype(np.float32)
    return state


def head_state(net_type: str) -> dict[str, np.ndarray]:
    """The LPIPS heads of ``net_type`` (alex, vgg, squeeze), random and nonnegative."""
    rng = np.random.default_rng(SEEDS[f"lpips-{net_type}"])
    return {f"lin{k}.model.1.weight": rng.uniform(0.0, 1.0, (1, c, 1, 1)).astype(np.float32)
            for k, c in enumerate(HEAD_CHANNELS[net_type])}  # fmt: skip


def dists_state() -> dict[str, np.ndarray]:
    """DISTS' ``alpha`` and ``beta``, random and positive (the published ones lie in [0, 0.02])."""
    rng = np.random.default_rng(SEEDS["dists"])
    return {
        key: rng.uniform(0.0, 0.02, (1, DISTS_CHANNELS, 1, 1)).astype(np.float32) for key in ("alpha", "beta")
    }


def state(name: str) -> dict[str, np.ndarray]:
    """The random state of a WEIGHT_FILES row: a trunk, ``lpips-<net>`` or ``dists``."""
    if name.startswith("lpips-"):
        return head_state(name[len("lpips-") :])
    return dists_state() if name == "dists" else trunk_state(name)


def write(name: str, path: Path, extra: dict[str, np.ndarray] | None = None) -> Path:
    """Save :func:`state` of ``name`` (plus ``extra`` keys) as a torch file at ``path``."""
    import torch

    tensors = {key: torch.from_numpy(value) for key, value in {**state(name), **(extra or {})}.items()}
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(tensors, path)
    return path


def images(seed: int, shape: tuple[int, ...], low: float = -1.0, high: float = 1.0) -> np.ndarray:
    """Seeded float32 images, uniform in [low, high]."""
    return np.random.default_rng(seed).uniform(low, high, shape).astype(np.float32)
