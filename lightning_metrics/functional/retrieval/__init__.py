"""Stateless retrieval metrics for one query (torchmetrics names and arguments).

>>> import torch
>>> from lightning_metrics.functional.retrieval import retrieval_normalized_dcg
>>> retrieval_normalized_dcg(torch.tensor([0.9, 0.2, 0.5]), torch.tensor([2, 0, 1]))
tensor(1.)
"""

from lightning_metrics.functional.retrieval import functions as _functions
from lightning_metrics.functional.retrieval.functions import *  # noqa: F403

__all__ = [*_functions.__all__]
