"""ResNet-50 (He et al. 2016) with torchvision's layer names, so torchvision's weight files load into it.

The convolutional trunk only (``conv1`` ... ``layer4`` and the global average pool): the metrics
here use its 2048 pooled features, never ImageNet's classifier. Its children, in torchvision's
order, make ARNIQA's encoder (an ``nn.Sequential`` of them, as torchmetrics builds it).

>>> import torch
>>> net = ResNet50().eval()
>>> net(torch.rand(1, 3, 32, 32)).shape
torch.Size([1, 2048])
>>> sorted(net.state_dict())[:3]
['bn1.bias', 'bn1.num_batches_tracked', 'bn1.running_mean']
"""

from __future__ import annotations

from torch import Tensor, nn

# (blocks, width) of each stage; a bottleneck block widens its width 4 times
_STAGES = ((3, 64), (4, 128), (6, 256), (3, 512))
_EXPANSION = 4


class Bottleneck(nn.Module):
    """1x1 reduce, 3x3 (with the stride, as torchvision's "ResNet v1.5"), 1x1 expand, plus the shortcut."""

    def __init__(self, inputs: int, width: int, stride: int = 1) -> None:
        super().__init__()
        outputs = width * _EXPANSION
        self.conv1 = nn.Conv2d(inputs, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, outputs, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(outputs)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = None
        if stride != 1 or inputs != outputs:
            self.downsample = nn.Sequential(
                nn.Conv2d(inputs, outputs, 1, stride=stride, bias=False), nn.BatchNorm2d(outputs)
            )

    def forward(self, x: Tensor) -> Tensor:
        shortcut = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        out += shortcut
        return self.relu(out)


class ResNet50(nn.Module):
    """The ResNet-50 trunk: ``(N, 3, H, W)`` -> the globally average-pooled features ``(N, 2048)``."""

    features = 512 * _EXPANSION

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
        inputs = 64
        for index, (blocks, width) in enumerate(_STAGES, start=1):
            stride = 1 if index == 1 else 2
            stage = [Bottleneck(inputs, width, stride)]
            stage += [Bottleneck(width * _EXPANSION, width) for _ in range(blocks - 1)]
            setattr(self, f"layer{index}", nn.Sequential(*stage))
            inputs = width * _EXPANSION
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        for module in self.modules():  # He initialisation: activations keep their size (no denormals)
            if isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")

    def forward(self, x: Tensor) -> Tensor:
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        for index in range(1, len(_STAGES) + 1):
            x = getattr(self, f"layer{index}")(x)
        return self.avgpool(x).flatten(1)
