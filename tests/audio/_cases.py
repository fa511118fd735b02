"""Generated audio batches for the tests: speech-like signals, noisy estimates, silence."""

from __future__ import annotations

import torch
from torch import Tensor

FLOATS = (torch.float32, torch.float64)
HALVES = (torch.float16, torch.bfloat16)


def signals(gen: torch.Generator, shape: tuple[int, ...]) -> Tensor:
    """Sums of a few random sinusoids with an envelope and a DC offset (float64)."""
    time = torch.arange(shape[-1], dtype=torch.float64)
    lead = shape[:-1]
    freqs = torch.rand((*lead, 3, 1), generator=gen, dtype=torch.float64) * 0.3 + 0.01
    phases = torch.rand((*lead, 3, 1), generator=gen, dtype=torch.float64) * 6.28
    tones = torch.sin(freqs * time + phases).sum(-2)
    envelope = 0.5 + torch.rand((*lead, 1), generator=gen, dtype=torch.float64)
    return tones * envelope + 0.1 * torch.rand((*lead, 1), generator=gen, dtype=torch.float64)


def pair(kind: str, dtype: torch.dtype, seed: int = 0) -> tuple[Tensor, Tensor]:
    """``(preds, target)`` of ``kind``: ``"mono"`` (4, 300), ``"speakers"`` (3, 2, 257),
    ``"silent_target"``, ``"silent_preds"``, ``"spectrogram"`` (2, 5, 7, 2) or ``"complex"``."""
    gen = torch.Generator().manual_seed(seed)
    shape = {"mono": (4, 300), "speakers": (3, 2, 257), "silent_target": (2, 64), "silent_preds": (2, 64),
             "spectrogram": (2, 5, 7, 2), "complex": (2, 5, 7, 2), "long": (2, 2, 1600)}[kind]
    target = signals(gen, shape)
    preds = 0.8 * target + 0.3 * torch.randn(shape, generator=gen, dtype=torch.float64)
    if kind == "silent_target":
        target = torch.zeros_like(target)
    if kind == "silent_preds":
        preds = torch.zeros_like(preds)
    preds, target = preds.to(dtype), target.to(dtype)
    if kind == "complex":
        return torch.view_as_complex(preds.contiguous()), torch.view_as_complex(target.contiguous())
    return preds, target


def mixtures(speakers: int, dtype: torch.dtype, seed: int = 0, batch: int = 5) -> tuple[Tensor, Tensor]:
    """``(preds, target)`` of ``(batch, speakers, 200)``: the estimates are noisy copies of the
    references in a random order per mixture."""
    gen = torch.Generator().manual_seed(seed)
    target = signals(gen, (batch, speakers, 200))
    order = torch.stack([torch.randperm(speakers, generator=gen) for _ in range(batch)])
    shuffled = torch.gather(target, 1, order[..., None].expand_as(target))
    preds = shuffled + 0.4 * torch.randn(target.shape, generator=gen, dtype=torch.float64)
    return preds.to(dtype), target.to(dtype)


def tolerance(dtype: torch.dtype) -> dict:
    return {
        torch.float64: dict(rtol=1e-9, atol=1e-9),
        torch.float32: dict(rtol=1e-5, atol=1e-4),
        torch.float16: dict(rtol=2e-2, atol=5e-2),
        torch.bfloat16: dict(rtol=1e-1, atol=3e-1),
    }[dtype]
