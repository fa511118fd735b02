"""Stateless multimodal metrics (torchmetrics names and arguments). CLIP score and CLIP-IQA run a
``transformers`` CLIP model (``pip install 'lightning_metrics[transformers]'``), imported only when
called.

>>> import torch
>>> from lightning_metrics.functional.multimodal import lip_vertex_error
>>> gt = torch.zeros(2, 4, 3)
>>> lip_vertex_error(gt + 1.0, gt, mouth_map=[0, 3])
tensor(3.)
"""

from lightning_metrics import _compat
from lightning_metrics.functional.multimodal.clip_iqa import clip_image_quality_assessment
from lightning_metrics.functional.multimodal.clip_score import clip_score
from lightning_metrics.functional.multimodal.lve import lip_vertex_error

__all__ = ["clip_image_quality_assessment", "clip_score", "lip_vertex_error"]

__getattr__ = _compat.module_getattr(__name__)
