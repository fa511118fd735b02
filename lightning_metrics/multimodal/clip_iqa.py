"""Modular CLIP-IQA: the prompts' embeddings are computed once (the ``anchors`` buffer, as in
torchmetrics); each ``update`` keeps its images' probabilities (a ``cat`` state of tensors)."""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from lightning_metrics.functional.multimodal.clip_iqa import (
    _MODEL_NAMES,
    anchor_vectors,
    as_result,
    check_data_range,
    check_images,
    format_prompts,
    image_features,
    load_model,
    probabilities,
)
from lightning_metrics.metric import Metric
from lightning_metrics.plotting import _methods as _plot_methods


class CLIPImageQualityAssessment(Metric):
    """CLIP-IQA of every image seen (torchmetrics' ``CLIPImageQualityAssessment``); arguments as
    :func:`~lightning_metrics.functional.multimodal.clip_iqa.clip_image_quality_assessment`.
    ``compute`` returns the per-image probabilities: a tensor for one prompt, a dict for several.

    >>> import torch
    >>> from transformers import CLIPConfig, CLIPModel
    >>> _ = torch.manual_seed(0)
    >>> model = CLIPModel(CLIPConfig(
    ...     text_config=dict(vocab_size=20, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
    ...                      num_attention_heads=2),
    ...     vision_config=dict(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
    ...                        image_size=32, patch_size=8)))
    >>> def processor(text=None, images=None, **kwargs):  # a stand-in: letters as token ids, images as they are
    ...     if images is not None:
    ...         return {"pixel_values": torch.stack(images)}
    ...     ids = torch.tensor([[ord(c) % 20 for c in t[:8].ljust(8)] for t in text])
    ...     return {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
    >>> metric = CLIPImageQualityAssessment(lambda: (model, processor), prompts=("quality", "sharpness"))
    >>> metric.update(torch.rand(2, 3, 32, 32))
    >>> metric.update(torch.rand(1, 3, 32, 32))
    >>> {name: value.shape for name, value in metric.compute().items()}
    {'quality': torch.Size([3]), 'sharpness': torch.Size([3])}
    >>> CLIPImageQualityAssessment()  # piq's CLIP RN50 (downloaded) and the hub's tokenizer  # doctest: +SKIP
    """

    is_differentiable: bool = False
    higher_is_better: bool = True
    full_state_update: bool = False
    plot_lower_bound = 0.0
    plot_upper_bound = 100.0
    feature_network: str = "model"
    plot = _plot_methods.plot_value

    def __init__(
        self,
        model_name_or_path: _MODEL_NAMES | str | Any = "clip_iqa",
        data_range: float = 1.0,
        prompts: tuple[str | tuple[str, str], ...] = ("quality",),
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        check_data_range(data_range)
        self.data_range = data_range
        self.prompts_list, self.prompts_name = format_prompts(prompts)
        self.model, self.processor = load_model(model_name_or_path)
        self.model_name_or_path = model_name_or_path
        anchors = anchor_vectors(
            model_name_or_path, self.model, self.processor, self.prompts_list, self.device
        )
        self.register_buffer("anchors", anchors)
        self.add_state("probs_list", [], dist_reduce_fx="cat")

    def update(self, images: Tensor) -> None:
        """Keep the probabilities of the batch's images ``(N, C, H, W)``."""
        check_images(images)
        device = self.anchors.device
        features = image_features(
            self.model_name_or_path, images, self.model, self.processor, self.data_range, device
        )
        self.probs_list.append(probabilities(features.to(device), self.anchors).to(self.device))

    def compute(self) -> Tensor | dict[str, Tensor]:
        """The probabilities of every image: a tensor (one prompt) or a dict by prompt name."""
        probs = self.probs_list
        if not isinstance(probs, Tensor):
            probs = torch.cat(probs) if probs else torch.zeros(0, len(self.prompts_name), device=self.device)
        return as_result(probs, self.prompts_name)
