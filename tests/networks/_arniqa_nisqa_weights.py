"""Random ARNIQA and NISQA weights in the real files' layouts, the same in every environment.

Drawn with numpy's ``default_rng(seed)`` (stable across numpy versions) from key lists written
here, so that the test environment and the oracle environment
(``tests/networks/fixtures/make_arniqa_nisqa_fixtures.py``) write files with equal values:

- ``ARNIQA.pth``: the encoder as the release holds it, ``model.<index>...`` keys of
  ``nn.Sequential(*list(resnet50().children())[:-1])`` plus a (small) ``projector`` that the
  loaders drop;
- ``regressor_<dataset>.pth``: a TorchScript archive (``torch.jit.save``) of a module with the
  tensors ``weights`` ``(1, 4096)`` and ``biases`` ``()``, as the release's scikit-learn ridge
  regressors converted by sk2torch;
- ``nisqa.tar``: ``{"args": ..., "model_state_dict": ...}`` with NISQA v2.0's architecture
  arguments (and a few of its training arguments beside them) and every key of its model.

Convolutions and linear layers are drawn with He scaling, batch-norm statistics near the identity.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import torch
from torch import Tensor, nn

SEEDS = {"arniqa-encoder": 41, "arniqa-regressor-koniq10k": 42, "arniqa-regressor-kadid10k": 43, "nisqa": 44}
_STAGES = ((3, 64), (4, 128), (6, 256), (3, 512))

# NISQA v2.0's arguments as its checkpoint holds them (the architecture and mel-spectrogram ones
# that torchmetrics reads, and some of the others that the file carries beside them)
NISQA_ARGS = {
    "name": "NISQA_DIM", "model": "NISQA_DIM", "tr_epochs": 500, "tr_lr": 0.001, "tr_bs": 40,
    "ms_sr": None, "ms_fmax": 20000, "ms_n_fft": 4096, "ms_hop_length": 0.01, "ms_win_length": 0.02,
    "ms_n_mels": 48, "ms_seg_length": 15, "ms_seg_hop_length": 4, "ms_max_segments": 1300, "ms_channel": None,
    "cnn_model": "adapt", "cnn_c_out_1": 16, "cnn_c_out_2": 32, "cnn_c_out_3": 64, "cnn_kernel_size": [3, 3],
    "cnn_dropout": 0.2, "cnn_pool_1": [24, 7], "cnn_pool_2": [12, 5], "cnn_pool_3": [6, 3],
    "cnn_fc_out_h": None,
    "td": "self_att", "td_sa_d_model": 64, "td_sa_nhead": 1, "td_sa_pos_enc": False, "td_sa_num_layers": 2,
    "td_sa_h": 64, "td_sa_dropout": 0.1, "td_lstm_h": 128, "td_2": "skip",
    "pool": "att", "pool_att_h": 128, "pool_att_dropout": 0.1,
}  # fmt: skip


class Ridge(nn.Module):
    """The regressor's TorchScript module: ``weights`` and ``biases`` (sk2torch's names)."""

    def __init__(self, weights: nn.Parameter, biases: nn.Parameter) -> None:
        super().__init__()
        self.weights = weights
        self.biases = biases

    def forward(self, x: Tensor) -> Tensor:
        return x @ self.weights.t() + self.biases


def _batch_norm(rng: np.random.Generator, prefix: str, channels: int) -> dict[str, np.ndarray]:
    return {
        f"{prefix}.weight": rng.uniform(0.5, 1.5, channels).astype(np.float32),
        f"{prefix}.bias": (rng.standard_normal(channels) * 0.1).astype(np.float32),
        f"{prefix}.running_mean": (rng.standard_normal(channels) * 0.1).astype(np.float32),
        f"{prefix}.running_var": rng.uniform(0.5, 1.5, channels).astype(np.float32),
        f"{prefix}.num_batches_tracked": np.array(0, dtype=np.int64),
    }


def _conv(rng: np.random.Generator, key: str, out: int, inp: int, kh: int, kw: int) -> np.ndarray:
    scale = np.sqrt(2.0 / (inp * kh * kw))
    return (rng.standard_normal((out, inp, kh, kw), dtype=np.float32) * np.float32(scale)).astype(np.float32)


def arniqa_encoder_state() -> dict[str, np.ndarray]:
    """ARNIQA.pth: a random ResNet-50 under the release's ``model.<index>`` keys, and a projector."""
    rng = np.random.default_rng(SEEDS["arniqa-encoder"])
    state = {"model.0.weight": _conv(rng, "", 64, 3, 7, 7), **_batch_norm(rng, "model.1", 64)}
    inputs = 64
    for stage, (blocks, width) in enumerate(_STAGES, start=4):
        for block in range(blocks):
            prefix = f"model.{stage}.{block}"
            state[f"{prefix}.conv1.weight"] = _conv(rng, "", width, inputs, 1, 1)
            state.update(_batch_norm(rng, f"{prefix}.bn1", width))
            state[f"{prefix}.conv2.weight"] = _conv(rng, "", width, width, 3, 3)
            state.update(_batch_norm(rng, f"{prefix}.bn2", width))
            state[f"{prefix}.conv3.weight"] = _conv(rng, "", 4 * width, width, 1, 1) * np.float32(0.5)
            state.update(_batch_norm(rng, f"{prefix}.bn3", 4 * width))
            if block == 0:
                state[f"{prefix}.downsample.0.weight"] = _conv(rng, "", 4 * width, inputs, 1, 1)
                state.update(_batch_norm(rng, f"{prefix}.downsample.1", 4 * width))
            inputs = 4 * width
    state["projector.0.weight"] = (rng.standard_normal((8, 2048)) * 0.02).astype(np.float32)
    state["projector.0.bias"] = np.zeros(8, dtype=np.float32)
    state["projector.2.weight"] = (rng.standard_normal((4, 8)) * 0.3).astype(np.float32)
    state["projector.2.bias"] = np.zeros(4, dtype=np.float32)
    return state


def arniqa_regressor_state(dataset: str) -> dict[str, np.ndarray]:
    """A ridge regressor's ``weights`` ``(1, 4096)`` and ``biases`` ``()``, centred in the dataset's range."""
    rng = np.random.default_rng(SEEDS[f"arniqa-regressor-{dataset}"])
    low, high = {"koniq10k": (1, 100), "kadid10k": (1, 5)}[dataset]
    return {
        "weights": (rng.standard_normal((1, 4096)) * (high - low) * 0.2).astype(np.float32),
        "biases": np.array((low + high) / 2, dtype=np.float32),
    }


def _linear(rng: np.random.Generator, prefix: str, out: int, inp: int) -> dict[str, np.ndarray]:
    return {
        f"{prefix}.weight": (rng.standard_normal((out, inp)) * np.sqrt(1.0 / inp)).astype(np.float32),
        f"{prefix}.bias": (rng.standard_normal(out) * 0.1).astype(np.float32),
    }


def _layer_norm(rng: np.random.Generator, prefix: str, width: int) -> dict[str, np.ndarray]:
    return {
        f"{prefix}.weight": rng.uniform(0.8, 1.2, width).astype(np.float32),
        f"{prefix}.bias": (rng.standard_normal(width) * 0.1).astype(np.float32),
    }


def nisqa_state() -> dict[str, np.ndarray]:
    """Every key of NISQA v2.0's model (``cnn``, ``time_dependency``, five ``pool_layers``), random."""
    a = NISQA_ARGS
    rng = np.random.default_rng(SEEDS["nisqa"])
    state: dict[str, np.ndarray] = {}
    kh, kw = a["cnn_kernel_size"]
    channels = [1, a["cnn_c_out_1"], a["cnn_c_out_2"], a["cnn_c_out_3"], a["cnn_c_out_3"], a["cnn_c_out_3"]]
    for index in range(1, 7):
        inp, out = channels[index - 1], (channels[index] if index < 6 else a["cnn_c_out_3"])
        width = kw if index < 6 else a["cnn_pool_3"][1]
        prefix = f"cnn.model.conv{index}"
        state[f"{prefix}.weight"] = _conv(rng, "", out, inp, kh, width)
        state[f"{prefix}.bias"] = (rng.standard_normal(out) * 0.1).astype(np.float32)
        state.update(_batch_norm(rng, f"cnn.model.bn{index}", out))
    d_model, hidden = a["td_sa_d_model"], a["td_sa_h"]
    sa = "time_dependency.model"
    state.update(_layer_norm(rng, f"{sa}.norm1", d_model))
    state.update(_linear(rng, f"{sa}.linear", d_model, a["cnn_c_out_3"] * a["cnn_pool_3"][0]))
    for layer in range(a["td_sa_num_layers"]):
        prefix = f"{sa}.layers.{layer}"
        state[f"{prefix}.self_attn.in_proj_weight"] = (
            rng.standard_normal((3 * d_model, d_model)) * np.sqrt(1.0 / d_model)
        ).astype(np.float32)
        state[f"{prefix}.self_attn.in_proj_bias"] = (rng.standard_normal(3 * d_model) * 0.1).astype(
            np.float32
        )
        state.update(_linear(rng, f"{prefix}.self_attn.out_proj", d_model, d_model))
        state.update(_linear(rng, f"{prefix}.linear1", hidden, d_model))
        state.update(_linear(rng, f"{prefix}.linear2", d_model, hidden))
        state.update(_layer_norm(rng, f"{prefix}.norm1", d_model))
        state.update(_layer_norm(rng, f"{prefix}.norm2", d_model))
    for pool in range(5):
        prefix = f"pool_layers.{pool}.model"
        state.update(_linear(rng, f"{prefix}.linear1", a["pool_att_h"], d_model))
        state.update(_linear(rng, f"{prefix}.linear2", 1, a["pool_att_h"]))
        state.update(_linear(rng, f"{prefix}.linear3", 1, d_model))
        state[f"{prefix}.linear3.bias"] = np.array([3.0], dtype=np.float32)  # scores around a MOS of 3
    return state


def arniqa_images(seed: int, shape: tuple, dtype: str = "float32", normalized: bool = False) -> torch.Tensor:
    """Images in [0, 1] ``shape`` (smooth patterns plus noise), or ImageNet-normalized ones."""
    rng = np.random.default_rng(seed)
    n, c, h, w = shape
    y, x = np.meshgrid(np.linspace(0, 1, h), np.linspace(0, 1, w), indexing="ij")
    phase = rng.uniform(0, 2 * np.pi, (n, c, 1, 1))
    freq = rng.uniform(1, 6, (n, c, 1, 1))
    img = 0.5 + 0.3 * np.sin(2 * np.pi * freq * (x + 0.7 * y) + phase) + 0.15 * rng.standard_normal(shape)
    img = np.clip(img, 0, 1)
    if normalized:
        mean = np.array([0.485, 0.456, 0.406]).reshape(1, 3, 1, 1)
        std = np.array([0.229, 0.224, 0.225]).reshape(1, 3, 1, 1)
        img = (img - mean) / std
    return torch.from_numpy(img.astype(dtype))


def nisqa_signals(seed: int, fs: int, seconds: float, batch: tuple, dtype: str = "float64") -> torch.Tensor:
    """Speech-like signals ``(*batch, time)``: a gliding voiced tone with harmonics, syllable-modulated,
    plus noise."""
    rng = np.random.default_rng(seed)
    count = int(np.prod(batch))
    t = np.arange(int(fs * seconds)) / fs
    pitch = rng.uniform(90, 220, (count, 1)) * (
        1 + 0.1 * np.sin(2 * np.pi * rng.uniform(0.5, 2, (count, 1)) * t)
    )
    phase = 2 * np.pi * np.cumsum(pitch, axis=1) / fs
    voice = sum(np.sin(k * phase) / k for k in range(1, 12))
    syllables = np.sin(np.pi * rng.uniform(2, 5, (count, 1)) * t) ** 2
    noise = rng.uniform(0.005, 0.1, (count, 1)) * rng.standard_normal((count, t.size))
    x = 0.3 * voice * syllables + noise
    return torch.from_numpy(x.reshape(*batch, t.size).astype(dtype))


def write_arniqa_files(folder: Path) -> dict[str, Path]:
    """ARNIQA.pth and both regressor archives, written to ``folder`` under the release's names."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {"encoder": folder / "ARNIQA.pth"}
    torch.save({k: torch.from_numpy(v) for k, v in arniqa_encoder_state().items()}, files["encoder"])
    for dataset in ("koniq10k", "kadid10k"):
        module = Ridge(
            **{k: nn.Parameter(torch.from_numpy(v)) for k, v in arniqa_regressor_state(dataset).items()}
        )
        files[dataset] = folder / f"regressor_{dataset}.pth"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # torch.jit is deprecated in recent torch
            torch.jit.save(torch.jit.script(module), str(files[dataset]))
    return files


def write_nisqa_file(folder: Path) -> Path:
    """nisqa.tar as NISQA's training script saves it (the model state and its arguments, and more)."""
    folder.mkdir(parents=True, exist_ok=True)
    file = folder / "nisqa.tar"
    state = {k: torch.from_numpy(np.array(v)) for k, v in nisqa_state().items()}
    torch.save({"epoch": 42, "model_state_dict": state, "args": dict(NISQA_ARGS)}, file)
    return file
