"""A retrieval measure written for torchmetrics (``RetrievalMetric`` subclassed, ``_metric`` per query)
runs unchanged after swapping the import, with torchmetrics 1.9's values.

The same source is loaded against both packages and fed the same generated documents: hundreds of
documents in dozens of queries, tied scores (across targets too: both packages hand ``_metric`` the
same documents in the same order), queries without a relevant document, ``ignore_index``, integer,
bool and float targets, graded relevance, uneven batches; every ``empty_target_action`` and
``aggregation``; ``forward`` values, merged states, collections and a subclass of a built-in measure.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
import torch

from tests._outcomes import assert_same_outcome, outcome
from tests.retrieval._cases import make_documents, median_of_squares

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

SOURCE = '''
import torch
from torchmetrics.retrieval.base import RetrievalMetric
from torchmetrics.retrieval import RetrievalPrecision


class PrecisionAtK(RetrievalMetric):
    """The share of relevant documents among the top_k best scored (argsort: ties as torch orders them)."""

    def __init__(self, top_k=None, **kwargs):
        super().__init__(**kwargs)
        self.top_k = top_k

    def _metric(self, preds, target):
        k = preds.numel() if self.top_k is None else self.top_k
        best = torch.argsort(preds, descending=True)[:k]
        return target[best].float().sum() / k


class FirstHit(RetrievalMetric):
    """1 / the rank of the best-scored relevant document (int64 ranks from a double argsort)."""

    def _metric(self, preds, target):
        ranks = torch.argsort(torch.argsort(preds, descending=True))
        return 1.0 / (ranks[target == 1].min() + 1)


class RelevantShare(RetrievalMetric):
    """Needs integer targets: bincount refuses floats (bool and int targets arrive as int64)."""

    def _metric(self, preds, target):
        return torch.bincount(target, minlength=2)[1] / target.numel()


class GradedGain(RetrievalMetric):
    """Graded relevance: the score-weighted mean grade."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.allow_non_binary_target = True

    def _metric(self, preds, target):
        return (target * preds).sum() / target.sum()


class HalfPrecision(RetrievalPrecision):
    """A built-in measure with its per-query value changed (torchmetrics' _metric through super())."""

    def _metric(self, preds, target):
        return super()._metric(preds, target) / 2
'''

CLASSES = ("PrecisionAtK", "FirstHit", "RelevantShare", "GradedGain", "HalfPrecision")


def _load(package: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(SOURCE.replace("torchmetrics", package), f"<{package}>", "exec"), namespace)
    return namespace


THEIRS, OURS = _load("torchmetrics"), _load("lightning_metrics")


def _case(name: str, seed: int) -> tuple[dict[str, Any], list[tuple[torch.Tensor, ...]]]:
    rng = random.Random(f"{name}-{seed}")
    kwargs: dict[str, Any] = {
        "empty_target_action": rng.choice(["neg", "pos", "skip", "error"]),
        "ignore_index": rng.choice([None, -1]),
        "aggregation": rng.choice(["mean", "median", "min", "max", median_of_squares]),
    }
    if name in ("PrecisionAtK", "HalfPrecision"):
        kwargs["top_k"] = rng.choice([None, 1, 3, 10])
    docs = make_documents(
        seed=rng.randrange(2**31),
        num_queries=rng.randint(20, 60),
        max_docs=rng.choice([6, 20]),
        ties="safe" if name == "HalfPrecision" else "any",  # the built-in ranks ties its own way
        graded=name == "GradedGain" and rng.choice([True, "float"]),
        ignore_index=kwargs["ignore_index"],
    )
    target = docs.target
    kind = "float" if name == "GradedGain" else rng.choice(["long", "bool", "float"] if name != "RelevantShare" else ["long", "bool"])
    if kind == "bool" and kwargs["ignore_index"] is None:
        target = target.bool()
    elif kind == "float":
        target = target.float()
    docs.target = target
    return kwargs, docs.batches(rng.randint(1, 5), seed=rng.randrange(2**31))


CASES = [(name, seed) for name in CLASSES for seed in range(12)]


@pytest.mark.parametrize(("name", "seed"), CASES, ids=[f"{n}-{s}" for n, s in CASES])
def test_subclass_matches_torchmetrics(name: str, seed: int) -> None:
    kwargs, batches = _case(name, seed)
    ours, theirs = OURS[name](**kwargs), THEIRS[name](**kwargs)
    # forward on other instances: after a batch value that raises, the states are torchmetrics' accident
    ours_forward, theirs_forward = OURS[name](**kwargs), THEIRS[name](**kwargs)
    for i, (preds, target, indexes) in enumerate(batches):
        if preds.numel() == 0 or (kwargs["ignore_index"] is not None and bool((target == -1).all())):
            continue  # torchmetrics refuses a batch without documents; ours adds nothing
        ours.update(preds, target, indexes=indexes)
        theirs.update(preds, target, indexes=indexes)
        assert_same_outcome(outcome(lambda: ours_forward(preds, target, indexes=indexes)),
              outcome(lambda: theirs_forward(preds, target, indexes=indexes)), f"forward {i} {kwargs}")
    assert_same_outcome(outcome(ours.compute), outcome(theirs.compute), f"compute {kwargs}")


def test_the_target_reaches_metric_in_torchmetrics_dtype() -> None:
    seen: dict[str, list] = {}

    def spy(package: dict[str, Any], key: str) -> Any:
        class Spy(package["PrecisionAtK"]):
            def _metric(self, preds: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
                seen.setdefault(key, []).append((preds.dtype, target.dtype, preds.tolist(), target.tolist()))
                return super()._metric(preds, target)

        return Spy()

    docs = make_documents(seed=5, num_queries=30, max_docs=12, ties="any")
    for kind in (docs.target.long(), docs.target.bool(), docs.target.int(), docs.target.double()):
        seen.clear()
        for package, key in ((OURS, "ours"), (THEIRS, "theirs")):
            metric = spy(package, key)
            for preds, target, indexes in make_documents(seed=5, num_queries=30, max_docs=12, ties="any").batches(3, 1):
                metric.update(preds, target.to(kind.dtype), indexes)
            metric.compute()
        assert seen["ours"] == seen["theirs"], kind.dtype


def test_in_a_collection_with_built_in_measures() -> None:
    from lightning_metrics import MetricCollection as OurCollection
    from lightning_metrics.retrieval import RetrievalMAP as OurMAP
    from torchmetrics import MetricCollection as TheirCollection
    from torchmetrics.retrieval import RetrievalMAP as TheirMAP

    ours = OurCollection({"p": OURS["PrecisionAtK"](top_k=3), "hit": OURS["FirstHit"](), "map": OurMAP(),
                          "p5": OURS["PrecisionAtK"](top_k=5, aggregation="median")})
    theirs = TheirCollection({"p": THEIRS["PrecisionAtK"](top_k=3), "hit": THEIRS["FirstHit"](), "map": TheirMAP(),
                              "p5": THEIRS["PrecisionAtK"](top_k=5, aggregation="median")})
    docs = make_documents(seed=11, num_queries=50, max_docs=15, ties="safe")
    for preds, target, indexes in docs.batches(4, 2):
        if preds.numel():
            ours.update(preds, target, indexes=indexes)
            theirs.update(preds, target, indexes=indexes)
    got, expected = ours.compute(), theirs.compute()
    assert got.keys() == expected.keys()
    for key in expected:
        assert_same_outcome(got[key], expected[key], key)


def test_merged_and_reset_states() -> None:
    docs = make_documents(seed=3, num_queries=40, max_docs=10, ties="any")
    parts = docs.batches(2, 7)
    whole, left, right = (OURS["FirstHit"](aggregation="max") for _ in range(3))
    for metric, batches in ((whole, parts), (left, parts[:1]), (right, parts[1:])):
        for preds, target, indexes in batches:
            metric.update(preds, target, indexes)
    left.merge_state(right)
    torch.testing.assert_close(left.compute(), whole.compute(), rtol=0, atol=0)
    whole.reset()
    assert whole.compute().item() == 0.0  # no documents (torchmetrics raises on concatenating none)


def test_construction_follows_torchmetrics() -> None:
    from lightning_metrics.retrieval.base import RetrievalMetric
    from torchmetrics.retrieval.base import RetrievalMetric as Theirs

    for cls in (RetrievalMetric, Theirs):
        with pytest.raises(TypeError):
            cls()  # abstract: no _metric
    for bad in ({"empty_target_action": "drop"}, {"aggregation": "sum"}, {"ignore_index": 1.5}):
        with pytest.raises((ValueError, TypeError)):
            OURS["FirstHit"](**bad)
        with pytest.raises(ValueError):
            THEIRS["FirstHit"](**bad)
    metric = OURS["PrecisionAtK"](top_k=4, ignore_index=-1, aggregation="min", compute_on_cpu=True)
    assert (metric.top_k, metric.ignore_index, metric.aggregation, metric.empty_target_action) == (4, -1, "min", "neg")
    assert metric.compute_on_cpu
    with pytest.raises(ValueError, match="binary"):
        metric.update(torch.tensor([0.1, 0.2]), torch.tensor([0, 2]), torch.tensor([0, 0]))
