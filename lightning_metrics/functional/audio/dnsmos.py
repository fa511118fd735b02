"""Deep Noise Suppression MOS (DNSMOS, P.808 and P.835): Microsoft's ONNX models, run by
``onnxruntime``, on the features torchmetrics gives them.

The two models come through the one weight path (:mod:`lightning_metrics.networks.weights`: the
DNS-Challenge URLs torchmetrics downloads, torch.hub's cache, the ``LIGHTNING_METRICS_WEIGHTS``
folder, and torchmetrics' own copy in ``~/.torchmetrics/DNSMOS``). Everything around them is
written here, without librosa: the mel spectrogram of the P.808 model (librosa's ``melspectrogram``
and ``power_to_db``, in torch on the input's device), the 9.01 s segments hopped by 1 s (the
segments of a batch go through each model together, 32 per call), the published polynomial
mapping of the raw scores. Only a rate other than 16 kHz needs a second package: ``soxr``, the resampler librosa calls.

``onnxruntime`` and ``soxr`` are optional (``pip install lightning_metrics[dnsmos]``); this module
imports them on first use only.
"""

from __future__ import annotations

import importlib
import math
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor

from lightning_metrics.networks import weights
from lightning_metrics.utilities.checks import check_bool

SAMPLING_RATE = 16000
INPUT_LENGTH = 9.01  # seconds per segment (torchmetrics' and Microsoft's constant)
_SEGMENT = int(INPUT_LENGTH * SAMPLING_RATE)  # 144160 samples
_N_MELS, _N_FFT, _HOP = 120, 321, 160
_CHUNK = 32  # segments per model call (about 150 MB of float64 spectrogram)
_TORCHMETRICS_DIR = "~/.torchmetrics/DNSMOS"  # where torchmetrics keeps its downloads
_INSTALL = "pip install lightning_metrics[dnsmos]"
# Microsoft's polynomials from the raw (sig, bak, ovr) scores to DNSMOS, highest power first
_POLYNOMIALS = {
    False: ([-0.08397278, 1.22083953, 0.0052439], [-0.13166888, 1.60915514, -0.39604546],
            [-0.06766283, 1.11546468, 0.04602535]),
    True: ([-0.01019296, 0.02751166, 1.19576786, -0.24348726], [-0.04976499, 0.44276479, -0.1644611, 0.96883132],
           [-0.00533021, 0.005101, 1.18058466, -0.11236046]),
}


def _require(module: str, what: str, name: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise ModuleNotFoundError(
            f"{name} needs the `{module}` package ({what}): `{_INSTALL}` or `pip install {module}`", name=module
        ) from err


def require_onnxruntime(name: str = "deep_noise_suppression_mean_opinion_score") -> Any:
    """The ``onnxruntime`` module, or a ``ModuleNotFoundError`` that names the extra."""
    return _require("onnxruntime", "it runs DNSMOS' ONNX models", name)


def check_dnsmos_args(fs: object, personalized: object, device: object = None, num_threads: object = None,
                      cache_session: object = True, cache_name: str = "cache_session") -> None:
    """``fs`` a positive int, ``personalized`` and ``cache_session`` bools, ``device`` None, a
    string or a ``torch.device``, ``num_threads`` None or a positive int."""
    if isinstance(fs, bool) or not isinstance(fs, int) or fs <= 0:
        raise ValueError(f"Argument `fs` must be a positive integer (Hz), got {fs!r}")
    check_bool("personalized", personalized)
    check_bool(cache_name, cache_session)
    if device is not None:
        try:
            torch.device(device)  # type: ignore[arg-type]
        except (RuntimeError, TypeError) as err:
            raise ValueError(f"Argument `device` must be None or a device such as 'cpu' or 'cuda:0', got {device!r}") \
                from err
    if num_threads is not None and (isinstance(num_threads, bool) or not isinstance(num_threads, int)
                                    or num_threads < 1):
        raise ValueError(f"Argument `num_threads` must be None or a positive integer, got {num_threads!r}")


def model_paths(personalized: bool) -> tuple[Path, Path]:
    """The local files of the P.808 model and of the (personalized) P.835 model, found (or fetched)
    through :func:`~lightning_metrics.networks.weights.weight_path`; a copy that torchmetrics
    downloaded to ``~/.torchmetrics/DNSMOS`` is used (after its checksum) when neither the offline
    folder nor torch.hub's cache has the file."""
    names = ("dnsmos-p808", "dnsmos-personalized-sig-bak-ovr" if personalized else "dnsmos-sig-bak-ovr")
    return tuple(_model_path(name) for name in names)  # type: ignore[return-value]


def _model_path(name: str) -> Path:
    try:
        return weights.weight_path(name, download=False)
    except weights.WeightsUnavailableError:
        row = weights.WEIGHT_FILES[name]
        folder, file = row.url.rsplit("/", 2)[-2:]
        theirs = Path(os.path.expanduser(_TORCHMETRICS_DIR)) / folder / file
        if theirs.is_file() and (row.checksum is None or weights.sha256_of(theirs).startswith(row.checksum)):
            return theirs
        return weights.weight_path(name)


def _providers(ort: Any, device: torch.device) -> tuple[list[str], list[dict] | None]:
    available = ort.get_available_providers()
    if device.type == "cuda" and "CUDAExecutionProvider" in available:
        return ["CUDAExecutionProvider", "CPUExecutionProvider"], [{"device_id": device.index or 0}, {}]
    return ["CPUExecutionProvider"], None


def load_session(path: str | Path, device: torch.device, num_threads: int | None = None) -> Any:
    """An ``onnxruntime.InferenceSession`` of the model file ``path``: on the GPU for a CUDA
    ``device`` when onnxruntime has the CUDA provider, on the CPU otherwise; ``num_threads`` caps
    its intra- and inter-op threads."""
    ort = require_onnxruntime()
    options = ort.SessionOptions()
    if num_threads is not None:
        options.inter_op_num_threads = num_threads
        options.intra_op_num_threads = num_threads
    providers, provider_options = _providers(ort, device)
    return ort.InferenceSession(str(path), sess_options=options, providers=providers,
                                provider_options=provider_options)


@lru_cache(maxsize=16)
def _cached_session(path: str, size: int, mtime: int, device: torch.device, num_threads: int | None) -> Any:
    return load_session(path, device, num_threads)


def _session(path: Path, device: torch.device, num_threads: int | None, cache: bool) -> Any:
    if not cache:
        return load_session(path, device, num_threads)
    stat = os.stat(path)  # a file replaced under the same name gets a session of its own
    return _cached_session(str(path), stat.st_size, stat.st_mtime_ns, device, num_threads)


@lru_cache(maxsize=4)
def mel_filterbank(sr: int = SAMPLING_RATE, n_fft: int = _N_FFT, n_mels: int = _N_MELS) -> np.ndarray:
    """librosa's Slaney mel filterbank ``(n_mels, 1 + n_fft // 2)`` (``htk=False``,
    ``norm="slaney"``, 0 Hz to ``sr / 2``), float32 as librosa returns it.

    >>> bank = mel_filterbank()
    >>> bank.shape, bank.dtype
    ((120, 161), dtype('float32'))
    """
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    min_log_mel, logstep = min_log_hz / f_sp, math.log(6.4) / 27.0

    def to_mel(hz: np.ndarray) -> np.ndarray:
        return np.where(hz >= min_log_hz, min_log_mel + np.log(np.maximum(hz, min_log_hz) / min_log_hz) / logstep,
                        hz / f_sp)

    def to_hz(mel: np.ndarray) -> np.ndarray:
        return np.where(mel >= min_log_mel, min_log_hz * np.exp(logstep * (mel - min_log_mel)), f_sp * mel)

    edges = to_hz(np.linspace(to_mel(np.array(0.0)), to_mel(np.array(sr / 2.0)), n_mels + 2))
    freqs = np.fft.rfftfreq(n=n_fft, d=1.0 / sr)
    widths = np.diff(edges)
    ramps = edges[:, None] - freqs[None, :]
    rising = -ramps[:-2] / widths[:-1, None]
    falling = ramps[2:] / widths[1:, None]
    bank = np.maximum(0, np.minimum(rising, falling)).astype(np.float32)
    bank *= (2.0 / (edges[2:] - edges[:-2]))[:, None].astype(np.float32)
    return bank


def mel_features(audio: Tensor) -> Tensor:
    """The P.808 model's input of signals ``(batch, time)`` at 16 kHz: librosa's
    ``melspectrogram(n_fft=321, hop_length=160, n_mels=120)`` (centred, zero-padded, periodic
    Hann window, power 2) in decibels relative to each signal's maximum, floored 80 dB below it,
    then ``(dB + 40) / 40``; float64, shape ``(batch, frames, 120)``, on ``audio``'s device.

    >>> import torch
    >>> mel_features(torch.ones(2, 16000)).shape
    torch.Size([2, 100, 120])
    """
    audio = audio.to(torch.float64)
    window = torch.hann_window(_N_FFT, periodic=True, dtype=torch.float64, device=audio.device)
    spectrum = torch.stft(audio, _N_FFT, _HOP, window=window, center=True, pad_mode="constant", return_complex=True)
    power = spectrum.real.square() + spectrum.imag.square()
    bank = torch.from_numpy(mel_filterbank()).to(device=audio.device, dtype=torch.float64)
    mel = torch.einsum("mf,bft->btm", bank, power)
    decibels = 10.0 * torch.log10(mel.clamp(min=1e-10))
    peak = decibels.amax(dim=(1, 2), keepdim=True)
    decibels = torch.maximum(decibels - peak, torch.full_like(peak, -80.0))
    return (decibels + 40.0) / 40.0


def resample_to_16k(audio: np.ndarray, fs: int) -> np.ndarray:
    """Signals ``(batch, time)`` at ``fs`` resampled to 16 kHz as ``librosa.resample`` does by default
    (``soxr``'s high quality, then cut or zero-padded to ``ceil(time * 16000 / fs)`` samples)."""
    if fs == SAMPLING_RATE:
        return audio
    soxr = _require("soxr", "the resampler librosa uses, for a rate other than 16 kHz", "DNSMOS")
    length = int(np.ceil(audio.shape[-1] * (float(SAMPLING_RATE) / fs)))
    out = np.zeros((audio.shape[0], length), dtype=audio.dtype)
    for row, signal in enumerate(audio):
        resampled = soxr.resample(signal, fs, SAMPLING_RATE, quality="soxr_hq")[:length]
        out[row, : resampled.shape[-1]] = resampled
    return out


def _segments(audio: Tensor) -> tuple[Tensor, list[int]]:
    """The windows of 9.01 s hopped by 1 s (a view ``(batch, windows, 144160)``) of signals looped
    (doubled) until one fits, and the windows torchmetrics scores: its bounds, where a segment that
    float rounding cuts short is skipped."""
    while audio.shape[-1] < _SEGMENT:
        audio = torch.cat([audio, audio], dim=-1)
    hops = int(np.floor(audio.shape[-1] / SAMPLING_RATE) - INPUT_LENGTH) + 1
    kept = [idx for idx in range(hops) if min(int((idx + INPUT_LENGTH) * SAMPLING_RATE), audio.shape[-1])
            - int(idx * SAMPLING_RATE) >= _SEGMENT]
    return audio.unfold(-1, _SEGMENT, SAMPLING_RATE), kept


def dnsmos_values(preds: Tensor, fs: int, personalized: bool, device: str | torch.device | None = None,
                  num_threads: int | None = None, cache_session: bool = True) -> Tensor:
    """DNSMOS ``[p808_mos, mos_sig, mos_bak, mos_ovr]`` of signals ``(batch, time)``: float64 ``(batch, 4)``
    on the CPU, each the mean over the signal's segments."""
    require_onnxruntime()
    run_device = torch.device(device) if device is not None else preds.device
    if preds.shape[-1] == 0:
        raise ValueError(f"Argument `preds` must hold signals of at least one sample, got shape {tuple(preds.shape)}")
    p808_path, p835_path = model_paths(personalized)
    p808 = _session(p808_path, run_device, num_threads, cache_session)
    p835 = _session(p835_path, run_device, num_threads, cache_session)
    audio = preds.detach()
    if fs != SAMPLING_RATE:
        host = audio.cpu()
        host = host if host.dtype in (torch.float32, torch.float64) else host.float()
        audio = torch.from_numpy(resample_to_16k(host.numpy(), fs)).to(preds.device)
    windows, kept = _segments(audio)
    pairs = [(row, idx) for row in range(windows.shape[0]) for idx in kept]
    scores = []
    for first in range(0, len(pairs), _CHUNK):  # a bounded number of segments in memory at once
        rows, hops = zip(*pairs[first : first + _CHUNK])
        chunk = windows[list(rows), list(hops)]
        features = mel_features(chunk[:, :-_HOP]).to(torch.float32).cpu().numpy()
        p808_out = p808.run(None, {"input_1": features})[0].astype(np.float64)
        p835_out = p835.run(None, {"input_1": chunk.to(torch.float32).cpu().numpy()})[0].astype(np.float64)
        for column, coefficients in enumerate(_POLYNOMIALS[personalized]):
            p835_out[:, column] = np.polyval(coefficients, p835_out[:, column])
        scores.append(torch.from_numpy(np.concatenate([p808_out, p835_out], axis=-1)))
    scores = torch.cat(scores).reshape(windows.shape[0], len(kept), 4)
    return scores.mean(dim=1)


def deep_noise_suppression_mean_opinion_score(
    preds: Tensor,
    fs: int,
    personalized: bool,
    device: str | None = None,
    num_threads: int | None = None,
    cache_session: bool = True,
) -> Tensor:
    """DNSMOS of signals ``preds`` ``(..., time)`` sampled at ``fs`` Hz (no reference): float64
    ``(..., 4)`` on the CPU, ``[p808_mos, mos_sig, mos_bak, mos_ovr]``, each the mean over 9.01 s
    segments hopped by 1 s (a shorter signal is looped). ``personalized`` scores with the
    pDNSMOS model, which penalizes an interfering speaker. The models run in ``onnxruntime`` on
    ``device`` (default: the input's; a CUDA device needs onnxruntime's CUDA provider, else the
    CPU), with ``num_threads`` threads; ``cache_session`` keeps the loaded models for the next call.

    Needs ``onnxruntime`` (and ``soxr`` when ``fs`` is not 16000): ``pip install
    lightning_metrics[dnsmos]``; the model files come from the DNS-Challenge repository (see
    :mod:`lightning_metrics.networks.weights`). Not differentiable.

    >>> import torch
    >>> from tests.audio._dnsmos_models import random_models  # small random models in the real layout
    >>> from lightning_metrics.functional.audio import deep_noise_suppression_mean_opinion_score
    >>> t = torch.arange(8000) / 8000
    >>> preds = torch.sin(2 * torch.pi * 220 * t) * torch.sin(2 * torch.pi * 2 * t) ** 2
    >>> with random_models(seed=0):  # the files in the offline folder LIGHTNING_METRICS_WEIGHTS
    ...     scores = deep_noise_suppression_mean_opinion_score(preds, 8000, False)
    >>> scores.shape, scores.dtype
    (torch.Size([4]), torch.float64)
    """
    require_onnxruntime()
    check_dnsmos_args(fs, personalized, device, num_threads, cache_session)
    if not isinstance(preds, Tensor) or preds.ndim == 0:
        raise ValueError(f"Argument `preds` must be a tensor of signals (..., time), got {preds!r}")
    values = dnsmos_values(preds.reshape(-1, preds.shape[-1]), fs, personalized, device, num_threads, cache_session)
    return values.reshape(*preds.shape[:-1], 4)
