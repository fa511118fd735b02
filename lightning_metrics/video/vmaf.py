"""Modular VMAF: the per-frame values of
:func:`~lightning_metrics.functional.video.video_multi_method_assessment_fusion`, kept as
torchmetrics keeps them (``vmaf-torch``, an optional dependency: ``pip install lightning_metrics[video]``)."""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from lightning_metrics._input_checks import ValidatedInputs
from lightning_metrics.functional.video.vmaf import FEATURES, check_videos, require_vmaf_torch, vmaf_values
from lightning_metrics.metric import Metric
from lightning_metrics.utilities.checks import check_bool
from lightning_metrics.utilities.data import dim_zero_cat

_STATES = {"vmaf": "vmaf_score", **{name: name for name in FEATURES if name != "vmaf"}}  # key -> torchmetrics' state


class VideoMultiMethodAssessmentFusion(ValidatedInputs, Metric):
    """VMAF of the distorted videos ``preds`` against the reference videos ``target`` (RGB,
    ``(batch, 3, frames, height, width)`` in ``[0, 1]``): ``compute`` gives the score of every frame
    seen, ``(videos, frames)``, or with ``features`` a dict of ``"vmaf"`` and every elementary
    feature (ADM, VIF, motion), each ``(videos, frames)``. Batches must share the number of frames.

    Needs ``vmaf-torch`` (``pip install lightning_metrics[video]``): the constructor says so when it
    is missing.

    >>> import torch
    >>> from lightning_metrics.video import VideoMultiMethodAssessmentFusion
    >>> preds = torch.rand(2, 3, 10, 32, 32, generator=torch.manual_seed(42))
    >>> target = torch.rand(2, 3, 10, 32, 32, generator=torch.manual_seed(43))
    >>> vmaf = VideoMultiMethodAssessmentFusion()
    >>> vmaf.update(preds[:1], target[:1])
    >>> vmaf.update(preds[1:], target[1:])
    >>> vmaf.compute()[:, :4].round(decimals=2)
    tensor([[ 9.9900, 15.9000, 14.2600, 16.6100],
            [ 6.2500, 11.3000, 17.3000, 11.4600]])
    """

    is_differentiable = False
    higher_is_better = True
    full_state_update = False
    plot_lower_bound: float | None = 0.0
    plot_upper_bound: float | None = 100.0

    def __init__(self, features: bool = False, **kwargs: Any) -> None:
        self._configure(locals())

    def _build(self) -> None:
        require_vmaf_torch(type(self).__name__)
        check_bool("features", self.features)
        for state in (_STATES.values() if self.features else ("vmaf_score",)):
            self.add_state(state, [], dist_reduce_fx="cat")

    def update(self, preds: Tensor, target: Tensor) -> None:
        """Add the per-frame values of one batch of videos (bad shapes, and with ``validate_args``
        NaN or infinite values, raise before any state changes)."""
        check_videos(preds, target)
        self._check_finite(("preds", preds), ("target", target))
        values = vmaf_values(preds, target, self.features)
        if isinstance(values, Tensor):
            self.vmaf_score.append(values)
            return
        for key, state in _STATES.items():
            getattr(self, state).append(values[key])

    def _values(self, state: str) -> Tensor:
        kept = getattr(self, state)
        if isinstance(kept, Tensor):
            return kept
        return dim_zero_cat(kept) if kept else torch.zeros(0, device=self.device)

    def compute(self) -> Tensor | dict[str, Tensor]:
        """The values of every frame seen: a tensor ``(videos, frames)``, or the dict of features."""
        if self.features:
            return {key: self._values(state) for key, state in _STATES.items()}
        return self._values("vmaf_score")
