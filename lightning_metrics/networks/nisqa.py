"""NISQA v2.0 (Mittag et al. 2021): the speech-quality network, with the key layout of its checkpoint.

The mel spectrogram of an utterance (computed in :mod:`lightning_metrics.functional.audio.nisqa`)
is cut into windows of ``ms_seg_length`` frames; each window goes through a CNN (``cnn``: six
convolutions with batch norm, three adaptive max-pools) to one feature vector; a small transformer
encoder (``time_dependency``: a projection, a layer norm and ``td_sa_num_layers`` self-attention
layers) relates the windows over time; five attention-pooling heads (``pool_layers``) give the
overall MOS, noisiness, discontinuity, coloration and loudness.

Every size comes from the ``args`` dict that the checkpoint ``nisqa.tar`` holds beside its
``model_state_dict``. The file is found through :mod:`.weights` (``LIGHTNING_METRICS_WEIGHTS``,
torch.hub's cache, a download from NISQA's repository) or, where torchmetrics put it already,
``~/.torchmetrics/NISQA/nisqa.tar``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from torch import Tensor, nn
from torch.nn.functional import adaptive_max_pool2d, relu, softmax

from lightning_metrics.networks import FrozenModule
from lightning_metrics.networks.weights import (
    WeightsChecksumError,
    WeightsUnavailableError,
    load_weights,
    weight_path,
)

TORCHMETRICS_FILE = Path("~/.torchmetrics/NISQA/nisqa.tar")  # where torchmetrics downloads the checkpoint
OUTPUTS = ("mos", "noisiness", "discontinuity", "coloration", "loudness")  # the heads, in the model's order

# the architecture arguments of NISQA v2.0 (used without a checkpoint, for tests and examples)
DEFAULT_ARGS: dict[str, Any] = {
    "ms_fmax": 20000, "ms_n_fft": 4096, "ms_hop_length": 0.01, "ms_win_length": 0.02, "ms_n_mels": 48,
    "ms_seg_length": 15, "ms_seg_hop_length": 4, "ms_max_segments": 1300,
    "cnn_c_out_1": 16, "cnn_c_out_2": 32, "cnn_c_out_3": 64, "cnn_kernel_size": [3, 3], "cnn_dropout": 0.2,
    "cnn_pool_1": [24, 7], "cnn_pool_2": [12, 5], "cnn_pool_3": [6, 3],
    "td_sa_d_model": 64, "td_sa_nhead": 1, "td_sa_num_layers": 2, "td_sa_h": 64, "td_sa_dropout": 0.1,
    "pool_att_h": 128, "pool_att_dropout": 0.1,
}  # fmt: skip


class _Holder(nn.Module):
    """A level of the checkpoint's key names (``cnn.model.conv1``, ``pool_layers.0.model.linear1``)."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model


class FramewiseCNN(nn.Module):
    """NISQA's "adapt" CNN: windows ``(M, 1, n_mels, seg_length)`` -> ``(M, c_out_3 * pool_3[0])``."""

    def __init__(self, args: dict[str, Any]) -> None:
        super().__init__()
        kernel = tuple(args["cnn_kernel_size"])
        padding = (1, 0) if kernel[0] == 1 else (1, 1)
        widths = [1, args["cnn_c_out_1"], args["cnn_c_out_2"], *[args["cnn_c_out_3"]] * 4]
        for index in range(1, 7):
            size, pad = (kernel, padding) if index < 6 else ((kernel[0], args["cnn_pool_3"][1]), (1, 0))
            setattr(self, f"conv{index}", nn.Conv2d(widths[index - 1], widths[index], size, padding=pad))
            setattr(self, f"bn{index}", nn.BatchNorm2d(widths[index]))
        self.pools = {
            1: tuple(args["cnn_pool_1"]),
            2: tuple(args["cnn_pool_2"]),
            4: tuple(args["cnn_pool_3"]),
        }
        self.features = args["cnn_c_out_3"] * args["cnn_pool_3"][0]

    def forward(self, x: Tensor) -> Tensor:
        for index in range(1, 7):  # dropout (between the blocks) is off in evaluation
            x = relu(getattr(self, f"bn{index}")(getattr(self, f"conv{index}")(x)))
            if index in self.pools:
                x = adaptive_max_pool2d(x, self.pools[index])
        return x.reshape(x.shape[0], self.features)


class SelfAttentionLayer(nn.Module):
    """A post-norm transformer encoder layer (ReLU feed-forward), on ``(windows, batch, d_model)``."""

    def __init__(self, args: dict[str, Any]) -> None:
        super().__init__()
        d_model = args["td_sa_d_model"]
        self.self_attn = nn.MultiheadAttention(d_model, args["td_sa_nhead"], args["td_sa_dropout"])
        self.linear1 = nn.Linear(d_model, args["td_sa_h"])
        self.linear2 = nn.Linear(args["td_sa_h"], d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)

    def forward(self, x: Tensor) -> Tensor:
        x = self.norm1(x + self.self_attn(x, x, x, need_weights=False)[0])
        return self.norm2(x + self.linear2(relu(self.linear1(x))))


class TimeDependency(nn.Module):
    """Projection, layer norm and the self-attention layers: ``(B, W, F)`` -> ``(B, W, d_model)``."""

    def __init__(self, args: dict[str, Any]) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(args["td_sa_d_model"])
        self.linear = nn.Linear(args["cnn_c_out_3"] * args["cnn_pool_3"][0], args["td_sa_d_model"])
        self.layers = nn.ModuleList(SelfAttentionLayer(args) for _ in range(args["td_sa_num_layers"]))

    def forward(self, x: Tensor) -> Tensor:
        x = self.norm1(self.linear(x).transpose(0, 1))
        for layer in self.layers:
            x = layer(x)
        return x.transpose(0, 1)


class AttentionPooling(nn.Module):
    """One output: attention weights over the windows, their weighted mean, a linear score ``(B, 1)``."""

    def __init__(self, args: dict[str, Any]) -> None:
        super().__init__()
        self.linear1 = nn.Linear(args["td_sa_d_model"], args["pool_att_h"])
        self.linear2 = nn.Linear(args["pool_att_h"], 1)
        self.linear3 = nn.Linear(args["td_sa_d_model"], 1)

    def forward(self, x: Tensor) -> Tensor:
        weights = softmax(self.linear2(relu(self.linear1(x))).transpose(2, 1), dim=2)
        return self.linear3(torch.bmm(weights, x).squeeze(1))


class NISQANetwork(FrozenModule):
    """NISQA's model: mel windows ``(B, W, n_mels, seg_length)`` -> ``(B, 5)`` (see :data:`OUTPUTS`).

    ``weights`` is a checkpoint file to use instead of the published one; ``pretrained=False`` builds
    NISQA v2.0's architecture with random weights (for tests and examples). ``args`` holds the
    checkpoint's arguments (the mel spectrogram's too).

    >>> import torch
    >>> net = NISQANetwork(pretrained=False).frozen()
    >>> net(torch.randn(2, 3, 48, 15)).shape
    torch.Size([2, 5])
    """

    def __init__(self, weights: str | Path | None = None, pretrained: bool = True) -> None:
        super().__init__()
        checkpoint = load_nisqa_checkpoint(weights) if pretrained else {"args": DEFAULT_ARGS}
        self.args = dict(checkpoint["args"])
        missing = sorted(set(DEFAULT_ARGS) - set(self.args))
        if missing:
            raise WeightsChecksumError(f"the NISQA checkpoint's `args` lack {missing}")
        self.cnn = _Holder(FramewiseCNN(self.args))
        self.time_dependency = _Holder(TimeDependency(self.args))
        self.pool_layers = nn.ModuleList(_Holder(AttentionPooling(self.args)) for _ in OUTPUTS)
        if pretrained:
            self.load_state_dict(checkpoint["model_state_dict"], strict=True)

    def forward(self, windows: Tensor) -> Tensor:
        batch, count = windows.shape[:2]
        features = self.cnn.model(windows.reshape(batch * count, 1, *windows.shape[2:]))
        x = self.time_dependency.model(features.reshape(batch, count, -1))
        return torch.cat([pool.model(x) for pool in self.pool_layers], dim=1)


def checkpoint_file() -> Path:
    """The file of ``nisqa.tar``: the offline folder, torch.hub's cache, torchmetrics' copy
    (``~/.torchmetrics/NISQA``), or a download into torch.hub's cache, in this order."""
    try:
        return weight_path("nisqa", download=False)
    except WeightsUnavailableError:
        if TORCHMETRICS_FILE.expanduser().is_file():
            return TORCHMETRICS_FILE.expanduser()
    return weight_path("nisqa")


def load_nisqa_checkpoint(path: str | Path | None = None) -> dict[str, Any]:
    """``nisqa.tar``'s ``args`` and ``model_state_dict`` (from ``path``, or :func:`checkpoint_file`)."""
    return _checked(load_weights("nisqa", path if path is not None else checkpoint_file()))


def _checked(checkpoint: dict[str, Any]) -> dict[str, Any]:
    if not {"args", "model_state_dict"} <= set(checkpoint):
        raise WeightsChecksumError(
            f"a NISQA checkpoint holds `args` and `model_state_dict`, this one {sorted(checkpoint)}"
        )
    return checkpoint
