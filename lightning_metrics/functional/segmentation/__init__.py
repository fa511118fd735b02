"""Stateless segmentation metrics (torchmetrics names and arguments).

>>> import torch
>>> from lightning_metrics.functional.segmentation import mean_iou
>>> mean_iou(torch.tensor([[0, 1, 1]]), torch.tensor([[0, 1, 0]]), num_classes=2, input_format="index")
tensor([0.5000])
"""

from lightning_metrics.functional.segmentation.hausdorff import hausdorff_distance
from lightning_metrics.functional.segmentation.overlap import dice_score, generalized_dice_score, mean_iou

__all__ = ["dice_score", "generalized_dice_score", "hausdorff_distance", "mean_iou"]
