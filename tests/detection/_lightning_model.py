"""A tiny "detector" for the Lightning tests (importable by the DDP subprocess): its validation step
returns lists of per-image dicts, as detection models do."""

from __future__ import annotations

from typing import Any

import lightning.pytorch as L
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

import lightning_metrics as lm
from lightning_metrics.detection import MeanAveragePrecision
from tests._lightning import quiet_trainer

CLASSES = ("person", "car", "dog")
VAL_SIZE = 13  # odd: DistributedSampler pads one image on 2 ranks, the engine drops it


class Images(Dataset):
    """Images with 1-4 objects; the "prediction" of an image is a deterministic jitter of its objects
    plus a false positive, with scores from a seeded generator (so any process predicts alike)."""

    def __init__(self, n: int, seed: int) -> None:
        gen = torch.Generator().manual_seed(seed)
        self.items = []
        for _ in range(n):
            m = int(torch.randint(1, 5, (1,), generator=gen))
            xy = torch.rand(m, 2, generator=gen) * 60
            boxes = torch.cat([xy, xy + 8 + torch.rand(m, 2, generator=gen) * 40], 1)
            labels = torch.randint(0, len(CLASSES), (m,), generator=gen)
            jitter = torch.randn(m + 1, 4, generator=gen) * 3
            det = torch.cat([boxes, boxes[:1] + 30]) + jitter
            det = torch.cat([torch.minimum(det[:, :2], det[:, 2:]), torch.maximum(det[:, :2], det[:, 2:])], 1)
            det_labels = torch.cat([labels, torch.randint(0, len(CLASSES), (1,), generator=gen)])
            pred = {"boxes": det, "scores": torch.rand(m + 1, generator=gen), "labels": det_labels}
            self.items.append((torch.randn(1, 4, 4, generator=gen), pred, {"boxes": boxes, "labels": labels}))

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: int) -> Any:
        return self.items[index]


def collate(items: list) -> tuple[torch.Tensor, list[dict], list[dict]]:
    images, preds, targets = zip(*items)
    return torch.stack(images), list(preds), list(targets)


def loader(n: int, seed: int, batch_size: int = 4) -> DataLoader:
    return DataLoader(Images(n, seed), batch_size=batch_size, collate_fn=collate)


class DetectionModel(lm.MetricsMixin, L.LightningModule):
    """Logs ``val/map``, ``val/map_50``, ... and ``val/map_per_class/<class>`` through the mixin; its
    validation step returns lists of per-image dicts."""

    metrics_stages = ("val",)
    metrics_class_names = CLASSES  # the per-class keys: val/map_per_class/0_person, ...

    def __init__(self, extended_summary: bool = False) -> None:
        super().__init__()
        self.extended_summary = extended_summary
        self.weight = nn.Parameter(torch.zeros(1))

    def configure_metrics(self) -> Any:
        # a list: the result's keys are logged as they are (val/map, val/map_50, val/map_per_class/<class>)
        return [MeanAveragePrecision(class_metrics=True, extended_summary=self.extended_summary)]

    def validation_step(self, batch: Any, batch_idx: int) -> dict[str, Any]:
        images, preds, target = batch
        loss = (self.weight * images.mean()).sum()
        return {"loss": loss, "preds": preds, "target": target}

    def training_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
        images, _, _ = batch
        return (self.weight * images.mean()).sum()

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=0.0)


trainer = quiet_trainer  # every domain's _lightning_model names its Trainer factory `trainer`


def expected(padded: bool = False) -> dict[str, float]:
    """The metric over the whole validation set in one process (``padded``: image 0 seen twice)."""
    data = Images(VAL_SIZE, 1)
    items = data.items + (data.items[:1] if padded else [])
    metric = MeanAveragePrecision(class_metrics=True)
    metric.update([p for _, p, _ in items], [t for _, _, t in items])
    result = metric.compute()
    # -1 ("no ground truth in that range or class") is never logged; per-class keys are the class ids
    out = {f"val/{k}": float(v) for k, v in result.items() if v.numel() == 1 and k != "classes" and float(v) != -1}
    out.update({f"val/map_per_class/{int(c)}_{CLASSES[int(c)]}": float(v)
                for c, v in zip(result["classes"], result["map_per_class"]) if float(v) != -1})
    return out
