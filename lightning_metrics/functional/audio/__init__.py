"""Stateless audio metrics (torchmetrics names and arguments), without downloaded models.

>>> import torch
>>> from lightning_metrics.functional.audio import scale_invariant_signal_distortion_ratio
>>> target = torch.tensor([3.0, -0.5, 2.0, 7.0])
>>> scale_invariant_signal_distortion_ratio(torch.tensor([2.5, 0.0, 2.0, 8.0]), target)
tensor(18.4030)

STOI and SRMR run natively; PESQ needs the optional ``pesq`` package (``pip install
lightning_metrics[audio]``), DNSMOS ``onnxruntime`` (``pip install lightning_metrics[dnsmos]``)
and its model files (:mod:`lightning_metrics.networks.weights`). NISQA runs its network
(:mod:`lightning_metrics.networks.nisqa`) on the published checkpoint, found the same way.
"""

from lightning_metrics import _compat
from lightning_metrics.functional.audio.distortion import signal_distortion_ratio
from lightning_metrics.functional.audio.dnsmos import deep_noise_suppression_mean_opinion_score
from lightning_metrics.functional.audio.nisqa import non_intrusive_speech_quality_assessment
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
    "non_intrusive_speech_quality_assessment",
    "deep_noise_suppression_mean_opinion_score",
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
