"""Modular CLIP score: a float64 sum of the pairs' scores and their count (``sum`` states), so that
a DDP run equals a single-process one and ``forward`` updates once."""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from lightning_metrics.functional.multimodal.clip_score import (
    Data,
    ModelSource,
    clip_score_values,
    load_clip,
)
from lightning_metrics.metric import Metric
from lightning_metrics.plotting import _methods as _plot_methods


class CLIPScore(Metric):
    """The mean CLIP score of every (source, target) pair seen, floored at 0 (torchmetrics' ``CLIPScore``).

    ``model_name_or_path`` is a CLIP model name or local checkpoint (``transformers``), or a callable
    returning ``(model, processor)``; the model is the submodule ``model``. ``update(source, target)``
    takes images (``(N, C, H, W)``, ``(C, H, W)`` or a list of ``(C, H, W)``) or texts on either side.

    >>> import torch
    >>> from transformers import CLIPConfig, CLIPModel
    >>> _ = torch.manual_seed(0)
    >>> model = CLIPModel(CLIPConfig(
    ...     text_config=dict(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2),
    ...     vision_config=dict(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
    ...                        image_size=32, patch_size=8)))
    >>> processor = lambda images, **kwargs: {"pixel_values": torch.stack(images)}  # images already 32x32
    >>> metric = CLIPScore(model_name_or_path=lambda: (model, processor))
    >>> images = torch.rand(4, 3, 32, 32)
    >>> metric.update(images, images)
    >>> metric.compute()
    tensor(100.0000)
    >>> CLIPScore("openai/clip-vit-base-patch16")  # doctest: +SKIP
    """

    is_differentiable: bool = False
    higher_is_better: bool = True
    full_state_update: bool = False
    plot_lower_bound: float = 0.0
    plot_upper_bound = 100.0
    feature_network: str = "model"
    exact_dtype_states = ("score",)
    plot = _plot_methods.plot_value

    def __init__(
        self, model_name_or_path: ModelSource = "openai/clip-vit-large-patch14", **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.model, self.processor = load_clip(model_name_or_path)
        self.add_state("score", torch.tensor(0.0, dtype=torch.float64), dist_reduce_fx="sum")
        self.add_state("n_samples", torch.tensor(0, dtype=torch.long), dist_reduce_fx="sum")

    def update(self, source: Data, target: Data) -> None:
        """Add the batch's pair scores."""
        scores = clip_score_values(source, target, self.model, self.processor)
        self.score = self.score + scores.detach().double().sum().to(self.score.device)
        self.n_samples = self.n_samples + scores.shape[0]

    def compute(self) -> Tensor:
        """The mean score, floored at 0 (NaN before any pair)."""
        score = (self.score / self.n_samples).float()
        return torch.max(score, torch.zeros_like(score))
