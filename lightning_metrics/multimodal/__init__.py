"""Modular multimodal metrics (torchmetrics names and arguments). CLIP score and CLIP-IQA run a
``transformers`` CLIP model (``pip install 'lightning_metrics[transformers]'``), imported only when
one is built; a model is loaded by name or local path through ``from_pretrained`` (Hugging Face's
``HF_HUB_OFFLINE=1`` keeps it to the local cache), or given as a callable returning
``(model, processor)``.

>>> import torch
>>> from lightning_metrics.multimodal import LipVertexError
>>> gt = torch.zeros(2, 4, 3)
>>> LipVertexError(mouth_map=[0, 3])(gt + 1.0, gt)
tensor(3.)

Notes and differences from torchmetrics (multimodal)
----------------------------------------------------

``LipVertexError`` keeps a float64 sum and a count of the per-frame errors, whatever the number of
frames (torchmetrics keeps every predicted and ground-truth vertex until ``compute``); the mean is
returned in the widest dtype of the vertices seen, as torchmetrics returns its mean. With
``validate_args`` it also refuses NaN and infinite coordinates, a ``mouth_map`` index outside the
meshes (negative ones count from the end, as in torch's indexing) and non-integer indices.

``CLIPScore`` keeps a float64 sum and a count (torchmetrics: a float32 sum) and takes any CLIP
checkpoint path besides torchmetrics' names; ``CLIPImageQualityAssessment`` keeps the per-image
probabilities; both merge exactly (``full_state_update=False``), run their model in evaluation
mode without gradients whatever the mode of the module holding them, and read transformers 5's
``get_*_features`` output objects (torchmetrics 1.9 expects tensors). The default
``model_name_or_path="clip_iqa"`` of CLIP-IQA is ``piq``'s model (OpenAI's CLIP RN50), written
here without piq or torchvision (``lightning_metrics.networks.clip_resnet``, equal to piq's on the
same weights), its file through ``lightning_metrics.networks.weights`` (OpenAI's URL and published
checksum, torch.hub's cache, the ``LIGHTNING_METRICS_WEIGHTS`` folder); the tokenizer is
``openai/clip-vit-base-patch16``'s from ``transformers``, as in torchmetrics.
"""

from lightning_metrics import _compat
from lightning_metrics.multimodal.clip_iqa import CLIPImageQualityAssessment
from lightning_metrics.multimodal.clip_score import CLIPScore
from lightning_metrics.multimodal.lve import LipVertexError

__all__ = ["CLIPImageQualityAssessment", "CLIPScore", "LipVertexError"]

__getattr__ = _compat.module_getattr(__name__)
