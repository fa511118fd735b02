"""Windowed moments: the one core under SSIM, MS-SSIM, UQI, the D-lambda / D-s indices, SCC and VIF.

Each of those metrics compares two images through the local means, variances and covariance in a
sliding window. :func:`local_moments` filters the five maps ``p, t, p*p, t*t, p*t`` in one
batched separable pass and returns the moments; the metrics differ only in the window, the
border handling and the formula applied to the moments.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor

from lightning_metrics.functional.image._filters import SeparableWindow


class Moments(NamedTuple):
    """Local statistics of two images: means, variances (clamped at 0) and covariance."""

    mean_p: Tensor
    mean_t: Tensor
    var_p: Tensor
    var_t: Tensor
    cov: Tensor


def local_moments(preds: Tensor, target: Tensor, window: SeparableWindow) -> Moments:
    """The windowed moments of two (already padded) images of one shape ``(..., *spatial)``."""
    n = preds.shape[0]
    filtered = window.apply(torch.cat((preds, target, preds * preds, target * target, preds * target)))
    mean_p, mean_t, pp, tt, pt = filtered.split([n] * 5)  # explicit sizes: an empty batch too
    return Moments(
        mean_p,
        mean_t,
        torch.clamp(pp - mean_p.pow(2), min=0.0),
        torch.clamp(tt - mean_t.pow(2), min=0.0),
        pt - mean_p * mean_t,
    )


def band_moments(images: Tensor, window: SeparableWindow) -> tuple[Tensor, Tensor, Tensor]:
    """Windowed means, second moments and cross moments of every pair of bands of ``(N, C, H, W)``.

    Returns ``mean (N, C, h, w)``, ``square (N, C, h, w)`` and ``cross (N, P, h, w)`` for the
    ``P = C (C - 1) / 2`` pairs ``k < r`` in row order: ``C + C + P`` filtered maps instead of
    the five per pair that one SSIM-style call per pair would filter.
    """
    c = images.shape[1]
    first, second = torch.triu_indices(c, c, offset=1, device=images.device)
    cross = images[:, first] * images[:, second]
    filtered = window.apply(torch.cat((images, images * images, cross), dim=1))
    return filtered[:, :c], filtered[:, c : 2 * c], filtered[:, 2 * c :]
