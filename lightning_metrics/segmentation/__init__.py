"""Modular segmentation metrics (torchmetrics names and arguments).

>>> import torch
>>> from lightning_metrics.segmentation import MeanIoU
>>> miou = MeanIoU(num_classes=2, input_format="index")
>>> miou.update(torch.tensor([[0, 1, 1]]), torch.tensor([[0, 1, 0]]))
>>> miou.compute()
tensor(0.5000)
"""

from lightning_metrics.segmentation.hausdorff import HausdorffDistance
from lightning_metrics.segmentation.overlap import DiceScore, GeneralizedDiceScore, MeanIoU

__all__ = ["DiceScore", "GeneralizedDiceScore", "HausdorffDistance", "MeanIoU"]
