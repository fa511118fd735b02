"""One state and one ranking per collection; streaming, merge_state, forward and sparse huge ids."""

from __future__ import annotations

import pytest
import torch

import lightning_metrics.retrieval as lm
from lightning_metrics import MetricCollection
from lightning_metrics.functional.retrieval import _measures
from lightning_metrics.retrieval import _base
from tests.retrieval._cases import concat, make_documents


def _everything(ignore_index=None) -> dict:
    common = {"ignore_index": ignore_index}
    return {
        "map": lm.RetrievalMAP(**common),
        "mrr": lm.RetrievalMRR(**common),
        "ndcg": lm.RetrievalNormalizedDCG(**common),
        "ndcg@10": lm.RetrievalNormalizedDCG(top_k=10, **common),
        "p@10": lm.RetrievalPrecision(top_k=10, **common),
        "r@10": lm.RetrievalRecall(top_k=10, **common),
        "hit": lm.RetrievalHitRate(top_k=10, **common),
        "fallout": lm.RetrievalFallOut(top_k=5, **common),
        "rprec": lm.RetrievalRPrecision(**common),
        "auroc": lm.RetrievalAUROC(**common),
        "curve": lm.RetrievalPrecisionRecallCurve(max_k=5, **common),
        "rfp": lm.RetrievalRecallAtFixedPrecision(min_precision=0.3, **common),
    }


class _Counting:
    def __init__(self, fn):
        self.fn, self.calls = fn, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.fn(*args, **kwargs)


def test_a_collection_holds_the_documents_once_and_ranks_them_once(monkeypatch) -> None:
    docs = make_documents(1, num_queries=50, max_docs=20, ties="any")
    collection = MetricCollection(_everything())
    assert list(collection.compute_groups.values()) == [sorted(_everything())]
    for batch in docs.batches(4, seed=1):
        collection.update(*batch)
    ranking = _Counting(_base.rank_queries)
    ideal = _Counting(_measures.ideal_dcg)
    monkeypatch.setattr(_base, "rank_queries", ranking)
    monkeypatch.setattr(_measures, "ideal_dcg", ideal)
    values = collection.compute()
    assert ranking.calls == 1
    assert ideal.calls == 2  # one per cut-off: ndcg and ndcg@10
    for name, metric in _everything().items():  # each alone: the same values
        for batch in docs.batches(4, seed=1):
            metric.update(*batch)
        expected = metric.compute()
        for a, b in zip(*(v if isinstance(v, tuple) else (v,) for v in (values[name], expected))):
            assert torch.equal(a, b), name
    ranking.calls = 0
    collection.compute()  # cached results: no new ranking
    assert ranking.calls == 0


def test_ignore_index_splits_the_groups() -> None:
    collection = MetricCollection(
        {"a": lm.RetrievalMAP(), "b": lm.RetrievalMRR(), "c": lm.RetrievalMAP(ignore_index=-1)}
    )
    assert sorted(map(sorted, collection.compute_groups.values())) == [["a", "b"], ["c"]]


def test_a_binary_member_makes_its_group_refuse_graded_targets() -> None:
    """The leader (alphabetically first: the NDCG) updates for all: it checks for the MAP too."""
    collection = MetricCollection({"a_ndcg": lm.RetrievalNormalizedDCG(), "b_map": lm.RetrievalMAP()})
    with pytest.raises(ValueError, match="`target` must contain binary values"):
        collection.update(torch.tensor([0.5, 0.2]), torch.tensor([2, 0]), torch.tensor([0, 0]))
    assert collection["a_ndcg"].indexes == [] and collection["b_map"].indexes == []
    graded_only = MetricCollection(
        {"x": lm.RetrievalNormalizedDCG(), "y": lm.RetrievalNormalizedDCG(top_k=1)}
    )
    graded_only.update(torch.tensor([0.5, 0.2]), torch.tensor([2, 0]), torch.tensor([0, 0]))
    assert graded_only.compute()["x"] == 1


def test_streaming_merge_state_and_forward() -> None:
    docs = make_documents(2, num_queries=30, max_docs=10, ties="any")
    batches = docs.batches(5, seed=2)
    whole = lm.RetrievalNormalizedDCG(top_k=3)
    whole.update(*concat(batches))
    expected = whole.compute()

    left, right = lm.RetrievalNormalizedDCG(top_k=3), lm.RetrievalNormalizedDCG(top_k=3)
    for i, batch in enumerate(batches):
        (left if i % 2 else right).update(*batch)
    left.merge_state(right)
    assert torch.equal(left.compute(), expected)

    forwarded = lm.RetrievalNormalizedDCG(top_k=3)
    for batch in batches:
        batch_value = forwarded(*batch)
        alone = lm.RetrievalNormalizedDCG(top_k=3)
        alone.update(*batch)
        assert torch.equal(batch_value, alone.compute())
    assert torch.equal(forwarded.compute(), expected)


def test_collection_forward_gives_batch_values() -> None:
    docs = make_documents(3, num_queries=20, max_docs=8)
    collection = MetricCollection(_everything())
    for batch in docs.batches(3, seed=3):
        values = collection(*batch)
        for name, metric in _everything().items():
            metric.update(*batch)
            for a, b in zip(*(v if isinstance(v, tuple) else (v,) for v in (values[name], metric.compute()))):
                assert torch.equal(a, b), name


def test_sparse_huge_query_ids_are_densified_by_sorting(monkeypatch) -> None:
    """ids at both ends of int64: the same values as dense ids in the same order, no table of max(id)."""
    docs = make_documents(4, num_queries=25, max_docs=8, ties="any")
    ids = torch.unique(docs.indexes)
    extremes = torch.cat([torch.tensor([-(2**63), 2**63 - 1]), ids[1:-1]])  # same order as ids
    huge = extremes.sort().values[torch.searchsorted(ids, docs.indexes)]
    dense = torch.searchsorted(ids, docs.indexes)
    real_zeros = torch.zeros

    def guarded_zeros(*size, **kwargs):
        numel = 1
        for dim in size[0] if size and isinstance(size[0], (tuple, list, torch.Size)) else size:
            numel *= int(dim)
        assert numel < 10**6, f"allocation of {numel} elements"
        return real_zeros(*size, **kwargs)

    for name in ("RetrievalMAP", "RetrievalNormalizedDCG", "RetrievalAUROC", "RetrievalPrecisionRecallCurve"):
        with monkeypatch.context() as patch:
            patch.setattr(torch, "zeros", guarded_zeros)
            on_huge = getattr(lm, name)()
            on_huge.update(docs.preds, docs.target, huge)
            huge_value = on_huge.compute()
        on_dense = getattr(lm, name)()
        on_dense.update(docs.preds, docs.target, dense)
        dense_value = on_dense.compute()
        for a, b in zip(*(v if isinstance(v, tuple) else (v,) for v in (huge_value, dense_value))):
            assert torch.equal(a, b), name


def test_error_on_an_empty_query_names_the_query() -> None:
    metric = lm.RetrievalMAP(empty_target_action="error")
    metric.update(torch.tensor([0.5, 0.2, 0.9]), torch.tensor([1, 0, 0]), torch.tensor([3, 3, 2**40]))
    with pytest.raises(
        ValueError, match=r"`empty_target_action` is 'error' and query 1099511627776 has no positive"
    ):
        metric.compute()
    fall_out = lm.RetrievalFallOut(empty_target_action="error")
    fall_out.update(torch.tensor([0.5, 0.2]), torch.tensor([1, 1]), torch.tensor([8, 8]))
    with pytest.raises(ValueError, match="query 8 has no negative target"):
        fall_out.compute()


def test_compute_on_cpu_keeps_lists_of_cpu_tensors() -> None:
    metric = lm.RetrievalMAP(compute_on_cpu=True)
    metric.update(torch.tensor([0.5, 0.2]), torch.tensor([1, 0]), torch.tensor([1, 1]))
    assert all(t.device.type == "cpu" for t in (*metric.indexes, *metric.preds, *metric.target))
    assert metric.compute() == 1


def test_no_update_and_all_skipped() -> None:
    with pytest.warns(UserWarning, match="before the ``update``"):
        assert lm.RetrievalMAP().compute() == 0
    skip = lm.RetrievalRecall(empty_target_action="skip")
    skip.update(torch.tensor([0.5, 0.2]), torch.tensor([0, 0]), torch.tensor([1, 1]))
    value = skip.compute()
    assert value == 0 and value.dtype == torch.float32
    curve = lm.RetrievalPrecisionRecallCurve(empty_target_action="skip")
    curve.update(torch.tensor([0.5, 0.2]), torch.tensor([0, 0]), torch.tensor([1, 1]))
    precision, recall, top_k = curve.compute()
    assert precision.tolist() == [0.0, 0.0] and top_k.tolist() == [1, 2]


def test_state_costs_16_bytes_per_document() -> None:
    metric = lm.RetrievalNormalizedDCG()
    metric.update(
        torch.rand(1000, dtype=torch.float64), torch.randint(0, 4, (1000,)), torch.randint(0, 50, (1000,))
    )
    total = sum(t.element_size() * t.numel() for t in (*metric.indexes, *metric.preds, *metric.target))
    assert total == 16 * 1000


def test_without_validation_update_reads_nothing_back_and_values_are_the_same(monkeypatch) -> None:
    docs = make_documents(8, num_queries=20, max_docs=8, ignore_index=-1, ties="any")
    checked, unchecked = (
        lm.RetrievalMAP(ignore_index=-1),
        lm.RetrievalMAP(ignore_index=-1, validate_args=False),
    )
    batches = docs.batches(3, seed=8)
    for batch in batches:
        checked.update(*batch)

    def forbid(*args, **kwargs):
        raise AssertionError("update read a value back to the host")

    with monkeypatch.context() as patch:
        for name in ("item", "tolist", "__bool__", "nonzero"):
            patch.setattr(torch.Tensor, name, forbid)
        for batch in batches:
            unchecked.update(*batch)
    assert torch.equal(unchecked.compute(), checked.compute())
    assert sum(len(t) for t in unchecked.indexes) > sum(
        len(t) for t in checked.indexes
    )  # ignored kept until compute
