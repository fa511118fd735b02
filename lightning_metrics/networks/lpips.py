"""The LPIPS network (Zhang et al., 2018): an ImageNet trunk, unit-normalized features, linear heads.

Both images are shifted and scaled per channel (LPIPS' scaling layer, for inputs in [-1, 1]),
optionally resized, and run through the trunk (:mod:`.trunks`); each tapped activation is divided
by its norm over the channels, the squared difference of the two images' activations is weighted
per channel by a 1x1 convolution without bias (the "head" of that layer) and averaged over the
pixels; the layers' values add up to the distance of each pair.

Weights: the trunk from torchvision's ImageNet file, the heads from the LPIPS file of ``net_type``
(keys ``lin0.model.1.weight``, ... as in the ``lpips`` package; index 0 of each ``model`` is the
dropout of the original, which does nothing in evaluation), both through
:mod:`lightning_metrics.networks.weights`.

>>> import torch
>>> from lightning_metrics.networks import network
>>> net = network("lpips", net_type="squeeze", pretrained=False)  # frozen, random weights
>>> x = torch.rand(2, 3, 32, 32) * 2 - 1
>>> net(x, x).flatten()
tensor([0., 0.])
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Optional, Union

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from lightning_metrics.networks import FrozenModule
from lightning_metrics.networks.trunks import (
    AlexNetFeatures,
    SqueezeNetFeatures,
    TrunkFeatures,
    VGG16Features,
)
from lightning_metrics.networks.weights import load_weights

NET_TYPES = ("alex", "vgg", "squeeze")
_TRUNKS: dict[str, type[TrunkFeatures]] = {
    "alex": AlexNetFeatures,
    "vgg": VGG16Features,
    "squeeze": SqueezeNetFeatures,
}


class ScalingLayer(nn.Module):
    """LPIPS' per-channel shift and scale of images in [-1, 1] (the ImageNet statistics, rescaled)."""

    shift: Tensor
    scale: Tensor

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer(
            "shift", torch.tensor([-0.030, -0.088, -0.188]).view(1, 3, 1, 1), persistent=False
        )
        self.register_buffer("scale", torch.tensor([0.458, 0.448, 0.450]).view(1, 3, 1, 1), persistent=False)

    def forward(self, x: Tensor) -> Tensor:
        return (x - self.shift) / self.scale


class NetLinLayer(nn.Module):
    """One LPIPS head: a 1x1 convolution from ``channels`` to one value, no bias (key ``model.1.weight``)."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.model = nn.Sequential(nn.Identity(), nn.Conv2d(channels, 1, kernel_size=1, bias=False))

    def forward(self, x: Tensor) -> Tensor:
        return self.model(x)


def unit_normalize(features: Tensor, eps: float = 1e-8) -> Tensor:
    """Each pixel's feature vector divided by its norm over the channels (``eps`` inside the root)."""
    return features / torch.sqrt(eps + torch.sum(features**2, dim=1, keepdim=True))


def resize_images(x: Tensor, size: int) -> Tensor:
    """To ``size`` x ``size``: area averaging when both sides shrink, else bilinear (torch-fidelity's)."""
    if x.shape[-1] > size and x.shape[-2] > size:
        return F.interpolate(x, (size, size), mode="area")
    return F.interpolate(x, (size, size), mode="bilinear", align_corners=False)


class LPIPSNetwork(FrozenModule):
    """LPIPS distances between pairs of images in [-1, 1] (``normalize=True`` in ``forward``: [0, 1]).

    Args:
        net_type: the trunk, ``"alex"``, ``"vgg"`` or ``"squeeze"``.
        pretrained: load torchvision's trunk file and the LPIPS head file of ``net_type``
            (``False``: PyTorch's random initialization, for tests and examples).
        resize: resize both images to ``resize`` x ``resize`` after scaling (perceptual path length).
        trunk_weights_path, head_weights_path: local files to load instead of the registered ones.
        download: fetch a file that is not on this machine (``False``: raise instead).

    ``forward`` returns a ``(N, 1, 1, 1)`` tensor, as the ``lpips`` package does. The state dict
    is in torchmetrics' layout (``net.slice1.0.weight``, ``lins.0.model.1.weight`` and
    ``lin0.model.1.weight``), so that a module checkpoint that holds torchmetrics' LPIPS loads into
    the same module with ours, and back; the weight files load in their own layouts.
    """

    def __init__(
        self,
        net_type: str = "alex",
        pretrained: bool = True,
        resize: Optional[int] = None,
        trunk_weights_path: Optional[Union[str, Path]] = None,
        head_weights_path: Optional[Union[str, Path]] = None,
        download: bool = True,
    ) -> None:
        super().__init__()
        if net_type not in NET_TYPES:
            raise ValueError(f"Argument `net_type` must be one of {NET_TYPES}, got {net_type!r}")
        self.net_type = net_type
        self.resize = resize
        self.scaling_layer = ScalingLayer()
        self.net = _TRUNKS[net_type](
            pretrained=pretrained, weights_path=trunk_weights_path, download=download
        )
        self.lins = nn.ModuleList(NetLinLayer(channels) for channels in self.net.channels)
        if pretrained:
            self.load_heads(load_weights(f"lpips-{net_type}", head_weights_path, download))
        self._register_state_dict_hook(_to_torchmetrics_keys)
        self._register_load_state_dict_pre_hook(self._from_torchmetrics_keys)

    def _slice_key(self, index: int) -> str:
        """torchmetrics' name of trunk layer ``index``: in the slice that ends at the next tap."""
        part = next(j for j, tap in enumerate(self.net.taps) if index <= tap)
        return f"net.slices.{part}.{index}" if self.net_type == "squeeze" else f"net.slice{part + 1}.{index}"

    def _from_torchmetrics_keys(self, state_dict: dict, prefix: str, *args: Any) -> None:
        """Read torchmetrics' layout (``net.slice1.0.weight``, ``lin0.model.1.weight``) as ours."""
        for key in [k for k in state_dict if k.startswith(prefix)]:
            name = key[len(prefix) :]
            match = _SLICE_KEY.match(name)
            if match:
                state_dict[f"{prefix}net.features.{match['index']}.{match['rest']}"] = state_dict.pop(key)
            elif _LIN_KEY.match(name):
                value = state_dict.pop(key)
                state_dict.setdefault(f"{prefix}lins.{name[len('lin') :]}", value)

    def load_heads(self, state: dict[str, Tensor]) -> None:
        """Load the heads from a state dict in the ``lpips`` package's layout (``lin0.model.1.weight``...)."""
        heads = {key[len("lin") :]: value for key, value in state.items() if key.startswith("lin")}
        self.lins.load_state_dict(heads, strict=True)

    def forward(self, in0: Tensor, in1: Tensor, normalize: bool = False) -> Tensor:
        """The distance of each pair, ``(N, 1, 1, 1)``."""
        if normalize:  # [0, 1] -> [-1, 1]
            in0, in1 = 2 * in0 - 1, 2 * in1 - 1
        in0, in1 = self.scaling_layer(in0), self.scaling_layer(in1)
        if self.resize is not None:
            in0, in1 = resize_images(in0, self.resize), resize_images(in1, self.resize)
        total: Union[Tensor, float] = 0.0
        for head, feats0, feats1 in zip(self.lins, self.net(in0), self.net(in1)):
            difference = (unit_normalize(feats0) - unit_normalize(feats1)) ** 2
            total = total + head(difference).mean([2, 3], keepdim=True)
        return total  # type: ignore[return-value]


_SLICE_KEY = re.compile(r"net\.(?:slice\d+|slices\.\d+)\.(?P<index>\d+)\.(?P<rest>.+)")
_LIN_KEY = re.compile(r"lin\d+\.")
_FEATURE_KEY = re.compile(r"net\.features\.(?P<index>\d+)\.(?P<rest>.+)")


def _to_torchmetrics_keys(module: LPIPSNetwork, state_dict: dict, prefix: str, local_metadata: Any) -> None:
    """Write the state dict in torchmetrics' layout (its ``_LPIPS``: trunk slices, each head twice)."""
    for key in [k for k in state_dict if k.startswith(prefix)]:
        match = _FEATURE_KEY.match(key[len(prefix) :])
        if match:
            state_dict[f"{prefix}{module._slice_key(int(match['index']))}.{match['rest']}"] = state_dict.pop(
                key
            )
    for k in range(len(module.lins)):
        state_dict[f"{prefix}lin{k}.model.1.weight"] = state_dict[f"{prefix}lins.{k}.model.1.weight"]


__all__ = ["LPIPSNetwork", "NET_TYPES", "NetLinLayer", "ScalingLayer", "resize_images", "unit_normalize"]
