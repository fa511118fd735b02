"""Modular detection metrics (torchmetrics names and arguments), computed natively in torch.

>>> import torch
>>> from lightning_metrics.detection import MeanAveragePrecision
>>> metric = MeanAveragePrecision()
>>> metric.update([{"boxes": torch.tensor([[0.0, 0.0, 10.0, 10.0]]), "scores": torch.tensor([0.9]),
...                 "labels": torch.tensor([1])}],
...               [{"boxes": torch.tensor([[0.0, 0.0, 10.0, 10.0]]), "labels": torch.tensor([1])}])
>>> metric.compute()["map"]
tensor(1.)
"""

from lightning_metrics.detection.iou import (
    CompleteIntersectionOverUnion,
    DistanceIntersectionOverUnion,
    GeneralizedIntersectionOverUnion,
    IntersectionOverUnion,
)
from lightning_metrics.detection.mean_ap import MeanAveragePrecision
from lightning_metrics.detection.panoptic_qualities import ModifiedPanopticQuality, PanopticQuality

__all__ = [
    "CompleteIntersectionOverUnion",
    "DistanceIntersectionOverUnion",
    "GeneralizedIntersectionOverUnion",
    "IntersectionOverUnion",
    "MeanAveragePrecision",
    "ModifiedPanopticQuality",
    "PanopticQuality",
]
