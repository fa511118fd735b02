"""Modular ARNIQA: a float64 sum and a count of the scores of
:func:`~lightning_metrics.functional.image.arniqa.arniqa`."""

from __future__ import annotations

from typing import Any, Literal

import torch
from torch import Tensor

from lightning_metrics._input_checks import ValidatedInputs
from lightning_metrics.functional.image.arniqa import (
    arniqa_scores,
    check_arniqa_args,
    check_arniqa_images,
    reduce_scores,
)
from lightning_metrics.metric import Metric
from lightning_metrics.plotting import _methods as _plot_methods


class ARNIQA(ValidatedInputs, Metric):
    """Mean ARNIQA quality (in [0, 1], higher is better) of every image ``(N, 3, H, W)`` seen: no reference.

    Arguments as torchmetrics' (see :func:`~lightning_metrics.functional.image.arniqa.arniqa`);
    the network (a ResNet-50 encoder and a linear regressor, :mod:`lightning_metrics.networks.arniqa`)
    is built with the release's weights when the metric is, as torchmetrics does. As in
    torchmetrics' class, ``reduction="none"`` returns the sum (its states are a sum and a count;
    the function gives per-image scores). Ours: the keyword arguments ``model`` (an ARNIQA network
    to use instead) and ``validate_args`` (``False`` skips the NaN check of the images).

    >>> import torch
    >>> from lightning_metrics.networks import network
    >>> metric = ARNIQA(model=network("arniqa", pretrained=False))  # random weights: no download here
    >>> metric.update(torch.rand(2, 3, 32, 32))
    >>> metric.num_scores
    tensor(2.)
    """

    is_differentiable = True
    higher_is_better = True
    full_state_update = False
    plot_lower_bound = 0.0
    plot_upper_bound = 1.0
    feature_network = "model"
    exact_dtype_states = ("sum_scores",)
    _keyword_arguments = {"validate_args": True, "model": None}
    plot = _plot_methods.plot_value

    def __init__(
        self,
        regressor_dataset: Literal["kadid10k", "koniq10k"] = "koniq10k",
        reduction: Literal["sum", "mean", "none"] = "mean",
        normalize: bool = True,
        autocast: bool = False,
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _build(self) -> None:
        check_arniqa_args(self.regressor_dataset, self.reduction, self.normalize, self.autocast)
        if self.model is None:
            from lightning_metrics.networks import network

            self.model = network("arniqa", regressor_dataset=self.regressor_dataset)
        self.add_state("sum_scores", torch.zeros((), dtype=torch.float64), dist_reduce_fx="sum")
        self.add_state("num_scores", torch.tensor(0.0), dist_reduce_fx="sum")

    def update(self, img: Tensor) -> None:  # type: ignore[override]
        """Add the scores of a batch of images (checked before any state changes)."""
        check_arniqa_images(img, self.normalize)
        self._check_finite(("img", img))
        scores = arniqa_scores(img, self.model, self.normalize, self.autocast, cast=False)
        self.sum_scores = self.sum_scores + scores.sum(dtype=torch.float64)
        self.num_scores = self.num_scores + img.shape[0]

    def compute(self) -> Tensor:
        """The mean score (``"mean"``), or their sum (``"sum"`` and, as in torchmetrics, ``"none"``)."""
        return reduce_scores(self.sum_scores, self.num_scores, self.reduction).to(self.dtype)
