"""Stateless retrieval metrics for one query (torchmetrics names and arguments).

>>> import torch
>>> from lightning_metrics.functional.retrieval import retrieval_normalized_dcg
>>> retrieval_normalized_dcg(torch.tensor([0.9, 0.2, 0.5]), torch.tensor([2, 0, 1]))
tensor(1.)
"""

from lightning_metrics.functional.retrieval.functions import (
    retrieval_auroc,
    retrieval_average_precision,
    retrieval_fall_out,
    retrieval_hit_rate,
    retrieval_normalized_dcg,
    retrieval_precision,
    retrieval_precision_recall_curve,
    retrieval_r_precision,
    retrieval_recall,
    retrieval_reciprocal_rank,
)

__all__ = [
    "retrieval_auroc",
    "retrieval_average_precision",
    "retrieval_fall_out",
    "retrieval_hit_rate",
    "retrieval_normalized_dcg",
    "retrieval_precision",
    "retrieval_precision_recall_curve",
    "retrieval_r_precision",
    "retrieval_recall",
    "retrieval_reciprocal_rank",
]
