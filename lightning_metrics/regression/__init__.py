"""Modular regression metrics with torchmetrics 1.9 names, arguments and values.

MSE, NRMSE, R2, explained variance, RSE, Pearson and concordance share one float64 moment statistic
(Chan-merged across batches and ranks), so a ``MetricCollection`` of them updates once per batch and
stays accurate for data far from zero.

>>> import torch
>>> from lightning_metrics.regression import R2Score
>>> r2 = R2Score()
>>> r2.update(torch.tensor([2.5, 0.0, 2, 8]), torch.tensor([3, -0.5, 2, 7]))
>>> r2.compute()
tensor(0.9486)
"""

from lightning_metrics.regression.divergence import CosineSimilarity, JensenShannonDivergence, KLDivergence
from lightning_metrics.regression.errors import (
    ContinuousRankedProbabilityScore,
    CriticalSuccessIndex,
    LogCoshError,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredLogError,
    MinkowskiDistance,
    SymmetricMeanAbsolutePercentageError,
    TweedieDevianceScore,
    WeightedMeanAbsolutePercentageError,
)
from lightning_metrics.regression.moments import (
    ConcordanceCorrCoef,
    ExplainedVariance,
    MeanSquaredError,
    NormalizedRootMeanSquaredError,
    PearsonCorrCoef,
    R2Score,
    RelativeSquaredError,
)
from lightning_metrics.regression.ranks import KendallRankCorrCoef, SpearmanCorrCoef

__all__ = [
    "ConcordanceCorrCoef",
    "ContinuousRankedProbabilityScore",
    "CosineSimilarity",
    "CriticalSuccessIndex",
    "ExplainedVariance",
    "JensenShannonDivergence",
    "KLDivergence",
    "KendallRankCorrCoef",
    "LogCoshError",
    "MeanAbsoluteError",
    "MeanAbsolutePercentageError",
    "MeanSquaredError",
    "MeanSquaredLogError",
    "MinkowskiDistance",
    "NormalizedRootMeanSquaredError",
    "PearsonCorrCoef",
    "R2Score",
    "RelativeSquaredError",
    "SpearmanCorrCoef",
    "SymmetricMeanAbsolutePercentageError",
    "TweedieDevianceScore",
    "WeightedMeanAbsolutePercentageError",
]
