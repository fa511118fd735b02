"""Stateless detection metrics (torchmetrics names and arguments), computed natively in torch.

>>> import torch
>>> from lightning_metrics.functional.detection import mean_average_precision
>>> box = torch.tensor([[0.0, 0.0, 10.0, 10.0]])
>>> result = mean_average_precision([{"boxes": box, "scores": torch.tensor([0.9]), "labels": torch.tensor([1])}],
...                                 [{"boxes": box, "labels": torch.tensor([1])}])
>>> result["map"]
tensor(1.)
"""

from lightning_metrics.functional.detection.iou import (
    complete_intersection_over_union,
    distance_intersection_over_union,
    generalized_intersection_over_union,
    intersection_over_union,
)
from lightning_metrics.functional.detection.mean_ap import mean_average_precision
from lightning_metrics.functional.detection.panoptic_qualities import (
    modified_panoptic_quality,
    panoptic_quality,
)

__all__ = [
    "complete_intersection_over_union",
    "distance_intersection_over_union",
    "generalized_intersection_over_union",
    "intersection_over_union",
    "mean_average_precision",
    "modified_panoptic_quality",
    "panoptic_quality",
]
