"""2 gloo processes: queries split across ranks, a rank without data; values equal one process, exactly."""

from __future__ import annotations

import pytest
import torch

from tests._distributed import run_distributed
from tests.retrieval._cases import concat, make_documents

pytestmark = [pytest.mark.timeout(240), pytest.mark.filterwarnings("ignore")]


def _factories() -> dict:
    import lightning_metrics.retrieval as lm

    return {
        "map": lambda: lm.RetrievalMAP(),
        "mrr@3": lambda: lm.RetrievalMRR(top_k=3),
        "ndcg@5": lambda: lm.RetrievalNormalizedDCG(top_k=5),
        "p@3": lambda: lm.RetrievalPrecision(top_k=3, adaptive_k=True),
        "r@3": lambda: lm.RetrievalRecall(top_k=3),
        "hit@2": lambda: lm.RetrievalHitRate(top_k=2),
        "fallout": lambda: lm.RetrievalFallOut(top_k=2),
        "rprec": lambda: lm.RetrievalRPrecision(aggregation="median"),
        "auroc": lambda: lm.RetrievalAUROC(max_fpr=0.5),
        "curve": lambda: lm.RetrievalPrecisionRecallCurve(empty_target_action="skip"),
        "rfp": lambda: lm.RetrievalRecallAtFixedPrecision(min_precision=0.5, max_k=6),
    }


def _data(graded: bool = False) -> list:
    docs = make_documents(21, num_queries=30, max_docs=9, ties="any", graded=graded)
    return docs.batches(7, seed=5)  # shuffled: most queries have documents on both ranks


def _shards(rank: int, scenario: str) -> list:
    batches = _data(graded=scenario == "graded")
    if scenario == "idle rank":
        return batches if rank == 0 else []
    return batches[rank::2]  # uneven: rank 0 gets 4 batches, rank 1 gets 3


def _worker(rank: int, world: int) -> dict:
    import lightning_metrics.retrieval as lm
    from lightning_metrics import MetricCollection

    out = {}
    for scenario in ("split queries", "idle rank"):
        collection = MetricCollection({k: f() for k, f in _factories().items()})
        singles = {k: f() for k, f in _factories().items()}
        on_cpu = lm.RetrievalMAP(compute_on_cpu=True)
        for batch in _shards(rank, scenario):
            collection.update(*batch)
            on_cpu.update(*batch)
            for metric in singles.values():
                metric.update(*batch)
        local_lengths = [len(m.indexes) for m in singles.values()]
        out[scenario] = {
            "collection": collection.compute(),
            "singles": {k: m.compute() for k, m in singles.items()},
            "on_cpu": on_cpu.compute(),
            "restored": [len(m.indexes) for m in singles.values()] == local_lengths,
        }
    graded = lm.RetrievalNormalizedDCG()
    for batch in _shards(rank, "graded"):
        graded.update(*batch)
    out["graded"] = graded.compute()
    return out


def _equal(a, b) -> bool:
    a, b = (a if isinstance(a, tuple) else (a,)), (b if isinstance(b, tuple) else (b,))
    return len(a) == len(b) and all(x.dtype == y.dtype and torch.equal(x, y) for x, y in zip(a, b))


def test_ranks_equal_one_process_exactly() -> None:
    import lightning_metrics.retrieval as lm

    split = [set(torch.cat([b[2] for b in _shards(rank, "split queries")]).tolist()) for rank in (0, 1)]
    assert len(split[0] & split[1]) >= 10  # queries with documents on both ranks
    results = run_distributed(_worker, timeout=200)
    everything = concat(_data())
    expected = {}
    for key, factory in _factories().items():
        metric = factory()
        metric.update(*everything)
        expected[key] = metric.compute()
    graded = lm.RetrievalNormalizedDCG()
    graded.update(*concat(_data(graded=True)))
    for rank, result in enumerate(results):
        assert _equal(result["graded"], graded.compute()), rank
        for scenario in ("split queries", "idle rank"):
            got = result[scenario]
            assert got["restored"], (rank, scenario)  # local states are back after the sync
            assert _equal(got["on_cpu"], expected["map"]), (rank, scenario)
            for key, value in expected.items():
                assert _equal(got["collection"][key], value), (
                    rank,
                    scenario,
                    key,
                    got["collection"][key],
                    value,
                )
                assert _equal(got["singles"][key], value), (rank, scenario, key)
