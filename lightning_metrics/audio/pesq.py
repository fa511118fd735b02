"""Modular PESQ: a float64 sum and a count of the per-signal values of
:func:`~lightning_metrics.functional.audio.perceptual_evaluation_speech_quality` (the ``pesq``
package, an optional dependency: ``pip install lightning_metrics[audio]``)."""

from __future__ import annotations

from typing import Any, Optional

from torch import Tensor

from lightning_metrics._per_sample import PerSampleMetric
from lightning_metrics.functional.audio._projection import check_signals
from lightning_metrics.functional.audio.pesq import check_pesq_args, pesq_values, require_pesq


class PerceptualEvaluationSpeechQuality(PerSampleMetric):
    """Mean PESQ (ITU-T P.862, MOS-LQO) of the degraded ``preds`` against the reference ``target``,
    signals ``(..., time)`` sampled at ``fs`` (8000 or 16000 Hz), ``mode`` ``"nb"`` or ``"wb"``,
    over every signal seen; ``n_processes`` above 1 scores a batch in that many processes.

    Needs the ``pesq`` package (``pip install lightning_metrics[audio]``): the constructor says so
    when it is missing. The signals are scored on the CPU; the state stays on the metric's device.

    >>> import torch
    >>> from lightning_metrics.audio import PerceptualEvaluationSpeechQuality
    >>> t = torch.arange(16000) / 8000
    >>> target = torch.sin(2 * torch.pi * 440 * t) * torch.sin(2 * torch.pi * 3 * t) ** 2
    >>> noise = torch.randn(16000, generator=torch.Generator().manual_seed(0))
    >>> pesq = PerceptualEvaluationSpeechQuality(8000, "nb")
    >>> pesq.update(target + 0.01 * noise, target)
    >>> pesq.update(target + 0.1 * noise, target)
    >>> pesq.compute()
    tensor(1.4830)
    """

    is_differentiable = False
    higher_is_better = True
    plot_lower_bound: Optional[float] = -0.5
    plot_upper_bound: Optional[float] = 4.5

    def __init__(self, fs: int, mode: str, n_processes: int = 1, **kwargs: Any) -> None:
        self._configure(locals())

    def _check_args(self) -> None:
        require_pesq(type(self).__name__)
        check_pesq_args(self.fs, self.mode, self.n_processes)

    def _values(self, preds: Tensor, target: Tensor) -> Tensor:
        check_signals(preds, target)
        time = preds.shape[-1]
        values = pesq_values(preds.reshape(-1, time), target.reshape(-1, time), self.fs, self.mode,
                             self.n_processes)
        return values.to(self.device)
