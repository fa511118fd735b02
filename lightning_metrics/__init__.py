"""Exact, fast, torchmetrics-compatible metrics for PyTorch Lightning.

>>> import torch, lightning_metrics as lm
>>> mean = lm.aggregation.MeanMetric()
>>> mean.update(torch.tensor([1.0, 2.0, 3.0]))
>>> mean.compute()
tensor(2.)
"""

from typing import Any

from lightning_metrics import aggregation, functional, utilities
from lightning_metrics.collection import MetricCollection
from lightning_metrics.metric import CompositionalMetric, Metric

# --- classification task wrappers (top level, as in torchmetrics) ---
from lightning_metrics.classification.counting import (  # noqa: E402
    StatScores,
    Accuracy,
    Precision,
    Recall,
    F1Score,
    FBetaScore,
    Specificity,
    NegativePredictiveValue,
    HammingDistance,
    ExactMatch,
    JaccardIndex,
    MatthewsCorrCoef,
    CohenKappa,
    ConfusionMatrix,
)
from lightning_metrics.classification.curves import (  # noqa: E402
    AUROC,
    EER,
    ROC,
    AveragePrecision,
    CalibrationError,
    HingeLoss,
    LogAUC,
    PrecisionAtFixedRecall,
    PrecisionRecallCurve,
    RecallAtFixedPrecision,
    SensitivityAtSpecificity,
    SpecificityAtSensitivity,
)
# --- end classification task wrappers ---

_LAZY = {
    # The Lightning integration imports lightning; keep `import lightning_metrics` light.
    "MetricsCallback": "lightning_metrics.integration",
    "MetricsMixin": "lightning_metrics.integration",
    "classification": "lightning_metrics.classification",
    "regression": "lightning_metrics.regression",
    "wrappers": "lightning_metrics.wrappers",
    "integration": "lightning_metrics.integration",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module = importlib.import_module(_LAZY[name])
        return module if module.__name__.endswith(name) else getattr(module, name)
    raise AttributeError(f"module 'lightning_metrics' has no attribute {name!r}")


__all__ = [
    "Metric",
    "CompositionalMetric",
    "MetricCollection",
    "MetricsCallback",
    "MetricsMixin",
    "aggregation",
    "classification",
    "functional",
    "regression",
    "utilities",
    "wrappers",
    "StatScores",
    "Accuracy",
    "Precision",
    "Recall",
    "F1Score",
    "FBetaScore",
    "Specificity",
    "NegativePredictiveValue",
    "HammingDistance",
    "ExactMatch",
    "JaccardIndex",
    "MatthewsCorrCoef",
    "CohenKappa",
    "ConfusionMatrix",
    "AUROC",
    "AveragePrecision",
    "CalibrationError",
    "EER",
    "HingeLoss",
    "LogAUC",
    "PrecisionAtFixedRecall",
    "PrecisionRecallCurve",
    "ROC",
    "RecallAtFixedPrecision",
    "SensitivityAtSpecificity",
    "SpecificityAtSensitivity",
]
__version__ = "0.1.0"
