"""Generated clusterings for the clustering tests: label pairs with arbitrary ids and embedded data.

Every case is deterministic (seeded by its id). Label cases cover random and correlated labelings,
single-cluster and all-singleton labelings, perfect matches under relabelling, negative and huge ids,
narrow dtypes and a tiny sample; embedding cases cover well and badly separated blobs, duplicate
points, ids with gaps and a cluster per sample but one.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor
import itertools

from tests._seeds import keyed_generator

# name -> (functional name, modular class name, option grid)
LABEL_SCORES: dict[str, tuple[str, dict[str, tuple]]] = {
    "MutualInfoScore": ("mutual_info_score", {}),
    "NormalizedMutualInfoScore": (
        "normalized_mutual_info_score",
        {"average_method": ("min", "geometric", "arithmetic", "max")},
    ),
    "AdjustedMutualInfoScore": (
        "adjusted_mutual_info_score",
        {"average_method": ("min", "geometric", "arithmetic", "max")},
    ),
    "RandScore": ("rand_score", {}),
    "AdjustedRandScore": ("adjusted_rand_score", {}),
    "FowlkesMallowsIndex": ("fowlkes_mallows_index", {}),
    "HomogeneityScore": ("homogeneity_score", {}),
    "CompletenessScore": ("completeness_score", {}),
    "VMeasureScore": ("v_measure_score", {"beta": (0.5, 1.0, 2.0)}),
}


def option_sets(grid: dict[str, tuple]) -> list[dict]:
    """Every option value on its own (one option per score at most)."""
    if not grid:
        return [{}]
    ((name, values),) = grid.items()
    return [{name: v} for v in values]


@dataclass(frozen=True)
class LabelCase:
    id: str
    preds: Tensor
    target: Tensor

    def batches(self) -> list[tuple[Tensor, Tensor]]:
        """Uneven consecutive batches: one sample, up to half, the rest, and an empty batch."""
        n = self.preds.numel()
        cuts = sorted({0, min(n, 1), n // 2, n})
        return [(self.preds[a:b], self.target[a:b]) for a, b in itertools.pairwise(cuts)] + [
            (self.preds[:0], self.target[:0])
        ]


def _random(key: str, n: int, k_preds: int, k_target: int, agree: float) -> LabelCase:
    g = keyed_generator(key)
    target = torch.randint(0, k_target, (n,), generator=g)
    noise = torch.randint(0, k_preds, (n,), generator=g)
    preds = torch.where(torch.rand(n, generator=g) < agree, target % k_preds, noise)
    return LabelCase(key, preds, target)


def label_cases() -> list[LabelCase]:
    cases = [
        _random("random-40-3-4", 40, 3, 4, 0.0),
        _random("random-150-6-5", 150, 6, 5, 0.3),
        _random("correlated-120-4-4", 120, 4, 4, 0.8),
        _random("many-clusters-90-20-15", 90, 20, 15, 0.5),
        _random("two-samples", 2, 2, 2, 0.5),
    ]
    g = keyed_generator("fixed")
    target = torch.randint(0, 5, (60,), generator=g)
    perm = torch.tensor([3, 0, 4, 1, 2])
    cases += [
        LabelCase("perfect-relabelled", perm[target] * 7 - 3, target),
        LabelCase("single-cluster-both", torch.full((25,), 4), torch.full((25,), -2)),
        LabelCase("single-cluster-preds", torch.zeros(30, dtype=torch.long), target[:30]),
        LabelCase("single-cluster-target", target[:30], torch.ones(30, dtype=torch.long)),
        LabelCase("all-singletons", torch.arange(12), torch.arange(12) * 3),
        LabelCase("singletons-vs-clusters", torch.arange(20), target[:20]),
        LabelCase("one-sample", torch.tensor([5]), torch.tensor([9])),
        LabelCase(
            "negative-and-huge-ids", torch.tensor([-(2**40), -1, 10**12, -1, 10**12, 3] * 5), target[:30]
        ),
        LabelCase("independent-2x2", torch.tensor([0, 0, 1, 1] * 6), torch.tensor([0, 1, 0, 1] * 6)),
        LabelCase("int32-and-uint8", target.to(torch.int32) + 100, (target.flip(0) % 3).to(torch.uint8)),
    ]
    return cases


@dataclass(frozen=True)
class EmbeddingCase:
    id: str
    data: Tensor
    labels: Tensor

    def batches(self) -> list[tuple[Tensor, Tensor]]:
        n = self.labels.numel()
        cuts = [0, n // 3, n // 3, (2 * n) // 3, n]  # an empty batch in the middle
        return [(self.data[a:b], self.labels[a:b]) for a, b in itertools.pairwise(cuts)]


def _blobs(
    key: str, n: int, k: int, dim: int, spread: float, dtype: torch.dtype = torch.float32
) -> EmbeddingCase:
    g = keyed_generator(key)
    labels = torch.arange(n) % k
    labels = labels[torch.randperm(n, generator=g)]
    centers = torch.randn(k, dim, generator=g, dtype=torch.float64) * 4
    data = centers[labels] + spread * torch.randn(n, dim, generator=g, dtype=torch.float64)
    return EmbeddingCase(key, data.to(dtype), labels)


def embedding_cases() -> list[EmbeddingCase]:
    cases = [
        _blobs("separated-60-3-2", 60, 3, 2, 0.3),
        _blobs("overlapping-80-4-5", 80, 4, 5, 3.0),
        _blobs("float64-50-5-3", 50, 5, 3, 1.0, torch.float64),
        _blobs("one-dim-30-2-1", 30, 2, 1, 1.0),
        _blobs("wide-40-6-16", 40, 6, 16, 1.0),
    ]
    base = _blobs("gapped-45-3-2", 45, 3, 2, 0.5)
    cases.append(EmbeddingCase("gapped-ids", base.data, torch.tensor([-7, 3, 1000])[base.labels]))
    duplicate = torch.tensor([[1.0, 2.0]] * 4 + [[5.0, -1.0]] * 4)
    cases.append(EmbeddingCase("duplicate-points", duplicate, torch.tensor([0] * 4 + [1] * 4)))
    near = _blobs("clusters-n-minus-1", 7, 6, 2, 1.0)
    cases.append(EmbeddingCase("clusters-n-minus-1", near.data, torch.tensor([0, 1, 2, 3, 4, 5, 5])))
    return cases
