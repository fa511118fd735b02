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

Notes and differences from torchmetrics (retrieval)
---------------------------------------------------

``compute`` sorts all documents once by (query, score) and reads every per-query
value from segment sums: no Python loop over queries. A collection of retrieval metrics holds the
documents once (16 bytes per document: an int64 query id, float32 score and relevance) and ranks
them once per compute. Query ids may be any int64 values (nothing of size ``max(indexes)`` is
allocated); under DDP the documents of all ranks are gathered, so a query spread over ranks gets
exactly its single-process value. Differences: among tied scores a non-relevant document ranks
before a relevant one, so values never depend on the order documents arrive in (torchmetrics'
order among ties depends on its sort, so its AP, MRR or precision@k of tied scores can change when
the input is permuted; without ties across relevance the values are the same); an empty batch
adds nothing (torchmetrics raises); binary metrics accept 0/1 targets of any dtype and refuse any
other value (torchmetrics silently weighs 0.5); ``validate_args=False`` skips the value checks and
reads nothing back in ``update``; ``compute`` before any update returns 0 after the usual warning.
"""

from lightning_metrics.retrieval import curves as _curves
from lightning_metrics.retrieval import metrics as _metrics
from lightning_metrics.retrieval.curves import *  # noqa: F403
from lightning_metrics.retrieval.metrics import *  # noqa: F403

__all__ = [*_curves.__all__, *_metrics.__all__]
