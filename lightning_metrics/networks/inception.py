"""The FID Inception-v3 ("inception-v3-compat"): the network of torchmetrics' FID, KID, IS and MiFID.

TensorFlow's 2015-12-05 Inception graph, the one the FID was defined on, as torch-fidelity ports it
to PyTorch, written here (no torch-fidelity, no torchvision): its weight file
``weights-inception-2015-12-05-6726825d.pth`` loads with ``strict=True`` through
:func:`lightning_metrics.networks.weights.load_weights` (the user's path, the
``LIGHTNING_METRICS_WEIGHTS`` folder, torch.hub's cache, else a download with its checksum checked).

The input is handled as torchmetrics 1.x drives the network: uint8 images ``(N, 3, H, W)`` are cast
to the network's dtype (float32, float64 after the metric's ``set_dtype``), resized to 299 x 299
(``antialias=True``: torch's bilinear resize with antialiasing, torchmetrics' default;
``antialias=False``: TensorFlow 1.x's bilinear resize, torch-fidelity's), mapped to [-1, 1) by
``(x - 128) / 128``, and run up to the last requested output. The outputs: ``'64'``, ``'192'``,
``'768'`` (spatial means after the first pools and the 17x17 blocks), ``'2048'`` (the pooled last
block), ``'logits_unbiased'`` (the 1008 class scores without bias) and ``'logits'``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from lightning_metrics.networks import FrozenModule
from lightning_metrics.networks._inception_blocks import (
    BasicConv2d,
    InceptionA,
    InceptionB,
    InceptionC,
    InceptionD,
    InceptionE,
    tf1_bilinear_resize,
)
from lightning_metrics.networks.weights import load_weights

FEATURES = ("64", "192", "768", "2048", "logits_unbiased", "logits")
INPUT_IMAGE_SIZE = 299


class FeatureExtractorInceptionV3(FrozenModule):
    """The FID Inception-v3: ``forward`` maps uint8 images ``(N, 3, H, W)`` to one tensor per entry of
    ``features_list`` (``'64'``, ``'192'``, ``'768'``, ``'2048'``, ``'logits_unbiased'``, ``'logits'``),
    each ``(N, d)``.

    ``weights_path``: a local copy of torch-fidelity's weight file (torchmetrics'
    ``feature_extractor_weights_path``); without it the file comes from ``LIGHTNING_METRICS_WEIGHTS``,
    torch.hub's cache or a download (see :mod:`lightning_metrics.networks.weights`). ``pretrained=False``
    builds the layers only (nothing is read; for a state dict of one's own). ``antialias`` picks the
    resize to 299 (see the module). Images already 299 x 299 are not resampled (both resizes are the
    identity there).

    >>> import torch
    >>> net = FeatureExtractorInceptionV3(["64", "192"], pretrained=False).frozen()
    >>> imgs = torch.randint(0, 256, (2, 3, 32, 32), dtype=torch.uint8)
    >>> [tuple(f.shape) for f in net(imgs)]
    [(2, 64), (2, 192)]
    """

    INPUT_IMAGE_SIZE = INPUT_IMAGE_SIZE

    def __init__(
        self,
        features_list: Sequence[str],
        weights_path: str | Path | None = None,
        antialias: bool = True,
        pretrained: bool = True,
    ) -> None:
        super().__init__()
        self.features_list = _checked_features(features_list)
        if not isinstance(antialias, bool):
            raise TypeError(f"Argument `antialias` must be a bool, got {antialias!r}")
        self.use_antialias = antialias
        self.Conv2d_1a_3x3 = BasicConv2d(3, 32, kernel_size=3, stride=2)
        self.Conv2d_2a_3x3 = BasicConv2d(32, 32, kernel_size=3)
        self.Conv2d_2b_3x3 = BasicConv2d(32, 64, kernel_size=3, padding=1)
        self.MaxPool_1 = nn.MaxPool2d(kernel_size=3, stride=2)
        self.Conv2d_3b_1x1 = BasicConv2d(64, 80, kernel_size=1)
        self.Conv2d_4a_3x3 = BasicConv2d(80, 192, kernel_size=3)
        self.MaxPool_2 = nn.MaxPool2d(kernel_size=3, stride=2)
        self.Mixed_5b = InceptionA(192, pool_features=32)
        self.Mixed_5c = InceptionA(256, pool_features=64)
        self.Mixed_5d = InceptionA(288, pool_features=64)
        self.Mixed_6a = InceptionB(288)
        self.Mixed_6b = InceptionC(768, channels_7x7=128)
        self.Mixed_6c = InceptionC(768, channels_7x7=160)
        self.Mixed_6d = InceptionC(768, channels_7x7=160)
        self.Mixed_6e = InceptionC(768, channels_7x7=192)
        self.Mixed_7a = InceptionD(768)
        self.Mixed_7b = InceptionE(1280)
        self.Mixed_7c = InceptionE(2048, max_pool=True)
        self.AvgPool = nn.AdaptiveAvgPool2d(output_size=(1, 1))
        self.fc = nn.Linear(2048, 1008)
        if weights_path is not None and not pretrained:
            raise ValueError(f"Argument `weights_path` ({str(weights_path)!r}) is read only with `pretrained=True`")
        if pretrained:
            self.load_state_dict(load_weights("inception-v3-compat", weights_path), strict=True)
        self.frozen()

    def _prepare(self, x: Tensor) -> Tensor:
        """uint8 images -> the network's dtype, 299 x 299, [-1, 1)."""
        if not isinstance(x, Tensor) or x.dtype != torch.uint8:
            what = x.dtype if isinstance(x, Tensor) else type(x).__name__
            raise TypeError(f"Argument `x` must be a uint8 tensor of images, got {what}")
        if x.ndim != 4 or x.shape[1] != 3:
            raise ValueError(f"Argument `x` must have shape (N, 3, H, W), got {tuple(x.shape)}")
        x = x.to(self.Conv2d_1a_3x3.conv.weight.dtype)
        size = self.INPUT_IMAGE_SIZE
        if x.shape[-2:] != (size, size):
            if self.use_antialias:
                x = F.interpolate(x, size=(size, size), mode="bilinear", align_corners=False, antialias=True)
            else:
                x = tf1_bilinear_resize(x, size)
        return (x - 128) / 128

    def forward(self, x: Tensor) -> tuple[Tensor, ...]:
        """The requested outputs of uint8 images ``x`` ``(N, 3, H, W)``, in ``features_list``'s order."""
        wanted = set(self.features_list)
        found: dict[str, Tensor] = {}

        def done(name: str, value: Tensor) -> bool:
            if name in wanted:
                found[name] = value
            return wanted <= found.keys()

        def pooled(t: Tensor) -> Tensor:
            return F.adaptive_avg_pool2d(t, output_size=(1, 1)).flatten(1)

        x = self._prepare(x)
        x = self.MaxPool_1(self.Conv2d_2b_3x3(self.Conv2d_2a_3x3(self.Conv2d_1a_3x3(x))))
        if "64" in wanted and done("64", pooled(x)):
            return self._ordered(found)
        x = self.MaxPool_2(self.Conv2d_4a_3x3(self.Conv2d_3b_1x1(x)))
        if "192" in wanted and done("192", pooled(x)):
            return self._ordered(found)
        for block in (self.Mixed_5b, self.Mixed_5c, self.Mixed_5d, self.Mixed_6a, self.Mixed_6b, self.Mixed_6c,
                      self.Mixed_6d, self.Mixed_6e):
            x = block(x)
        if "768" in wanted and done("768", pooled(x)):
            return self._ordered(found)
        x = torch.flatten(self.AvgPool(self.Mixed_7c(self.Mixed_7b(self.Mixed_7a(x)))), 1)
        if done("2048", x):
            return self._ordered(found)
        if "logits_unbiased" in wanted:
            x = x.mm(self.fc.weight.T)
            if done("logits_unbiased", x):
                return self._ordered(found)
            x = x + self.fc.bias.unsqueeze(0)
        else:
            x = self.fc(x)
        done("logits", x)
        return self._ordered(found)

    def _ordered(self, found: dict[str, Tensor]) -> tuple[Tensor, ...]:
        return tuple(found[name] for name in self.features_list)


def _checked_features(features_list: Sequence[str]) -> list[str]:
    """``features_list`` as a list of output names (ints taken as their names); a clear error otherwise."""
    if isinstance(features_list, (str, int)) or not isinstance(features_list, Sequence):
        raise TypeError(
            f"Argument `features_list` must be a list of output names among {FEATURES}, got {features_list!r}"
        )
    names = [str(f) if isinstance(f, int) and not isinstance(f, bool) else f for f in features_list]
    unknown = [f for f in names if f not in FEATURES]
    if not names or unknown or len(set(names)) != len(names):
        raise ValueError(
            f"Argument `features_list` must list distinct outputs among {FEATURES}, got {list(features_list)!r}"
        )
    return names
