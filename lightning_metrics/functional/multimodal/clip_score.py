"""CLIP score: 100 times the cosine similarity of CLIP embeddings, between images and texts in
either role (image-text, text-image, image-image, text-text), as torchmetrics 1.9 computes it.

The model is a ``transformers`` CLIP model with its processor: by name or local path (``openai/...``
and any other CLIP checkpoint, ``jinaai/jina-clip-v2``, ``zer0int/LongCLIP-...``), or a callable that
returns ``(model, processor)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import torch
from torch import Tensor

from lightning_metrics import _transformers as hf
from lightning_metrics.utilities.prints import rank_zero_warn

_WHAT = "CLIPScore"
_MODEL_NAMES = Literal[
    "openai/clip-vit-base-patch16",
    "openai/clip-vit-base-patch32",
    "openai/clip-vit-large-patch14-336",
    "openai/clip-vit-large-patch14",
    "jinaai/jina-clip-v2",
    "zer0int/LongCLIP-L-Diffusers",
    "zer0int/LongCLIP-GmP-ViT-L-14",
]
ModelSource = _MODEL_NAMES | str | Callable[[], tuple[Any, Any]]
Data = Tensor | list[Tensor] | list[str] | str


def _to_pil(image: Tensor) -> Any:
    """A (C, H, W) tensor as a PIL image, as torchvision's ``to_pil_image`` makes it (floats times 255)."""
    from PIL import Image

    if image.ndim != 3 or image.shape[0] not in (1, 3, 4):
        raise ValueError(
            f"Expected an image of shape (C, H, W) with 1, 3 or 4 channels, got {tuple(image.shape)}"
        )
    if image.is_floating_point():
        image = image.mul(255).byte()
    array = image.permute(1, 2, 0).numpy()
    return Image.fromarray(array[:, :, 0] if array.shape[2] == 1 else array)  # L, RGB or RGBA


class JinaProcessorWrapper:
    """A processor that hands images to the wrapped (Jina CLIP) processor as PIL images.

    >>> import torch
    >>> seen = []
    >>> wrapped = JinaProcessorWrapper(lambda **kwargs: seen.append(kwargs["images"][0].size))
    >>> wrapped(images=[torch.rand(3, 4, 6)])
    >>> seen
    [(6, 4)]
    """

    def __init__(self, processor: Any) -> None:
        self.processor = processor

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the processor with every tensor image converted to a PIL image."""
        if "images" in kwargs:
            kwargs["images"] = [
                _to_pil(img.float().cpu()) if isinstance(img, Tensor) else img for img in kwargs["images"]
            ]
        return self.processor(*args, **kwargs)


def load_clip(model_name_or_path: Any, what: str = _WHAT) -> tuple[Any, Any]:
    """``(model, processor)`` from a callable, a model name or a local CLIP checkpoint."""
    if callable(model_name_or_path):
        return model_name_or_path()
    if not isinstance(model_name_or_path, str):
        raise ValueError(  # noqa: TRY004  (torchmetrics raises ValueError for its arguments)
            "Argument `model_name_or_path` must be a model name, a local path or a callable returning "
            f"(model, processor), got {model_name_or_path!r}"
        )
    name = model_name_or_path
    if "jinaai" in name:
        model = hf.load(what, "AutoModel", name, trust_remote_code=True)
        processor = JinaProcessorWrapper(hf.load(what, "AutoProcessor", name, trust_remote_code=True))
    elif "zer0int" in name:
        config = hf.load(what, "CLIPConfig", name)
        config.text_config.max_position_embeddings = 248
        model = hf.load(what, "CLIPModel", name, config=config)
        processor = hf.load(what, "CLIPProcessor", name, padding="max_length", max_length=248)
    else:
        model, processor = hf.load(what, "CLIPModel", name), hf.load(what, "CLIPProcessor", name)
    return hf.frozen(model), processor


def _modality(data: Any, name: str) -> str:
    if isinstance(data, Tensor):
        return "image"
    if isinstance(data, str):
        return "text"
    if isinstance(data, list) and data:
        if all(isinstance(x, Tensor) for x in data):
            return "image"
        if all(isinstance(x, str) for x in data):
            return "text"
    raise ValueError(
        f"Argument `{name}` must be images (a tensor (N, C, H, W) or (C, H, W), or a non-empty list of (C, H, W) "
        f"tensors) or texts (a string or a non-empty list of strings), got {type(data).__name__}"
        + (f" of length {len(data)}" if isinstance(data, list) else "")
    )


def _items(data: Any, modality: str, name: str) -> list:
    if modality == "text":
        return [data] if isinstance(data, str) else list(data)
    images = [data] if isinstance(data, Tensor) and data.ndim == 3 else list(data)
    bad = [tuple(i.shape) for i in images if i.ndim != 3]
    if bad:
        raise ValueError(f"Argument `{name}` must hold 3d images (C, H, W), got an image of shape {bad[0]}")
    return images


def _features(data: list, modality: str, device: torch.device, model: Any, processor: Any) -> Tensor:
    if modality == "image":
        processed = processor(images=[i.cpu() for i in data], return_tensors="pt", padding=True)
        return hf.features(model.get_image_features(processed["pixel_values"].to(device)))
    processed = processor(text=data, return_tensors="pt", padding=True)
    limit = getattr(getattr(model.config, "text_config", None), "max_position_embeddings", None)
    if limit is not None and processed["attention_mask"].shape[-1] > limit:
        rank_zero_warn(
            f"Encountered caption longer than max_position_embeddings={limit}. Will truncate captions to this "
            "length. If longer captions are needed, initialize argument `model_name_or_path` with a model that "
            "supports longer sequences.",
            UserWarning,
        )
        processed["attention_mask"] = processed["attention_mask"][..., :limit]
        processed["input_ids"] = processed["input_ids"][..., :limit]
    return hf.features(
        model.get_text_features(processed["input_ids"].to(device), processed["attention_mask"].to(device))
    )


def clip_score_values(source: Data, target: Data, model: Any, processor: Any) -> Tensor:
    """The score of every (source, target) pair: 100 times their embeddings' cosine similarity."""
    modalities = _modality(source, "source"), _modality(target, "target")
    source_items = _items(source, modalities[0], "source")
    target_items = _items(target, modalities[1], "target")
    if len(source_items) != len(target_items):
        raise ValueError(
            "Expected the number of source and target examples to be the same but got "
            f"{len(source_items)} and {len(target_items)}"
        )
    images = [items for items, m in zip((source_items, target_items), modalities) if m == "image"]
    device = images[0][0].device if images else hf.model_device(model)
    if images and isinstance(model, torch.nn.Module) and hf.model_device(model) != device:
        model.to(device)
    with hf.evaluating(model):
        source_features = _features(source_items, modalities[0], device, model, processor)
        target_features = _features(target_items, modalities[1], device, model, processor)
    source_features = source_features / source_features.norm(p=2, dim=-1, keepdim=True)
    target_features = target_features / target_features.norm(p=2, dim=-1, keepdim=True)
    return 100 * (source_features * target_features).sum(dim=-1)


def clip_score(
    source: Data,
    target: Data,
    model_name_or_path: ModelSource = "openai/clip-vit-large-patch14",
) -> Tensor:
    """The mean CLIP score of the pairs, floored at 0.

    ``source`` and ``target`` are each images (a tensor ``(N, C, H, W)`` or ``(C, H, W)``, or a list of
    ``(C, H, W)`` tensors) or texts (a string or a list of strings), one per pair.

    >>> import torch
    >>> from transformers import CLIPConfig, CLIPModel
    >>> _ = torch.manual_seed(0)
    >>> model = CLIPModel(CLIPConfig(
    ...     text_config=dict(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2),
    ...     vision_config=dict(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
    ...                        image_size=32, patch_size=8)))
    >>> same = torch.rand(2, 3, 32, 32)
    >>> processor = lambda images, **kwargs: {"pixel_values": torch.stack(images)}  # images already 32x32
    >>> clip_score(same, same, model_name_or_path=lambda: (model, processor))
    tensor(100.0000)
    >>> clip_score(torch.rand(3, 224, 224), "a photo of a cat")  # doctest: +SKIP
    """
    model, processor = load_clip(model_name_or_path)
    score = clip_score_values(source, target, model, processor).mean(0)
    return torch.max(score, torch.zeros_like(score))
