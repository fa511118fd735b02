"""Stateless audio metrics (torchmetrics names and arguments), without downloaded models.

>>> import torch
>>> from lightning_metrics.functional.audio import scale_invariant_signal_distortion_ratio
>>> target = torch.tensor([3.0, -0.5, 2.0, 7.0])
>>> scale_invariant_signal_distortion_ratio(torch.tensor([2.5, 0.0, 2.0, 8.0]), target)
tensor(18.4030)

STOI and SRMR run natively; PESQ needs the optional ``pesq`` package (``pip install
lightning_metrics[audio]``). DNSMOS and NISQA need network weights and are not offered: importing
one says so.
"""

from lightning_metrics import _compat
from lightning_metrics.functional.audio.distortion import signal_distortion_ratio
from lightning_metrics.functional.audio.pesq import perceptual_evaluation_speech_quality
from lightning_metrics.functional.audio.pit import permutation_invariant_training, pit_permutate
from lightning_metrics.functional.audio.ratios import (
    complex_scale_invariant_signal_noise_ratio,
    scale_invariant_signal_distortion_ratio,
    scale_invariant_signal_noise_ratio,
    signal_noise_ratio,
    source_aggregated_signal_distortion_ratio,
)
from lightning_metrics.functional.audio.srmr import speech_reverberation_modulation_energy_ratio
from lightning_metrics.functional.audio.stoi import short_time_objective_intelligibility

__all__ = [
    "complex_scale_invariant_signal_noise_ratio",
    "perceptual_evaluation_speech_quality",
    "permutation_invariant_training",
    "pit_permutate",
    "scale_invariant_signal_distortion_ratio",
    "scale_invariant_signal_noise_ratio",
    "short_time_objective_intelligibility",
    "signal_distortion_ratio",
    "signal_noise_ratio",
    "source_aggregated_signal_distortion_ratio",
    "speech_reverberation_modulation_energy_ratio",
]

__getattr__ = _compat.module_getattr(__name__)
