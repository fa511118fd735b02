"""Modular SNR, SI-SNR, SI-SDR, SDR, complex SI-SNR and SA-SDR: a float64 sum and a count of the
per-signal values of the functional code, whatever the number of utterances."""

from __future__ import annotations

from typing import Any, Optional

from torch import Tensor

from lightning_metrics._per_sample import PerSampleMetric
from lightning_metrics.functional.audio.distortion import check_sdr_args, signal_distortion_ratio
from lightning_metrics.functional.audio.ratios import (
    check_bool,
    complex_scale_invariant_signal_noise_ratio,
    scale_invariant_signal_distortion_ratio,
    scale_invariant_signal_noise_ratio,
    signal_noise_ratio,
    source_aggregated_signal_distortion_ratio,
)


def _zero_mean_init(self: _RatioMetric, zero_mean: bool = False, **kwargs: Any) -> None:
    """The constructor (torchmetrics' signature) of the ratios whose one option is ``zero_mean``."""
    self._configure(locals())


class _RatioMetric(PerSampleMetric):
    """A mean ratio in dB; ``_bool_options`` names its flags, checked once in the constructor."""

    higher_is_better = True
    plot_lower_bound: Optional[float] = None
    plot_upper_bound: Optional[float] = None
    _bool_options: tuple[str, ...] = ("zero_mean",)

    def _check_args(self) -> None:
        for name in self._bool_options:
            check_bool(name, getattr(self, name))


class SignalNoiseRatio(_RatioMetric):
    """Mean signal-to-noise ratio in dB over every signal seen.

    >>> import torch
    >>> from lightning_metrics.audio import SignalNoiseRatio
    >>> target = torch.tensor([3.0, -0.5, 2.0, 7.0])
    >>> SignalNoiseRatio()(torch.tensor([2.5, 0.0, 2.0, 8.0]), target)
    tensor(16.1805)
    """

    __init__ = _zero_mean_init

    def _values(self, preds: Tensor, target: Tensor) -> Tensor:
        return signal_noise_ratio(preds, target, self.zero_mean)


class ScaleInvariantSignalNoiseRatio(_RatioMetric):
    """Mean scale-invariant signal-to-noise ratio (SI-SNR) in dB.

    >>> import torch
    >>> from lightning_metrics.audio import ScaleInvariantSignalNoiseRatio
    >>> target = torch.tensor([3.0, -0.5, 2.0, 7.0])
    >>> ScaleInvariantSignalNoiseRatio()(torch.tensor([2.5, 0.0, 2.0, 8.0]), target)
    tensor(15.0918)
    """

    _bool_options = ()

    def __init__(self, **kwargs: Any) -> None:
        self._configure(locals())

    def _values(self, preds: Tensor, target: Tensor) -> Tensor:
        return scale_invariant_signal_noise_ratio(preds, target)


class ScaleInvariantSignalDistortionRatio(_RatioMetric):
    """Mean scale-invariant signal-to-distortion ratio (SI-SDR) in dB.

    >>> import torch
    >>> from lightning_metrics.audio import ScaleInvariantSignalDistortionRatio
    >>> target = torch.tensor([3.0, -0.5, 2.0, 7.0])
    >>> ScaleInvariantSignalDistortionRatio()(torch.tensor([2.5, 0.0, 2.0, 8.0]), target)
    tensor(18.4030)
    """

    __init__ = _zero_mean_init

    def _values(self, preds: Tensor, target: Tensor) -> Tensor:
        return scale_invariant_signal_distortion_ratio(preds, target, self.zero_mean)


class SignalDistortionRatio(_RatioMetric):
    """Mean signal-to-distortion ratio in dB (see
    :func:`~lightning_metrics.functional.audio.signal_distortion_ratio`).

    >>> import torch
    >>> from lightning_metrics.audio import SignalDistortionRatio
    >>> target = torch.arange(64.0).sin()
    >>> SignalDistortionRatio(filter_length=8)(target + 0.1 * torch.arange(64.0).cos(), target)
    tensor(34.9465)
    """

    def __init__(
        self,
        use_cg_iter: Optional[int] = None,
        filter_length: int = 512,
        zero_mean: bool = False,
        load_diag: Optional[float] = None,
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _check_args(self) -> None:
        check_sdr_args(self.use_cg_iter, self.filter_length, self.zero_mean, self.load_diag)

    def _values(self, preds: Tensor, target: Tensor) -> Tensor:
        return signal_distortion_ratio(preds, target, self.use_cg_iter, self.filter_length, self.zero_mean,
                                       self.load_diag)


class ComplexScaleInvariantSignalNoiseRatio(_RatioMetric):
    """Mean complex SI-SNR of spectrograms (see
    :func:`~lightning_metrics.functional.audio.complex_scale_invariant_signal_noise_ratio`).

    >>> import torch
    >>> from lightning_metrics.audio import ComplexScaleInvariantSignalNoiseRatio
    >>> target = torch.arange(12.0).reshape(1, 3, 2, 2).cos()
    >>> ComplexScaleInvariantSignalNoiseRatio()(target + 0.1 * target.flip(1), target)
    tensor(20.4496)
    """

    __init__ = _zero_mean_init

    def _values(self, preds: Tensor, target: Tensor) -> Tensor:
        return complex_scale_invariant_signal_noise_ratio(preds, target, self.zero_mean)


class SourceAggregatedSignalDistortionRatio(_RatioMetric):
    """Mean source-aggregated SDR of mixtures ``(..., speakers, time)``.

    >>> import torch
    >>> from lightning_metrics.audio import SourceAggregatedSignalDistortionRatio
    >>> target = torch.tensor([[3.0, -0.5, 2.0, 7.0], [1.0, 2.0, 3.0, 4.0]])
    >>> SourceAggregatedSignalDistortionRatio()(target + 0.5, target)
    tensor(21.8722)
    """

    _bool_options = ("scale_invariant", "zero_mean")

    def __init__(self, scale_invariant: bool = True, zero_mean: bool = False, **kwargs: Any) -> None:
        self._configure(locals())

    def _values(self, preds: Tensor, target: Tensor) -> Tensor:
        return source_aggregated_signal_distortion_ratio(preds, target, self.scale_invariant, self.zero_mean)
