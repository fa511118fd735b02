"""Modular NISQA: a float64 sum of the five scores and a count of the signals, over
:func:`~lightning_metrics.functional.audio.nisqa.non_intrusive_speech_quality_assessment`."""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from lightning_metrics._input_checks import ValidatedInputs
from lightning_metrics.functional.audio.nisqa import check_fs, check_preds, nisqa_network, nisqa_scores
from lightning_metrics.metric import Metric
from lightning_metrics.plotting import _methods as _plot_methods


class NonIntrusiveSpeechQualityAssessment(ValidatedInputs, Metric):
    """Mean NISQA v2.0 scores ``(5,)`` (overall MOS, noisiness, discontinuity, coloration, loudness) of
    every signal ``preds`` ``(..., time)`` seen, sampled at ``fs`` Hz (non-intrusive: no reference).

    As torchmetrics' class, without librosa (the features are computed in torch, on the signals'
    device). The network (:mod:`lightning_metrics.networks.nisqa`) is built with the published
    weights on the first ``update`` (torchmetrics: on each). Ours: the keyword arguments ``model`` (a
    NISQA network to use instead) and ``validate_args`` (``False`` skips the NaN check of ``preds``).

    >>> import torch
    >>> from lightning_metrics.networks import network
    >>> nisqa = NonIntrusiveSpeechQualityAssessment(16000, model=network("nisqa", pretrained=False))
    >>> nisqa.update(torch.randn(3, 8000))
    >>> nisqa.compute().shape, nisqa.total
    (torch.Size([5]), tensor(3))
    """

    score_names = ("mos", "noisiness", "discontinuity", "coloration", "loudness")  # logged one by one

    is_differentiable = False
    higher_is_better = True
    full_state_update = False
    plot_lower_bound = 0.0
    plot_upper_bound = 5.0
    exact_dtype_states = ("sum_nisqa",)
    _keyword_arguments = {"validate_args": True, "model": None}
    plot = _plot_methods.plot_value

    def __init__(self, fs: int, **kwargs: Any) -> None:
        self._configure(locals())

    def _build(self) -> None:
        check_fs(self.fs)
        # the network is no submodule: the state dict is the same before and after it is built
        model = self._modules.pop("model", None) or self.__dict__.pop("model", None)
        object.__setattr__(self, "model", model)
        self.add_state("sum_nisqa", torch.zeros(5, dtype=torch.float64), dist_reduce_fx="sum")
        self.add_state("total", torch.tensor(0), dist_reduce_fx="sum")

    def update(self, preds: Tensor) -> None:  # type: ignore[override]
        """Add the scores of a batch of signals (checked before any state changes)."""
        check_preds(preds)
        self._check_finite(("preds", preds))
        if self.model is None:
            object.__setattr__(self, "model", nisqa_network())
        scores = nisqa_scores(preds, self.fs, self.model).reshape(-1, 5)
        self.sum_nisqa = self.sum_nisqa + scores.sum(dim=0, dtype=torch.float64).to(self.sum_nisqa.device)
        self.total = self.total + scores.shape[0]

    def compute(self) -> Tensor:
        """The mean of each score over the signals seen."""
        return (self.sum_nisqa / self.total).to(self.dtype)
