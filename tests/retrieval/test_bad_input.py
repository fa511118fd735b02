"""Bad arguments and bad batches: a clear error naming the argument and the value, state untouched."""

from __future__ import annotations

import pytest
import torch

import lightning_metrics.functional.retrieval as F
import lightning_metrics.retrieval as lm
from lightning_metrics import MetricCollection
from tests.retrieval._cases import CLASS_ARGUMENTS

PREDS = torch.tensor([0.3, 0.8, 0.5])
TARGET = torch.tensor([1, 0, 1])
INDEXES = torch.tensor([4, 4, 9])


def _snapshot(metric) -> dict:
    return {name: [t.clone() for t in getattr(metric, name)] for name in ("indexes", "preds", "target")}


def _same(a: dict, b: dict) -> bool:
    return all(len(a[k]) == len(b[k]) and all(torch.equal(x, y) for x, y in zip(a[k], b[k])) for k in a)


BAD_BATCHES = {
    "indexes None": ((PREDS, TARGET, None), ValueError, r"`indexes` is required .* got None"),
    "indexes float": (
        (PREDS, TARGET, INDEXES.float()),
        ValueError,
        r"`indexes` must be a tensor of integers .*float32",
    ),
    "indexes bool": (
        (PREDS, TARGET, INDEXES > 5),
        ValueError,
        r"`indexes` must be a tensor of integers .*bool",
    ),
    "indexes shorter": (
        (PREDS, TARGET, INDEXES[:2]),
        ValueError,
        r"`indexes` must have the same shape, got \(3,\), \(3,\) and \(2,\)",
    ),
    "target longer": (
        (PREDS, torch.tensor([1, 0, 1, 1]), INDEXES),
        ValueError,
        r"same shape, got \(3,\), \(4,\)",
    ),
    "float target": (
        (PREDS, torch.tensor([1.0, 0.5, 0.0]), INDEXES),
        ValueError,
        r"`target` must contain binary values .* got 0\.5",
    ),
    "target 2": (
        (PREDS, torch.tensor([2, 0, 1]), INDEXES),
        ValueError,
        r"`target` must contain binary values .* got 2;",
    ),
    "negative target": ((PREDS, torch.tensor([-3, 0, 1]), INDEXES), ValueError, r"binary values .* got -3;"),
    "integer preds": (
        (torch.tensor([1, 0, 1]), TARGET, INDEXES),
        ValueError,
        r"`preds` must be a tensor of floats, got torch\.int64",
    ),
    "preds a list": (([0.3, 0.8, 0.5], TARGET, INDEXES), TypeError, r"`preds` must be a tensor, got list"),
}


@pytest.mark.parametrize("name", sorted(CLASS_ARGUMENTS))
@pytest.mark.parametrize("case", sorted(BAD_BATCHES))
def test_a_bad_batch_is_refused_and_leaves_the_state_as_it_was(name: str, case: str) -> None:
    args, error, message = BAD_BATCHES[case]
    metric = getattr(lm, name)()
    if name == "RetrievalNormalizedDCG" and case in ("float target", "target 2", "negative target"):
        metric.update(*args)  # graded relevance: any number is a target
        return
    metric.update(PREDS, TARGET, INDEXES)
    before, value = _snapshot(metric), metric.compute()
    with pytest.raises(error, match=message):
        metric.update(*args)
    assert _same(_snapshot(metric), before) and metric.update_count == 1
    for a, b in zip(*(v if isinstance(v, tuple) else (v,) for v in (metric.compute(), value))):
        assert torch.equal(a, b)


def test_missing_indexes_names_it() -> None:
    with pytest.raises(TypeError, match="indexes"):
        lm.RetrievalMAP().update(PREDS, TARGET)


def test_a_refused_batch_leaves_a_collection_as_it_was() -> None:
    collection = MetricCollection(
        {"map": lm.RetrievalMAP(), "ndcg": lm.RetrievalNormalizedDCG(), "i": lm.RetrievalMRR(ignore_index=-1)}
    )
    collection.update(PREDS, TARGET, INDEXES)
    before = {k: _snapshot(m) for k, m in collection.items(keep_base=True)}
    with pytest.raises(ValueError, match="binary"):
        collection.update(PREDS, torch.tensor([0, 3, 1]), INDEXES)
    assert all(_same(_snapshot(m), before[k]) for k, m in collection.items(keep_base=True))


CONSTRUCTOR_ERRORS = [
    ("RetrievalMAP", {"top_k": -1}, r"`top_k` has to be a positive integer or None, got -1"),
    ("RetrievalMRR", {"top_k": -2}, r"`top_k` .* got -2"),
    ("RetrievalMAP", {"top_k": 2.5}, r"`top_k` .* got 2\.5"),
    ("RetrievalPrecision", {"top_k": 0}, r"`top_k` .* got 0"),
    ("RetrievalRecall", {"top_k": -1}, r"`top_k` .* got -1"),
    ("RetrievalFallOut", {"top_k": -1}, r"`top_k` .* got -1"),
    ("RetrievalHitRate", {"top_k": -1}, r"`top_k` .* got -1"),
    ("RetrievalNormalizedDCG", {"top_k": -1}, r"`top_k` .* got -1"),
    ("RetrievalAUROC", {"top_k": 0}, r"`top_k` .* got 0"),
    ("RetrievalAUROC", {"max_fpr": 1.5}, r"`max_fpr` .* got 1\.5"),
    ("RetrievalAUROC", {"max_fpr": 0.0}, r"`max_fpr` .* got 0\.0"),
    ("RetrievalPrecision", {"adaptive_k": 1}, r"`adaptive_k` has to be a boolean, got 1"),
    ("RetrievalPrecisionRecallCurve", {"max_k": -3}, r"`max_k` .* got -3"),
    ("RetrievalRecallAtFixedPrecision", {"min_precision": 1.5}, r"`min_precision` .* got 1\.5"),
    ("RetrievalMAP", {"empty_target_action": "drop"}, r"`empty_target_action` must be one of .* got 'drop'"),
    ("RetrievalMAP", {"aggregation": "sum"}, r"`aggregation` must be one of .* got 'sum'"),
]


@pytest.mark.parametrize(("name", "kwargs", "message"), CONSTRUCTOR_ERRORS)
def test_bad_arguments_are_refused_at_construction(name: str, kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        getattr(lm, name)(**kwargs)


def test_ignore_index_must_be_an_int() -> None:
    with pytest.raises(TypeError, match=r"`ignore_index` must be of type int, got 0\.5"):
        lm.RetrievalMAP(ignore_index=0.5)


@pytest.mark.parametrize(
    "function",
    [
        F.retrieval_average_precision,
        F.retrieval_reciprocal_rank,
        F.retrieval_precision,
        F.retrieval_recall,
        F.retrieval_fall_out,
        F.retrieval_hit_rate,
        F.retrieval_normalized_dcg,
        F.retrieval_auroc,
    ],
)
def test_functions_refuse_a_negative_top_k(function) -> None:
    with pytest.raises(ValueError, match=r"`top_k` has to be a positive integer or None, got -1"):
        function(PREDS, TARGET, top_k=-1)


def test_functions_refuse_bad_tensors() -> None:
    with pytest.raises(
        ValueError, match=r"`preds` and `target` must have the same shape, got \(3,\) and \(2,\)"
    ):
        F.retrieval_average_precision(PREDS, TARGET[:2])
    with pytest.raises(ValueError, match=r"non-empty and non-scalar, got shape \(0,\)"):
        F.retrieval_recall(torch.tensor([]), torch.tensor([]))
    with pytest.raises(ValueError, match=r"`target` must contain binary values .* got 0\.5"):
        F.retrieval_hit_rate(PREDS, torch.tensor([0.5, 0.0, 1.0]))
    with pytest.raises(ValueError, match=r"`max_k` .* got 0"):
        F.retrieval_precision_recall_curve(PREDS, TARGET, max_k=0)
    assert F.retrieval_normalized_dcg(PREDS, torch.tensor([0.5, 3.0, 1.0])) > 0  # graded: accepted


def test_error_on_an_empty_query_keeps_the_state() -> None:
    metric = lm.RetrievalNormalizedDCG(empty_target_action="error")
    metric.update(PREDS, torch.tensor([0, 0, 1]), INDEXES)
    before = _snapshot(metric)
    for _ in range(2):
        with pytest.raises(
            ValueError, match=r"`empty_target_action` is 'error' and query 4 has no positive target"
        ):
            metric.compute()
    assert _same(_snapshot(metric), before)
    metric.update(
        torch.tensor([0.1]), torch.tensor([2]), torch.tensor([4])
    )  # query 4 gets a relevant document
    assert metric.compute() > 0


def test_an_empty_batch_adds_nothing() -> None:
    metric = lm.RetrievalMAP(ignore_index=-1)
    metric.update(torch.tensor([]), torch.tensor([], dtype=torch.long), torch.tensor([], dtype=torch.long))
    metric.update(torch.tensor([0.4]), torch.tensor([-1]), torch.tensor([3]))  # all ignored
    assert metric.indexes == []
