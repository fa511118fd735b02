"""Speech-to-reverberation modulation energy ratio (SRMR, Falk et al. 2010), non-intrusive, with
torchmetrics' algorithm and values (its port of SRMRpy), computed in torch for a whole batch.

1. the signal (scaled into [-1, 1] when it exceeds that range) goes through a gammatone filterbank
   of ``n_cochlear_filters`` channels, ERB-spaced from ``low_freq`` to ``fs / 2`` (Slaney's four
   cascaded biquads per channel, as the ``gammatone`` package designs them), and each channel's
   Hilbert envelope is taken; ``fast=True`` takes instead the FFT approximation of the filterbank
   (a 10 ms window, 2.5 ms hop: envelopes at 400 Hz);
2. eight second-order modulation band-pass filters (Q = 2, centre frequencies log-spaced from
   ``min_cf`` to ``max_cf``) filter every envelope, and the energies of 256 ms Hamming frames
   (hop 64 ms) are averaged (``norm=True`` first limits them to a 30 dB range below the peak);
3. the ratio of the energy in the four lowest modulation bands to that in the bands up to the one
   that holds the 90 % bandwidth of the acoustic channels.

The filters are infinite impulse responses: instead of a recursion over the samples, each one is
applied exactly in the frequency domain, its transfer function evaluated on an FFT grid long
enough for its impulse response to decay below float64 resolution before it wraps around.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Optional

import torch
from torch import Tensor
from torch.nn.functional import conv1d, pad

from lightning_metrics.utilities.checks import check_bool

_EAR_Q, _MIN_BW = 9.26449, 24.7  # Glasberg and Moore's ERB parameters
_MOD_BANDS, _MOD_Q = 8, 2
_DECAY = math.log(1e-18)  # impulse responses are followed until they fall below this (relative)
_ROWS = 1 << 23  # signal-channel samples per frequency-domain chunk (64 MiB of float64)


def check_srmr_args(
    fs: object, n_cochlear_filters: object, low_freq: object, min_cf: object, max_cf: object, norm: object,
    fast: object,
) -> None:
    """The arguments' types and ranges, each error naming the argument and the value."""
    for name, value in (("fs", fs), ("n_cochlear_filters", n_cochlear_filters)):
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"Argument `{name}` must be a positive integer, got {value!r}")
    for name, value in (("low_freq", low_freq), ("min_cf", min_cf), ("max_cf", max_cf)):
        if name == "max_cf" and value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise ValueError(f"Argument `{name}` must be a positive number, got {value!r}")
    check_bool("norm", norm)
    check_bool("fast", fast)


def _erb_space(low: float, high: float, count: int) -> Tensor:
    """``count`` frequencies from just below ``high`` down to ``low``, uniform on the ERB scale."""
    shift = _EAR_Q * _MIN_BW
    fractions = torch.arange(1, count + 1, dtype=torch.float64) / count
    return -shift + torch.exp(fractions * (math.log(low + shift) - math.log(high + shift))) * (high + shift)


def _erb_filters(fs: int, centres: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Slaney's gammatone channels at ``centres``: the numerators' middle coefficients ``(C, 4)``
    (the outer ones are ``1 / fs`` and 0), the shared denominator's ``(C, 2)`` after its leading 1,
    the gains ``(C,)`` and the bandwidths ``B`` (rad/s) ``(C,)``."""
    period = 1.0 / fs
    bandwidth = 1.019 * 2 * math.pi * (centres / _EAR_Q + _MIN_BW)
    arg = 2 * math.pi * centres * period
    decay = torch.exp(-bandwidth * period)
    cos, sin = torch.cos(arg), torch.sin(arg)
    root_plus, root_minus = math.sqrt(3 + 2**1.5), math.sqrt(3 - 2**1.5)
    ks = torch.stack(
        [cos + root_plus * sin, cos - root_plus * sin, cos + root_minus * sin, cos - root_minus * sin], -1
    )
    middles = -period * decay.unsqueeze(-1) * ks
    denominator = torch.stack([-2 * cos / torch.exp(bandwidth * period), torch.exp(-2 * bandwidth * period)],
                              -1)
    vec = torch.exp(2j * arg)
    gain_arg = torch.exp(1j * arg - bandwidth * period)
    grow = torch.exp(bandwidth * period)
    tail = (period * grow / (-1 / grow + 1 + vec * (1 - grow))) ** 4
    gain = ((vec.unsqueeze(-1) - gain_arg.unsqueeze(-1) * ks).prod(-1) * tail).abs()
    return middles, denominator, gain, bandwidth


@lru_cache(maxsize=32)
def _cochlear_bank(fs: int, channels: int, low_freq: float) -> tuple[Tensor, Tensor, Tensor, float]:
    """The gammatone channels of the slow path, highest first: numerators' middles, denominators,
    gains, and the slowest pole radius."""
    middles, denominator, gain, bandwidth = _erb_filters(fs, _erb_space(low_freq, fs / 2, channels))
    return middles, denominator, gain, float(torch.exp(-bandwidth / fs).max())


@lru_cache(maxsize=32)
def _modulation_bank(min_cf: float, max_cf: float, rate: float) -> tuple[Tensor, Tensor, Tensor, float]:
    """The eight modulation band-passes at ``rate``: ``b0`` ``(8,)`` (numerator ``[b0, 0, -b0]``),
    denominators ``(8, 3)``, the lower 3 dB cut-offs ``(8,)`` and the slowest pole radius."""
    spacing = (max_cf / min_cf) ** (1.0 / (_MOD_BANDS - 1))
    centres = [float(min_cf)]
    for _ in range(1, _MOD_BANDS):
        centres.append(centres[-1] * spacing)
    cfs = torch.tensor(centres, dtype=torch.float64)
    w0 = torch.tan(2 * math.pi * cfs / rate / 2)
    b0 = w0 / _MOD_Q
    denominator = torch.stack([1 + b0 + w0**2, 2 * w0**2 - 2, 1 - b0 + w0**2], -1)
    lower = cfs - b0 * rate / (2 * math.pi)
    radius = float(torch.sqrt(denominator[:, 2] / denominator[:, 0]).max())
    return b0, denominator, lower, radius


def _fft_size(length: int, radius: float, order: int) -> int:
    """An FFT length (2^a 3^b 5^c) past ``length`` by the decay of a pole of ``radius`` repeated
    ``order`` times (its impulse response grows like n^(order-1) radius^n before it decays)."""
    tail = _DECAY / math.log(radius) if radius < 1 else 0.0
    if order > 1 and radius < 1:
        tail += (order - 1) * math.log(max(tail, 1.0)) / -math.log(radius)
    need = length + math.ceil(tail) + 16
    best = 1 << (need - 1).bit_length()
    for five in (1, 5, 25):
        for three in (1, 3, 9, 27):
            size = five * three
            while size < need:
                size *= 2
            best = min(best, size)
    return best


def _unit_circle(size: int, device: torch.device) -> Tensor:
    """``z^-1`` on the ``size // 2 + 1`` frequencies of a real FFT of ``size`` points."""
    return torch.exp(-2j * math.pi * torch.arange(size // 2 + 1, dtype=torch.float64, device=device) / size)


def _filter(x: Tensor, response: Tensor, size: int) -> Tensor:
    """``x`` ``(rows, time)`` through the transfer ``response`` ``(rows or 1, size // 2 + 1)``."""
    return torch.fft.irfft(torch.fft.rfft(x, n=size) * response, n=size)[:, : x.shape[-1]]


def _hilbert_envelope(x: Tensor) -> Tensor:
    """The magnitude of the analytic signal, the FFT taken over the length rounded up to 16."""
    n = -(-x.shape[-1] // 16) * 16
    spectrum = torch.fft.fft(x, n=n)
    weight = torch.zeros(n, dtype=x.dtype, device=x.device)
    weight[0] = 1.0
    weight[1 : (n + 1) // 2] = 2.0
    if n % 2 == 0:
        weight[n // 2] = 1.0
    return torch.fft.ifft(spectrum * weight)[..., : x.shape[-1]].abs()


def _cochlear_envelopes(x: Tensor, fs: int, channels: int, low_freq: float) -> Tensor:
    """Hilbert envelopes of the gammatone channels ``(batch, channels, time)``."""
    middles, denominator, gain, radius = (t.to(x.device) if isinstance(t, Tensor) else t
                                          for t in _cochlear_bank(fs, channels, low_freq))
    size = _fft_size(x.shape[-1], radius, 4)
    z = _unit_circle(size, x.device)
    den = 1 + denominator[:, :1] * z + denominator[:, 1:] * z**2  # (C, F)
    stages = (1.0 / fs + middles.unsqueeze(-1) * z) / den.unsqueeze(1)  # (C, 4, F)
    response = stages.prod(1) / gain.unsqueeze(-1)
    rows_per_chunk = max(1, _ROWS // (size * channels))
    out = []
    for start in range(0, x.shape[0], rows_per_chunk):
        spectrum = torch.fft.rfft(x[start : start + rows_per_chunk], n=size).unsqueeze(1) * response
        out.append(_hilbert_envelope(torch.fft.irfft(spectrum, n=size)[..., : x.shape[-1]]))
    return torch.cat(out)


def _round_half_away(value: float) -> int:
    return int(math.copysign(math.floor(abs(value) + 0.5), value))


def _fast_envelopes(x: Tensor, fs: int, channels: int, low_freq: float) -> Tensor:
    """The FFT approximation of the gammatone filterbank (10 ms Hann-like windows, 2.5 ms hop),
    lowest channel first ``(batch, channels, columns)``."""
    nfft = int(2 ** math.ceil(math.log2(2 * 0.010 * fs)))
    width, hop = _round_half_away(0.010 * fs), _round_half_away(0.0025 * fs)
    half, middle = width // 2, nfft // 2
    reach = min(middle, half)
    ramp = 0.5 * (1 + torch.cos(math.pi * torch.arange(0, half + 1, dtype=torch.float64) / half))
    window = torch.zeros(nfft, dtype=torch.float64)
    window[middle : middle + reach] = ramp[:reach]
    window[middle - reach + 1 : middle + 1] = ramp[:reach].flip(0)
    time = x.shape[-1]
    columns = 1 + math.floor((time - nfft) / hop)
    filled = max(0, -(-(time - nfft) // hop))
    frames = x.unfold(-1, nfft, hop)[:, :filled] * window.to(x.device)
    magnitude = torch.fft.rfft(frames, dim=-1).abs()  # (batch, filled, nfft // 2 + 1)
    magnitude = pad(magnitude, (0, 0, 0, max(0, columns - filled)))
    weights = _fft_weights(fs, nfft, channels, float(low_freq)).to(x.device)
    return (weights @ magnitude.transpose(1, 2)) / nfft


@lru_cache(maxsize=32)
def _fft_weights(fs: int, nfft: int, channels: int, low_freq: float) -> Tensor:
    """The gammatone magnitude responses on the FFT bins ``(channels, nfft // 2 + 1)``, lowest first."""
    centres = _erb_space(low_freq, fs / 2, channels).flip(0)
    middles, denominator, gain, _ = _erb_filters(fs, centres)
    circle = torch.exp(1j * 2 * math.pi * torch.arange(0, nfft // 2 + 1, dtype=torch.float64) / nfft)
    pole = (torch.sqrt(denominator[:, 1]) * torch.exp(1j * 2 * math.pi * centres / fs)).unsqueeze(-1)
    zeros = (circle + middles.unsqueeze(-1) * fs).abs().prod(1)
    poles = (fs * (pole - circle) * (pole.conj() - circle)).abs() ** -4
    return zeros * poles / gain.unsqueeze(-1)


def _frame_energies(envelopes: Tensor, rate: float, time: int, min_cf: float, max_cf: float) -> Tensor:
    """Hamming-framed energies of the modulation-filtered envelopes ``(batch, C, 8, frames)``."""
    length, hop = math.ceil(0.256 * rate), math.ceil(0.064 * rate)
    b0, denominator, _, radius = _modulation_bank(min_cf, max_cf, rate)
    rows = envelopes.reshape(-1, envelopes.shape[-1])
    size = _fft_size(rows.shape[-1], radius, 1)
    z = _unit_circle(size, rows.device)
    b0, denominator = b0.to(rows.device), denominator.to(rows.device)
    poles = denominator[:, :1] + denominator[:, 1:2] * z + denominator[:, 2:] * z**2
    response = b0.unsqueeze(-1) * (1 - z**2) / poles
    frames = int(1 + (time - length) // hop)
    padding = (0, max(math.ceil(time / hop) * hop - time, length - time))
    window = torch.hamming_window(length + 1, dtype=torch.float64, device=rows.device)[:-1]
    per_chunk = max(1, _ROWS // size)
    out = []
    for start in range(0, rows.shape[0], per_chunk):
        spectrum = torch.fft.rfft(rows[start : start + per_chunk], n=size).unsqueeze(1) * response
        filtered = torch.fft.irfft(spectrum, n=size)[..., : rows.shape[-1]]  # (rows, 8, time)
        power = pad(filtered, padding).square().reshape(-1, 1, filtered.shape[-1] + sum(padding))
        # the windowed frames' energies: the squared signal against the squared window, frame by frame
        energy = conv1d(power, window.square().reshape(1, 1, -1), stride=hop)
        out.append(energy.reshape(*filtered.shape[:2], -1)[..., :frames])
    return torch.cat(out).reshape(*envelopes.shape[:2], _MOD_BANDS, -1)


def _normalise_energy(energy: Tensor, dynamic_range: float = 30.0) -> Tensor:
    """Energies limited to ``[peak * 10^(-range/10), peak]``, the peak taken over the frames and
    modulation bands of the channel-averaged energy."""
    peak = energy.mean(dim=1, keepdim=True).amax(dim=(2, 3), keepdim=True)
    return torch.minimum(torch.maximum(energy, peak * 10.0 ** (-dynamic_range / 10.0)), peak)


def _scores(energy: Tensor, fs: int, channels: int, low_freq: float, cutoffs: Tensor, check: bool) -> Tensor:
    """The ratio of the four lowest modulation bands' energy to that of bands 5 to k*, where k*
    follows the ERB bandwidth below which 90 % of the energy lies. A bandwidth below the fifth band
    raises (as in torchmetrics) when ``check``, else gives NaN without reading the values back."""
    erbs = (_erb_space(low_freq, fs / 2, channels) / _EAR_Q + _MIN_BW).flip(0).to(energy.device)
    average = energy.mean(dim=-1)  # (batch, C, 8)
    share = average.sum(-1) * 100 / average.sum(dim=(1, 2)).unsqueeze(-1)
    index = ((share.flip(-1).cumsum(-1) > 90).cumsum(-1) == 1).to(torch.int64).argmax(-1)
    bandwidth = erbs[index]
    cutoffs = cutoffs.to(energy.device)
    too_narrow = bandwidth < cutoffs[4]
    if check and bool(too_narrow.any()):
        raise ValueError(
            "SRMR: the 90 % bandwidth of a signal lies below the lower cut-off of the fifth modulation band "
            f"({float(cutoffs[4]):.3g} Hz): raise `low_freq` or lower `min_cf` / `max_cf`"
        )
    kstar = 5 + (bandwidth.unsqueeze(-1) >= cutoffs[5:]).sum(-1)  # 5 to 8
    upper = torch.arange(_MOD_BANDS, device=energy.device) < kstar.unsqueeze(-1)
    upper[:, :4] = False
    scores = average[..., :4].sum(dim=(1, 2)) / (average * upper.unsqueeze(1)).sum(dim=(1, 2))
    return torch.where(too_narrow, torch.nan, scores)


def srmr_values(
    preds: Tensor,
    fs: int,
    n_cochlear_filters: int = 23,
    low_freq: float = 125,
    min_cf: float = 4,
    max_cf: Optional[float] = None,
    norm: bool = False,
    fast: bool = False,
    check: bool = True,
) -> Tensor:
    """SRMR of signals ``(batch, time)``: float64 ``(batch,)`` on their device (``check``: see
    :func:`_scores`)."""
    if preds.shape[0] == 0:
        return torch.zeros(0, dtype=torch.float64, device=preds.device)
    if not preds.is_floating_point():
        preds = preds.to(torch.float64) / torch.iinfo(preds.dtype).max
    x = preds.to(torch.float64)
    peak = x.abs().amax(dim=-1, keepdim=True)
    x = x / torch.where(peak > 1, peak, 1.0)
    if fast:
        envelopes, rate = _fast_envelopes(x, fs, n_cochlear_filters, low_freq), 400.0
    else:
        envelopes, rate = _cochlear_envelopes(x, fs, n_cochlear_filters, low_freq), float(fs)
    top = float(max_cf) if max_cf is not None else (30.0 if norm else 128.0)
    energy = _frame_energies(envelopes, rate, x.shape[-1], float(min_cf), top)
    if norm:
        energy = _normalise_energy(energy)
    cutoffs = _modulation_bank(float(min_cf), top, rate)[2]
    return _scores(energy, fs, n_cochlear_filters, low_freq, cutoffs, check)


def speech_reverberation_modulation_energy_ratio(
    preds: Tensor,
    fs: int,
    n_cochlear_filters: int = 23,
    low_freq: float = 125,
    min_cf: float = 4,
    max_cf: Optional[float] = None,
    norm: bool = False,
    fast: bool = False,
) -> Tensor:
    """Speech-to-reverberation modulation energy ratio of signals ``preds`` ``(..., time)`` sampled
    at ``fs`` Hz (non-intrusive: no reference), one float64 value per signal, shape ``(...)`` (a
    single signal gives shape ``(1,)``, as in torchmetrics). Arguments as torchmetrics': the
    gammatone channels (``n_cochlear_filters`` from ``low_freq``), the modulation filters' centre
    frequencies (``min_cf`` to ``max_cf``, default 30 Hz with ``norm`` and 128 Hz without), the
    energy normalisation ``norm`` and the FFT-approximated filterbank ``fast``.

    Computed in torch on the input's device, no ``gammatone`` or ``torchaudio`` needed; the values
    are torchmetrics'.

    >>> import torch
    >>> from lightning_metrics.functional.audio import speech_reverberation_modulation_energy_ratio
    >>> t = torch.arange(16000) / 8000
    >>> harmonics = torch.arange(1, 21).unsqueeze(-1)  # a 150 Hz voice, three syllables in 2 s
    >>> voice = (torch.sin(2 * torch.pi * 150 * harmonics * t) / harmonics).sum(0)
    >>> speech_reverberation_modulation_energy_ratio(voice * torch.sin(3 * torch.pi * t) ** 2, 8000)
    tensor([7.2019], dtype=torch.float64)
    """
    if not isinstance(preds, Tensor):
        raise TypeError(f"Argument `preds` must be a tensor, got {type(preds).__name__}")
    check_srmr_args(fs, n_cochlear_filters, low_freq, min_cf, max_cf, norm, fast)
    shape = preds.shape
    values = srmr_values(preds.reshape(-1, shape[-1]), fs, n_cochlear_filters, low_freq, min_cf, max_cf, norm,
                         fast)
    return values.reshape(shape[:-1]) if len(shape) > 1 else values
