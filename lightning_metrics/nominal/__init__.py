"""Nominal (categorical) association metrics and Fleiss' kappa, with torchmetrics 1.9's names,
arguments and values.

>>> import torch
>>> from lightning_metrics import MetricCollection
>>> from lightning_metrics.nominal import CramersV, TheilsU
>>> metrics = MetricCollection(
...     {"v": CramersV(num_classes=3, bias_correction=False), "u": TheilsU(num_classes=3)}
... )
>>> metrics.update(torch.tensor([0, 0, 1, 1, 2, 2]), torch.tensor([1, 1, 0, 0, 2, 2]))
>>> {k: v.item() for k, v in metrics.compute().items()}
{'u': 1.0, 'v': 1.0}

Notes and differences from torchmetrics (nominal and clustering)
----------------------------------------------------------------

Every label-based score is one formula over one contingency table
whose statistics are computed in float64 once per compute: a collection of nine clustering scores
updates one pair of states and builds one table. Memory: the label pairs for the clustering scores
(16 bytes per sample for int64 labels: cluster ids are arbitrary integers), a ``num_classes x
num_classes`` int64 table for the nominal metrics and ``ClusterAccuracy`` (its assignment is solved
in torch, no extra package), three sums and a row per update for ``FleissKappa``, the samples for
the embedding scores. Differences: nominal functions relabel the categories that occur, so any
values work (torchmetrics indexes by value and mixes up cells when values have gaps); the tables
are exact int64 (torchmetrics: float32, inexact past 2^24 counts); adjusted mutual information
sums its expected value in float64 (torchmetrics' float32 loop drifts at large N) and returns 1.0
where MI, its expectation and the normaliser coincide, as scikit-learn; adjusted Rand uses exact
integer pair counts (torchmetrics' int64 products overflow from about 300k samples);
``FleissKappa(mode="probs")`` works with more categories than raters; computing before any update
returns the empty-input value after the usual warning (torchmetrics raises).
"""

from lightning_metrics.nominal import association as _association
from lightning_metrics.nominal import fleiss_kappa as _fleiss_kappa
from lightning_metrics.nominal.association import *  # noqa: F403
from lightning_metrics.nominal.fleiss_kappa import *  # noqa: F403

__all__ = [*_association.__all__, *_fleiss_kappa.__all__]
