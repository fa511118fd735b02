"""Modular detection metrics (torchmetrics names and arguments), computed natively in torch.

:class:`MeanAveragePrecision` gives pycocotools' ``COCOeval`` numbers at pycocotools' default
thresholds (its float64 ``np.linspace`` values; torchmetrics passes float32 ones, which moves
``map`` by 1e-5 to 1e-3 on ordinary data). With ``max_detection_thresholds`` that do not include
100, ``map`` is the mAP at the largest cap, as ``map_50``, ``map_75`` and the per-area mAPs are;
pycocotools, and so torchmetrics, read ``map`` at 100 detections only and give -1
(faster-coco-eval reads the largest cap, as here). The other differences are listed in the class
docstring.

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
