"""CLIP-IQA: how much more an image's CLIP embedding resembles the positive prompt of a pair
("Good photo.") than the negative one ("Bad photo."), as a probability (torchmetrics' ``clip_iqa``).

``model_name_or_path="clip_iqa"`` is the model torchmetrics takes from the ``piq`` package, OpenAI's
CLIP RN50, written here (:class:`~lightning_metrics.networks.clip_resnet.CLIPResNet`: no piq, no
torchvision) with its weights through :mod:`lightning_metrics.networks.weights`, and the CLIP
tokenizer of ``openai/clip-vit-base-patch16`` from ``transformers`` (as torchmetrics); any other
value is a ``transformers`` CLIP model as for CLIP score (a name, a local checkpoint, or a callable
returning ``(model, processor)``).
"""

from __future__ import annotations

from typing import Any, Literal

import torch
from torch import Tensor

from lightning_metrics import _transformers as hf
from lightning_metrics.functional.multimodal.clip_score import load_clip

_WHAT = "CLIPImageQualityAssessment"
_PROMPTS: dict[str, tuple[str, str]] = {
    "quality": ("Good photo.", "Bad photo."),
    "brightness": ("Bright photo.", "Dark photo."),
    "noisiness": ("Clean photo.", "Noisy photo."),
    "colorfullness": ("Colorful photo.", "Dull photo."),
    "sharpness": ("Sharp photo.", "Blurry photo."),
    "contrast": ("High contrast photo.", "Low contrast photo."),
    "complexity": ("Complex photo.", "Simple photo."),
    "natural": ("Natural photo.", "Synthetic photo."),
    "happy": ("Happy photo.", "Sad photo."),
    "scary": ("Scary photo.", "Peaceful photo."),
    "new": ("New photo.", "Old photo."),
    "warm": ("Warm photo.", "Cold photo."),
    "real": ("Real photo.", "Abstract photo."),
    "beautiful": ("Beautiful photo.", "Ugly photo."),
    "lonely": ("Lonely photo.", "Sociable photo."),
    "relaxing": ("Relaxing photo.", "Stressful photo."),
}
_MODEL_NAMES = Literal[
    "clip_iqa",
    "openai/clip-vit-base-patch16",
    "openai/clip-vit-base-patch32",
    "openai/clip-vit-large-patch14-336",
    "openai/clip-vit-large-patch14",
]
_CLIP_MEAN = (0.48145466, 0.4578275, 0.40821073)
_CLIP_STD = (0.26862954, 0.26130258, 0.27577711)


def format_prompts(prompts: Any) -> tuple[list[str], list[str]]:
    """The prompt texts (positive, negative, ...) and the result names of ``prompts``.

    >>> format_prompts(("quality", ("Photo of a cat", "Photo of a dog")))
    (['Good photo.', 'Bad photo.', 'Photo of a cat', 'Photo of a dog'], ['quality', 'user_defined_0'])
    """
    if not isinstance(prompts, tuple):
        raise ValueError(  # noqa: TRY004  (torchmetrics raises ValueError for its arguments)
            f"Argument `prompts` must be a tuple containing strings or tuples of strings, got {prompts!r}"
        )
    texts: list[str] = []
    names: list[str] = []
    for p in prompts:
        if isinstance(p, str):
            if p not in _PROMPTS:
                raise ValueError(
                    f"All elements of `prompts` must be one of {tuple(_PROMPTS)} if not custom tuple prompts, got {p!r}"
                )
            names.append(p)
            texts.extend(_PROMPTS[p])
        elif isinstance(p, tuple):
            if len(p) != 2 or not all(isinstance(x, str) for x in p):
                raise ValueError(
                    f"A tuple in argument `prompts` must hold 2 strings (positive, negative), got {p!r}"
                )
            names.append(f"user_defined_{sum(n.startswith('user_defined_') for n in names)}")
            texts.extend(p)
        else:
            raise ValueError(  # noqa: TRY004  (torchmetrics raises ValueError for its arguments)
                f"Argument `prompts` must be a tuple containing strings or tuples of strings, got the element {p!r}"
            )
    return texts, names


def check_data_range(data_range: Any) -> None:
    if isinstance(data_range, bool) or not isinstance(data_range, (int, float)) or not data_range > 0:
        raise ValueError(f"Argument `data_range` should be a positive number, got {data_range!r}")


def load_model(model_name_or_path: Any) -> tuple[Any, Any]:
    """``(model, processor)``: the CLIP RN50 of piq's CLIP-IQA for ``"clip_iqa"`` (see the module), a
    transformers CLIP otherwise."""
    if model_name_or_path != "clip_iqa":
        return load_clip(model_name_or_path, _WHAT)
    from lightning_metrics.networks import network

    return network("clip-rn50"), default_processor()


def default_processor() -> Any:
    """The CLIP tokenizer torchmetrics uses with ``"clip_iqa"`` (any CLIP checkpoint's is the same)."""
    return hf.load(_WHAT, "CLIPProcessor", "openai/clip-vit-base-patch16")


def anchor_vectors(
    model_name_or_path: Any, model: Any, processor: Any, prompts: list[str], device: Any
) -> Tensor:
    """The normalised text embeddings of the prompts (rows)."""
    with hf.evaluating(model):
        if model_name_or_path == "clip_iqa":
            ids = processor(text=prompts)["input_ids"]
            tokens = torch.zeros(
                len(prompts), processor.tokenizer.model_max_length, dtype=torch.long, device=device
            )
            for i, row in enumerate(ids):
                tokens[i, : len(row)] = torch.tensor(row, dtype=torch.long, device=device)
            anchors = model.encode_text(tokens).float()
        else:
            processed = processor(text=prompts, return_tensors="pt", padding=True)
            anchors = hf.features(
                model.get_text_features(
                    processed["input_ids"].to(device), processed["attention_mask"].to(device)
                )
            )
    return anchors / anchors.norm(p=2, dim=-1, keepdim=True)


def check_images(images: Any) -> None:
    if not isinstance(images, Tensor) or images.ndim != 4:
        shape = tuple(images.shape) if isinstance(images, Tensor) else type(images).__name__
        raise ValueError(f"Argument `images` must be a tensor of shape (N, C, H, W), got {shape}")


def image_features(
    model_name_or_path: Any, images: Tensor, model: Any, processor: Any, data_range: float, device: Any
) -> Tensor:
    """The normalised embeddings of the images (rows), scaled to [0, 1] by ``data_range`` first."""
    images = images / float(data_range)
    with hf.evaluating(model):
        if model_name_or_path == "clip_iqa":
            mean = torch.tensor(_CLIP_MEAN, device=device).view(1, 3, 1, 1)
            std = torch.tensor(_CLIP_STD, device=device).view(1, 3, 1, 1)
            features = model.encode_image(
                ((images.to(device) - mean) / std).float(), pos_embedding=False
            ).float()
        else:
            processed = processor(images=[i.cpu() for i in images], return_tensors="pt", padding=True)
            features = hf.features(model.get_image_features(processed["pixel_values"].to(device)))
    return features / features.norm(p=2, dim=-1, keepdim=True)


def probabilities(features: Tensor, anchors: Tensor) -> Tensor:
    """(images, prompt pairs): the softmax weight of each pair's positive prompt."""
    logits = 100 * features @ anchors.t()
    return logits.reshape(logits.shape[0], -1, 2).softmax(-1)[:, :, 0]


def as_result(probs: Tensor, names: list[str]) -> Tensor | dict[str, Tensor]:
    """One prompt: the probabilities squeezed; several: a dict by prompt name."""
    if len(names) == 1:
        return probs.squeeze()
    return {name: probs[:, i] for i, name in enumerate(names)}


def clip_image_quality_assessment(
    images: Tensor,
    model_name_or_path: _MODEL_NAMES | str | Any = "clip_iqa",
    data_range: float = 1.0,
    prompts: tuple[str | tuple[str, str], ...] = ("quality",),
) -> Tensor | dict[str, Tensor]:
    """CLIP-IQA of each image ``(N, C, H, W)``: per prompt, the probability of its positive text.

    ``prompts`` holds built-in names (``"quality"``, ``"brightness"``, ``"noisiness"``, ``"colorfullness"``,
    ``"sharpness"``, ``"contrast"``, ``"complexity"``, ``"natural"``, ``"happy"``, ``"scary"``, ``"new"``,
    ``"warm"``, ``"real"``, ``"beautiful"``, ``"lonely"``, ``"relaxing"``) and ``(positive, negative)``
    pairs of the user's (named ``user_defined_0``, ...). One prompt gives a tensor; several a dict.

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
    >>> out = clip_image_quality_assessment(torch.rand(2, 3, 32, 32), lambda: (model, processor),
    ...                                     prompts=("quality", ("Photo of a cat", "Photo of a dog")))
    >>> sorted(out), out["quality"].shape
    (['quality', 'user_defined_0'], torch.Size([2]))
    >>> clip_image_quality_assessment(torch.rand(2, 3, 224, 224))  # doctest: +SKIP
    """
    texts, names = format_prompts(prompts)
    check_data_range(data_range)
    check_images(images)
    model, processor = load_model(model_name_or_path)
    device = images.device
    if isinstance(model, torch.nn.Module):
        model = model.to(device)
    anchors = anchor_vectors(model_name_or_path, model, processor, texts, device)
    features = image_features(model_name_or_path, images, model, processor, data_range, device)
    return as_result(probabilities(features, anchors), names)
