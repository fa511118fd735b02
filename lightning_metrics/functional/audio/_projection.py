"""The one core under SNR, SI-SNR, SI-SDR, C-SI-SNR and SA-SDR: a signal and a distortion energy.

Each of those ratios projects the estimate on the reference (or not), then compares the energy of
the (scaled) reference with the energy of what is left: :func:`ratio_db` computes both over the
time axis (and the speaker axis for the source-aggregated ratio), :func:`decibels` turns them into
``10 log10((signal + eps) / (distortion + eps))`` with torchmetrics' ``eps`` (the machine epsilon
of the input dtype). Half-precision inputs are summed in float32 (a float16 sum of 16000 squared
samples loses most digits); results come back in the input dtype.
"""

from __future__ import annotations

from typing import Sequence

import torch
from torch import Tensor


def check_signals(preds: object, target: object) -> None:
    """Two floating tensors of one shape (``RuntimeError`` for shapes, as torchmetrics raises)."""
    for name, value in (("preds", preds), ("target", target)):
        if not isinstance(value, Tensor):
            raise TypeError(f"Argument `{name}` must be a tensor, got {type(value).__name__}")
    if preds.shape != target.shape:  # type: ignore[union-attr]
        raise RuntimeError(
            f"`preds` and `target` must have the same shape, got preds.shape={tuple(preds.shape)} "  # type: ignore[union-attr]
            f"and target.shape={tuple(target.shape)}"  # type: ignore[union-attr]
        )
    if not preds.is_floating_point():  # type: ignore[union-attr]
        raise TypeError(f"Argument `preds` must be a floating tensor, got dtype {preds.dtype}")  # type: ignore[union-attr]


def _work(x: Tensor) -> Tensor:
    return x.float() if x.dtype in (torch.float16, torch.bfloat16) else x


def decibels(signal: Tensor, distortion: Tensor, dtype: torch.dtype) -> Tensor:
    """``10 log10((signal + eps) / (distortion + eps))`` in ``dtype`` (``eps`` of ``dtype``)."""
    eps = torch.finfo(dtype).eps
    return (10 * torch.log10((signal + eps) / (distortion + eps))).to(dtype)


def ratio_db(
    preds: Tensor,
    target: Tensor,
    zero_mean: bool = False,
    scale_invariant: bool = False,
    dims: Sequence[int] = (-1,),
) -> Tensor:
    """The checked ratio in decibels, one value per signal (or per mixture for ``dims=(-2, -1)``):
    the energy of the reference (optimally scaled when ``scale_invariant``) over the energy of the
    distortion ``reference - preds``, summed over ``dims`` in float32 at least."""
    check_signals(preds, target)
    eps = torch.finfo(preds.dtype).eps
    p, t = _work(preds), _work(target.to(preds.dtype))
    if zero_mean:
        t = t - t.mean(dim=-1, keepdim=True)
        p = p - p.mean(dim=-1, keepdim=True)
    dims = tuple(dims)
    if scale_invariant:
        alpha = ((p * t).sum(dim=dims, keepdim=True) + eps) / ((t * t).sum(dim=dims, keepdim=True) + eps)
        t = alpha * t
    distortion = t - p
    return decibels((t * t).sum(dim=dims), (distortion * distortion).sum(dim=dims), preds.dtype)
