"""Two gloo processes equal one process exactly: uneven shards, and a rank that got no batch at all."""

from __future__ import annotations

import pytest
import torch

from tests._distributed import run_distributed

pytestmark = [pytest.mark.timeout(180), pytest.mark.filterwarnings("ignore")]


def _metrics():
    import lightning_metrics.clustering as lmc

    return {
        "mi": lmc.MutualInfoScore(),
        "nmi": lmc.NormalizedMutualInfoScore(average_method="max"),
        "ami": lmc.AdjustedMutualInfoScore(),
        "rand": lmc.RandScore(),
        "ari": lmc.AdjustedRandScore(),
        "fmi": lmc.FowlkesMallowsIndex(),
        "h": lmc.HomogeneityScore(),
        "c": lmc.CompletenessScore(),
        "v": lmc.VMeasureScore(beta=2.0),
        "acc": lmc.ClusterAccuracy(num_classes=7),
    }


def _embedding_metrics():
    import lightning_metrics.clustering as lmc

    return {"ch": lmc.CalinskiHarabaszScore(), "db": lmc.DaviesBouldinScore(), "dunn": lmc.DunnIndex(p=1)}


def _data():
    g = torch.Generator().manual_seed(11)
    labels = [
        (torch.randint(0, 7, (n,), generator=g), torch.randint(0, 7, (n,), generator=g))
        for n in (1, 33, 20, 9)
    ]
    embeddings = [(torch.randn(n, 3, generator=g), torch.arange(n) % 4) for n in (5, 17, 8)]
    return labels, embeddings


def _worker(rank: int, world: int):
    from lightning_metrics import MetricCollection

    labels, embeddings = _data()
    out = {}
    for split, shard in (
        ("uneven", labels[:3] if rank == 0 else labels[3:]),
        ("idle", labels if rank == 0 else []),
    ):
        collection, singles = MetricCollection(_metrics()), _metrics()
        for preds, target in shard:
            collection.update(preds, target)
            for metric in singles.values():
                metric.update(preds, target)
        out[split] = {
            "collection": collection.compute(),
            "singles": {k: m.compute() for k, m in singles.items()},
        }
    shard = embeddings if rank == 0 else []
    collection = MetricCollection(_embedding_metrics())
    for data, target in shard:
        collection.update(data, target)
    out["embeddings"] = collection.compute()
    return out


def test_two_processes_equal_one() -> None:
    results = run_distributed(_worker, timeout=150)
    labels, embeddings = _data()
    expected = {}
    for name, metric in _metrics().items():
        for preds, target in labels:
            metric.update(preds, target)
        expected[name] = metric.compute()
    reference = {}
    for name, metric in _embedding_metrics().items():
        for data, target in embeddings:
            metric.update(data, target)
        reference[name] = metric.compute()
    for rank_result in results:
        for split in ("uneven", "idle"):
            for source in (rank_result[split]["collection"], rank_result[split]["singles"]):
                for name, value in expected.items():
                    assert torch.equal(source[name], value), (split, name, source[name], value)
        for name, value in reference.items():
            assert torch.equal(rank_result["embeddings"][name], value), (
                name,
                rank_result["embeddings"][name],
                value,
            )
