"""SNR, SI-SNR, SI-SDR, complex SI-SNR and SA-SDR: ratios of the energies of :mod:`._projection`."""

from __future__ import annotations

import torch
from torch import Tensor

from lightning_metrics.functional.audio._projection import check_signals, ratio_db
from lightning_metrics.utilities.checks import check_bool  # noqa: F401  (re-exported: one bool check)


def signal_noise_ratio(preds: Tensor, target: Tensor, zero_mean: bool = False) -> Tensor:
    """Signal-to-noise ratio in dB of signals ``(..., time)``, one value per signal.

    >>> import torch
    >>> from lightning_metrics.functional.audio import signal_noise_ratio
    >>> target = torch.tensor([3.0, -0.5, 2.0, 7.0])
    >>> signal_noise_ratio(torch.tensor([2.5, 0.0, 2.0, 8.0]), target)
    tensor(16.1805)
    """
    return ratio_db(preds, target, zero_mean=zero_mean)


def scale_invariant_signal_distortion_ratio(preds: Tensor, target: Tensor, zero_mean: bool = False) -> Tensor:
    """Scale-invariant signal-to-distortion ratio (SI-SDR) in dB of signals ``(..., time)``.

    >>> import torch
    >>> from lightning_metrics.functional.audio import scale_invariant_signal_distortion_ratio
    >>> target = torch.tensor([3.0, -0.5, 2.0, 7.0])
    >>> scale_invariant_signal_distortion_ratio(torch.tensor([2.5, 0.0, 2.0, 8.0]), target)
    tensor(18.4030)
    """
    return ratio_db(preds, target, zero_mean=zero_mean, scale_invariant=True)


def scale_invariant_signal_noise_ratio(preds: Tensor, target: Tensor) -> Tensor:
    """Scale-invariant signal-to-noise ratio (SI-SNR): SI-SDR of the zero-mean signals.

    >>> import torch
    >>> from lightning_metrics.functional.audio import scale_invariant_signal_noise_ratio
    >>> target = torch.tensor([3.0, -0.5, 2.0, 7.0])
    >>> scale_invariant_signal_noise_ratio(torch.tensor([2.5, 0.0, 2.0, 8.0]), target)
    tensor(15.0918)
    """
    return ratio_db(preds, target, zero_mean=True, scale_invariant=True)


def complex_as_real(x: Tensor, name: str) -> Tensor:
    """A complex spectrogram ``(..., freq, time)`` or its real view ``(..., freq, time, 2)``, flattened
    to ``(..., 2 * freq * time)``."""
    if not isinstance(x, Tensor):
        raise TypeError(f"Argument `{name}` must be a tensor, got {type(x).__name__}")
    if x.is_complex():
        x = torch.view_as_real(x)
    if x.ndim < 3 or x.shape[-1] != 2:
        raise RuntimeError(
            f"Argument `{name}` must have the shape (..., frequency, time, 2) or be complex "
            f"(..., frequency, time), got shape {tuple(x.shape)}"
        )
    return x.reshape(*x.shape[:-3], x.shape[-3] * x.shape[-2] * x.shape[-1])  # also for an empty batch


def complex_scale_invariant_signal_noise_ratio(preds: Tensor, target: Tensor, zero_mean: bool = False) -> Tensor:
    """Complex SI-SNR of spectrograms: SI-SDR of their flattened real and imaginary parts.

    >>> import torch
    >>> from lightning_metrics.functional.audio import complex_scale_invariant_signal_noise_ratio
    >>> target = torch.arange(12.0).reshape(1, 3, 2, 2).cos()
    >>> complex_scale_invariant_signal_noise_ratio(target + 0.1 * target.flip(1), target)
    tensor([20.4496])
    """
    real_preds, real_target = complex_as_real(preds, "preds"), complex_as_real(target, "target")
    if preds.shape != target.shape:
        check_signals(preds, target)  # the shape error names the shapes given, not the flattened ones
    return ratio_db(real_preds, real_target, zero_mean=zero_mean, scale_invariant=True)


def source_aggregated_signal_distortion_ratio(
    preds: Tensor,
    target: Tensor,
    scale_invariant: bool = True,
    zero_mean: bool = False,
) -> Tensor:
    """Source-aggregated SDR of mixtures ``(..., speakers, time)``: the energies of all speakers
    added before the ratio, one value per mixture.

    >>> import torch
    >>> from lightning_metrics.functional.audio import source_aggregated_signal_distortion_ratio
    >>> target = torch.tensor([[3.0, -0.5, 2.0, 7.0], [1.0, 2.0, 3.0, 4.0]])
    >>> source_aggregated_signal_distortion_ratio(target + 0.5, target)
    tensor(21.8722)
    """
    if isinstance(preds, Tensor) and preds.ndim < 2:
        raise RuntimeError(f"Argument `preds` must have the shape (..., spk, time), got {tuple(preds.shape)}")
    return ratio_db(preds, target, zero_mean=zero_mean, scale_invariant=scale_invariant, dims=(-2, -1))
