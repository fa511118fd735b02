"""The step loss per stage, logged as ``"{stage}/loss"`` (the engine's ``track_loss``).

``track_loss="sample"`` gives the mean loss per sample over the epoch: each batch weighs by its
number of samples, so the value is the loss of the whole epoch's samples, not a mean of batch
means (which over-weighs a short last batch). Under DDP the ``DistributedSampler`` padding is
dropped: a step that returns per-sample losses (a vector, e.g. ``reduction="none"``) gives the
exact value of one process; a step that returns the batch mean weighs each batch by its real
samples (the mean itself still holds the few repeated samples of the padded batch: return the
vector where that matters). ``track_loss="batch"`` gives the mean of the batch losses (each
batch counts once; a batch of padding only is left out).

The loss comes from the step output's ``"loss"`` (or the output itself when the step returns a
tensor). It is a metric of the stage (:class:`StepLoss`, under the name ``loss``): it syncs in the
stage's one fused exchange, is checkpointed with the other states, and ``track_best=["val/loss"]``
tracks its minimum.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

import torch
from torch import Tensor

from lightning_metrics.integration.inputs import describe_output
from lightning_metrics.metric import Metric

MODES = ("sample", "batch")
NAME = "loss"


class StepLoss(Metric):
    """A weighted mean of step losses; sums in float64 whatever the precision of the losses.

    >>> import torch
    >>> loss = StepLoss()
    >>> loss.update(torch.tensor([0.5 * 4], dtype=torch.float64), torch.tensor([4.0], dtype=torch.float64))
    >>> loss.update(torch.tensor([2.0 * 1], dtype=torch.float64), torch.tensor([1.0], dtype=torch.float64))
    >>> loss.compute()
    tensor(0.8000)
    """

    full_state_update = False
    higher_is_better = False
    is_differentiable = False
    additive_update = True  # sums: batches concatenated give the same sums
    exact_dtype_states = ("total", "weight")

    def __init__(self) -> None:
        super().__init__()
        self.add_state("total", torch.tensor(0.0, dtype=torch.float64), dist_reduce_fx="sum")
        self.add_state("weight", torch.tensor(0.0, dtype=torch.float64), dist_reduce_fx="sum")

    def update(self, value: Tensor, weight: Tensor) -> None:
        self.total = self.total + value.sum()
        self.weight = self.weight + weight.sum()

    def compute(self) -> Tensor:
        return (self.total / self.weight).float()


def parse_track_loss(track_loss: Any, stages: tuple[str, ...]) -> dict[str, str]:
    """The mode per stage from ``track_loss``: False, True (``"sample"``), a mode, or a dict per stage.

    >>> parse_track_loss("batch", ("train", "val"))
    {'train': 'batch', 'val': 'batch'}
    >>> parse_track_loss({"val": "sample"}, ("train", "val"))
    {'val': 'sample'}
    """
    if track_loss is False or track_loss is None:
        return {}
    if track_loss is True:
        track_loss = "sample"
    if isinstance(track_loss, str):
        per_stage = {stage: track_loss for stage in stages}
    elif isinstance(track_loss, dict):
        per_stage = {str(stage): mode for stage, mode in track_loss.items() if mode not in (False, None)}
        for stage in per_stage:
            if stage not in stages:
                raise ValueError(f"Argument `track_loss`: {stage!r} is not a tracked stage {list(stages)}")
    else:
        raise TypeError(f"Argument `track_loss` must be a bool, 'sample', 'batch' or a dict per stage, got {track_loss!r}")
    for stage, mode in per_stage.items():
        if mode is True:
            per_stage[stage] = mode = "sample"
        if mode not in MODES:
            raise ValueError(f"Argument `track_loss` must be 'sample' or 'batch' (or a bool), got {mode!r} for {stage!r}")
    return per_stage


def batch_size(batch: Any) -> Optional[int]:
    """The number of samples of a batch: dim 0 of its first tensor (depth first), else the length
    of a list of plain items; ``None`` when neither is found.

    >>> import torch
    >>> batch_size((torch.zeros(5, 3), torch.zeros(5))), batch_size({"text": ["a", "b"]}), batch_size(3)
    (5, 2, None)
    """
    if isinstance(batch, Tensor):
        return int(batch.shape[0]) if batch.ndim else None
    if isinstance(batch, dict):
        items: Any = list(batch.values())
    elif isinstance(batch, (list, tuple)):
        items = batch
        if items and not any(isinstance(i, (Tensor, dict, list, tuple)) for i in items):
            return len(items)  # a list of strings or numbers: one per sample
    else:
        return None
    for item in items:
        found = batch_size(item)
        if found is not None:
            return found
    return None


def loss_inputs(loss: Any, mode: str, size: Optional[int], keep: Optional[int],
                weights: Optional[Tensor] = None) -> Optional[tuple[Tensor, Tensor]]:
    """``(value, weight)`` for :class:`StepLoss` from one step's loss, as 1-element float64 tensors
    (so batches coalesce); ``None`` for a batch of padding only.

    ``size`` is the batch's number of samples, ``keep`` how many of them are real (``None``: all).
    ``weights`` (mode ``"sample"``): the real samples' weights (or one for all), so that a vector of
    per-sample losses counts as ``sum(w * loss)`` over ``sum(w)`` and a batch mean by the batch's weight.

    >>> import torch
    >>> loss_inputs(torch.tensor(0.5), "sample", size=4, keep=None)
    (tensor([2.], dtype=torch.float64), tensor([4.], dtype=torch.float64))
    >>> loss_inputs(torch.tensor([0.5, 1.0, 3.0]), "sample", size=3, keep=2)  # per-sample losses, 1 padded
    (tensor([1.5000], dtype=torch.float64), tensor([2.], dtype=torch.float64))
    >>> loss_inputs(torch.tensor([0.5, 1.0, 3.0]), "batch", size=3, keep=2)
    (tensor([0.7500], dtype=torch.float64), tensor([1.], dtype=torch.float64))
    >>> loss_inputs(torch.tensor([0.5, 1.0]), "sample", size=2, keep=None, weights=torch.tensor([3.0, 1.0]))
    (tensor([2.5000], dtype=torch.float64), tensor([4.], dtype=torch.float64))
    """
    if weights is not None and mode == "sample":
        return _weighted_loss_inputs(torch.as_tensor(loss).detach(), size, keep, weights)
    loss = torch.as_tensor(loss).detach()
    if keep == 0:
        return None
    if loss.ndim == 1 and (loss.numel() > 1 or size == 1):  # one loss per sample
        if size is not None and loss.shape[0] != size:
            raise ValueError(f"the step's `loss` holds {loss.shape[0]} values for a batch of {size} samples")
        if keep is not None and keep < loss.shape[0]:
            loss = loss[:keep]
        total, count = loss.double().sum(), loss.shape[0]
        if mode == "batch":
            total, count = total / count, 1
    elif loss.numel() == 1:
        value = loss.double().reshape(())
        if mode == "batch":
            total, count = value, 1
        else:
            count = keep if keep is not None else size
            if count is None:
                raise ValueError("track_loss='sample': the batch size is unknown (no tensor in the batch)")
            total = value * count
    else:
        raise ValueError(
            f"the step's `loss` must be a scalar or a vector of per-sample losses, got shape {tuple(loss.shape)}"
        )
    weight = torch.tensor([float(count)], dtype=torch.float64, device=loss.device)
    return total.reshape(1), weight


def batch_loss_inputs(outputs: Any, batch: Any, mode: str, size: Optional[int], keep: Optional[int],
                      where: str, weights: Optional[Tensor] = None) -> tuple[Tensor, Tensor]:
    """The :class:`StepLoss` inputs of one batch from the step's output (its ``"loss"``, or the tensor
    itself); ``where`` starts the error messages."""
    loss = outputs if isinstance(outputs, Tensor) else outputs.get(NAME) if isinstance(outputs, Mapping) else None
    if loss is None:
        raise ValueError(
            f"{where}: track_loss={mode!r} reads the loss from what the step returns (its {NAME!r}, or the "
            f"tensor itself), but it returned {describe_output(outputs)}; return the loss, or leave the stage out "
            "of `track_loss`."
        )
    try:
        inputs = loss_inputs(loss, mode, size, keep, weights)
    except ValueError as err:
        raise ValueError(f"{where}: track_loss: {err}") from None
    if inputs is None:  # padding only: nothing to add
        zero = torch.zeros(1, dtype=torch.float64, device=torch.as_tensor(loss).device)
        return zero, zero
    return inputs


def _weighted_loss_inputs(loss: Tensor, size: Optional[int], keep: Optional[int],
                          weights: Tensor) -> Optional[tuple[Tensor, Tensor]]:
    """:func:`loss_inputs` of mode ``"sample"`` with per-sample ``weights`` (already without padding)."""
    from lightning_metrics.utilities.sample_weight import as_sample_weight

    if keep == 0:
        return None
    real = keep if keep is not None else size
    if loss.ndim == 1 and (loss.numel() > 1 or size == 1):
        if size is not None and loss.shape[0] != size:
            raise ValueError(f"the step's `loss` holds {loss.shape[0]} values for a batch of {size} samples")
        loss = loss[:real] if real is not None else loss
        weight = as_sample_weight(weights, loss.shape, device=loss.device)
        total, count = (loss.double() * weight).sum(), weight.sum()
    elif loss.numel() == 1:
        if real is None and weights.ndim:
            real = weights.shape[0]
        if real is None:
            raise ValueError("track_loss='sample': the batch size is unknown (no tensor in the batch)")
        count = as_sample_weight(weights, (real,), device=loss.device).sum()
        total = loss.double().reshape(()) * count
    else:
        raise ValueError(
            f"the step's `loss` must be a scalar or a vector of per-sample losses, got shape {tuple(loss.shape)}"
        )
    return total.reshape(1), count.reshape(1)


def add_loss_metric(template: Any, owner: str, stage: str) -> None:
    """Add a :class:`StepLoss` named ``loss`` to a stage's metrics (a :class:`~.stage_metrics.StageMetrics`)."""
    from lightning_metrics.collection import MetricCollection

    if NAME in template.names():
        raise ValueError(
            f"{owner}: track_loss logs the {stage!r} loss as {NAME!r}, but a metric is named so already; "
            "rename it, or leave the stage out of `track_loss`."
        )
    loss = StepLoss()
    if template.native is None:
        template.native = MetricCollection({NAME: loss})
    else:
        template.native.add_metrics({NAME: loss})
    template.loss_metric = loss
