"""Modular SRMR: a float64 sum and a count of the per-signal values of
:func:`~lightning_metrics.functional.audio.speech_reverberation_modulation_energy_ratio`."""

from __future__ import annotations

from typing import Any, Optional

from torch import Tensor

from lightning_metrics._per_sample import PerSampleMetric
from lightning_metrics.functional.audio.srmr import check_srmr_args, srmr_values


class SpeechReverberationModulationEnergyRatio(PerSampleMetric):
    """Mean speech-to-reverberation modulation energy ratio of signals ``preds`` ``(..., time)``
    sampled at ``fs`` Hz, over every signal seen (non-intrusive: ``update`` takes no reference).
    Arguments as torchmetrics' (see
    :func:`~lightning_metrics.functional.audio.speech_reverberation_modulation_energy_ratio`);
    computed in torch on the input's device, without ``gammatone`` or ``torchaudio``.

    >>> import torch
    >>> from lightning_metrics.audio import SpeechReverberationModulationEnergyRatio
    >>> t = torch.arange(16000) / 8000
    >>> harmonics = torch.arange(1, 21).unsqueeze(-1)  # a 150 Hz voice, three syllables in 2 s
    >>> voice = (torch.sin(2 * torch.pi * 150 * harmonics * t) / harmonics).sum(0)
    >>> srmr = SpeechReverberationModulationEnergyRatio(8000)
    >>> srmr.update(voice * torch.sin(3 * torch.pi * t) ** 2)
    >>> srmr.compute()
    tensor(7.2019)
    """

    is_differentiable = True
    higher_is_better = True
    plot_lower_bound: Optional[float] = None
    plot_upper_bound: Optional[float] = None

    def __init__(
        self,
        fs: int,
        n_cochlear_filters: int = 23,
        low_freq: float = 125,
        min_cf: float = 4,
        max_cf: Optional[float] = None,
        norm: bool = False,
        fast: bool = False,
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _check_args(self) -> None:
        check_srmr_args(self.fs, self.n_cochlear_filters, self.low_freq, self.min_cf, self.max_cf, self.norm,
                        self.fast)

    def update(self, preds: Tensor) -> None:  # type: ignore[override]
        """Add the values of one batch of signals. With ``validate_args``, NaN or infinite samples raise,
        and so does a signal whose 90 % bandwidth lies below the fifth modulation band (as in
        torchmetrics); without it, nothing is read back and such a signal's value is NaN."""
        if not isinstance(preds, Tensor):
            raise TypeError(f"Argument `preds` must be a tensor, got {type(preds).__name__}")
        self._check_finite(("preds", preds))
        values = srmr_values(preds.reshape(-1, preds.shape[-1]), self.fs, self.n_cochlear_filters, self.low_freq,
                             self.min_cf, self.max_cf, self.norm, self.fast, check=self.validate_args)
        self._accumulate(values)
