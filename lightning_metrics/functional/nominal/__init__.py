"""Association measures between categorical variables, and Fleiss' kappa, as functions
(torchmetrics 1.9's names, arguments and values).

>>> import torch
>>> from lightning_metrics.functional.nominal import cramers_v
>>> cramers_v(torch.tensor([0, 0, 1, 1, 2, 2]), torch.tensor([1, 1, 0, 0, 2, 2]), bias_correction=False)
tensor(1.)
"""

from lightning_metrics.functional.nominal.association import (
    cramers_v,
    cramers_v_matrix,
    pearsons_contingency_coefficient,
    pearsons_contingency_coefficient_matrix,
    theils_u,
    theils_u_matrix,
    tschuprows_t,
    tschuprows_t_matrix,
)
from lightning_metrics.functional.nominal.fleiss_kappa import fleiss_kappa

__all__ = [
    "cramers_v",
    "cramers_v_matrix",
    "fleiss_kappa",
    "pearsons_contingency_coefficient",
    "pearsons_contingency_coefficient_matrix",
    "theils_u",
    "theils_u_matrix",
    "tschuprows_t",
    "tschuprows_t_matrix",
]
