"""Two gloo processes equal one process exactly: uneven shards, and a rank that got no batch at all.

One spawn covers the clustering metrics (label pairs, ClusterAccuracy's table, embeddings) and the
nominal ones (the fixed table, Fleiss' kappa's sums and per-update rows).
"""

from __future__ import annotations

import pytest
import torch

from tests._distributed import run_distributed

pytestmark = [pytest.mark.timeout(180), pytest.mark.filterwarnings("ignore")]


def _label_metrics() -> dict:
    import lightning_metrics.clustering as lmc
    import lightning_metrics.nominal as lmn

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
        "cramers_v": lmn.CramersV(num_classes=7),
        "tschuprows_t": lmn.TschuprowsT(num_classes=7, bias_correction=False),
        "pearson": lmn.PearsonsContingencyCoefficient(num_classes=7),
        "theils_u": lmn.TheilsU(num_classes=7),
    }


def _embedding_metrics() -> dict:
    import lightning_metrics.clustering as lmc

    return {"ch": lmc.CalinskiHarabaszScore(), "db": lmc.DaviesBouldinScore(), "dunn": lmc.DunnIndex(p=1)}


def _ratings(preds: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Two raters per sample for Fleiss' kappa."""
    return torch.nn.functional.one_hot(preds, 7) + torch.nn.functional.one_hot(target, 7)


def _data():
    g = torch.Generator().manual_seed(11)
    labels = [
        (torch.randint(0, 7, (n,), generator=g), torch.randint(0, 7, (n,), generator=g))
        for n in (1, 33, 20, 9)
    ]
    embeddings = [(torch.randn(n, 3, generator=g), torch.arange(n) % 4) for n in (5, 17, 8)]
    return labels, embeddings


def _feed(labels: list, embeddings: list) -> dict:
    """Values of a collection and of the single metrics fed these batches (computed, synced if distributed)."""
    from lightning_metrics import MetricCollection
    from lightning_metrics.nominal import FleissKappa

    collection, singles, kappa = MetricCollection(_label_metrics()), _label_metrics(), FleissKappa()
    for preds, target in labels:
        collection.update(preds, target)
        kappa.update(_ratings(preds, target))
        for metric in singles.values():
            metric.update(preds, target)
    geometry = MetricCollection(_embedding_metrics())
    for data, target in embeddings:
        geometry.update(data, target)
    return {
        "collection": collection.compute(),
        "singles": {k: m.compute() for k, m in singles.items()},
        "fleiss": kappa.compute(),
        "embeddings": geometry.compute(),
    }


def _worker(rank: int, world: int) -> dict:
    labels, embeddings = _data()
    return {
        "uneven": _feed(
            labels[:3] if rank == 0 else labels[3:], embeddings[:1] if rank == 0 else embeddings[1:]
        ),
        "idle": _feed(labels if rank == 0 else [], embeddings if rank == 0 else []),
    }


def test_two_processes_equal_one() -> None:
    results = run_distributed(_worker, timeout=150)
    expected = _feed(*_data())
    for rank_result in results:
        for split in ("uneven", "idle"):
            got = rank_result[split]
            for part in ("collection", "singles", "embeddings"):
                for name, value in expected[part].items():
                    assert torch.equal(got[part][name], value), (split, part, name, got[part][name], value)
            assert torch.equal(got["fleiss"], expected["fleiss"]), split
