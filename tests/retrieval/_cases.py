"""Generated retrieval data and the argument space of every class and function.

Documents come in queries of 1..``max_docs`` documents with sparse, huge int64 ids, shuffled and
split into uneven batches (a query spans batches). Kinds of queries are mixed on purpose: without
a relevant document, with only relevant ones, of a single document, larger than every ``top_k``.

``ties="safe"`` ties scores only between documents of equal target: then every measure is defined
whatever the order among ties, and torchmetrics (whose order among ties depends on its sort) is a
valid oracle. ``ties="any"`` ties across targets too: the oracles are the brute-force definitions
(with our documented order: a non-relevant document first) and tie-invariant measures.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Optional

import torch
from torch import Tensor


@dataclass
class Documents:
    preds: Tensor
    target: Tensor
    indexes: Tensor

    def batches(self, count: int, seed: int) -> list[tuple[Tensor, Tensor, Tensor]]:
        """Shuffled documents in ``count`` uneven batches (possibly empty ones)."""
        gen = torch.Generator().manual_seed(seed)
        order = torch.randperm(len(self.preds), generator=gen)
        cuts = sorted(torch.randint(0, len(order) + 1, (count - 1,), generator=gen).tolist())
        parts = torch.tensor_split(order, cuts)
        return [(self.preds[p], self.target[p], self.indexes[p]) for p in parts]


def make_documents(
    seed: int,
    num_queries: int = 12,
    max_docs: int = 9,
    ties: str = "safe",
    graded: Any = False,
    ignore_index: Optional[int] = None,
    logits: bool = False,
) -> Documents:
    rng = random.Random(seed)
    preds, target, indexes = [], [], []
    ids = sorted({rng.randint(-(2**62), 2**62) for _ in range(num_queries)})
    rng.shuffle(ids)
    for q, query_id in enumerate(ids):
        kind = rng.choice(["mixed", "mixed", "mixed", "none", "all", "single"])
        n = 1 if kind == "single" or max_docs == 1 else rng.randint(2, max_docs)
        if kind == "none":
            rel = [0] * n
        elif kind == "all":
            rel = [_grade(rng, graded, positive=True) for _ in range(n)]
        else:
            rel = [_grade(rng, graded, positive=False) for _ in range(n)]
        scores = _scores(rng, rel, ties, logits)
        for r, s in zip(rel, scores):
            preds.append(s)
            target.append(r)
            indexes.append(query_id)
        if ignore_index is not None:
            for _ in range(rng.randint(0, 2)):  # ignored documents, some with high scores
                preds.append(rng.uniform(0.5, 1.0))
                target.append(ignore_index)
                indexes.append(query_id)
    return Documents(torch.tensor(preds), torch.tensor(target), torch.tensor(indexes))


def _grade(rng: random.Random, graded: Any, positive: bool) -> float:
    """A target: binary, graded 0..3 (``True``), wide integer grades (``"wide"``) or floats (``"float"``)."""
    if not graded:
        return 1 if positive else rng.randint(0, 1)
    if not positive and rng.random() < 0.4:
        return 0
    if graded == "wide":
        return rng.randint(1, 500)
    if graded == "float":
        return round(rng.uniform(0.05, 3.0), 3)
    return rng.randint(1, 3)


def _scores(rng: random.Random, rel: list[int], ties: str, logits: bool) -> list[float]:
    def draw() -> float:
        if logits:
            return rng.choice([-1.0, 1.0]) * rng.uniform(0.0, 4.0)
        return rng.uniform(0.0, 1.0)

    if ties == "none":
        return [draw() for _ in rel]
    if ties == "any":
        levels = [draw() for _ in range(max(1, len(rel) // 2))]
        return [rng.choice(levels) for _ in rel]
    # safe: documents of equal target in small tie groups, distinct scores between groups
    scores: list[float] = [0.0] * len(rel)
    for value in set(rel):
        members = [i for i, r in enumerate(rel) if r == value]
        rng.shuffle(members)
        while members:
            size = rng.randint(1, 3)
            score = draw()
            for i in members[:size]:
                scores[i] = score
            members = members[size:]
    return scores


def concat(batches: list[tuple[Tensor, Tensor, Tensor]]) -> tuple[Tensor, Tensor, Tensor]:
    return tuple(torch.cat([b[i] for b in batches]) for i in range(3))  # type: ignore[return-value]


def median_of_squares(values: Tensor, dim: Any = None) -> Tensor:
    """A callable aggregation (torchmetrics calls it with ``dim``)."""
    squared = values**2
    return squared.median() if dim is None else squared.median(dim=dim).values


# class name -> (its own arguments and their values, whether targets may be graded)
CLASS_ARGUMENTS: dict[str, dict[str, list]] = {
    "RetrievalMAP": {"top_k": [None, 1, 3, 50, 0]},
    "RetrievalMRR": {"top_k": [None, 1, 3, 50, 0]},
    "RetrievalPrecision": {"top_k": [None, 1, 3, 50], "adaptive_k": [False, True]},
    "RetrievalRecall": {"top_k": [None, 1, 3, 50]},
    "RetrievalFallOut": {"top_k": [None, 1, 3, 50]},
    "RetrievalHitRate": {"top_k": [None, 1, 3, 50]},
    "RetrievalNormalizedDCG": {"top_k": [None, 1, 3, 50]},
    "RetrievalRPrecision": {},
    "RetrievalAUROC": {"top_k": [None, 3, 50], "max_fpr": [None, 0.3, 1.0]},
    "RetrievalPrecisionRecallCurve": {"max_k": [None, 1, 4, 30], "adaptive_k": [False, True]},
    "RetrievalRecallAtFixedPrecision": {
        "min_precision": [0.0, 0.4, 0.8, 1.0],
        "max_k": [None, 4, 30],
        "adaptive_k": [False, True],
    },
}
COMMON_ARGUMENTS: dict[str, list] = {
    "empty_target_action": ["neg", "pos", "skip", "error"],
    "ignore_index": [None, -1],
    "aggregation": ["mean", "median", "min", "max", median_of_squares],
}

FUNCTION_ARGUMENTS: dict[str, dict[str, list]] = {
    "retrieval_average_precision": {"top_k": [None, 1, 3, 50, 0]},
    "retrieval_reciprocal_rank": {"top_k": [None, 1, 3, 50, 0]},
    "retrieval_precision": {"top_k": [None, 1, 3, 50], "adaptive_k": [False, True]},
    "retrieval_recall": {"top_k": [None, 1, 3, 50]},
    "retrieval_fall_out": {"top_k": [None, 1, 3, 50]},
    "retrieval_hit_rate": {"top_k": [None, 1, 3, 50]},
    "retrieval_normalized_dcg": {"top_k": [None, 1, 3, 50]},
    "retrieval_r_precision": {},
    "retrieval_auroc": {"top_k": [None, 0, 3, 50], "max_fpr": [None, 0.3, 1.0]},
    "retrieval_precision_recall_curve": {"max_k": [None, 1, 4, 30], "adaptive_k": [False, True]},
}
GRADED = {"RetrievalNormalizedDCG", "retrieval_normalized_dcg"}
GRADE_KINDS = (False, True, True, "wide", "float")


def sample_arguments(space: dict[str, list], rng: random.Random) -> dict[str, Any]:
    return {name: rng.choice(values) for name, values in space.items()}


def class_cases(per_class: int) -> list[tuple[str, int]]:
    """``(class name, case number)`` for ``per_class`` random cases of every class."""
    return [(name, i) for name in sorted(CLASS_ARGUMENTS) for i in range(per_class)]


def draw_class_case(
    name: str, rng: random.Random, max_queries: int, doc_counts: list[int], **options: Any
) -> tuple[dict[str, Any], Documents]:
    """A random case of class ``name``, all from ``rng``: arguments drawn from its grid and the common one,
    and up to ``max_queries`` queries of one of ``doc_counts`` documents at most (``options``: more of
    :func:`make_documents`' arguments)."""
    kwargs = sample_arguments({**COMMON_ARGUMENTS, **CLASS_ARGUMENTS[name]}, rng)
    docs = make_documents(
        seed=rng.randrange(2**31),
        num_queries=rng.randint(1, max_queries),
        max_docs=rng.choice(doc_counts),
        graded=name in GRADED and rng.choice(GRADE_KINDS),
        ignore_index=kwargs["ignore_index"],
        logits=rng.random() < 0.3,
        **options,
    )
    return kwargs, docs
