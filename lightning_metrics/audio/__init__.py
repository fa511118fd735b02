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

STOI and SRMR are computed natively; PESQ calls the ITU-T reference code through the optional
``pesq`` package (``pip install lightning_metrics[audio]``). DNSMOS runs Microsoft's ONNX models
in ``onnxruntime`` (``pip install lightning_metrics[dnsmos]``), their files fetched through
:mod:`lightning_metrics.networks.weights`. NISQA runs its network, written here
(:mod:`lightning_metrics.networks.nisqa`), on the published checkpoint, found the same way.

Notes and differences from torchmetrics (audio)
-----------------------------------------------

Every metric is a mean over utterances (or mixtures): a float64 sum and a count, whatever the
number of batches. ``SignalDistortionRatio`` solves its Toeplitz system in torch (exactly, or with
``use_cg_iter`` steps of preconditioned conjugate gradient in fast-bss-eval's operation order): no
``fast_bss_eval`` package is needed. ``PermutationInvariantTraining`` scores every permutation on
the device in one batched call.

``ShortTimeObjectiveIntelligibility`` runs in torch (float64, on the inputs' device, the whole
batch at once: polyphase resampling to 10 kHz, silent-frame removal, one-third-octave bands,
clipping) and needs no pystoi; its values equal pystoi's, which torchmetrics computes signal by
signal on the CPU. Differences: extended STOI of a band that is exactly constant over a segment
(digital silence in ``preds`` or ``target``) contributes 0, where pystoi adds random noise of
machine-epsilon size and gets a random value near 0; a signal too short for one segment scores
``1e-5`` with a warning (pystoi raises for signals shorter than one frame) and always in float64.
``PerceptualEvaluationSpeechQuality`` needs the ``pesq`` package (the ITU-T P.862 reference code,
compiled on install: ``pip install lightning_metrics[audio]``). Differences: the function returns
shape ``(...)`` for inputs ``(..., time)`` (torchmetrics flattens them to one dimension);
``fs=8000`` with ``mode="wb"`` raises in the constructor (torchmetrics: at the first update); with
``n_processes`` above 1 an utterance that the reference code rejects raises, as with one process
(torchmetrics drops its value silently). ``SpeechReverberationModulationEnergyRatio`` runs in torch
without ``gammatone`` or ``torchaudio`` (which torchmetrics needs): its infinite-impulse-response
filters (the gammatone filterbank, the modulation filters) are applied exactly in the frequency
domain, on an FFT grid long enough for their responses to decay, so the whole batch is filtered at
once (torchmetrics: a recursion over the samples; ``fast=True``: NumPy per signal); values equal
torchmetrics' to about 1e-10 relative. Integer inputs are scaled by their type's maximum
(torchmetrics fails on them). ``DeepNoiseSuppressionMeanOpinionScore`` computes the P.808 model's
mel features in torch (librosa's, to 1e-5, without librosa), resamples another rate than 16 kHz
with ``soxr`` as librosa does, and runs all segments of a batch through each model in one call;
its values equal torchmetrics' to 1e-5 on the same model files. Its state is a float64 sum of the
four scores and a count; an empty signal raises (torchmetrics loops forever).
``NonIntrusiveSpeechQualityAssessment`` computes librosa's mel spectrogram in torch (float64, on the
signals' device: librosa's values to 1e-12 on float64 signals, to its float32 rounding on float32
ones), at the signal's own rate as torchmetrics does, and equals torchmetrics' scores to 1e-5 on the
same checkpoint; its state is a float64 sum of the five scores and a count; the network is built at
the first ``update`` (also from torchmetrics' copy in ``~/.torchmetrics/NISQA``) and is no submodule.
"""

from lightning_metrics import _compat
from lightning_metrics.audio.dnsmos import DeepNoiseSuppressionMeanOpinionScore
from lightning_metrics.audio.nisqa import NonIntrusiveSpeechQualityAssessment
from lightning_metrics.audio.pesq import PerceptualEvaluationSpeechQuality
from lightning_metrics.audio.pit import PermutationInvariantTraining
from lightning_metrics.audio.ratios import (
    ComplexScaleInvariantSignalNoiseRatio,
    ScaleInvariantSignalDistortionRatio,
    ScaleInvariantSignalNoiseRatio,
    SignalDistortionRatio,
    SignalNoiseRatio,
    SourceAggregatedSignalDistortionRatio,
)
from lightning_metrics.audio.srmr import SpeechReverberationModulationEnergyRatio
from lightning_metrics.audio.stoi import ShortTimeObjectiveIntelligibility

__all__ = [
    "ComplexScaleInvariantSignalNoiseRatio",
    "NonIntrusiveSpeechQualityAssessment",
    "DeepNoiseSuppressionMeanOpinionScore",
    "PerceptualEvaluationSpeechQuality",
    "PermutationInvariantTraining",
    "ScaleInvariantSignalDistortionRatio",
    "ScaleInvariantSignalNoiseRatio",
    "ShortTimeObjectiveIntelligibility",
    "SignalDistortionRatio",
    "SignalNoiseRatio",
    "SourceAggregatedSignalDistortionRatio",
    "SpeechReverberationModulationEnergyRatio",
]

__getattr__ = _compat.module_getattr(__name__)
