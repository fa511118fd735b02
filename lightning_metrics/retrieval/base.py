"""torchmetrics' ``retrieval.base``: :class:`RetrievalMetric`, the base users subclass for their own
retrieval measure, and ``_retrieval_aggregate``, its aggregation of the per-query values.

A subclass written for torchmetrics runs unchanged: it calls ``super().__init__(empty_target_action=...,
ignore_index=..., aggregation=..., **kwargs)``, may add arguments of its own (``top_k``, ...) and
set ``self.allow_non_binary_target = True`` for graded relevance, and overrides
``_metric(preds, target)``, the value of one query. Every retrieval measure of
:mod:`lightning_metrics.retrieval` is a ``RetrievalMetric`` too (computing every query at once).

>>> import torch
>>> from lightning_metrics.retrieval.base import RetrievalMetric
>>> class PrecisionAtK(RetrievalMetric):
...     def __init__(self, top_k=2, **kwargs):
...         super().__init__(**kwargs)
...         self.top_k = top_k
...     def _metric(self, preds, target):
...         best = torch.argsort(preds, descending=True)[: self.top_k]
...         return target[best].sum() / self.top_k
>>> metric = PrecisionAtK(top_k=2, aggregation="max")
>>> preds, target = torch.tensor([0.9, 0.2, 0.4, 0.7]), torch.tensor([1, 0, 1, 1])
>>> metric.update(preds, target, indexes=torch.tensor([0, 0, 1, 1]))
>>> metric.compute()
tensor(1.)
>>> from lightning_metrics.retrieval import RetrievalMAP
>>> isinstance(RetrievalMAP(), RetrievalMetric)
True
"""

from __future__ import annotations

from typing import Callable, Literal, Optional, Union

from torch import Tensor

from lightning_metrics.functional.retrieval._inputs import aggregate
from lightning_metrics.retrieval._base import RetrievalMetric

__all__ = ["RetrievalMetric"]


def _retrieval_aggregate(
    values: Tensor,
    aggregation: Union[Literal["mean", "median", "min", "max"], Callable] = "mean",
    dim: Optional[int] = None,
) -> Tensor:
    """Aggregate per-query values: ``"mean"``, ``"median"``, ``"min"``, ``"max"`` or a callable
    ``fn(values, dim=dim)`` (torchmetrics' private helper, kept for code that imports it).

    >>> import torch
    >>> _retrieval_aggregate(torch.tensor([[0.2, 0.8], [0.4, 0.6]]), "max", dim=1)
    tensor([0.8000, 0.6000])
    """
    return aggregate(values, aggregation, dim)
