"""Update + compute time, lightning_metrics vs torchmetrics, for the clustering and nominal metrics (CPU).

Run: ``python benchmarks/clustering.py``. Each row feeds the same batches to ours and to torchmetrics and
times all the updates plus one ``compute`` (best of 7 runs, 1 thread); the ratio is ours / torchmetrics
(below 1 means faster).

- A collection of the eight label-based scores that need no expected mutual information (MI, NMI,
  Rand, adjusted Rand, Fowlkes-Mallows, homogeneity, completeness, V-measure) at 100k samples in 50
  clusters. Both libraries keep the label pairs; ours shares one contingency table and its entropies
  across the collection, torchmetrics rebuilds a sparse table per score.
- AdjustedMutualInfoScore alone, at sizes torchmetrics can finish: its expected mutual information is a
  Python loop over every cell and count (about 5 million iterations at 100k samples in 50 clusters);
  ours is one vectorised float64 pass over the counts with non-negligible probability.
- CramersV with ``num_classes=50`` at 100k samples (a fixed table in both).
- The embedding scores (Calinski-Harabasz, Davies-Bouldin, Dunn) at 20k samples, 32 dimensions, 50 clusters.
"""

from __future__ import annotations

import time
import warnings
from typing import Callable

import torch
import torchmetrics
import torchmetrics.clustering as tmc
import torchmetrics.nominal as tmn

import lightning_metrics.clustering as lmc
import lightning_metrics.nominal as lmn
from lightning_metrics import MetricCollection

warnings.filterwarnings("ignore")

LABEL_SCORES = (
    "MutualInfoScore",
    "NormalizedMutualInfoScore",
    "RandScore",
    "AdjustedRandScore",
    "FowlkesMallowsIndex",
    "HomogeneityScore",
    "CompletenessScore",
    "VMeasureScore",
)


def labels(n: int, clusters: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    target = torch.randint(0, clusters, (n,), generator=g)
    noise = torch.randint(0, clusters, (n,), generator=g)
    return torch.where(torch.rand(n, generator=g) < 0.6, target, noise), target


def run(build: Callable[[], object], batches: list[tuple], repeats: int = 7) -> float:
    """Best wall time (ms) of: a fresh metric, every update, one compute."""
    best = float("inf")
    for _ in range(repeats):
        metric = build()
        start = time.perf_counter()
        for batch in batches:
            metric.update(*batch)
        metric.compute()
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def split(tensors: tuple[torch.Tensor, ...], size: int) -> list[tuple]:
    return list(zip(*(t.split(size) for t in tensors)))


def main() -> None:
    torch.manual_seed(0)
    torch.set_num_threads(1)
    rows = []
    batches = split(labels(100_000, 50), 1_000)
    rows.append(
        (
            "8 label scores (collection)",
            "100k, 50 clusters",
            run(lambda: MetricCollection({n: getattr(lmc, n)() for n in LABEL_SCORES}), batches),
            run(lambda: torchmetrics.MetricCollection({n: getattr(tmc, n)() for n in LABEL_SCORES}), batches),
        )
    )
    for n, clusters in ((2_000, 10), (5_000, 20)):
        ami_batches = split(labels(n, clusters, seed=1), 500)
        rows.append(
            (
                "AdjustedMutualInfoScore",
                f"{n // 1000}k, {clusters} clusters",
                run(lmc.AdjustedMutualInfoScore, ami_batches),
                run(tmc.AdjustedMutualInfoScore, ami_batches, repeats=1),
            )
        )
    ours_ami = run(lmc.AdjustedMutualInfoScore, batches)
    rows.append(("AdjustedMutualInfoScore", "100k, 50 clusters", ours_ami, float("nan")))
    rows.append(
        (
            "CramersV(num_classes=50)",
            "100k",
            run(lambda: lmn.CramersV(num_classes=50), batches),
            run(lambda: tmn.CramersV(num_classes=50), batches),
        )
    )
    g = torch.Generator().manual_seed(2)
    cluster = torch.randint(0, 50, (20_000,), generator=g)
    data = torch.randn(50, 32, generator=g)[cluster] * 3 + torch.randn(20_000, 32, generator=g)
    embedded = split((data, cluster), 2_000)
    for name in ("CalinskiHarabaszScore", "DaviesBouldinScore", "DunnIndex"):
        rows.append(
            (
                name,
                "20k x 32, 50 clusters",
                run(getattr(lmc, name), embedded),
                run(getattr(tmc, name), embedded),
            )
        )
    embedding_set = ("CalinskiHarabaszScore", "DaviesBouldinScore", "DunnIndex")
    rows.append(
        (
            "3 embedding scores (collection)",
            "20k x 32, 50 clusters",
            run(lambda: MetricCollection({n: getattr(lmc, n)() for n in embedding_set}), embedded),
            run(
                lambda: torchmetrics.MetricCollection({n: getattr(tmc, n)() for n in embedding_set}), embedded
            ),
        )
    )
    rows.append(
        (
            "ClusterAccuracy(num_classes=50)",
            "100k",
            run(lambda: lmc.ClusterAccuracy(50), batches),
            float("nan"),
        )
    )

    print(
        f"torch {torch.__version__}, torchmetrics {torchmetrics.__version__}, 1 thread, "
        "update + compute, best of 7"
    )
    print(f"{'metric':<32} {'samples':<22} {'ours ms':>9} {'torchmetrics ms':>16} {'ratio':>7}")
    for name, size, ours, theirs in rows:
        theirs_text = f"{theirs:>16.1f}" if theirs == theirs else f"{'(not run)':>16}"
        ratio = f"{ours / theirs:>7.3f}" if theirs == theirs else f"{'-':>7}"
        print(f"{name:<32} {size:<22} {ours:>9.1f} {theirs_text} {ratio}")
    print(
        "\nnot run: torchmetrics' AdjustedMutualInfoScore at 100k samples in 50 clusters (a Python loop of"
        "\nabout 5M iterations) and its ClusterAccuracy (needs the torch_linear_assignment package)."
    )


if __name__ == "__main__":
    main()
