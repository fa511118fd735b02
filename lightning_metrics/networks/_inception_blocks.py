"""The layers of the FID Inception-v3 (TensorFlow's 2015-12-05 graph as torch-fidelity ports it).

The attribute names are the ones of torch-fidelity's weight file (``Mixed_5b.branch1x1.conv.weight``,
``...bn.running_var``): the published file loads into these modules with ``strict=True``. Where this
graph differs from torchvision's Inception-v3, it follows TensorFlow: the average pools of the
branches leave the zero padding out of their mean, and the last block pools its fourth branch with a
max pool.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

_Size = int | tuple[int, int]


class BasicConv2d(nn.Module):
    """Convolution without bias, batch norm (eps 1e-3, TensorFlow's) and ReLU."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: _Size, stride: int = 1, padding: _Size = 0):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, bias=False)
        self.bn = nn.BatchNorm2d(out_channels, eps=0.001)

    def forward(self, x: Tensor) -> Tensor:
        return F.relu(self.bn(self.conv(x)), inplace=True)


def _avg_pool_3x3(x: Tensor) -> Tensor:
    """3x3 average over the pixels inside the image only (TensorFlow's SAME average pool)."""
    return F.avg_pool2d(x, kernel_size=3, stride=1, padding=1, count_include_pad=False)


def _row(cin: int, cout: int, k: int) -> BasicConv2d:
    """A 1 x k convolution that keeps the size."""
    return BasicConv2d(cin, cout, kernel_size=(1, k), padding=(0, k // 2))


def _col(cin: int, cout: int, k: int) -> BasicConv2d:
    """A k x 1 convolution that keeps the size."""
    return BasicConv2d(cin, cout, kernel_size=(k, 1), padding=(k // 2, 0))


class InceptionA(nn.Module):
    """35x35 block: 1x1, 5x5, double 3x3 and pooled branches."""

    def __init__(self, in_channels: int, pool_features: int):
        super().__init__()
        self.branch1x1 = BasicConv2d(in_channels, 64, kernel_size=1)
        self.branch5x5_1 = BasicConv2d(in_channels, 48, kernel_size=1)
        self.branch5x5_2 = BasicConv2d(48, 64, kernel_size=5, padding=2)
        self.branch3x3dbl_1 = BasicConv2d(in_channels, 64, kernel_size=1)
        self.branch3x3dbl_2 = BasicConv2d(64, 96, kernel_size=3, padding=1)
        self.branch3x3dbl_3 = BasicConv2d(96, 96, kernel_size=3, padding=1)
        self.branch_pool = BasicConv2d(in_channels, pool_features, kernel_size=1)

    def forward(self, x: Tensor) -> Tensor:
        return torch.cat(
            [
                self.branch1x1(x),
                self.branch5x5_2(self.branch5x5_1(x)),
                self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x))),
                self.branch_pool(_avg_pool_3x3(x)),
            ],
            1,
        )


class InceptionB(nn.Module):
    """35x35 -> 17x17 reduction: strided 3x3, strided double 3x3 and max-pooled branches."""

    def __init__(self, in_channels: int):
        super().__init__()
        self.branch3x3 = BasicConv2d(in_channels, 384, kernel_size=3, stride=2)
        self.branch3x3dbl_1 = BasicConv2d(in_channels, 64, kernel_size=1)
        self.branch3x3dbl_2 = BasicConv2d(64, 96, kernel_size=3, padding=1)
        self.branch3x3dbl_3 = BasicConv2d(96, 96, kernel_size=3, stride=2)

    def forward(self, x: Tensor) -> Tensor:
        return torch.cat(
            [
                self.branch3x3(x),
                self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x))),
                F.max_pool2d(x, kernel_size=3, stride=2),
            ],
            1,
        )


class InceptionC(nn.Module):
    """17x17 block with factorised 7x7 convolutions (``channels_7x7`` inner channels)."""

    def __init__(self, in_channels: int, channels_7x7: int):
        super().__init__()
        c7 = channels_7x7
        self.branch1x1 = BasicConv2d(in_channels, 192, kernel_size=1)
        self.branch7x7_1 = BasicConv2d(in_channels, c7, kernel_size=1)
        self.branch7x7_2 = _row(c7, c7, 7)
        self.branch7x7_3 = _col(c7, 192, 7)
        self.branch7x7dbl_1 = BasicConv2d(in_channels, c7, kernel_size=1)
        self.branch7x7dbl_2 = _col(c7, c7, 7)
        self.branch7x7dbl_3 = _row(c7, c7, 7)
        self.branch7x7dbl_4 = _col(c7, c7, 7)
        self.branch7x7dbl_5 = _row(c7, 192, 7)
        self.branch_pool = BasicConv2d(in_channels, 192, kernel_size=1)

    def forward(self, x: Tensor) -> Tensor:
        seven = self.branch7x7_3(self.branch7x7_2(self.branch7x7_1(x)))
        double = self.branch7x7dbl_1(x)
        for layer in (self.branch7x7dbl_2, self.branch7x7dbl_3, self.branch7x7dbl_4, self.branch7x7dbl_5):
            double = layer(double)
        return torch.cat([self.branch1x1(x), seven, double, self.branch_pool(_avg_pool_3x3(x))], 1)


class InceptionD(nn.Module):
    """17x17 -> 8x8 reduction: 3x3, factorised 7x7 then strided 3x3, and max-pooled branches."""

    def __init__(self, in_channels: int):
        super().__init__()
        self.branch3x3_1 = BasicConv2d(in_channels, 192, kernel_size=1)
        self.branch3x3_2 = BasicConv2d(192, 320, kernel_size=3, stride=2)
        self.branch7x7x3_1 = BasicConv2d(in_channels, 192, kernel_size=1)
        self.branch7x7x3_2 = _row(192, 192, 7)
        self.branch7x7x3_3 = _col(192, 192, 7)
        self.branch7x7x3_4 = BasicConv2d(192, 192, kernel_size=3, stride=2)

    def forward(self, x: Tensor) -> Tensor:
        seven = self.branch7x7x3_1(x)
        for layer in (self.branch7x7x3_2, self.branch7x7x3_3, self.branch7x7x3_4):
            seven = layer(seven)
        return torch.cat(
            [self.branch3x3_2(self.branch3x3_1(x)), seven, F.max_pool2d(x, kernel_size=3, stride=2)], 1
        )


class InceptionE(nn.Module):
    """8x8 block with split 1x3 / 3x1 outputs; ``max_pool`` picks the pooled branch's pool (TensorFlow's
    last block takes a 3x3 max, the one before it the padding-free average)."""

    def __init__(self, in_channels: int, max_pool: bool = False):
        super().__init__()
        self.max_pool = max_pool
        self.branch1x1 = BasicConv2d(in_channels, 320, kernel_size=1)
        self.branch3x3_1 = BasicConv2d(in_channels, 384, kernel_size=1)
        self.branch3x3_2a = _row(384, 384, 3)
        self.branch3x3_2b = _col(384, 384, 3)
        self.branch3x3dbl_1 = BasicConv2d(in_channels, 448, kernel_size=1)
        self.branch3x3dbl_2 = BasicConv2d(448, 384, kernel_size=3, padding=1)
        self.branch3x3dbl_3a = _row(384, 384, 3)
        self.branch3x3dbl_3b = _col(384, 384, 3)
        self.branch_pool = BasicConv2d(in_channels, 192, kernel_size=1)

    def forward(self, x: Tensor) -> Tensor:
        three = self.branch3x3_1(x)
        double = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
        pooled = F.max_pool2d(x, kernel_size=3, stride=1, padding=1) if self.max_pool else _avg_pool_3x3(x)
        return torch.cat(
            [
                self.branch1x1(x),
                self.branch3x3_2a(three),
                self.branch3x3_2b(three),
                self.branch3x3dbl_3a(double),
                self.branch3x3dbl_3b(double),
                self.branch_pool(pooled),
            ],
            1,
        )


def tf1_bilinear_resize(x: Tensor, size: int) -> Tensor:
    """Bilinear resize of ``(N, C, H, W)`` floats to ``size x size`` as TensorFlow 1.x's
    ``resize_bilinear`` (``align_corners=False``, no half-pixel offset) computes it: output pixel ``i``
    reads source position ``i * in / out``, interpolated between its floor and the next pixel (the last
    one repeated at the border), along the width first, then the height. Bit-exact with
    torch-fidelity's ``interpolate_bilinear_2d_like_tensorflow1x`` on the CPU.

    >>> x = torch.arange(4.0).reshape(1, 1, 2, 2)
    >>> tf1_bilinear_resize(x, 4)[0, 0]
    tensor([[0.0000, 0.5000, 1.0000, 1.0000],
            [1.0000, 1.5000, 2.0000, 2.0000],
            [2.0000, 2.5000, 3.0000, 3.0000],
            [2.0000, 2.5000, 3.0000, 3.0000]])
    """

    def grid(length: int) -> tuple[Tensor, Tensor, Tensor]:
        # the scale is rounded to float32 first, as TensorFlow's kernel holds it
        position = torch.arange(size, dtype=x.dtype, device=x.device) * torch.tensor(
            length / size, dtype=torch.float32
        )
        low = position.long()
        return low, (low + 1).clamp_max(length - 1), position - low.float()

    y_low, y_high, dy = grid(x.shape[2])
    x_low, x_high, dx = grid(x.shape[3])
    dx = dx.view(1, 1, 1, size)
    top, bottom = x.index_select(2, y_low), x.index_select(2, y_high)
    top_left, top_right = top.index_select(3, x_low), top.index_select(3, x_high)
    bottom_left, bottom_right = bottom.index_select(3, x_low), bottom.index_select(3, x_high)
    upper = top_left + (top_right - top_left) * dx
    lower = bottom_left + (bottom_right - bottom_left) * dx
    return upper + (lower - upper) * dy.view(1, 1, size, 1)
