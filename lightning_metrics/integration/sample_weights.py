"""Sample weights through the engine: a ``sample_weight`` key in a step's output reaches the metrics.

A step that returns ``{"preds": ..., "target": ..., "sample_weight": w}`` (the key is the engine's
``sample_weight_key``; ``None`` turns this off) has ``w`` passed as ``update(..., sample_weight=w)`` to
every metric whose ``update`` takes it, as Keras' ``compile(weighted_metrics=...)`` does; a metric that
does not take it is updated unweighted, and the engine warns once naming it. The weight travels in the
batch's record like the other inputs, so the ``DistributedSampler`` padding is dropped from it and
coalesced batches concatenate it. ``track_loss="sample"`` weighs each sample's loss by it too: a vector
of per-sample losses gives ``sum(w * loss) / sum(w)`` over the epoch, a scalar (batch mean) loss
weighs by the batch's total weight.

A step without the key updates the metrics unweighted (weight 1 per sample where other batches were
weighted). The rules of the weights themselves: :mod:`lightning_metrics.utilities.sample_weight`.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional

import torch
from torch import Tensor

from lightning_metrics.integration.inputs import Supplied, UpdateSignature

PARAMETER = "sample_weight"


def weighted_layout(layout: tuple) -> tuple:
    """The layout of a keys record with the weight appended (``("keys", n, stage, with_loss)``).

    >>> weighted_layout(("keys", 2, "val", False))
    ('keys', 3, 'val', 'sample_weight', False)
    """
    kind, size, stage, with_loss = layout
    return (kind, size + 1, stage, PARAMETER, with_loss)


class WeightedSupplier:
    """What a weighted record supplies: the keys' inputs, then ``sample_weight=`` (a class, so that a
    callback holding it pickles)."""

    def __init__(self, supplied_of: Callable[[str], Supplied], size: int, key: str) -> None:
        self.supplied_of, self.size, self.key = supplied_of, size, key

    def __call__(self, name: str) -> Supplied:
        plain = self.supplied_of(name)
        source = f"{plain.source} and its {self.key!r}"
        return Supplied(plain.positional, (*plain.keywords, (PARAMETER, self.size)), source)


def register(template: Any, layout: tuple, key: str) -> Optional[tuple]:
    """Let ``template`` (a :class:`~.stage_metrics.StageMetrics`) take weighted records of a keys ``layout``;
    returns their layout, or ``None`` when the stage's inputs already name ``key`` or ``sample_weight``."""
    supplied_of = template._suppliers.get(layout)
    if supplied_of is None:
        return None
    for name in template.names():
        supplied = supplied_of(name)
        if any(param == PARAMETER for param, _ in supplied.keywords) or repr(key) in dict(supplied.positional):
            return None
    weighted = weighted_layout(layout)
    template._suppliers[weighted] = WeightedSupplier(supplied_of, layout[1], key)
    return weighted


def unweighted_names(template: Any) -> list[str]:
    """The metrics of ``template`` whose ``update`` does not take ``sample_weight`` (the loss aside)."""
    names = []
    for name in template.names():
        metric = template.metric(name)
        if metric is None or metric is template.loss_metric:
            continue
        named = UpdateSignature.of(metric).named
        if named is not None and PARAMETER not in named:
            names.append(name)
    return names


def loss_weights(outputs: Any, key: Optional[str], keep: Optional[int]) -> Optional[Tensor]:
    """The per-sample weights of a batch's loss (padding dropped), or ``None`` without weights."""
    if key is None or not isinstance(outputs, Mapping) or key not in outputs:
        return None
    weight = torch.as_tensor(outputs[key]).detach().to(torch.float64)
    if weight.ndim == 0:
        return weight
    return weight[:keep] if keep is not None else weight


__all__ = ["PARAMETER", "WeightedSupplier", "loss_weights", "register", "unweighted_names", "weighted_layout"]
