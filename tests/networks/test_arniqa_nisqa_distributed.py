"""ARNIQA and NISQA across 2 gloo processes equal one process over all the data (uneven shards, and
a rank with no batch at all): their states are float64 sums and counts, merged by one sum.
A random NISQA network and a small stand-in for ARNIQA's (seeded, the same in every process): the
network does not matter for the sync, and a random ResNet-50 costs seconds per image size here."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from tests._distributed import run_distributed

pytestmark = [pytest.mark.timeout(240)]


class TinyARNIQA(nn.Module):
    """What ARNIQA's metric asks of its network: ``(img, normalize=...)`` -> scores ``(N, 1)``."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.head = nn.Linear(4, 1)

    def forward(self, img: torch.Tensor, normalize: bool = False) -> torch.Tensor:
        return torch.sigmoid(self.head(self.conv(img).mean(dim=(2, 3))))


def _metrics() -> dict:
    from lightning_metrics.audio import NonIntrusiveSpeechQualityAssessment
    from lightning_metrics.image import ARNIQA
    from lightning_metrics.networks import network

    torch.manual_seed(0)
    arniqa_net, nisqa_net = TinyARNIQA(), network("nisqa", pretrained=False)
    return {
        "arniqa_mean": ARNIQA(model=arniqa_net),
        "arniqa_sum": ARNIQA(reduction="sum", model=arniqa_net),
        "nisqa": NonIntrusiveSpeechQualityAssessment(16000, model=nisqa_net),
    }


def _batches() -> list[tuple]:
    gen = torch.Generator().manual_seed(7)
    return [(torch.rand(n, 3, 16, 16, generator=gen), torch.randn(n, 4000, generator=gen)) for n in (2, 1, 3)]


def _update(metrics: dict, batches: list) -> dict:
    for img, audio in batches:
        metrics["arniqa_mean"].update(img)
        metrics["arniqa_sum"].update(img)
        metrics["nisqa"].update(audio)
    return {name: metric.compute() for name, metric in metrics.items()}


def _on_rank(rank: int, world: int) -> list[dict]:
    batches = _batches()
    shards = ({0: batches[:2], 1: batches[2:]}, {0: batches, 1: []})  # uneven; a rank without a batch
    return [_update(_metrics(), shard[rank]) for shard in shards]


def test_two_processes_equal_one():
    expected = _update(_metrics(), _batches())
    for results in run_distributed(_on_rank, timeout=200):
        for values in results:
            for name, value in values.items():
                torch.testing.assert_close(value, expected[name], rtol=1e-6, atol=1e-7)
