"""Generated weighted cases for the curve and score metrics: tied scores (on a 1/20 grid, so that scores
also sit on bin edges), integer, fractional and zero weights, optional ignored targets."""

from __future__ import annotations

import numpy as np
import torch

C = 4
IGNORE = -1
GRID = 20  # scores are edges k < GRID of ``thresholds=GRID + 1``: ties, and scores on the bin edges
EDGES = torch.linspace(0, 1, GRID + 1).numpy()  # float32 (linspace is not k / GRID in every place)


def weights(rng: np.random.Generator, n: int) -> np.ndarray:
    """Integer weights 0..3, about a third of them scaled to fractions, and some zeros."""
    w = rng.integers(0, 4, n).astype(np.float64)
    fractional = rng.random(n) < 0.35
    w[fractional] *= rng.random(fractional.sum()) + 0.05
    w[rng.random(n) < 0.1] = 0.0
    return w


def case(task: str, seed: int, n: int = 240, ignore: bool = False) -> dict:
    """``preds``, ``target``, ``weight`` (torch) and their numpy copies ``p``, ``t``, ``w``."""
    rng = np.random.default_rng(seed)
    if task == "binary":
        target = rng.integers(0, 2, n)
        p = EDGES[np.clip(rng.integers(0, GRID, n) + 4 * target, 0, GRID - 1)]  # informative, tied
    elif task == "multiclass":
        target = rng.integers(0, C, n)
        logits = rng.integers(0, 6, (n, C)).astype(np.float64)
        logits[np.arange(n), target] += rng.integers(0, 4, n)
        p = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    else:
        target = rng.integers(0, 2, (n, C))
        p = EDGES[np.clip(rng.integers(0, GRID, (n, C)) + 4 * target, 0, GRID - 1)]
    w = weights(rng, n)
    t = target.copy()
    if ignore:
        t[rng.random(t.shape) < 0.1] = IGNORE
    return {
        "preds": torch.tensor(p),
        "target": torch.tensor(t),
        "weight": torch.tensor(w),
        "p": p,
        "t": t,
        "w": w,
    }


def onehot(t: np.ndarray, num: int = C) -> np.ndarray:
    return (t[:, None] == np.arange(num)).astype(int)
