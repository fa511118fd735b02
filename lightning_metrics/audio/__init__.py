"""Modular audio metrics (torchmetrics names and arguments), without downloaded models.

Each is a mean over utterances (or mixtures): its state is a float64 sum and a count, whatever the
number of batches. A batch with a NaN or infinite sample raises, naming the argument and the value,
and leaves the state as it was; the keyword argument ``validate_args=False`` (ours: torchmetrics'
classes have none) skips that check and its host read.

>>> import torch
>>> from lightning_metrics.audio import ScaleInvariantSignalDistortionRatio
>>> si_sdr = ScaleInvariantSignalDistortionRatio()
>>> si_sdr.update(torch.tensor([2.5, 0.0, 2.0, 8.0]), torch.tensor([3.0, -0.5, 2.0, 7.0]))
>>> si_sdr.compute()
tensor(18.4030)

PESQ, STOI, SRMR, DNSMOS and NISQA need external tools or network weights and are not offered:
importing one says so; the torchmetrics object can be passed to ``MetricsCallback`` as it is.

Notes and differences from torchmetrics (audio)
-----------------------------------------------

Every metric is a mean over utterances (or mixtures): a float64 sum and a count, whatever the
number of batches. ``SignalDistortionRatio`` solves its Toeplitz system in torch (exactly, or with
``use_cg_iter`` steps of preconditioned conjugate gradient in fast-bss-eval's operation order): no
``fast_bss_eval`` package is needed. ``PermutationInvariantTraining`` scores every permutation on
the device in one batched call. PESQ, STOI, SRMR, DNSMOS and NISQA need external tools or
downloaded weights and are never offered.
"""

from lightning_metrics import _compat
from lightning_metrics.audio.pit import PermutationInvariantTraining
from lightning_metrics.audio.ratios import (
    ComplexScaleInvariantSignalNoiseRatio,
    ScaleInvariantSignalDistortionRatio,
    ScaleInvariantSignalNoiseRatio,
    SignalDistortionRatio,
    SignalNoiseRatio,
    SourceAggregatedSignalDistortionRatio,
)

__all__ = [
    "ComplexScaleInvariantSignalNoiseRatio",
    "PermutationInvariantTraining",
    "ScaleInvariantSignalDistortionRatio",
    "ScaleInvariantSignalNoiseRatio",
    "SignalDistortionRatio",
    "SignalNoiseRatio",
    "SourceAggregatedSignalDistortionRatio",
]

__getattr__ = _compat.module_getattr(__name__)
