"""Exact, fast, torchmetrics-compatible metrics for PyTorch Lightning.

Every name that torchmetrics exports at its top level and that we implement is here too, loaded
on first use (``import lightning_metrics`` imports neither Lightning nor any metric domain):

>>> import torch, lightning_metrics as lm
>>> mean = lm.MeanMetric()
>>> mean.update(torch.tensor([1.0, 2.0, 3.0]))
>>> mean.compute()
tensor(2.)
>>> from lightning_metrics import Accuracy, MeanSquaredError, MetricTracker
>>> Accuracy(task="multiclass", num_classes=3)
MulticlassAccuracy()
"""

from lightning_metrics import _compat
from lightning_metrics.integration import interop as _interop  # the torchmetrics hook; imports no Lightning
from lightning_metrics.collection import MetricCollection  # noqa: F401 (public)
from lightning_metrics.metric import CompositionalMetric, Metric  # noqa: F401 (public)

_compat.install()  # torchmetrics' module paths
_interop.install()  # isinstance(metric, torchmetrics.Metric), for Lightning's self.log

# Names of ours beside torchmetrics', for ``__all__`` and lazy loading (the Lightning doors
# import lightning, so they load on first use).
_OWN = {
    "CompositionalMetric": "lightning_metrics.metric",
    "EER": "lightning_metrics.classification",  # a task wrapper torchmetrics keeps out of its top level
    "MetricsCallback": "lightning_metrics.integration",
    "MetricsMixin": "lightning_metrics.integration",
    "integration": "lightning_metrics.integration",
    "plotting": "lightning_metrics.plotting",
}
__getattr__ = _compat.module_getattr(__name__, _OWN)
__version__ = "0.1.0"
