"""Clustering scores as functions, with torchmetrics 1.9's names, arguments and values.

Label-based scores compare two labelings through their contingency table (cluster ids may be any
integers); the embedding-based scores judge one labeling of embedded data.

>>> import torch
>>> from lightning_metrics.functional.clustering import adjusted_rand_score
>>> adjusted_rand_score(torch.tensor([0, 0, 1, 1]), torch.tensor([5, 5, 7, 7]))
tensor(1.)
"""

from lightning_metrics.functional.clustering import embeddings as _embeddings
from lightning_metrics.functional.clustering import labels as _labels
from lightning_metrics.functional.clustering.embeddings import *  # noqa: F403
from lightning_metrics.functional.clustering.labels import *  # noqa: F403

# torchmetrics' ``functional.clustering.adjusted_mutual_info_score.expected_mutual_info_score``: its
# path is served from this package (lightning_metrics._compat), not star-exported (torchmetrics does not)
from lightning_metrics.functional.clustering.utils import expected_mutual_info_score  # noqa: E402,F401

__all__ = [*_embeddings.__all__, *_labels.__all__]
