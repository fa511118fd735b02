"""Signal-to-distortion ratio (SDR, BSS-eval v4 style) with its Toeplitz solve written in torch.

The distortion filter of ``filter_length`` taps that best maps the reference onto the estimate
solves ``R h = b``: ``R`` the symmetric Toeplitz matrix of the reference's autocorrelation, ``b``
the cross-correlation (both from one FFT of each signal). With ``h``, ``coh = b . h`` is the share
of the (unit-norm) estimate's energy the filtered reference explains, and the SDR is
``10 log10(coh / (1 - coh))``. The system is solved exactly (``torch.linalg.solve``), or with
``use_cg_iter`` iterations of conjugate gradient preconditioned by T. Chan's optimal circulant
approximation of ``R``, each product by ``R`` an FFT of twice the filter length: the same
iteration as ``fast_bss_eval`` (which torchmetrics needs installed for ``use_cg_iter``; here
nothing is needed). Everything runs in float64, as in torchmetrics.
"""

from __future__ import annotations

import math
from typing import Optional

import torch
from torch import Tensor

from lightning_metrics.functional.audio._projection import check_signals
from lightning_metrics.utilities.checks import check_bool

_FLOOR = 1e-6  # fast_bss_eval's guards on the CG step sizes and the preconditioner spectrum


def check_sdr_args(use_cg_iter: object, filter_length: object, zero_mean: object, load_diag: object) -> None:
    if use_cg_iter is not None and (isinstance(use_cg_iter, bool) or not isinstance(use_cg_iter, int) or use_cg_iter < 1):
        raise ValueError(f"Argument `use_cg_iter` must be None or a positive integer, got {use_cg_iter!r}")
    if isinstance(filter_length, bool) or not isinstance(filter_length, int) or filter_length < 1:
        raise ValueError(f"Argument `filter_length` must be a positive integer, got {filter_length!r}")
    check_bool("zero_mean", zero_mean)
    if load_diag is not None and (isinstance(load_diag, bool) or not isinstance(load_diag, (int, float))):
        raise ValueError(f"Argument `load_diag` must be None or a number, got {load_diag!r}")


def correlations(target: Tensor, preds: Tensor, length: int) -> tuple[Tensor, Tensor]:
    """The first ``length`` lags of the target's autocorrelation and of its cross-correlation with ``preds``."""
    n_fft = 2 ** math.ceil(math.log2(preds.shape[-1] + target.shape[-1] - 1))
    t_spec = torch.fft.rfft(target, n=n_fft, dim=-1)
    p_spec = torch.fft.rfft(preds, n=n_fft, dim=-1)
    auto = torch.fft.irfft(t_spec.real**2 + t_spec.imag**2, n=n_fft, dim=-1)[..., :length]
    cross = torch.fft.irfft(t_spec.conj() * p_spec, n=n_fft, dim=-1)[..., :length]
    return auto, cross


def toeplitz_solve(column: Tensor, rhs: Tensor) -> Tensor:
    """Solve ``T x = rhs`` exactly for the symmetric Toeplitz ``T`` with first column ``column``."""
    n = column.shape[-1]
    lags = torch.arange(n, device=column.device)
    matrix = column[..., (lags[:, None] - lags[None, :]).abs()]
    return torch.linalg.solve(matrix, rhs)


def _inner(a: Tensor, b: Tensor) -> Tensor:
    return torch.einsum("...cd,...cd->...d", a, b)


def toeplitz_conjugate_gradient(column: Tensor, rhs: Tensor, n_iter: int) -> Tensor:
    """``n_iter`` preconditioned conjugate-gradient steps on ``T x = rhs`` from ``x = 0``.

    Vectors are ``(..., n, 1)`` columns and every product runs in fast_bss_eval's order: CG on an
    ill-conditioned ``T`` amplifies rounding differences by orders of magnitude per step, so only
    the same operations give the same values after a few steps.
    """
    n = column.shape[-1]
    # T embedded in a circulant of size 2n: its products are FFT products
    embedded = torch.cat([column, column.new_zeros(*column.shape[:-1], 1), column[..., 1:].flip(-1)], dim=-1)
    spectrum = torch.fft.rfft(embedded, dim=-1)[..., None]
    # T. Chan's circulant closest to T (Frobenius): c_k = ((n - k) t_k + k t_{n-k}) / n
    weights = torch.arange(1, n, device=column.device) / float(n)  # float32, as fast_bss_eval rounds them
    tail = column[..., 1:] * weights.flip(-1)
    eigen = torch.fft.rfft(torch.cat([column[..., :1], tail + tail.flip(-1)], dim=-1), dim=-1)
    inverse = (eigen / torch.clamp(eigen.real**2 + eigen.imag**2, min=_FLOOR)).conj()[..., None]

    def product(v: Tensor) -> Tensor:
        return torch.fft.irfft(torch.fft.rfft(v, n=2 * n, dim=-2) * spectrum, n=2 * n, dim=-2)[..., :n, :]

    def precondition(r: Tensor) -> Tensor:
        return torch.fft.irfft(inverse * torch.fft.rfft(r, n=n, dim=-2), n=n, dim=-2)

    b = rhs[..., None]
    x = torch.zeros_like(b)
    residual = b - product(x)
    z = precondition(residual)
    direction = z
    rs_old = _inner(residual, z)
    for _ in range(n_iter):
        step = product(direction)
        alpha = rs_old / torch.clamp(_inner(direction, step), min=_FLOOR)
        x = x + alpha[..., None, :] * direction
        residual = residual - alpha[..., None, :] * step
        z = precondition(residual)
        rs_new = _inner(residual, z)
        direction = z + (rs_new / torch.clamp(rs_old, min=_FLOOR))[..., None, :] * direction
        rs_old = rs_new
    return x[..., 0]


def signal_distortion_ratio(
    preds: Tensor,
    target: Tensor,
    use_cg_iter: Optional[int] = None,
    filter_length: int = 512,
    zero_mean: bool = False,
    load_diag: Optional[float] = None,
) -> Tensor:
    """SDR in dB of signals ``(..., time)`` allowing a ``filter_length``-tap distortion filter;
    ``use_cg_iter`` solves approximately by conjugate gradient, ``load_diag`` regularises. One
    value per signal: float64 for float64 inputs, float32 otherwise.

    >>> import torch
    >>> from lightning_metrics.functional.audio import signal_distortion_ratio
    >>> target = torch.arange(64.0).sin()
    >>> signal_distortion_ratio(target + 0.1 * torch.arange(64.0).cos(), target, filter_length=8)
    tensor(34.9465)
    """
    check_sdr_args(use_cg_iter, filter_length, zero_mean, load_diag)
    check_signals(preds, target)
    out_dtype = torch.float64 if preds.dtype == torch.float64 else torch.float32
    if not preds.numel():  # the FFT backends reject empty batches
        return preds.new_zeros(preds.shape[:-1], dtype=out_dtype)
    p, t = preds.double(), target.double()
    if zero_mean:
        p = p - p.mean(dim=-1, keepdim=True)
        t = t - t.mean(dim=-1, keepdim=True)
    t = t / torch.clamp(torch.linalg.norm(t, dim=-1, keepdim=True), min=1e-6)
    p = p / torch.clamp(torch.linalg.norm(p, dim=-1, keepdim=True), min=1e-6)
    auto, cross = correlations(t, p, filter_length)
    if load_diag is not None:
        auto = torch.cat([auto[..., :1] + load_diag, auto[..., 1:]], dim=-1)
    if use_cg_iter is None:
        solution = toeplitz_solve(auto, cross)
    else:
        solution = toeplitz_conjugate_gradient(auto, cross, use_cg_iter)
    coherence = (cross * solution).sum(-1)
    return (10.0 * torch.log10(coherence / (1 - coherence))).to(out_dtype)
