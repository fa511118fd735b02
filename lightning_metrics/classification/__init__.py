"""Modular classification metrics (torchmetrics names and arguments).

Notes and differences from torchmetrics (classification)
--------------------------------------------------------

Classification classes come as task wrappers (``Accuracy(task="multiclass", num_classes=10)``, also
at the top level: ``lightning_metrics.Accuracy``) and as ``Binary*``, ``Multiclass*`` and ``Multilabel*``
classes in ``lightning_metrics.classification``.
"""

from lightning_metrics.classification._fairness_metrics import *  # noqa: F403
from lightning_metrics.classification.counting import *  # noqa: F403
from lightning_metrics.classification.curves import *  # noqa: F403
from lightning_metrics.classification import _fairness_metrics, counting as _counting, curves as _curves

__all__ = [*_counting.__all__, *_curves.__all__, *_fairness_metrics.__all__]
