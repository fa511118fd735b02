"""Modular DNSMOS: a float64 sum of the ``[p808_mos, mos_sig, mos_bak, mos_ovr]`` values of
:func:`~lightning_metrics.functional.audio.deep_noise_suppression_mean_opinion_score` and a count
(``onnxruntime``, an optional dependency: ``pip install lightning_metrics[dnsmos]``)."""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from lightning_metrics._input_checks import ValidatedInputs
from lightning_metrics.functional.audio.dnsmos import check_dnsmos_args, dnsmos_values, require_onnxruntime
from lightning_metrics.metric import Metric
from lightning_metrics.plotting import _methods as _plot_methods


class DeepNoiseSuppressionMeanOpinionScore(ValidatedInputs, Metric):
    """Mean DNSMOS ``[p808_mos, mos_sig, mos_bak, mos_ovr]`` (float64, shape ``(4,)``) of signals
    ``preds`` ``(..., time)`` sampled at ``fs`` Hz, over every signal seen (no reference).
    Arguments as torchmetrics' (see
    :func:`~lightning_metrics.functional.audio.deep_noise_suppression_mean_opinion_score`;
    ``cache_sessions`` keeps the loaded models, ``device`` is where onnxruntime runs them).

    Needs ``onnxruntime`` (``pip install lightning_metrics[dnsmos]``): the constructor says so when
    it is missing; the model files are looked up on the first update.

    >>> import torch
    >>> from tests.audio._dnsmos_models import random_models  # small random models in the real layout
    >>> from lightning_metrics.audio import DeepNoiseSuppressionMeanOpinionScore
    >>> t = torch.arange(8000) / 8000
    >>> voice = torch.sin(2 * torch.pi * 220 * t) * torch.sin(2 * torch.pi * 2 * t) ** 2
    >>> dnsmos = DeepNoiseSuppressionMeanOpinionScore(8000, personalized=False)
    >>> with random_models(seed=0):
    ...     dnsmos.update(voice)
    ...     dnsmos.update(torch.stack([voice, 0.5 * voice]))
    >>> dnsmos.compute().shape, int(dnsmos.total)
    (torch.Size([4]), 3)
    """

    score_names = ("p808_mos", "mos_sig", "mos_bak", "mos_ovr")  # logged one by one

    plot = _plot_methods.plot_value
    is_differentiable = False
    higher_is_better = True
    full_state_update = False
    additive_update = True
    exact_dtype_states = ("sum_dnsmos",)
    plot_lower_bound: float | None = 0.0
    plot_upper_bound: float | None = 5.0

    def __init__(
        self,
        fs: int,
        personalized: bool,
        device: str | None = None,
        num_threads: int | None = None,
        cache_sessions: bool = True,
        **kwargs: Any,
    ) -> None:
        # ``device`` is where onnxruntime runs (torchmetrics' ``cal_device``): Metric.device is the states'
        self._configure({"fs": fs, "personalized": personalized, "cal_device": device, "num_threads": num_threads,
                         "cache_sessions": cache_sessions, "kwargs": kwargs})

    def _build(self) -> None:
        require_onnxruntime(type(self).__name__)
        check_dnsmos_args(self.fs, self.personalized, self.cal_device, self.num_threads, self.cache_sessions,
                          cache_name="cache_sessions")
        self.add_state("sum_dnsmos", torch.zeros(4, dtype=torch.float64), dist_reduce_fx="sum")
        self.add_state("total", torch.zeros((), dtype=torch.int64), dist_reduce_fx="sum")

    def update(self, preds: Tensor) -> None:  # type: ignore[override]
        """Add the DNSMOS values of one batch of signals (with ``validate_args``, NaN or infinite
        samples raise before any state changes)."""
        if not isinstance(preds, Tensor) or preds.ndim == 0 or preds.shape[-1] == 0:
            raise ValueError(f"Argument `preds` must be a tensor of signals (..., time), got {preds!r}")
        self._check_finite(("preds", preds))
        values = dnsmos_values(preds.reshape(-1, preds.shape[-1]), self.fs, self.personalized, self.cal_device,
                               self.num_threads, self.cache_sessions).to(self.device)
        self.sum_dnsmos = self.sum_dnsmos + values.sum(dim=0)
        self.total = self.total + values.shape[0]

    def compute(self) -> Tensor:
        """The mean ``[p808_mos, mos_sig, mos_bak, mos_ovr]`` over every signal seen."""
        return self.sum_dnsmos / self.total
