"""Embedding-based clustering scores against torchmetrics 1.9, scikit-learn and a direct Dunn oracle.

Calinski-Harabasz and Davies-Bouldin against ``sklearn.metrics``; the Dunn index (no scikit-learn
version) against scipy's ``cdist`` with the Minkowski distance of the same order. Every case also
against torchmetrics, functions and classes fed in uneven batches (an empty one included).
"""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm
import torch
import torchmetrics.clustering as tmc
import torchmetrics.functional.clustering as tmf
from scipy.spatial.distance import cdist

import lightning_metrics.clustering as lmc
import lightning_metrics.functional.clustering as lmf
from tests.clustering._cases import EmbeddingCase, embedding_cases

CASES = embedding_cases()
SCORES = {
    "calinski_harabasz_score": ("CalinskiHarabaszScore", {}),
    "davies_bouldin_score": ("DaviesBouldinScore", {}),
    "dunn_index": ("DunnIndex", {"p": 2}),
    "dunn_index[p=1]": ("DunnIndex", {"p": 1}),
    "dunn_index[p=3.5]": ("DunnIndex", {"p": 3.5}),
    "dunn_index[p=inf]": ("DunnIndex", {"p": float("inf")}),
}


def _function(key: str):
    return getattr(lmf, key.split("[")[0]), getattr(tmf, key.split("[")[0])


def _close(ours: torch.Tensor, oracle: torch.Tensor, what: str) -> None:
    assert ours.dtype == oracle.dtype and ours.shape == oracle.shape, f"{what}: {ours!r} vs {oracle!r}"
    torch.testing.assert_close(ours, oracle, rtol=2e-5, atol=1e-6, equal_nan=True, msg=what)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_functions_match_torchmetrics(case: EmbeddingCase) -> None:
    for key, (_, opts) in SCORES.items():
        ours_fn, their_fn = _function(key)
        _close(
            ours_fn(case.data, case.labels, **opts),
            their_fn(case.data, case.labels, **opts),
            f"{key} on {case.id}",
        )


@pytest.mark.parametrize("case", CASES[::2], ids=lambda c: c.id)
def test_classes_match_torchmetrics_over_batches(case: EmbeddingCase) -> None:
    for cls, opts in SCORES.values():
        ours, oracle = getattr(lmc, cls)(**opts), getattr(tmc, cls)(**opts)
        for data, labels in case.batches():
            ours.update(data, labels)
            oracle.update(data, labels)
        _close(ours.compute(), oracle.compute(), f"{cls}({opts}) on {case.id}")


def _dunn(data: np.ndarray, labels: np.ndarray, p: float) -> float:
    clusters = np.unique(labels)
    centroids = np.stack([data[labels == c].mean(0) for c in clusters])
    p_arg = {"metric": "chebyshev"} if p == float("inf") else {"metric": "minkowski", "p": p}
    between = cdist(centroids, centroids, **p_arg)[np.triu_indices(len(clusters), 1)].min()
    widest = max(
        cdist(data[labels == c], centroids[i : i + 1], **p_arg).max() for i, c in enumerate(clusters)
    )
    with np.errstate(divide="ignore"):  # duplicate points: no spread, an infinite index
        return between / widest


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_functions_match_independent_oracles(case: EmbeddingCase) -> None:
    data, labels = case.data.double().numpy(), case.labels.numpy()
    ch = lmf.calinski_harabasz_score(case.data, case.labels).item()
    db = lmf.davies_bouldin_score(case.data, case.labels).item()
    if case.id == "duplicate-points":  # no spread in the clusters: torchmetrics' 1.0 (scikit-learn: 1.0 too)
        assert ch == 1.0 and db == 0.0
    else:
        assert ch == pytest.approx(skm.calinski_harabasz_score(data, labels), rel=1e-6)
        assert db == pytest.approx(skm.davies_bouldin_score(data, labels), rel=1e-6)
    for p in (1, 2, 3.5, float("inf")):
        ours = lmf.dunn_index(case.data, case.labels, p=p).item()
        assert ours == pytest.approx(
            _dunn(data, labels, p), rel=1e-5 if case.data.dtype == torch.float32 else 1e-12
        )


def test_dunn_index_keeps_the_data_dtype_and_others_return_float32() -> None:
    case = CASES[0]
    for dtype in (torch.float32, torch.float64):
        data = case.data.to(dtype)
        assert lmf.dunn_index(data, case.labels).dtype == dtype
        assert lmf.calinski_harabasz_score(data, case.labels).dtype == torch.float32
        assert lmf.davies_bouldin_score(data, case.labels).dtype == torch.float32


def test_far_from_the_origin_stays_accurate() -> None:
    """Blobs around 1e4 in float32: the float64 centroids keep every score close to the float64 oracle."""
    g = torch.Generator().manual_seed(0)
    labels = torch.arange(3000) % 3
    data64 = (
        1e4
        + torch.randn(3, 4, generator=g, dtype=torch.float64)[labels]
        + 0.5 * torch.randn(3000, 4, generator=g, dtype=torch.float64)
    )
    data = data64.float()
    exact = data.double().numpy()
    assert lmf.calinski_harabasz_score(data, labels).item() == pytest.approx(
        skm.calinski_harabasz_score(exact, labels.numpy()), rel=1e-5
    )
    assert lmf.davies_bouldin_score(data, labels).item() == pytest.approx(
        skm.davies_bouldin_score(exact, labels.numpy()), rel=1e-5
    )


@pytest.mark.parametrize(
    ("fn", "labels", "needle"),
    [
        ("calinski_harabasz_score", torch.zeros(6, dtype=torch.long), "1 clusters and 6 samples"),
        ("davies_bouldin_score", torch.arange(6), "6 clusters and 6 samples"),
        ("dunn_index", torch.zeros(6, dtype=torch.long), "at least two clusters"),
    ],
)
def test_too_few_or_too_many_clusters_raise(fn: str, labels: torch.Tensor, needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        getattr(lmf, fn)(torch.randn(6, 2), labels)
