"""Modular shape metrics (torchmetrics names and arguments).

>>> import torch
>>> from lightning_metrics.shape import ProcrustesDisparity
>>> square = torch.tensor([[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]])
>>> ProcrustesDisparity()(square, torch.tensor([[[0.0, 0.0], [2.0, 0.0], [1.0, 1.0], [0.0, 1.0]]]))
tensor(0.1333)

Notes and differences from torchmetrics (shape)
-----------------------------------------------

``ProcrustesDisparity`` keeps a float64 sum and a count of the per-pair disparities. A cloud whose
points are all equal cannot be standardised: ours raises a ``ValueError`` naming the argument and
the batch index (as ``scipy.spatial.procrustes`` does), where torchmetrics' failed SVD returns the
tuple ``(0, ones, eye)`` for the whole batch with a warning. The class checks that coordinates are
finite (``validate_args=False``, a keyword argument of ours, skips that); the function gives a NaN
disparity for a pair with a NaN or infinite coordinate (torchmetrics: the same tuple).
"""

from lightning_metrics import _compat
from lightning_metrics.shape.procrustes import ProcrustesDisparity

__all__ = ["ProcrustesDisparity"]

__getattr__ = _compat.module_getattr(__name__)
