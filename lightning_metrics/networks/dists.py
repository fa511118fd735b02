"""The DISTS network (Ding et al., 2020): VGG16 with L2 pooling, compared by structure and texture.

Images in [0, 1] are normalized with the ImageNet mean and deviation and run through VGG16's
convolutions, whose max poolings are replaced by L2 pooling (a 3x3 Hann window over squared
activations, stride 2). At the input and at relu1_2 ... relu5_3 each channel's mean and
(co)variance over the pixels give a texture term ``(2 mx my + c) / (mx² + my² + c)`` and a
structure term ``(2 cov + c) / (vx + vy + c)``; the score is one minus their sum weighted by
``alpha`` and ``beta`` (1475 channel weights each, normalized to sum to one together).

Weights: VGG16's convolutions from torchvision's ImageNet file (keys ``features.N.weight``), alpha
and beta from the DISTS file (keys ``alpha``, ``beta``), both through
:mod:`lightning_metrics.networks.weights`.

>>> import torch
>>> from lightning_metrics.networks import network
>>> net = network("dists", pretrained=False)  # frozen, random weights
>>> x = torch.rand(2, 3, 32, 32)
>>> net(x, x)
tensor([0., 0.])
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Union

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from lightning_metrics.networks import FrozenModule
from lightning_metrics.networks.trunks import load_features, vgg16_layers
from lightning_metrics.networks.weights import load_weights

_TAPS = (3, 8, 15, 22, 29)
_CHANNELS = (3, 64, 128, 256, 512, 512)  # the input, then the five taps


class L2pooling(nn.Module):
    """The root of a Hann-weighted local mean of squares (3x3 window, stride 2), per channel."""

    filter: Tensor

    def __init__(self, filter_size: int = 5, stride: int = 2, channels: int = 3) -> None:
        super().__init__()
        self.padding = (filter_size - 2) // 2
        self.stride = stride
        self.channels = channels
        window = torch.hann_window(filter_size, periodic=False, dtype=torch.float64)[1:-1]
        kernel = (window[:, None] * window[None, :]).float()
        kernel = kernel / kernel.sum()
        self.register_buffer("filter", kernel.expand(channels, 1, -1, -1).contiguous(), persistent=False)

    def forward(self, x: Tensor) -> Tensor:
        out = F.conv2d(x**2, self.filter, stride=self.stride, padding=self.padding, groups=x.shape[1])
        return (out + 1e-12).sqrt()


class DISTSNetwork(FrozenModule):
    """DISTS scores of pairs of images in [0, 1]: ``forward(x, y)`` gives one value per pair (squeezed).

    Args:
        pretrained: load torchvision's VGG16 file and the DISTS file (``False``: random convolutions,
            alpha and beta drawn around 0.1 as DISTS initializes them, for tests and examples).
        trunk_weights_path, weights_path: local files to load instead of the registered ones.
        download: fetch a file that is not on this machine (``False``: raise instead).
    """

    alpha: Tensor
    beta: Tensor
    mean: Tensor
    std: Tensor

    def __init__(
        self,
        pretrained: bool = True,
        trunk_weights_path: Optional[Union[str, Path]] = None,
        weights_path: Optional[Union[str, Path]] = None,
        download: bool = True,
    ) -> None:
        super().__init__()
        layers = vgg16_layers()[: _TAPS[-1] + 1]
        for index in (4, 9, 16, 23):  # VGG16's max poolings -> L2 pooling
            layers[index] = L2pooling(channels=layers[index - 2].out_channels)
        self.features = nn.Sequential(*layers)
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, -1, 1, 1), persistent=False)
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, -1, 1, 1), persistent=False)
        self.alpha = nn.Parameter(torch.empty(1, sum(_CHANNELS), 1, 1).normal_(0.1, 0.01))
        self.beta = nn.Parameter(torch.empty(1, sum(_CHANNELS), 1, 1).normal_(0.1, 0.01))
        if pretrained:
            load_features(self, "vgg16", trunk_weights_path, download)
            self.load_alpha_beta(load_weights("dists", weights_path, download))

    def load_alpha_beta(self, state: dict[str, Tensor]) -> None:
        """Set alpha and beta from a state dict in the DISTS file's layout (keys ``alpha`` and ``beta``)."""
        for key in ("alpha", "beta"):
            if key not in state or tuple(state[key].shape) != tuple(self.alpha.shape):
                found = tuple(state[key].shape) if key in state else "no such key"
                raise KeyError(
                    f"the DISTS weights need {key!r} of shape {tuple(self.alpha.shape)}, got {found}"
                )
            getattr(self, key).data.copy_(state[key])

    def stages(self, x: Tensor) -> list[Tensor]:
        """The input and the activations at relu1_2, relu2_2, relu3_3, relu4_3, relu5_3."""
        outputs = [x]
        h = (x - self.mean) / self.std
        for index, layer in enumerate(self.features):
            h = layer(h)
            if index in _TAPS:
                outputs.append(h)
        return outputs

    def forward(self, x: Tensor, y: Tensor) -> Tensor:
        c1 = c2 = 1e-6
        w_sum = self.alpha.sum() + self.beta.sum()
        alphas = torch.split(self.alpha / w_sum, _CHANNELS, dim=1)
        betas = torch.split(self.beta / w_sum, _CHANNELS, dim=1)
        texture: Union[Tensor, float] = 0.0
        structure: Union[Tensor, float] = 0.0
        for alpha, beta, fx, fy in zip(alphas, betas, self.stages(x), self.stages(y)):
            x_mean, y_mean = fx.mean([2, 3], keepdim=True), fy.mean([2, 3], keepdim=True)
            s1 = (2 * x_mean * y_mean + c1) / (x_mean**2 + y_mean**2 + c1)
            texture = texture + (alpha * s1).sum(1, keepdim=True)
            x_var = ((fx - x_mean) ** 2).mean([2, 3], keepdim=True)
            y_var = ((fy - y_mean) ** 2).mean([2, 3], keepdim=True)
            covariance = (fx * fy).mean([2, 3], keepdim=True) - x_mean * y_mean
            s2 = (2 * covariance + c2) / (x_var + y_var + c2)
            structure = structure + (beta * s2).sum(1, keepdim=True)
        return 1 - (texture + structure).squeeze()  # type: ignore[union-attr]


__all__ = ["DISTSNetwork", "L2pooling"]
