"""Modular STOI: a float64 sum and a count of the per-signal values of
:func:`~lightning_metrics.functional.audio.short_time_objective_intelligibility`."""

from __future__ import annotations

from typing import Any, Optional

from torch import Tensor

from lightning_metrics._per_sample import PerSampleMetric
from lightning_metrics.functional.audio._projection import check_signals
from lightning_metrics.functional.audio.stoi import check_stoi_args, stoi_values


class ShortTimeObjectiveIntelligibility(PerSampleMetric):
    """Mean short-time objective intelligibility (``extended=True``: extended STOI) of the degraded
    ``preds`` against the clean ``target``, signals ``(..., time)`` sampled at ``fs`` Hz, over every
    signal seen. Computed in torch on the inputs' device, equal to pystoi's values (which
    torchmetrics calls per signal on the CPU); no pystoi is needed.

    >>> import torch
    >>> from lightning_metrics.audio import ShortTimeObjectiveIntelligibility
    >>> t = torch.arange(16000) / 8000
    >>> harmonics = torch.arange(1, 21).unsqueeze(-1)  # a 150 Hz voice, three syllables in 2 s
    >>> voice = (torch.sin(2 * torch.pi * 150 * harmonics * t) / harmonics).sum(0)
    >>> target = voice * torch.sin(3 * torch.pi * t) ** 2
    >>> noise = torch.randn(16000, generator=torch.Generator().manual_seed(0))
    >>> stoi = ShortTimeObjectiveIntelligibility(fs=8000)
    >>> stoi.update(target + 0.1 * noise, target)
    >>> stoi.update(target + 0.5 * noise, target)
    >>> stoi.compute()
    tensor(0.8310)
    """

    is_differentiable = False
    higher_is_better = True
    plot_lower_bound: Optional[float] = 0.0
    plot_upper_bound: Optional[float] = 1.0

    def __init__(self, fs: int, extended: bool = False, **kwargs: Any) -> None:
        self._configure(locals())

    def _check_args(self) -> None:
        check_stoi_args(self.fs, self.extended)

    def _values(self, preds: Tensor, target: Tensor) -> Tensor:
        check_signals(preds, target)
        time = preds.shape[-1]
        # the warning about too short signals reads a flag back: validate_args=False skips it
        return stoi_values(target.reshape(-1, time), preds.reshape(-1, time), self.fs, self.extended,
                           warn=self.validate_args)
