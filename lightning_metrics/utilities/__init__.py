"""Helpers for metric authors: state reductions and argument checks.

>>> import torch
>>> from lightning_metrics.utilities import dim_zero_cat
>>> dim_zero_cat([torch.tensor([1, 2]), torch.tensor(3)])
tensor([1, 2, 3])
"""

from lightning_metrics.utilities.checks import check_choice, check_type
from lightning_metrics.utilities.data import (
    dim_zero_cat,
    dim_zero_max,
    dim_zero_mean,
    dim_zero_min,
    dim_zero_sum,
)

__all__ = [
    "check_choice",
    "check_type",
    "dim_zero_cat",
    "dim_zero_max",
    "dim_zero_mean",
    "dim_zero_min",
    "dim_zero_sum",
]
