"""A tiny segmentation model for the Lightning tests (importable by the DDP subprocess)."""

from __future__ import annotations

from typing import Any

import lightning.pytorch as L
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import lightning_metrics as lm
from lightning_metrics.segmentation import DiceScore, MeanIoU
from tests._lightning import StepModel, quiet_trainer

CLASSES = ("background", "road", "car")
SIDE = 12
VAL_SIZE = 13  # odd: DistributedSampler pads one sample on 2 ranks, the engine drops it


def dataset(n: int, seed: int) -> TensorDataset:
    gen = torch.Generator().manual_seed(seed)
    images = torch.randn(n, 1, SIDE, SIDE, generator=gen)
    masks = (images[:, 0] > 0.3).long() + (images[:, 0] > 1.1).long()
    masks[0] = 0  # an all-background image
    return TensorDataset(images, masks)


def loader(n: int, seed: int, batch_size: int = 4) -> DataLoader:
    return DataLoader(dataset(n, seed), batch_size=batch_size)


class SegmentationModel(lm.MetricsMixin, StepModel):
    """Logs ``val/miou`` and ``val/dice`` through the mixin; steps return logits and masks."""

    metrics_stages = ("val",)

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.conv = nn.Conv2d(1, len(CLASSES), 3, padding=1)

    def configure_metrics(self) -> Any:
        return {
            "miou": MeanIoU(num_classes=len(CLASSES), input_format="mixed"),
            "dice": DiceScore(num_classes=len(CLASSES), input_format="mixed"),
        }

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)

    def loss(self, preds: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return nn.functional.cross_entropy(preds, target)


def per_class_callback() -> lm.MetricsCallback:
    """Per-class IoU as ``val/miou/<index>_<class>`` (e.g. ``val/miou/0_background``) through the callback."""
    metric = MeanIoU(num_classes=len(CLASSES), per_class=True, input_format="mixed")
    return lm.MetricsCallback({"miou": metric}, stages=("val",), class_names=list(CLASSES))


def trainer(**overrides: Any) -> L.Trainer:
    return quiet_trainer(callbacks=[per_class_callback()], **overrides)
