"""A tiny seeded generator for the perceptual path length tests (and their oracle fixture script).

Its weights and its latent draws come from numpy's ``default_rng``, so the test environment and
the oracle environment get the same images; ``conditional=True`` labels are drawn by the metric
itself from torch's global generator, as torchmetrics draws them.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
import torch
from torch import Tensor, nn


class TinyGenerator(nn.Module):
    """``z`` (and a one-hot label) -> a linear map -> a sigmoid image in [0, 255], ``(N, 3, side, side)``."""

    def __init__(
        self, z_size: int = 4, side: int = 16, num_classes: Optional[int] = None, seed: int = 0
    ) -> None:
        super().__init__()
        rng = np.random.default_rng(seed)
        inputs = z_size + (num_classes or 0)
        self.z_size, self.side = z_size, side
        self.linear = nn.Linear(inputs, 3 * side * side)
        with torch.no_grad():
            self.linear.weight.copy_(
                torch.from_numpy(rng.standard_normal((3 * side * side, inputs)).astype(np.float32))
            )
            self.linear.bias.copy_(
                torch.from_numpy(rng.standard_normal(3 * side * side).astype(np.float32) * 0.1)
            )
        if num_classes is not None:
            self.num_classes = num_classes
        self._latents = np.random.default_rng(seed + 1000)

    def sample(self, num_samples: int) -> Tensor:
        return torch.from_numpy(self._latents.standard_normal((num_samples, self.z_size)).astype(np.float32))

    def forward(self, z: Tensor, labels: Optional[Tensor] = None) -> Tensor:
        if labels is not None:
            z = torch.cat([z, nn.functional.one_hot(labels, self.num_classes).to(z.dtype)], dim=1)
        return 255 * torch.sigmoid(self.linear(z)).reshape(-1, 3, self.side, self.side)
