"""LPIPS and DISTS: perceptual distances of image pairs on ImageNet trunks.

LPIPS (learned perceptual image patch similarity) runs
:class:`lightning_metrics.networks.lpips.LPIPSNetwork` with torchvision's trunk file and the LPIPS
head file of ``net_type``; DISTS (deep image structure and texture similarity)
:class:`lightning_metrics.networks.dists.DISTSNetwork` with torchvision's VGG16 file and the DISTS
file (alpha, beta). The files are found through :mod:`lightning_metrics.networks.weights`
(torch.hub's cache, the folder named by ``LIGHTNING_METRICS_WEIGHTS``, or a download); a network
is built once per files and then kept.

torchmetrics' module paths ``functional.image.lpips`` and ``functional.image.dists`` resolve to
these functions through the alias table.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Literal, Optional

import torch
from torch import Tensor, nn

from lightning_metrics.functional.image._checks import check_rgb_pair
from lightning_metrics.networks.weights import weight_path
from lightning_metrics.utilities.checks import check_bool, check_choice

NET_TYPES = ("alex", "vgg", "squeeze")
REDUCTIONS = ("mean", "sum", "none", None)  # of both functions
_TRUNK_FILES = {"alex": "alexnet", "vgg": "vgg16", "squeeze": "squeezenet1_1"}
_CACHE_SIZE = 2
_cache: dict[tuple, nn.Module] = {}


def cached_network(names: tuple[str, ...], build: Callable[[list[Path]], nn.Module], *key: Any) -> nn.Module:
    """The network ``build(paths)`` of the weight files ``names`` (registry names), built once.

    The files are found first (each is hashed once); the key is ``key`` and the files' paths and
    modification times, so a replaced file builds a new network. The last :data:`_CACHE_SIZE`
    networks used are kept (LPIPS-VGG and DISTS in one loop: 60 MB each).
    """
    paths = [weight_path(name) for name in names]
    full_key = (*key, *((str(path), os.stat(path).st_mtime_ns) for path in paths))
    net = _cache.pop(full_key, None)
    _cache[full_key] = net = build(paths) if net is None else net  # the most recent last
    while len(_cache) > _CACHE_SIZE:
        del _cache[next(iter(_cache))]
    return net


def lpips_network(net_type: str = "alex", resize: Optional[int] = None) -> nn.Module:
    """The frozen LPIPS network of ``net_type`` with the published weights (kept once built)."""
    from lightning_metrics.networks import network

    def build(paths: list[Path]) -> nn.Module:
        return network("lpips", net_type=net_type, resize=resize, trunk_weights_path=paths[0],
                       head_weights_path=paths[1])  # fmt: skip

    return cached_network((_TRUNK_FILES[net_type], f"lpips-{net_type}"), build, "lpips", net_type, resize)


def check_lpips_args(net_type: Any, reduction: Any, normalize: Any) -> None:
    """The arguments, each error naming the argument and the value (before any weights are read)."""
    check_choice("net_type", net_type, NET_TYPES)
    check_choice("reduction", reduction, REDUCTIONS)
    check_bool("normalize", normalize)


def check_lpips_images(img1: Any, img2: Any, normalize: bool) -> None:
    """Both ``(N, 3, H, W)`` floats of one shape, in [0, 1] with ``normalize``, else not below -1.

    The ranges are torchmetrics' (it checks only the lower end of [-1, 1]); one host read.
    """
    check_rgb_pair(("img1", "img2"), img1, img2)
    if not img1.numel():
        return
    lows = torch.stack([img1.min(), img2.min()]).float()
    highs = torch.stack([img1.max(), img2.max()]).float()
    low, high = (0.0, 1.0) if normalize else (-1.0, float("inf"))
    bad = ~((lows >= low) & (highs <= high))
    if bool(bad.any()):
        index = int(bad.nonzero()[0])
        expected = "[0, 1] (normalize=True)" if normalize else "[-1, 1] (normalize=False)"
        raise ValueError(
            f"Argument `img{index + 1}` must hold values in {expected}, got values in "
            f"[{lows[index].item()}, {highs[index].item()}]"
        )


def lpips_values(img1: Tensor, img2: Tensor, net: nn.Module, normalize: bool) -> Tensor:
    """One LPIPS distance per pair, shape ``(N,)`` (``net`` on the images' device and dtype)."""
    return net(img1, img2, normalize=normalize).reshape(-1)


def reduce_values(values: Tensor, reduction: Optional[str]) -> Tensor:
    if reduction == "mean":
        return values.mean()
    if reduction == "sum":
        return values.sum()
    return values


def learned_perceptual_image_patch_similarity(
    img1: Tensor,
    img2: Tensor,
    net_type: Literal["alex", "vgg", "squeeze"] = "alex",
    reduction: Optional[Literal["sum", "mean", "none"]] = "mean",
    normalize: bool = False,
    *,
    net: Optional[nn.Module] = None,
) -> Tensor:
    """LPIPS distance of each pair of images ``(N, 3, H, W)``, reduced over the pairs (lower: more alike).

    Images are in [-1, 1] (``normalize=True``: in [0, 1]); ``net_type`` picks the trunk (``"alex"``,
    ``"vgg"``, ``"squeeze"``); ``reduction`` is ``"mean"``, ``"sum"`` or ``"none"``/``None`` (one
    value per pair, squeezed as torchmetrics does). The network comes with torchvision's and
    LPIPS' published weights; ours: ``net``, an LPIPS network to use instead.

    >>> import torch
    >>> from lightning_metrics.networks import network
    >>> net = network("lpips", net_type="squeeze", pretrained=False)  # random weights: no download here
    >>> img = torch.rand(2, 3, 32, 32) * 2 - 1
    >>> learned_perceptual_image_patch_similarity(img, img, net_type="squeeze", net=net)
    tensor(0.)
    """
    check_lpips_args(net_type, reduction, normalize)
    check_lpips_images(img1, img2, normalize)
    net = (lpips_network(net_type) if net is None else net).to(device=img1.device, dtype=img1.dtype)
    values = lpips_values(img1, img2, net, normalize)
    return reduce_values(values.squeeze() if values.numel() == 1 else values, reduction)


def dists_network() -> nn.Module:
    """The frozen DISTS network with the published weights (kept once built)."""
    from lightning_metrics.networks import network

    def build(paths: list[Path]) -> nn.Module:
        return network("dists", trunk_weights_path=paths[0], weights_path=paths[1])

    return cached_network(("vgg16", "dists"), build, "dists")


def check_dists_images(preds: Any, target: Any) -> None:
    """Both ``(N, 3, H, W)`` floats of one shape (shapes only: no host read)."""
    check_rgb_pair(("preds", "target"), preds, target)


def dists_values(preds: Tensor, target: Tensor, net: nn.Module) -> Tensor:
    """One DISTS score per pair, shape ``(N,)``."""
    return net(preds, target).reshape(-1)


def deep_image_structure_and_texture_similarity(
    preds: Tensor,
    target: Tensor,
    reduction: Optional[Literal["sum", "mean", "none"]] = None,
    *,
    net: Optional[nn.Module] = None,
) -> Tensor:
    """DISTS score of each pair of images ``(N, 3, H, W)`` in [0, 1] (lower: more alike), reduced.

    ``reduction``: ``None``/``"none"`` (torchmetrics' default here: one score per pair, squeezed),
    ``"mean"`` or ``"sum"``. The network comes with torchvision's VGG16 and DISTS' published
    weights; ours: ``net``, a DISTS network to use instead.

    >>> import torch
    >>> from lightning_metrics.networks import network
    >>> net = network("dists", pretrained=False)  # random weights: no download in this example
    >>> img = torch.rand(3, 3, 32, 32)
    >>> deep_image_structure_and_texture_similarity(img, img, reduction="mean", net=net)
    tensor(0.)
    """
    check_choice("reduction", reduction, REDUCTIONS)
    check_dists_images(preds, target)
    net = (dists_network() if net is None else net).to(device=preds.device, dtype=preds.dtype)
    values = dists_values(preds, target, net)
    return reduce_values(values.squeeze() if values.numel() == 1 else values, reduction)


__all__ = ["deep_image_structure_and_texture_similarity", "learned_perceptual_image_patch_similarity"]
