"""A tiny image-to-image model for the Lightning tests (importable by the DDP subprocess)."""

from __future__ import annotations

from typing import Any

import lightning.pytorch as L
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import lightning_metrics as lm
from lightning_metrics.image import PeakSignalNoiseRatio, StructuralSimilarityIndexMeasure
from tests._lightning import StepModel, quiet_trainer

SIDE = 16
VAL_SIZE = 13  # odd: the DistributedSampler pads one image on 2 ranks, the engine drops it


def dataset(n: int, seed: int) -> TensorDataset:
    """Noisy images and their clean versions in [0, 1]."""
    gen = torch.Generator().manual_seed(seed)
    clean = torch.rand(n, 1, SIDE // 4, SIDE // 4, generator=gen)
    clean = nn.functional.interpolate(clean, size=(SIDE, SIDE), mode="bilinear", align_corners=False)
    noisy = (clean + 0.2 * torch.randn(clean.shape, generator=gen)).clamp(0, 1)
    return TensorDataset(noisy, clean)


def loader(n: int, seed: int, batch_size: int = 4) -> DataLoader:
    return DataLoader(dataset(n, seed), batch_size=batch_size)


class DenoisingModel(StepModel):
    """A 3x3 smoothing convolution; steps return ``preds`` and ``target`` for the callback."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(1, 1, 3, padding=1, bias=False)
        with torch.no_grad():
            self.conv.weight.fill_(1 / 9)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x).clamp(0, 1)

    def loss(self, preds: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return nn.functional.mse_loss(preds, target)


def callback() -> lm.MetricsCallback:
    metrics = {"psnr": PeakSignalNoiseRatio(data_range=1.0), "ssim": StructuralSimilarityIndexMeasure(data_range=1.0)}
    return lm.MetricsCallback(metrics, stages=("val",))


def trainer(**overrides: Any) -> L.Trainer:
    return quiet_trainer(callbacks=[callback()], **overrides)
