"""Stateless video metrics (torchmetrics names and arguments): VMAF through the optional
``vmaf-torch`` package (``pip install lightning_metrics[video]``), imported only when called.

>>> import torch
>>> from lightning_metrics.functional.video import calculate_luma
>>> calculate_luma(torch.ones(1, 3, 1, 2, 2)).flatten()
tensor([255., 255., 255., 255.])
"""

from lightning_metrics import _compat
from lightning_metrics.functional.video.vmaf import calculate_luma, video_multi_method_assessment_fusion

__all__ = ["calculate_luma", "video_multi_method_assessment_fusion"]

__getattr__ = _compat.module_getattr(__name__)
