"""Modular video metrics (torchmetrics names and arguments): VMAF through the optional
``vmaf-torch`` package (``pip install lightning_metrics[video]``).

Notes and differences from torchmetrics (video)
-----------------------------------------------

``VideoMultiMethodAssessmentFusion`` calls vmaf-torch (Netflix's features and default SVM model in
torch, the package torchmetrics uses; its model ships inside the package), one video at a time, on
the inputs' device. The per-frame values are kept (``cat`` states) as torchmetrics keeps them;
with ``validate_args`` (ours, default ``True``) a batch of the wrong shape or with a NaN or an
infinity raises before any state changes. float64 videos are scored in float64 (torchmetrics fails
on them).
"""

from lightning_metrics import _compat
from lightning_metrics.video.vmaf import VideoMultiMethodAssessmentFusion

__all__ = ["VideoMultiMethodAssessmentFusion"]

__getattr__ = _compat.module_getattr(__name__)
