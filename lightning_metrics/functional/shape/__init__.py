"""Stateless shape metrics (torchmetrics names and arguments).

>>> import torch
>>> from lightning_metrics.functional.shape import procrustes_disparity
>>> square = torch.tensor([[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]])
>>> procrustes_disparity(square, torch.tensor([[[0.0, 0.0], [2.0, 0.0], [1.0, 1.0], [0.0, 1.0]]]))
tensor([0.1333])
"""

from lightning_metrics import _compat
from lightning_metrics.functional.shape.procrustes import procrustes_disparity

__all__ = ["procrustes_disparity"]

__getattr__ = _compat.module_getattr(__name__)
