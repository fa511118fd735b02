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

Notes and differences from torchmetrics (nominal)
-------------------------------------------------

Each association metric is one formula over one ``num_classes x num_classes`` int64 contingency
table, its statistics computed in float64 once per compute; ``FleissKappa`` keeps three sums and a
row per update. Differences: nominal functions relabel the categories that occur, so any values
work (torchmetrics indexes by value and mixes up cells when values have gaps); the tables are exact
int64 (torchmetrics: float32, inexact past 2^24 counts); ``FleissKappa(mode="probs")`` works with
more categories than raters; computing before any update returns the empty-input value after the
usual warning (torchmetrics raises).
"""

from lightning_metrics.nominal import association as _association
from lightning_metrics.nominal import fleiss_kappa as _fleiss_kappa
from lightning_metrics.nominal.association import *  # noqa: F403
from lightning_metrics.nominal.fleiss_kappa import *  # noqa: F403

__all__ = [*_association.__all__, *_fleiss_kappa.__all__]
