"""NISQA v2.0, non-intrusive speech quality (torchmetrics' ``non_intrusive_speech_quality_assessment``),
its features computed in torch (no librosa) and its network in :mod:`lightning_metrics.networks.nisqa`.

The features are librosa's, as torchmetrics asks librosa for them, at the signal's own rate ``fs``
(torchmetrics resamples nothing; hop and window lengths are ``int(fs * 0.01)`` and ``int(fs * 0.02)``):

1. the magnitude STFT: ``ms_n_fft``-point FFTs of frames centred on each hop (the signal padded by
   reflection), a periodic Hann window of the window length centred in the FFT frame;
2. a mel filterbank of ``ms_n_mels`` Slaney-normalized triangles on Slaney's mel scale (linear to
   1 kHz, logarithmic above), from 0 Hz to ``ms_fmax`` (above ``fs / 2`` the triangles are empty, as
   librosa's): the filters are rounded to float32, as librosa's default filterbank is;
3. decibels, ``20 log10(max(1e-4, S))``, limited to 80 dB below each utterance's maximum.

The spectrogram is computed in float64 (librosa: in the input's precision), then cut into windows
of ``ms_seg_length`` frames every ``ms_seg_hop_length`` frames, which the network scores in float32.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

_cache: dict[tuple, nn.Module] = {}
_SPECTRUM_ELEMENTS = 1 << 23  # complex float64 values per spectrogram chunk (128 MiB)


def check_fs(fs: Any) -> None:
    """``fs`` is a positive int (torchmetrics' message)."""
    if isinstance(fs, bool) or not isinstance(fs, int) or fs <= 0:
        raise ValueError(f"Argument `fs` expected to be a positive integer, but got {fs!r}")


def _hz_to_mel(hz: np.ndarray) -> np.ndarray:
    """Slaney's mel scale: 3 mels per 200 Hz up to 1 kHz, then logarithmic (27 mels per factor 6.4)."""
    linear = hz / (200.0 / 3)
    log = 15.0 + np.log(np.maximum(hz, 1e-10) / 1000.0) / (np.log(6.4) / 27.0)
    return np.where(hz >= 1000.0, log, linear)


def _mel_to_hz(mel: np.ndarray) -> np.ndarray:
    linear = mel * (200.0 / 3)
    log = 1000.0 * np.exp(np.log(6.4) / 27.0 * (mel - 15.0))
    return np.where(mel >= 15.0, log, linear)


@lru_cache(maxsize=16)
def mel_filterbank(fs: int, n_fft: int, n_mels: int, fmax: float) -> np.ndarray:
    """``(n_mels, n_fft // 2 + 1)`` Slaney-normalized triangles from 0 Hz to ``fmax``, rounded to
    float32 as librosa's default filterbank (returned as float64)."""
    freqs = np.arange(n_fft // 2 + 1) * (fs / n_fft)
    low, high = _hz_to_mel(np.array(0.0)), _hz_to_mel(np.array(float(fmax)))
    step = (high - low) / (n_mels + 1)
    mels = low + np.arange(n_mels + 2) * step
    mels[-1] = high
    edges = _mel_to_hz(mels)
    widths = np.diff(edges)
    ramps = edges[:, None] - freqs[None, :]
    rising = -ramps[:-2] / widths[:-1, None]
    falling = ramps[2:] / widths[1:, None]
    triangles = np.maximum(0, np.minimum(rising, falling)).astype(np.float32)
    area = 2.0 / (edges[2:] - edges[:-2])
    return (triangles.astype(np.float64) * area[:, None]).astype(np.float32).astype(np.float64)


def mel_spectrogram_db(x: Tensor, fs: int, args: dict[str, Any]) -> Tensor:
    """The features of signals ``x`` ``(B, time)``: ``(B, n_mels, frames)`` in dB (float64)."""
    n_fft = args["ms_n_fft"]
    hop, win = int(fs * args["ms_hop_length"]), int(fs * args["ms_win_length"])
    window = torch.hann_window(win, periodic=True, dtype=torch.float64, device=x.device)
    spec = torch.stft(
        x.to(torch.float64),
        n_fft,
        hop_length=hop,
        win_length=win,
        window=window,
        center=True,
        pad_mode="reflect",
        return_complex=True,
    ).abs()
    bank = torch.from_numpy(mel_filterbank(fs, n_fft, args["ms_n_mels"], float(args["ms_fmax"]))).to(x.device)
    mel = torch.matmul(bank, spec)
    db = 20.0 * torch.log10(mel.clamp(min=1e-4))
    peak = db.amax(dim=(1, 2), keepdim=True)
    return torch.maximum(db, peak - 80.0)


def segment_windows(mel: Tensor, args: dict[str, Any]) -> Tensor:
    """Windows of ``ms_seg_length`` frames every ``ms_seg_hop_length``: ``(B, W, n_mels, seg_length)``."""
    length, hop = args["ms_seg_length"], args["ms_seg_hop_length"]
    return mel.unfold(2, length, 1)[:, :, ::hop].permute(0, 2, 1, 3)


def window_count(samples: int, fs: int, args: dict[str, Any]) -> int:
    """The number of windows the network sees for ``samples`` samples (may be 0: too short)."""
    frames = 1 + samples // int(fs * args["ms_hop_length"])
    return max(0, math.ceil((frames - (args["ms_seg_length"] - 1)) / args["ms_seg_hop_length"]))


def check_signal_length(preds: Tensor, fs: int, args: dict[str, Any]) -> None:
    """Enough samples for one window, and not more windows than NISQA's ``ms_max_segments``."""
    samples = preds.shape[-1]
    count = window_count(samples, fs, args)
    seconds = args["ms_seg_length"] * args["ms_hop_length"]
    if count < 1:
        raise RuntimeError(
            f"Input signal is too short: `preds` has {samples} samples at fs={fs}, NISQA needs at least "
            f"{seconds:.2f} s (one window of {args['ms_seg_length']} frames)"
        )
    if count > args["ms_max_segments"]:
        raise RuntimeError(
            f"Maximum number of mel spectrogram windows exceeded: `preds` has {samples} samples at fs={fs}, "
            f"{count} windows, NISQA takes at most {args['ms_max_segments']}. Use shorter audio."
        )
    if samples <= args["ms_n_fft"] // 2:
        raise RuntimeError(
            f"Input signal is too short: `preds` has {samples} samples, the reflection padding of the "
            f"{args['ms_n_fft']}-point STFT needs more than {args['ms_n_fft'] // 2}"
        )


def nisqa_network() -> nn.Module:
    """The frozen NISQA network with the published weights (built once per checkpoint file, then kept)."""
    from lightning_metrics.networks import network
    from lightning_metrics.networks.nisqa import checkpoint_file

    file = checkpoint_file()
    key = (str(file), file.stat().st_mtime_ns)
    if key not in _cache:
        _cache.clear()
        _cache[key] = network("nisqa", weights=file)
    return _cache[key]


def nisqa_scores(preds: Tensor, fs: int, model: nn.Module) -> Tensor:
    """The five scores of each signal: ``(..., 5)`` for ``preds`` ``(..., time)``, float32."""
    args = model.args
    check_signal_length(preds, fs, args)
    x = preds.reshape(-1, preds.shape[-1])
    if x.shape[0] == 0:
        return torch.zeros(*preds.shape[:-1], 5, device=preds.device)
    # the complex spectrogram is (rows, n_fft / 2 + 1, frames) in float64: a few rows at a time
    frames = 1 + x.shape[1] // int(fs * args["ms_hop_length"])
    rows = max(1, _SPECTRUM_ELEMENTS // ((args["ms_n_fft"] // 2 + 1) * frames))
    mel = torch.cat([mel_spectrogram_db(chunk, fs, args) for chunk in x.split(rows)])
    windows = segment_windows(mel, args).to(torch.float32)
    parameter = next(model.parameters())
    if parameter.device != x.device or parameter.dtype != torch.float32:
        model.to(device=x.device, dtype=torch.float32)
    with torch.no_grad():
        scores = model(windows)
    return scores.reshape(*preds.shape[:-1], 5)


def check_preds(preds: Any) -> None:
    """``preds`` is a float tensor ``(..., time)``, each error naming the argument and the value."""
    if not isinstance(preds, Tensor):
        raise TypeError(f"Argument `preds` must be a tensor, got {type(preds).__name__}")
    if preds.ndim < 1 or not preds.is_floating_point():
        raise ValueError(
            f"Argument `preds` must be a float tensor of shape (..., time), got {preds.dtype} of shape "
            f"{tuple(preds.shape)}"
        )


def non_intrusive_speech_quality_assessment(preds: Tensor, fs: int, *, model: Any = None) -> Tensor:
    """NISQA v2.0 scores of signals ``preds`` ``(..., time)`` sampled at ``fs`` Hz: ``(..., 5)``, the
    overall MOS, noisiness, discontinuity, coloration and loudness (each from 1 to 5, higher is better).

    As torchmetrics' function (without librosa: the features are computed in torch, on the signals'
    device). Ours: ``model``, a NISQA network to use instead of the published one (whose checkpoint is
    otherwise found through :mod:`lightning_metrics.networks.weights`: the ``LIGHTNING_METRICS_WEIGHTS``
    folder, torch.hub's cache, torchmetrics' ``~/.torchmetrics/NISQA``, or a download).

    >>> import torch
    >>> from lightning_metrics.networks import network
    >>> net = network("nisqa", pretrained=False)  # random weights: no download in this example
    >>> non_intrusive_speech_quality_assessment(torch.randn(2, 8000), 16000, model=net).shape
    torch.Size([2, 5])
    """
    check_preds(preds)
    check_fs(fs)
    return nisqa_scores(preds, fs, nisqa_network() if model is None else model)
