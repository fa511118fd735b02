"""Modular permutation invariant training: a float64 sum and a count of the best per-mixture values."""

from __future__ import annotations

from typing import Any, Callable, Optional

from torch import Tensor

from lightning_metrics._per_sample import PerSampleMetric
from lightning_metrics.functional.audio.pit import check_pit_args, permutation_invariant_training

# the Metric arguments torchmetrics' PIT keeps for itself, and ``validate_args`` (ours: the check of
# NaN and infinite inputs); every other keyword goes to metric_func
_METRIC_KWARGS = ("dist_sync_on_step", "process_group", "dist_sync_fn", "validate_args")


class PermutationInvariantTraining(PerSampleMetric):
    """Mean over mixtures of the best ``metric_func`` value over speaker permutations (see
    :func:`~lightning_metrics.functional.audio.permutation_invariant_training`). As in torchmetrics,
    keywords other than ``dist_sync_on_step``, ``process_group`` and ``dist_sync_fn`` are passed to
    ``metric_func``, but for ``validate_args`` (default ``True``): NaN or infinite signals raise before
    the state changes, ``False`` skips that check and its host read (torchmetrics has no such check).

    >>> import torch
    >>> from lightning_metrics.audio import PermutationInvariantTraining
    >>> from lightning_metrics.functional.audio import scale_invariant_signal_distortion_ratio
    >>> target = torch.stack([torch.arange(32.0).sin(), torch.arange(32.0).cos()]).unsqueeze(0)
    >>> pit = PermutationInvariantTraining(scale_invariant_signal_distortion_ratio)
    >>> pit(target.flip(1) + 0.1, target)
    tensor(17.0026)
    """

    higher_is_better: Optional[bool] = None
    plot_lower_bound: Optional[float] = None
    plot_upper_bound: Optional[float] = None

    def __init__(
        self,
        metric_func: Callable,
        mode: str = "speaker-wise",
        eval_func: str = "max",
        **kwargs: Any,
    ) -> None:
        metric_kwargs = {k: v for k, v in kwargs.items() if k not in _METRIC_KWARGS}
        kwargs = {k: v for k, v in kwargs.items() if k in _METRIC_KWARGS}
        self._configure(locals())

    metric_kwargs: dict

    def _check_args(self) -> None:
        if not callable(self.metric_func):
            raise ValueError(f"Argument `metric_func` must be callable, got {self.metric_func!r}")
        check_pit_args(self.mode, self.eval_func)
        self.kwargs = self.metric_kwargs  # torchmetrics' attribute name

    def _values(self, preds: Tensor, target: Tensor) -> Tensor:
        return permutation_invariant_training(
            preds, target, self.metric_func, self.mode, self.eval_func, **self.metric_kwargs
        )[0]
