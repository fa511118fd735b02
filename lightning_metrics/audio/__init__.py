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

Notes and differences from torchmetrics (image and audio)
---------------------------------------------------------

Every metric whose value is a mean or a sum over images or utterances keeps
a few float64 sums and a count, whatever the number of batches; per-image values are kept only
when asked for (``reduction="none"``, ``return_full_image``, ``return_contrast_sensitivity``).
torchmetrics keeps every image or value for ERGAS, RASE, RMSE-SW, SAM, SCC, VIF, D-lambda, D-s,
QNR and PSNR with ``dim`` (its memory grows with the epoch; ours does not, with the same values).
Gaussian and uniform windows (2-D and 3-D) are separable convolutions built once on the metric's
device and dtype. ``data_range=None`` reads the range of the data seen from min/max states that
merge exactly across batches and ranks. SSIM pads the borders before filtering, as torchmetrics
does, so it differs from scikit-image's ``structural_similarity`` by a few 1e-4 on the mean (the
tests match torchmetrics and check scikit-image within that). ``SignalDistortionRatio`` solves its
Toeplitz system in torch (exactly, or with ``use_cg_iter`` steps of preconditioned conjugate
gradient in fast-bss-eval's operation order): no ``fast_bss_eval`` package is needed.
``PermutationInvariantTraining`` scores every permutation on the device in one batched call. Integer
images are read as float32. FID, KID, IS, LPIPS, DISTS, MiFID, ARNIQA, PESQ, STOI, SRMR, DNSMOS
and NISQA need downloaded weights or external tools and are never offered: importing one says so,
and the torchmetrics object can be given to ``MetricsCallback`` as it is.
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
