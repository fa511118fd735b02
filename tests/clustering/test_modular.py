"""The clustering classes as states: streaming, merging, forward, collections sharing one statistic."""

from __future__ import annotations

import pytest
import torch

import lightning_metrics.clustering as lmc
import lightning_metrics.functional.clustering as lmf
from lightning_metrics import MetricCollection
from lightning_metrics.functional import _contingency
from lightning_metrics.functional.clustering import embeddings as embedding_functions
from tests.clustering._cases import LABEL_SCORES, embedding_cases, label_cases, option_sets
from tests.reliability._registry import assert_identical

LABEL_CLASSES = [
    (cls, fn, opts) for cls, (fn, grid) in LABEL_SCORES.items() for opts in option_sets(grid)[:2]
]
CASES = {c.id: c for c in label_cases()}
EMBEDDING = {c.id: c for c in embedding_cases()}


def _label_metrics() -> dict:
    metrics = {f"{cls}{i}": getattr(lmc, cls)(**opts) for i, (cls, _, opts) in enumerate(LABEL_CLASSES)}
    metrics["acc"] = lmc.ClusterAccuracy(num_classes=8)
    return metrics


def _embedding_metrics() -> dict:
    return {"ch": lmc.CalinskiHarabaszScore(), "db": lmc.DaviesBouldinScore(), "dunn": lmc.DunnIndex(p=1.5)}


def _accuracy_case():
    case = CASES["correlated-120-4-4"]
    return case.preds % 8, case.target % 8


@pytest.mark.parametrize("case_id", ["random-150-6-5", "negative-and-huge-ids", "single-cluster-preds"])
def test_many_updates_equal_one_update_and_the_function(case_id: str) -> None:
    case = CASES[case_id]
    for cls, fn, opts in LABEL_CLASSES:
        streamed, whole = getattr(lmc, cls)(**opts), getattr(lmc, cls)(**opts)
        for preds, target in case.batches():
            streamed.update(preds, target)
        whole.update(case.preds, case.target)
        assert_identical(streamed.compute(), whole.compute())
        assert_identical(whole.compute(), getattr(lmf, fn)(case.preds, case.target, **opts))


def test_cluster_accuracy_and_embeddings_stream() -> None:
    preds, target = _accuracy_case()
    streamed = lmc.ClusterAccuracy(num_classes=8)
    for a, b in zip(preds.split(7), target.split(7)):
        streamed.update(a, b)
    assert_identical(streamed.compute(), lmf.cluster_accuracy(preds, target, num_classes=8))
    case = EMBEDDING["overlapping-80-4-5"]
    for name, metric in _embedding_metrics().items():
        for data, labels in case.batches():
            metric.update(data, labels)
        args = {"p": 1.5} if name == "dunn" else {}
        fn = {"ch": lmf.calinski_harabasz_score, "db": lmf.davies_bouldin_score, "dunn": lmf.dunn_index}[name]
        assert_identical(metric.compute(), fn(case.data, case.labels, **args))


def test_merge_state_equals_one_metric() -> None:
    case = CASES["random-150-6-5"]
    halves = [(case.preds[:70], case.target[:70]), (case.preds[70:], case.target[70:])]
    for cls, _, opts in LABEL_CLASSES:
        a, b, empty, whole = (getattr(lmc, cls)(**opts) for _ in range(4))
        a.update(*halves[0])
        b.update(*halves[1])
        whole.update(case.preds, case.target)
        a.merge_state(b)
        a.merge_state(empty)  # a metric that saw nothing changes nothing
        assert_identical(a.compute(), whole.compute())
    preds, target = _accuracy_case()
    a, b, whole = (lmc.ClusterAccuracy(num_classes=8) for _ in range(3))
    a.update(preds[:50], target[:50])
    b.update(preds[50:], target[50:])
    whole.update(preds, target)
    a.merge_state(b)
    assert_identical(a.compute(), whole.compute())


def test_forward_returns_the_batch_value_and_accumulates() -> None:
    case = CASES["correlated-120-4-4"]
    batches = [(case.preds[:50], case.target[:50]), (case.preds[50:], case.target[50:])]
    for cls, fn, opts in LABEL_CLASSES:
        metric = getattr(lmc, cls)(**opts)
        for preds, target in batches:
            assert_identical(metric(preds, target), getattr(lmf, fn)(preds, target, **opts))
        assert_identical(metric.compute(), getattr(lmf, fn)(case.preds, case.target, **opts))


def test_collection_shares_one_state_and_one_table_per_compute(monkeypatch: pytest.MonkeyPatch) -> None:
    case = CASES["random-150-6-5"]
    collection = MetricCollection(_label_metrics())
    label_names = sorted(k for k in collection if k != "acc")
    assert max(collection.compute_groups.values(), key=len) == label_names
    singles = _label_metrics()
    preds, target = case.preds % 8, case.target % 8
    for a, b in zip(preds.split(40), target.split(40)):
        collection.update(a, b)
        for metric in singles.values():
            metric.update(a, b)

    built = []
    real = _contingency.TableStats.__init__

    def counting(self, table):
        built.append(tuple(table.shape))
        real(self, table)

    monkeypatch.setattr(_contingency.TableStats, "__init__", counting)
    values = collection.compute()
    assert len(built) == 2, built  # one table for the nine label-pair scores, one for ClusterAccuracy
    for name, metric in singles.items():
        assert_identical(values[name], metric.compute())
    built.clear()
    collection.update(preds[:5], target[:5])  # a new batch: the table is derived again, once
    collection.compute()
    assert len(built) == 2


def test_embedding_collection_shares_the_samples_and_the_geometry(monkeypatch: pytest.MonkeyPatch) -> None:
    case = EMBEDDING["wide-40-6-16"]
    collection = MetricCollection(_embedding_metrics())
    assert list(collection.compute_groups.values()) == [["ch", "db", "dunn"]]
    for data, labels in case.batches():
        collection.update(data, labels)
    calls = []
    real = embedding_functions.cluster_geometry
    monkeypatch.setattr(
        "lightning_metrics.clustering.embeddings.cluster_geometry", lambda d, l: calls.append(1) or real(d, l)
    )
    values = collection.compute()
    assert len(calls) == 1
    assert_identical(values["db"], lmf.davies_bouldin_score(case.data, case.labels))


def test_compute_concatenates_the_batches_once() -> None:
    metric = lmc.RandScore()
    for _ in range(4):
        metric.update(torch.tensor([0, 1, 1]), torch.tensor([1, 1, 0]))
    first = metric.compute()
    assert len(metric.preds) == 1 and metric.preds[0].shape == (12,)  # one piece for the next compute
    metric.update(torch.tensor([2]), torch.tensor([2]))
    assert len(metric.preds) == 2
    assert metric.compute() != first


def test_state_memory_is_the_label_pairs() -> None:
    metric = lmc.MutualInfoScore()
    metric.update(torch.zeros(1000, dtype=torch.int32), torch.zeros(1000, dtype=torch.int64))
    held = sum(t.element_size() * t.numel() for name in ("preds", "target") for t in getattr(metric, name))
    assert held == 1000 * (4 + 8)


def test_reset_and_no_update() -> None:
    metric = lmc.MutualInfoScore()
    metric.update(torch.tensor([0, 1]), torch.tensor([0, 1]))
    metric.reset()
    with pytest.warns(UserWarning, match="before the ``update``"):
        value = metric.compute()  # empty input, as the function on empty tensors
    assert_identical(
        value, lmf.mutual_info_score(torch.zeros(0, dtype=torch.long), torch.zeros(0, dtype=torch.long))
    )


def test_class_attributes_follow_torchmetrics() -> None:
    import torchmetrics.clustering as tmc

    for name in lmc.__all__:
        ours, theirs = getattr(lmc, name), getattr(tmc, name)
        for attribute in ("is_differentiable", "full_state_update"):
            assert getattr(ours, attribute) == getattr(theirs, attribute), (name, attribute)
        if name != "DaviesBouldinScore":  # lower is better: torchmetrics 1.9 says True
            assert ours.higher_is_better == theirs.higher_is_better, name
    assert lmc.DaviesBouldinScore.higher_is_better is False
