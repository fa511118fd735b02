"""Stateless regression metrics with torchmetrics 1.9 names, arguments and values.

Moment-based measures (MSE, NRMSE, R2, explained variance, RSE, Pearson, concordance) are computed from
float64 centred moments, so they stay accurate for data far from zero.

>>> import torch
>>> from lightning_metrics.functional.regression import r2_score
>>> r2_score(torch.tensor([2.5, 0.0, 2, 8]), torch.tensor([3, -0.5, 2, 7]))
tensor(0.9486)
"""

from lightning_metrics.functional.regression.divergence import (
    cosine_similarity,
    jensen_shannon_divergence,
    kl_divergence,
)
from lightning_metrics.functional.regression.errors import (
    continuous_ranked_probability_score,
    critical_success_index,
    log_cosh_error,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_log_error,
    minkowski_distance,
    symmetric_mean_absolute_percentage_error,
    tweedie_deviance_score,
    weighted_mean_absolute_percentage_error,
)
from lightning_metrics.functional.regression.moment_measures import (
    concordance_corrcoef,
    explained_variance,
    mean_squared_error,
    normalized_root_mean_squared_error,
    pearson_corrcoef,
    r2_score,
    relative_squared_error,
)
from lightning_metrics.functional.regression.ranks import kendall_rank_corrcoef, spearman_corrcoef

__all__ = [
    "concordance_corrcoef",
    "continuous_ranked_probability_score",
    "cosine_similarity",
    "critical_success_index",
    "explained_variance",
    "jensen_shannon_divergence",
    "kendall_rank_corrcoef",
    "kl_divergence",
    "log_cosh_error",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_squared_error",
    "mean_squared_log_error",
    "minkowski_distance",
    "normalized_root_mean_squared_error",
    "pearson_corrcoef",
    "r2_score",
    "relative_squared_error",
    "spearman_corrcoef",
    "symmetric_mean_absolute_percentage_error",
    "tweedie_deviance_score",
    "weighted_mean_absolute_percentage_error",
]
