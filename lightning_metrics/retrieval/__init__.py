"""Modular retrieval metrics (torchmetrics names and arguments): ``update(preds, target, indexes)``.

>>> import torch
>>> from lightning_metrics import MetricCollection
>>> from lightning_metrics.retrieval import RetrievalMAP, RetrievalNormalizedDCG
>>> metrics = MetricCollection({"map": RetrievalMAP(), "ndcg": RetrievalNormalizedDCG(top_k=2)})
>>> metrics.compute_groups  # one state, one ranking per compute
{0: ['map', 'ndcg']}
>>> preds, target = torch.tensor([0.9, 0.2, 0.6, 0.7]), torch.tensor([1, 0, 1, 0])
>>> metrics.update(preds, target, indexes=torch.tensor([5, 5, 9, 9]))
>>> metrics.compute()
{'map': tensor(0.7500), 'ndcg': tensor(0.8155)}
"""

from lightning_metrics.retrieval import curves as _curves
from lightning_metrics.retrieval import metrics as _metrics
from lightning_metrics.retrieval.curves import *  # noqa: F403
from lightning_metrics.retrieval.metrics import *  # noqa: F403

__all__ = [*_curves.__all__, *_metrics.__all__]
