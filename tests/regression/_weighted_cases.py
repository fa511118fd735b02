"""Generated weighted regression cases (shared by the functional and modular sample-weight tests).

Hundreds of items, ties (targets rounded to one decimal), integer, fractional and zero weights, and a large
offset (``1e6 + noise``) where shifted sums must keep their digits.
"""

from __future__ import annotations

import numpy as np
import torch

WEIGHT_KINDS = ("integer", "fractional", "zeros")


def weights(kind: str, n: int, seed: int) -> np.ndarray:
    """``integer``: 0..4; ``fractional``: uniform(0, 2) with a fifth exactly zero; ``zeros``: half zero, rest 1."""
    rng = np.random.default_rng(seed)
    if kind == "integer":
        return rng.integers(0, 5, n).astype(np.float64)
    if kind == "fractional":
        w = rng.uniform(0.0, 2.0, n)
        w[rng.random(n) < 0.2] = 0.0
        return w
    if kind == "zeros":
        return (rng.random(n) < 0.5).astype(np.float64)
    raise ValueError(kind)


def case(
    seed: int, n: int = 300, outputs: int = 1, offset: float = 0.0, positive: bool = False,
    dtype: torch.dtype = torch.float32,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(preds, target)``: ``(n,)`` or ``(n, outputs)``; targets with ties; ``positive``: values in (0.1, 5)."""
    rng = np.random.default_rng(seed)
    shape = (n,) if outputs == 1 else (n, outputs)
    if positive:
        target = np.round(rng.uniform(0.1, 5.0, shape), 1)
        preds = target * rng.uniform(0.5, 1.5, shape)
    else:
        target = offset + np.round(rng.normal(2.0, 3.0, shape), 1)
        preds = offset + 0.8 * (target - offset) + rng.normal(0.0, 1.0, shape)
        preds[: n // 10] = target[: n // 10]  # some exact predictions: residuals of zero
    return torch.tensor(preds, dtype=dtype), torch.tensor(target, dtype=dtype)


def np64(t: torch.Tensor) -> np.ndarray:
    return t.detach().to(torch.float64).numpy()
