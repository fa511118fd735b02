"""Helpers for metric authors: state reductions, argument checks, torchmetrics' utilities.

>>> import torch
>>> from lightning_metrics.utilities import dim_zero_cat
>>> dim_zero_cat([torch.tensor([1, 2]), torch.tensor(3)])
tensor([1, 2, 3])
"""

from lightning_metrics.utilities.checks import (
    check_choice,
    check_forward_full_state_property,
    check_type,
    is_overridden,
)
from lightning_metrics.utilities.data import (
    allclose,
    dim_zero_cat,
    dim_zero_max,
    dim_zero_mean,
    dim_zero_min,
    dim_zero_sum,
    select_topk,
    to_categorical,
    to_onehot,
)
from lightning_metrics.utilities.distributed import class_reduce, gather_all_tensors, reduce
from lightning_metrics.utilities.prints import rank_zero_debug, rank_zero_info, rank_zero_only, rank_zero_warn

__all__ = [
    "allclose",
    "check_choice",
    "check_forward_full_state_property",
    "check_type",
    "class_reduce",
    "dim_zero_cat",
    "dim_zero_max",
    "dim_zero_mean",
    "dim_zero_min",
    "dim_zero_sum",
    "gather_all_tensors",
    "is_overridden",
    "rank_zero_debug",
    "rank_zero_info",
    "rank_zero_only",
    "rank_zero_warn",
    "reduce",
    "select_topk",
    "to_categorical",
    "to_onehot",
]
