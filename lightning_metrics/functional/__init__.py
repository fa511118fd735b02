"""Stateless metric functions, with every torchmetrics ``functional`` name we implement.

Domains are subpackages (``lightning_metrics.functional.classification``, ``.regression``, ...);
their functions are also served here, loaded on first use, as in ``torchmetrics.functional``:

>>> import torch
>>> from lightning_metrics.functional import accuracy, mean_squared_error
>>> accuracy(torch.tensor([0, 1, 1]), torch.tensor([0, 1, 0]), task="binary")
tensor(0.6667)
>>> mean_squared_error(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 4.0]))
tensor(2.)
"""

from lightning_metrics import _compat

__getattr__ = _compat.module_getattr(__name__)
