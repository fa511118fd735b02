"""Association measures between categorical variables, and Fleiss' kappa, as functions
(torchmetrics 1.9's names, arguments and values).

>>> import torch
>>> from lightning_metrics.functional.nominal import cramers_v
>>> cramers_v(torch.tensor([0, 0, 1, 1, 2, 2]), torch.tensor([1, 1, 0, 0, 2, 2]), bias_correction=False)
tensor(1.)
"""

# the modules first: the function ``fleiss_kappa`` then takes the name of its module
from lightning_metrics.functional.nominal import association as _association
from lightning_metrics.functional.nominal import fleiss_kappa as _fleiss_kappa
from lightning_metrics.functional.nominal.association import *  # noqa: F403
from lightning_metrics.functional.nominal.fleiss_kappa import *  # noqa: F403

__all__ = [*_association.__all__, *_fleiss_kappa.__all__]
