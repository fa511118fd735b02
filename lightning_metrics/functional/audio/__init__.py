"""Stateless audio metrics (torchmetrics names and arguments), without downloaded models.

>>> import torch
>>> from lightning_metrics.functional.audio import scale_invariant_signal_distortion_ratio
>>> target = torch.tensor([3.0, -0.5, 2.0, 7.0])
>>> scale_invariant_signal_distortion_ratio(torch.tensor([2.5, 0.0, 2.0, 8.0]), target)
tensor(18.4030)

PESQ, STOI, SRMR, DNSMOS and NISQA need external tools or network weights and are not offered:
importing one says so.
"""

from lightning_metrics import _compat
from lightning_metrics.functional.audio.pit import permutation_invariant_training, pit_permutate
from lightning_metrics.functional.audio.distortion import signal_distortion_ratio
from lightning_metrics.functional.audio.ratios import (
    complex_scale_invariant_signal_noise_ratio,
    scale_invariant_signal_distortion_ratio,
    scale_invariant_signal_noise_ratio,
    signal_noise_ratio,
    source_aggregated_signal_distortion_ratio,
)

__all__ = [
    "complex_scale_invariant_signal_noise_ratio",
    "permutation_invariant_training",
    "pit_permutate",
    "scale_invariant_signal_distortion_ratio",
    "scale_invariant_signal_noise_ratio",
    "signal_distortion_ratio",
    "signal_noise_ratio",
    "source_aggregated_signal_distortion_ratio",
]

__getattr__ = _compat.module_getattr(__name__)
