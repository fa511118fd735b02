"""The ImageNet feature trunks of LPIPS and DISTS: AlexNet, VGG16 and SqueezeNet 1.1.

Each trunk is the ``features`` part of torchvision's classifier, written here with torchvision's
layer indices, so that the keys of torchvision's weight files (``features.0.weight``,
``features.3.squeeze.weight``, ...) load as they are. The ``features.`` keys must all be there and
fit (a strict load); the ``classifier.`` keys of the same file are left out on purpose: LPIPS and
DISTS never run the classifier, and not building it saves 57M (AlexNet) to 120M (VGG16) parameters.

A trunk returns the activations that LPIPS reads: after the ReLU that ends each of its slices
(:attr:`TrunkFeatures.taps`, torchvision indices; the channels of each in :attr:`TrunkFeatures.channels`).

>>> import torch
>>> net = AlexNetFeatures(pretrained=False)
>>> [tuple(f.shape) for f in net(torch.zeros(1, 3, 64, 64))]
[(1, 64, 15, 15), (1, 192, 7, 7), (1, 384, 3, 3), (1, 256, 3, 3), (1, 256, 3, 3)]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Union

import torch
from torch import Tensor, nn

from lightning_metrics.networks import FrozenModule
from lightning_metrics.networks.weights import load_weights

# VGG16's convolutions ("M": a max pooling), torchvision's configuration "D"
_VGG16 = (64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M")


class Fire(nn.Module):
    """SqueezeNet's fire module: a 1x1 squeeze, then 1x1 and 3x3 expansions side by side."""

    def __init__(self, inplanes: int, squeeze: int, expand1x1: int, expand3x3: int) -> None:
        super().__init__()
        self.squeeze = nn.Conv2d(inplanes, squeeze, kernel_size=1)
        self.expand1x1 = nn.Conv2d(squeeze, expand1x1, kernel_size=1)
        self.expand3x3 = nn.Conv2d(squeeze, expand3x3, kernel_size=3, padding=1)

    def forward(self, x: Tensor) -> Tensor:
        x = torch.relu(self.squeeze(x))
        return torch.cat([torch.relu(self.expand1x1(x)), torch.relu(self.expand3x3(x))], 1)


def vgg16_layers() -> list[nn.Module]:
    """VGG16's ``features`` layers in torchvision's order (31 of them: conv, ReLU, ..., max pooling)."""
    layers: list[nn.Module] = []
    channels = 3
    for width in _VGG16:
        if width == "M":
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
        else:
            layers += [nn.Conv2d(channels, int(width), kernel_size=3, padding=1), nn.ReLU()]
            channels = int(width)
    return layers


def load_features(module: nn.Module, name: str, path: Optional[Union[str, Path]], download: bool) -> None:
    """Load the ``features.`` part of torchvision's weight file ``name`` into ``module.features``.

    The load is strict for those keys (a missing or misfit one raises, naming it); the file's
    ``classifier.`` keys are ignored.
    """
    state = load_weights(name, path, download)
    features = {key[len("features.") :]: value for key, value in state.items() if key.startswith("features.")}
    module.features.load_state_dict(features, strict=True)


class TrunkFeatures(FrozenModule):
    """A torchvision ``features`` stack that returns the activations at :attr:`taps`.

    ``pretrained=True`` loads torchvision's ImageNet file of :attr:`weights_name` through
    :mod:`lightning_metrics.networks.weights` (``weights_path``: a local file instead;
    ``download=False``: never fetch it).
    """

    weights_name: str = ""
    taps: tuple[int, ...] = ()
    channels: tuple[int, ...] = ()

    def __init__(
        self,
        pretrained: bool = True,
        weights_path: Optional[Union[str, Path]] = None,
        download: bool = True,
    ) -> None:
        super().__init__()
        self.features = nn.Sequential(*self._layers())
        if pretrained:
            load_features(self, self.weights_name, weights_path, download)

    def _layers(self) -> list[nn.Module]:
        raise NotImplementedError

    def forward(self, x: Tensor) -> list[Tensor]:
        """The activations after each tap (the layers past the last tap are not run)."""
        outputs = []
        for index, layer in enumerate(self.features[: self.taps[-1] + 1]):
            x = layer(x)
            if index in self.taps:
                outputs.append(x)
        return outputs


class AlexNetFeatures(TrunkFeatures):
    """AlexNet's ``features`` (torchvision's ``alexnet``), tapped after its five ReLUs.

    >>> AlexNetFeatures(pretrained=False).channels
    (64, 192, 384, 256, 256)
    """

    weights_name = "alexnet"
    taps = (1, 4, 7, 9, 11)
    channels = (64, 192, 384, 256, 256)

    def _layers(self) -> list[nn.Module]:
        return [
            nn.Conv2d(3, 64, kernel_size=11, stride=4, padding=2), nn.ReLU(),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(64, 192, kernel_size=5, padding=2), nn.ReLU(), nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(192, 384, kernel_size=3, padding=1), nn.ReLU(),
            nn.Conv2d(384, 256, kernel_size=3, padding=1), nn.ReLU(),
            nn.Conv2d(256, 256, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(kernel_size=3, stride=2),
        ]  # fmt: skip


class VGG16Features(TrunkFeatures):
    """VGG16's ``features`` (torchvision's ``vgg16``), tapped at relu1_2, relu2_2, relu3_3, relu4_3, relu5_3.

    >>> VGG16Features(pretrained=False).taps
    (3, 8, 15, 22, 29)
    """

    weights_name = "vgg16"
    taps = (3, 8, 15, 22, 29)
    channels = (64, 128, 256, 512, 512)

    def _layers(self) -> list[nn.Module]:
        return vgg16_layers()


class SqueezeNetFeatures(TrunkFeatures):
    """SqueezeNet 1.1's ``features`` (torchvision's ``squeezenet1_1``), tapped at seven points.

    >>> SqueezeNetFeatures(pretrained=False).channels
    (64, 128, 256, 384, 384, 512, 512)
    """

    weights_name = "squeezenet1_1"
    taps = (1, 4, 7, 9, 10, 11, 12)
    channels = (64, 128, 256, 384, 384, 512, 512)

    def _layers(self) -> list[nn.Module]:
        pool: Any = lambda: nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True)  # noqa: E731
        return [
            nn.Conv2d(3, 64, kernel_size=3, stride=2), nn.ReLU(), pool(),
            Fire(64, 16, 64, 64), Fire(128, 16, 64, 64), pool(),
            Fire(128, 32, 128, 128), Fire(256, 32, 128, 128), pool(),
            Fire(256, 48, 192, 192), Fire(384, 48, 192, 192),
            Fire(384, 64, 256, 256), Fire(512, 64, 256, 256),
        ]  # fmt: skip


__all__ = ["AlexNetFeatures", "Fire", "SqueezeNetFeatures", "TrunkFeatures", "VGG16Features", "vgg16_layers"]
