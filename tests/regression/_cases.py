"""Generated inputs for the regression tests: batches of varied sizes (including 1), 1 and 3 outputs."""

from __future__ import annotations

import torch
from torch import Tensor

BATCH_SIZES = (1, 17, 64, 1, 33)


def _shape(n: int, outputs: int) -> tuple[int, ...]:
    return (n,) if outputs == 1 else (n, outputs)


def batches(
    kind: str, outputs: int, seed: int, sizes: tuple[int, ...] = BATCH_SIZES
) -> list[tuple[Tensor, Tensor]]:
    """``[(preds, target), ...]`` of the given kind:

    ``real``: target ~ N(2, 3), preds = 0.8 target + noise; ``positive``: strictly positive values;
    ``prob``: rows of probabilities ``(n, 4)``; ``ensemble``: ``(n, 5)`` members and ``(n,)`` targets;
    ``rows``: ``(n, 4)`` vectors for cosine similarity.
    """
    gen = torch.Generator().manual_seed(seed)
    out = []
    for n in sizes:
        if kind == "real":
            target = 2 + 3 * torch.randn(_shape(n, outputs), generator=gen)
            preds = 0.8 * target + torch.randn(_shape(n, outputs), generator=gen)
        elif kind == "positive":
            target = torch.rand(_shape(n, outputs), generator=gen) * 5 + 0.1
            preds = target * (0.5 + torch.rand(_shape(n, outputs), generator=gen))
        elif kind == "prob":
            preds = torch.rand(n, 4, generator=gen) + 0.05
            target = torch.rand(n, 4, generator=gen) + 0.05
        elif kind == "logprob":
            preds = torch.log_softmax(torch.randn(n, 4, generator=gen), dim=-1)
            target = torch.log_softmax(torch.randn(n, 4, generator=gen), dim=-1)
        elif kind == "ensemble":
            target = torch.randn(n, generator=gen)
            preds = target.unsqueeze(1) + torch.randn(n, 5, generator=gen)
        elif kind == "rows":
            preds = torch.randn(n, 4, generator=gen)
            target = preds + 0.5 * torch.randn(n, 4, generator=gen)
        elif kind == "ties":  # few distinct values: exercises rank ties
            target = torch.randint(0, 4, _shape(n, outputs), generator=gen).float()
            preds = (target + torch.randint(-1, 2, _shape(n, outputs), generator=gen)).float()
        else:
            raise ValueError(kind)
        out.append((preds, target))
    return out


def concat(parts: list[tuple[Tensor, Tensor]]) -> tuple[Tensor, Tensor]:
    return torch.cat([p for p, _ in parts]), torch.cat([t for _, t in parts])
