"""Bad arguments and bad batches: a clear error naming the argument and the value, and a rejected
batch leaves the metric exactly as it was: its documents, its update count and ``compute()``
(:func:`tests._bad_input.assert_rejected_untouched`)."""

from __future__ import annotations

import pytest
import torch

import lightning_metrics.functional.retrieval as F
import lightning_metrics.retrieval as lm
from lightning_metrics import MetricCollection
from tests._bad_input import assert_rejected_untouched
from tests.retrieval._cases import CLASS_ARGUMENTS

PREDS = torch.tensor([0.3, 0.8, 0.5])
TARGET = torch.tensor([1, 0, 1])
INDEXES = torch.tensor([4, 4, 9])
GOOD = [(PREDS, TARGET, INDEXES), (torch.tensor([0.1, 0.7, 0.2]), torch.tensor([0, 1, 1]), torch.tensor([9, 5, 5]))]
NAN, INF = float("nan"), float("inf")
GRADED = "graded"  # the normalized DCG takes graded relevance: the batch is good there


def _snapshot(metric) -> dict:
    return {name: [t.clone() for t in getattr(metric, name)] for name in ("indexes", "preds", "target")}


def _same(a: dict, b: dict) -> bool:
    return all(len(a[k]) == len(b[k]) and all(torch.equal(x, y) for x, y in zip(a[k], b[k])) for k in a)


# name -> (batch, error, message, what the normalized DCG says: None for the same, GRADED, or its message)
BAD_BATCHES = {
    "indexes None": ((PREDS, TARGET, None), ValueError, r"`indexes` is required .* got None", None),
    "indexes float": ((PREDS, TARGET, INDEXES.float()), ValueError,
                      r"`indexes` must be a tensor of integers .*float32", None),
    "indexes float64": ((PREDS, TARGET, INDEXES.double()), ValueError, r"`indexes` .*integers .*float64", None),
    "indexes bool": ((PREDS, TARGET, INDEXES > 5), ValueError, r"`indexes` must be a tensor of integers .*bool", None),
    "indexes a list": ((PREDS, TARGET, [4, 4, 9]), TypeError, r"`indexes` must be a tensor, got list", None),
    "indexes shorter": ((PREDS, TARGET, INDEXES[:2]), ValueError,
                        r"`indexes` must have the same shape, got \(3,\), \(3,\) and \(2,\)", None),
    "indexes 2-D": ((PREDS, TARGET, INDEXES[:, None]), ValueError, r"got \(3,\), \(3,\) and \(3, 1\)", None),
    "target longer": ((PREDS, torch.tensor([1, 0, 1, 1]), INDEXES), ValueError, r"same shape, got \(3,\), \(4,\)",
                      None),
    "preds 2-D": ((PREDS[None], TARGET, INDEXES), ValueError, r"same shape, got \(1, 3\), \(3,\)", None),
    "float target": ((PREDS, torch.tensor([1.0, 0.5, 0.0]), INDEXES), ValueError,
                     r"`target` must contain binary values .* got 0\.5", GRADED),
    "target 2": ((PREDS, torch.tensor([2, 0, 1]), INDEXES), ValueError,
                 r"`target` must contain binary values .* got 2;", GRADED),
    "negative target": ((PREDS, torch.tensor([-3, 0, 1]), INDEXES), ValueError, r"binary values .* got -3;",
                        r"`target` must hold finite non-negative relevance grades for RetrievalNormalizedDCG, got -3"),
    "negative float target": ((PREDS, torch.tensor([1.0, -0.5, 0.0]), INDEXES), ValueError, r"binary .* got -0\.5;",
                              r"`target` must hold finite non-negative relevance .* got -0\.5"),
    "NaN target": ((PREDS, torch.tensor([1.0, NAN, 0.0]), INDEXES), ValueError, r"binary values .* got nan;",
                   r"`target` must hold finite non-negative relevance .* got nan"),
    "inf target": ((PREDS, torch.tensor([INF, 0.0, 1.0]), INDEXES), ValueError, r"binary values .* got inf;",
                   r"`target` must hold finite non-negative relevance .* got inf"),
    "complex target": ((PREDS, TARGET * 1j, INDEXES), ValueError, r"`target` must be a tensor of booleans", None),
    "integer preds": ((torch.tensor([1, 0, 1]), TARGET, INDEXES), ValueError,
                      r"`preds` must be a tensor of floats, got torch\.int64", None),
    "preds a list": (([0.3, 0.8, 0.5], TARGET, INDEXES), TypeError, r"`preds` must be a tensor, got list", None),
    "NaN preds": ((torch.tensor([0.3, NAN, 0.5]), TARGET, INDEXES), ValueError,
                  r"`preds` must not contain NaN, got nan at index 1$", None),
    "NaN preds, bool target": ((torch.tensor([NAN, 0.8, 0.5]), TARGET.bool(), INDEXES), ValueError,
                               r"`preds` must not contain NaN, got nan at index 0$", None),
    "NaN preds in 2-D": ((torch.tensor([[0.3, 0.1], [0.2, NAN]]), torch.tensor([[1, 0], [0, 1]]),
                          torch.tensor([[4, 4], [9, 9]])), ValueError,
                         r"`preds` must not contain NaN, got nan at index \(1, 1\)$", None),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CLASS_ARGUMENTS))
@pytest.mark.parametrize("case", sorted(BAD_BATCHES))
def test_a_bad_batch_is_refused_and_leaves_the_state_as_it_was(name: str, case: str) -> None:
    batch, error, message, graded = BAD_BATCHES[case]
    if name == "RetrievalNormalizedDCG" and graded == GRADED:
        lm.RetrievalNormalizedDCG().update(*batch)  # graded relevance: a good batch here
        return
    if name == "RetrievalNormalizedDCG" and graded is not None:
        message = graded
    build = getattr(lm, name)
    assert_rejected_untouched(build, GOOD, batch, errors=error, match=message)


def test_inf_scores_rank_and_an_ignored_document_is_not_checked() -> None:
    """Infinite scores are logits (a masked document scores -inf): they rank first or last. An ignored
    document is not read, whatever its score."""
    for preds, value in (([0.1, INF, 0.5], 0.75), ([0.3, -INF, 0.5], 1.0)):  # query 4 ranks as with finite logits
        ranked = lm.RetrievalMAP()
        ranked.update(torch.tensor(preds), TARGET, INDEXES)
        assert ranked.compute() == value
    ignoring = lm.RetrievalMAP(ignore_index=-1)
    ignoring.update(torch.tensor([0.3, NAN, 0.5]), torch.tensor([1, -1, 1]), INDEXES)
    plain = lm.RetrievalMAP()
    plain.update(torch.tensor([0.3, 0.5]), torch.tensor([1, 1]), torch.tensor([4, 9]))
    assert torch.equal(ignoring.compute(), plain.compute())


@pytest.mark.parametrize("name", ["RetrievalMAP", "RetrievalNormalizedDCG"])
def test_validate_args_false_skips_the_value_checks(name: str) -> None:
    metric = getattr(lm, name)(validate_args=False)
    metric.update(torch.tensor([0.3, NAN, 0.5]), torch.tensor([1, -2, 1]), INDEXES)  # no check, no host read
    assert len(metric.preds) == 1
    with pytest.raises(ValueError, match="`preds` must not contain NaN"):
        getattr(lm, name)().update(torch.tensor([0.3, NAN, 0.5]), TARGET, INDEXES)


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
    with pytest.raises(ValueError, match=r"`target` must hold finite non-negative .*retrieval_normalized_dcg, got -1"):
        F.retrieval_normalized_dcg(PREDS, torch.tensor([2, -1, 0]))
    with pytest.raises(ValueError, match=r"`preds` must not contain NaN, got nan at index 2"):
        F.retrieval_average_precision(torch.tensor([0.3, 0.8, NAN]), TARGET)
    with pytest.raises(ValueError, match=r"`preds` must not contain NaN, got nan at index 0"):
        F.retrieval_normalized_dcg(torch.tensor([NAN, 0.8, 0.1]), TARGET.bool())
    assert F.retrieval_reciprocal_rank(torch.tensor([-INF, 0.8, INF]), TARGET) == 1.0  # logits rank


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
