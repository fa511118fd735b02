"""Speech-like test signals: a voiced source with a gliding pitch through three formants, a
syllabic envelope, a pause of digital silence, a little breath noise; and degraded copies."""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import Tensor

_FORMANTS = (500.0, 1500.0, 2500.0)


def _sin(x: Tensor) -> Tensor:
    # NumPy's: torch 2.13's first float64 sin (or exp) of a process, run on two threads, can be off by
    # 1e-8, and the recorded SRMR fixtures need the same signals in every process
    return torch.from_numpy(np.sin(x.numpy()))


def _exp(x: Tensor) -> Tensor:
    return torch.from_numpy(np.exp(x.numpy()))


def speech(gen: torch.Generator, batch: int, seconds: float, fs: int, pause: bool = True) -> Tensor:
    """``(batch, seconds * fs)`` float64 utterances, one voice each (pitch 100-250 Hz)."""
    n = int(seconds * fs)
    t = torch.arange(n, dtype=torch.float64) / fs

    def uniform(*shape: int) -> Tensor:
        return torch.rand(shape, generator=gen, dtype=torch.float64)

    pitch = (100 + 150 * uniform(batch, 1)) * (1 + 0.2 * _sin(2 * math.pi * 0.5 * t + 6.28 * uniform(batch, 1)))
    phase = 2 * math.pi * torch.cumsum(pitch, dim=-1) / fs
    harmonics = torch.arange(1, 17, dtype=torch.float64).reshape(-1, 1, 1)
    freqs = harmonics * pitch
    # the formant gains follow the slow pitch: computed every 10 ms and held
    slow = freqs[..., :: fs // 100]
    gains = sum(_exp(-(((slow - f) / 200) ** 2)) for f in _FORMANTS) + 0.05
    gains = (torch.where(slow < fs / 2, gains, 0.0) / harmonics.sqrt()).repeat_interleave(fs // 100, dim=-1)[..., :n]
    voice = (gains * _sin(harmonics * phase)).sum(0)
    syllables = _sin(math.pi * (3 + 3 * uniform(batch, 1)) * t).abs() ** 1.5
    signal = voice * syllables + 0.01 * torch.randn(batch, n, generator=gen, dtype=torch.float64)
    if pause:
        starts = (uniform(batch) * 0.5 * n).long().tolist()
        for row, start in enumerate(starts):
            signal[row, start : start + int(0.4 * fs)] = 0.0
    return signal


def degraded(gen: torch.Generator, clean: Tensor, snr_db: Tensor) -> Tensor:
    """``clean`` with white noise at the signal-to-noise ratios ``snr_db`` (one per signal), and the
    second half of the signals also attenuated and smeared (a 3-tap low-pass)."""
    if clean.shape[0] == 0:
        return clean.clone()
    noise = torch.randn(clean.shape, generator=gen, dtype=clean.dtype)
    scale = clean.std(dim=-1, keepdim=True) / noise.std(dim=-1, keepdim=True) * 10 ** (-snr_db.unsqueeze(-1) / 20)
    out = clean + scale * noise
    half = clean.shape[0] // 2
    smeared = torch.nn.functional.avg_pool1d(out[half:].unsqueeze(1), 3, 1, 1, count_include_pad=False).squeeze(1)
    return torch.cat([out[:half], 0.6 * smeared])


def reverberant(gen: torch.Generator, clean: Tensor, fs: int, t60: Tensor) -> Tensor:
    """``clean`` in rooms of reverberation times ``t60`` (seconds, one per signal; 0: dry): the
    direct sound plus an exponentially decaying noise tail (60 dB down at ``t60``)."""
    n = clean.shape[-1]
    tail = int(float(t60.max()) * fs) + 1
    time = torch.arange(tail, dtype=torch.float64) / fs
    decay = _exp(-6.9078 * time / t60.clamp(min=1e-3).unsqueeze(-1))
    response = 0.3 * torch.randn(clean.shape[0], tail, generator=gen, dtype=torch.float64) * decay
    response[:, 0] = 1.0
    size = n + tail
    out = torch.fft.irfft(torch.fft.rfft(clean, n=size) * torch.fft.rfft(response, n=size), n=size)[:, :n]
    return out / out.abs().amax(dim=-1, keepdim=True) * 0.9
