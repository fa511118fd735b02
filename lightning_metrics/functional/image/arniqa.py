"""ARNIQA, the no-reference image quality score (torchmetrics' ``arniqa``), on the network of
:mod:`lightning_metrics.networks.arniqa` (a ResNet-50 written here: no torchvision).

The network with the release's weights is built once per regressor dataset and weight files and
kept, moved to the device and dtype of the last images it scored (torchmetrics builds and loads it
on every call).
"""

from __future__ import annotations

import os
from typing import Any, Literal

import torch
from torch import Tensor, nn

from lightning_metrics.functional.image._checks import check_rgb_batch
from lightning_metrics.networks.weights import weight_path
from lightning_metrics.utilities.checks import check_bool, check_choice

_REDUCTIONS = ("mean", "sum", "none")
_cache: dict[tuple, nn.Module] = {}


def check_arniqa_args(regressor_dataset: Any, reduction: Any, normalize: Any, autocast: Any) -> None:
    """The arguments, each error naming the argument and the value (before any weights are read)."""
    from lightning_metrics.networks.arniqa import REGRESSOR_DATASETS

    check_choice("regressor_dataset", regressor_dataset, tuple(REGRESSOR_DATASETS))
    check_choice("reduction", reduction, _REDUCTIONS)
    check_bool("normalize", normalize)
    check_bool("autocast", autocast)


def check_arniqa_images(img: Any, normalize: bool) -> None:
    """``img`` is ``(N, 3, H, W)`` floats, in [0, 1] when ``normalize`` (as torchmetrics checks)."""
    check_rgb_batch("img", img)
    if img.shape[-2] < 2 or img.shape[-1] < 2:
        raise ValueError(
            f"Argument `img` must be at least 2x2 pixels (it is also taken at half scale), "
            f"got {tuple(img.shape)}"
        )
    if normalize and img.numel() and not bool(((img >= 0) & (img <= 1)).all()):
        if bool(img.isnan().any()):
            raise ValueError("Argument `img` holds NaN values")
        raise ValueError(
            "Argument `img` must hold values in [0, 1] when `normalize=True`, got values in "
            f"[{img.min().item()}, {img.max().item()}]"
        )


def arniqa_network(regressor_dataset: str = "koniq10k") -> nn.Module:
    """The frozen ARNIQA network with the release's weights (built once per weight files, then kept)."""
    from lightning_metrics.networks import network

    files = [weight_path(name) for name in ("arniqa-encoder", f"arniqa-regressor-{regressor_dataset}")]
    key = (regressor_dataset, *((str(f), os.stat(f).st_mtime_ns) for f in files))
    if key not in _cache:
        _cache.clear()  # one network (about 100 MB) at a time
        _cache[key] = network(
            "arniqa",
            regressor_dataset=regressor_dataset,
            encoder_weights=files[0],
            regressor_weights=files[1],
        )
    return _cache[key]


def arniqa_scores(
    img: Tensor, model: nn.Module, normalize: bool, autocast: bool = False, cast: bool = True
) -> Tensor:
    """The score of each image ``(N,)`` (``()`` for one image, as torchmetrics squeezes it) of checked images.

    The network is moved to the images' device and, unless ``autocast`` and not ``cast``, converted
    to their dtype (torchmetrics' function always converts it, its class only without
    ``autocast``); ``autocast`` runs it under ``torch.autocast`` in the images' dtype.
    """
    parameter = next(model.parameters())
    dtype = img.dtype if cast or not autocast else parameter.dtype
    if parameter.device != img.device or parameter.dtype != dtype:
        model.to(device=img.device, dtype=dtype)
    with torch.no_grad():
        if autocast:
            with torch.autocast(device_type=img.device.type, dtype=img.dtype):
                scores = model(img, normalize=normalize)
        else:
            scores = model(img, normalize=normalize)
    return scores.squeeze()


def reduce_scores(scores: Tensor, count: int | Tensor, reduction: str) -> Tensor:
    """torchmetrics' reduction of ARNIQA scores: their mean, their sum, or themselves."""
    if reduction == "none":
        return scores
    total = scores.sum()
    return total / count if reduction == "mean" else total


def arniqa(
    img: Tensor,
    regressor_dataset: Literal["kadid10k", "koniq10k"] = "koniq10k",
    reduction: Literal["sum", "mean", "none"] = "mean",
    normalize: bool = True,
    autocast: bool = False,
    *,
    model: nn.Module | None = None,
) -> Tensor:
    """ARNIQA quality of images ``img`` ``(N, 3, H, W)``: in [0, 1], higher is better (no reference).

    Arguments as torchmetrics': ``regressor_dataset`` (``"koniq10k"``: authentic distortions,
    ``"kadid10k"``: synthetic ones), ``reduction`` over the batch (``"mean"``, ``"sum"``, ``"none"``:
    shape ``(N,)``), ``normalize`` (``True``: images in [0, 1], normalized here with ImageNet's mean
    and standard deviation; ``False``: already normalized), ``autocast`` (mixed precision in the
    images' dtype). Ours: ``model``, an ARNIQA network to use instead of the release's (the
    weights are otherwise read through :mod:`lightning_metrics.networks.weights`: torch.hub's
    cache, the folder named by ``LIGHTNING_METRICS_WEIGHTS``, or a download).

    >>> import torch
    >>> from lightning_metrics.networks import network
    >>> net = network("arniqa", pretrained=False)  # random weights: no download in this example
    >>> torch.manual_seed(0) and None
    >>> arniqa(torch.rand(2, 3, 32, 32), model=net, reduction="none").shape
    torch.Size([2])
    """
    check_arniqa_args(regressor_dataset, reduction, normalize, autocast)
    check_arniqa_images(img, normalize)
    if model is None:
        model = arniqa_network(regressor_dataset)
    scores = arniqa_scores(img, model, normalize, autocast)
    return reduce_scores(scores, img.shape[0], reduction)
