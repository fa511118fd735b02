"""Short-time objective intelligibility (STOI, Taal et al. 2010/2011) and extended STOI (Jensen and
Taal 2016), computed in torch for a whole batch at once, in float64 on the inputs' device.

The steps, with the reference implementation's constants (the values equal pystoi's):

1. both signals are resampled to 10 kHz by a polyphase FIR filter: a Kaiser-windowed sinc
   (60 dB rejection, the cut-off at the lower Nyquist rate, a transition of a tenth of it),
   normalised to unit sum, applied as one product of the strided input windows with one filter
   row per output phase;
2. frames of 256 samples (hop 128, Hann window) whose clean energy lies more than 40 dB below the
   loudest clean frame are dropped from both signals, and the kept frames are overlap-added again:
   every signal keeps its own number of frames, so the kept frames are moved to the front of a
   common length and the rest is masked;
3. short-time spectra (the same frames, 512-point FFT) are summed into 15 one-third-octave bands
   from 150 Hz, and the band envelopes are cut into segments of 30 frames (384 ms);
4. STOI: each degraded band segment is scaled to the clean one's energy and clipped at a
   signal-to-distortion ratio of -15 dB, then correlated with the clean segment; the result is the
   mean correlation over bands and segments. Extended STOI normalises every segment's rows and
   then its columns to zero mean and unit norm and averages the products instead.

A signal left with fewer than 30 frames after step 2 scores ``1e-5`` with a warning, as in pystoi.
"""

from __future__ import annotations

import math
import warnings
from functools import lru_cache

import torch
from torch import Tensor
from torch.nn.functional import pad

from lightning_metrics.functional.audio._projection import check_signals
from lightning_metrics.utilities.checks import check_bool

RATE = 10_000  # the rate STOI works at (Hz)
FRAME = 256  # samples per frame at RATE
HOP = FRAME // 2
NFFT = 512
BANDS = 15  # one-third-octave bands
LOWEST_BAND = 150.0  # centre of the lowest band (Hz)
SEGMENT = 30  # frames per segment (384 ms)
CLIP = 1.0 + 10.0 ** (15.0 / 20.0)  # the -15 dB lower bound of the signal-to-distortion ratio
DYNAMIC_RANGE = 40.0  # dB below the loudest clean frame that still counts as speech
EPS = torch.finfo(torch.float64).eps
TOO_SHORT = 1e-5  # the score of a signal with fewer than SEGMENT frames of speech
_CHUNK = 1 << 23  # input windows per resampling product (64 MiB of float64)


def check_stoi_args(fs: object, extended: object) -> None:
    """``fs`` a positive int (Hz), ``extended`` a bool."""
    if isinstance(fs, bool) or not isinstance(fs, int) or fs <= 0:
        raise ValueError(f"Argument `fs` must be a positive integer (the sampling rate in Hz), got {fs!r}")
    check_bool("extended", extended)


@lru_cache(maxsize=16)
def _polyphase_filter(up: int, down: int) -> tuple[Tensor, int, int]:
    """The resampling filter by ``up / down`` as one row per output phase ``(up, width)`` (float64,
    CPU), with the left padding and the stride of the input windows that the rows multiply."""
    rate = max(up, down)
    cutoff = 1.0 / (2 * rate)  # relative to the input's rate
    rejection_db = 60.0
    half = math.ceil((rejection_db - 8) / (28.714 * cutoff / 10))
    taps = torch.arange(-half, half + 1, dtype=torch.float64)
    beta = 0.1102 * (rejection_db - 8.7)
    ramp = torch.linspace(-1.0, 1.0, 2 * half + 1, dtype=torch.float64)
    kaiser = torch.special.i0(beta * torch.sqrt((1 - ramp**2).clamp(min=0)))
    kaiser = kaiser / torch.special.i0(torch.tensor(beta, dtype=torch.float64))
    h = kaiser * (2 * up * cutoff) * torch.sinc(2 * cutoff * taps)
    h = h / h.sum() * up
    # output m reads input i through tap m * down + half - i * up: for m = q * up + r that is the
    # phase (r * down + half) % up of h, from input q * down + (r * down + half) // up backwards
    per_phase = -(-h.numel() // up)
    phases = pad(h, (0, per_phase * up - h.numel())).reshape(per_phase, up).T  # [p, k] = h[p + k * up]
    starts = [(r * down + half) // up for r in range(up)]
    first = starts[0]
    weight = torch.zeros(up, per_phase + starts[-1] - first, dtype=torch.float64)
    for r, start in enumerate(starts):
        offset = start - first
        weight[r, offset : offset + per_phase] = phases[(r * down + half) % up].flip(0)
    return weight, per_phase - 1 - first, down


def resample_to_stoi_rate(x: Tensor, fs: int) -> Tensor:
    """Signals ``(batch, time)`` (float64) at ``fs`` resampled to 10 kHz (as Octave's ``resample``
    with ``scipy.signal.resample_poly``'s alignment: the output starts with the input)."""
    g = math.gcd(RATE, fs)
    up, down = RATE // g, fs // g
    if up == down:
        return x
    weight, left, stride = _polyphase_filter(up, down)
    weight = weight.to(x.device)
    length = -(-x.shape[-1] * up // down)
    blocks = -(-length // up)
    width = weight.shape[-1]
    padded = pad(x, (left, max(0, (blocks - 1) * stride + width - left - x.shape[-1])))
    windows = padded.unfold(-1, width, stride)[:, :blocks]  # a view: (batch, blocks, width)
    step = max(1, _CHUNK // (x.shape[0] * width))  # bounds the copy that the product makes of the view
    out = torch.cat([windows[:, i : i + step] @ weight.T for i in range(0, blocks, step)], dim=1)
    return out.reshape(x.shape[0], blocks * up)[:, :length]


@lru_cache(maxsize=4)
def _band_matrix() -> Tensor:
    """The ``(15, 257)`` 0/1 matrix that sums FFT bins into one-third-octave bands (float64, CPU):
    each band's edges are moved to the nearest FFT bin, the upper edge's bin left out."""
    bins = torch.arange(NFFT // 2 + 1, dtype=torch.float64) * (RATE / NFFT)
    matrix = torch.zeros(BANDS, bins.numel(), dtype=torch.float64)
    for band in range(BANDS):
        low = LOWEST_BAND * 2.0 ** ((2 * band - 1) / 6)
        high = LOWEST_BAND * 2.0 ** ((2 * band + 1) / 6)
        first, last = int(((bins - low) ** 2).argmin()), int(((bins - high) ** 2).argmin())
        matrix[band, first:last] = 1.0
    return matrix


def _hann(device: torch.device) -> Tensor:
    """Matlab's ``hanning(256)``: the periodic 257-point Hann window without its leading zero."""
    return torch.hann_window(FRAME + 1, periodic=True, dtype=torch.float64, device=device)[1:]


def _frames(x: Tensor, count: int) -> Tensor:
    """The first ``count`` frames (FRAME samples, hop HOP) of signals ``(batch, time)``."""
    return x.unfold(-1, FRAME, HOP)[:, :count]


def _speech_frames(clean: Tensor, degraded: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """The windowed frames of both signals with the clean signal's silent ones dropped: the kept
    frames first, in their order, zeros after them, and the number kept per signal."""
    count = -(-(clean.shape[-1] - FRAME) // HOP)  # frames that start before the last FRAME samples
    window = _hann(clean.device)
    x, y = _frames(clean, count) * window, _frames(degraded, count) * window
    energy = 20 * torch.log10(torch.linalg.vector_norm(x, dim=-1) + EPS)
    keep = energy > energy.max(dim=-1, keepdim=True).values - DYNAMIC_RANGE
    order = torch.argsort((~keep).to(torch.int8), dim=-1, stable=True)
    kept = keep.sum(-1)
    valid = (torch.arange(count, device=clean.device) < kept.unsqueeze(-1)).unsqueeze(-1)
    x = torch.gather(x, 1, order.unsqueeze(-1).expand_as(x)) * valid
    y = torch.gather(y, 1, order.unsqueeze(-1).expand_as(y)) * valid
    return x, y, kept


def _overlap_add(frames: Tensor) -> Tensor:
    """Frames ``(batch, n, FRAME)`` at hop FRAME / 2 added back into signals ``(batch, (n + 1) * HOP)``."""
    batch, n, _ = frames.shape
    out = frames.new_zeros(batch, n + 1, HOP)
    out[:, :n] += frames[..., :HOP]
    out[:, 1:] += frames[..., HOP:]
    return out.reshape(batch, (n + 1) * HOP)


def _band_envelopes(signal: Tensor, count: int) -> Tensor:
    """One-third-octave band magnitudes ``(batch, BANDS, count)`` of the first ``count`` frames."""
    spectrum = torch.fft.rfft(_frames(signal, count) * _hann(signal.device), n=NFFT, dim=-1)
    power = spectrum.real**2 + spectrum.imag**2
    return torch.sqrt(power @ _band_matrix().to(signal.device).T).transpose(1, 2)


def _normalise(x: Tensor, dim: int) -> Tensor:
    """``x`` less its mean over ``dim``, divided by its norm there (0 where that norm is 0)."""
    x = x - x.mean(dim=dim, keepdim=True)
    norm = torch.linalg.vector_norm(x, dim=dim, keepdim=True)
    return torch.where(norm > 0, x / torch.where(norm > 0, norm, 1.0), 0.0)


def _segment_scores(x: Tensor, y: Tensor, extended: bool) -> Tensor:
    """Per segment ``(batch, bands, segments, SEGMENT)``: the sum over bands of the correlations
    (STOI) or of the normalised products over frames (extended STOI), ``(batch, segments)``."""
    if extended:
        x, y = _normalise(_normalise(x, -1), 1), _normalise(_normalise(y, -1), 1)
        return (x * y).sum(dim=(1, 3)) / SEGMENT
    scale = torch.linalg.vector_norm(x, dim=-1, keepdim=True) / (
        torch.linalg.vector_norm(y, dim=-1, keepdim=True) + EPS)
    y = torch.minimum(y * scale, x * CLIP)
    y = y - y.mean(dim=-1, keepdim=True)
    x = x - x.mean(dim=-1, keepdim=True)
    y = y / (torch.linalg.vector_norm(y, dim=-1, keepdim=True) + EPS)
    x = x / (torch.linalg.vector_norm(x, dim=-1, keepdim=True) + EPS)
    return (x * y).sum(dim=(1, 3)) / BANDS


def stoi_values(clean: Tensor, degraded: Tensor, fs: int, extended: bool, warn: bool = True) -> Tensor:
    """STOI of signals ``(batch, time)``, one float64 value per signal, on their device; ``warn``:
    warn about signals too short for one segment (which reads a flag back to the host)."""
    clean, degraded = clean.to(torch.float64), degraded.to(torch.float64)
    if clean.shape[0] == 0:
        return clean.new_zeros(0)
    both = resample_to_stoi_rate(torch.cat([clean, degraded]), fs)
    clean, degraded = both[: clean.shape[0]], both[clean.shape[0] :]
    if clean.shape[-1] <= FRAME + SEGMENT * HOP:  # fewer than SEGMENT spectra, whatever is silent
        values = clean.new_full((clean.shape[0],), TOO_SHORT)
        enough = torch.zeros(clean.shape[0], dtype=torch.bool, device=clean.device)
    else:
        x, y, kept = _speech_frames(clean, degraded)
        spectra = x.shape[1] - 1  # the overlap-added speech has one spectrum fewer than kept frames
        x, y = _band_envelopes(_overlap_add(x), spectra), _band_envelopes(_overlap_add(y), spectra)
        scores = _segment_scores(x.unfold(-1, SEGMENT, 1), y.unfold(-1, SEGMENT, 1), extended)
        segments = kept - SEGMENT  # per signal: (kept - 1) spectra, SEGMENT of them per segment
        valid = torch.arange(scores.shape[1], device=scores.device) < segments.unsqueeze(-1)
        enough = segments > 0
        values = torch.where(enough, (scores * valid).sum(-1) / segments.clamp(min=1), TOO_SHORT)
    if warn and not bool(enough.all()):
        warnings.warn(
            f"STOI: {int((~enough).sum())} of {clean.shape[0]} signals have fewer than {SEGMENT} frames of "
            f"speech (after the silent frames were removed): their value is {TOO_SHORT}, as pystoi returns",
            RuntimeWarning,
            stacklevel=3,
        )
    return values


def short_time_objective_intelligibility(
    preds: Tensor, target: Tensor, fs: int, extended: bool = False, keep_same_device: bool = False
) -> Tensor:
    """Short-time objective intelligibility of ``preds`` against the clean ``target``, signals
    ``(..., time)`` sampled at ``fs`` Hz: one float64 value per signal, shape ``(...)``, equal to
    pystoi's (``extended=True``: extended STOI).

    Computed in torch on the inputs' device for the whole batch (no pystoi, no host copy); as in
    torchmetrics the values are returned on the CPU unless ``keep_same_device``.

    >>> import torch
    >>> from lightning_metrics.functional.audio import short_time_objective_intelligibility
    >>> t = torch.arange(16000) / 8000
    >>> harmonics = torch.arange(1, 21).unsqueeze(-1)  # a 150 Hz voice, three syllables in 2 s
    >>> voice = (torch.sin(2 * torch.pi * 150 * harmonics * t) / harmonics).sum(0)
    >>> target = voice * torch.sin(3 * torch.pi * t) ** 2
    >>> noise = torch.randn(16000, generator=torch.Generator().manual_seed(0))
    >>> short_time_objective_intelligibility(target + 0.1 * noise, target, fs=8000)
    tensor(0.9400, dtype=torch.float64)
    """
    check_signals(preds, target)
    check_stoi_args(fs, extended)
    check_bool("keep_same_device", keep_same_device)
    shape = preds.shape[:-1]
    time = preds.shape[-1]
    values = stoi_values(target.reshape(-1, time), preds.reshape(-1, time), fs, extended).reshape(shape)
    return values if keep_same_device else values.cpu()
