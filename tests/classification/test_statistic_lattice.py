"""Multiclass top-1 count metrics alone keep the smallest statistic (right labels and labels for micro
averages, per-class one-vs-rest counts otherwise); a collection widens them to the confusion matrix when a
member needs it, and every value equals the shared-statistic one."""

from __future__ import annotations

import pytest
import torch

import lightning_metrics.classification as lmc
from lightning_metrics import MetricCollection

pytestmark = pytest.mark.filterwarnings("ignore")

RATIOS = [
    "MulticlassAccuracy",
    "MulticlassPrecision",
    "MulticlassRecall",
    "MulticlassF1Score",
    "MulticlassSpecificity",
    "MulticlassNegativePredictiveValue",
    "MulticlassHammingDistance",
    "MulticlassStatScores",
]


def test_alone_the_smallest_statistic():
    assert lmc.MulticlassAccuracy(num_classes=5, average="micro").statistic_spec.kind == "labels"
    assert lmc.MulticlassAccuracy(num_classes=50).statistic_spec.kind == "counts"
    assert lmc.MulticlassAccuracy(num_classes=5).statistic_spec.kind == "confmat"  # a small matrix is cheaper
    assert lmc.MulticlassStatScores(num_classes=50, average="micro").statistic_spec.kind == "counts"
    assert lmc.MulticlassConfusionMatrix(num_classes=50).statistic_spec.kind == "confmat"
    assert lmc.MulticlassAccuracy(num_classes=5, top_k=2).statistic_spec.kind == "counts"


def test_a_collection_widens_to_the_confusion_matrix():
    members = {
        "micro": lmc.MulticlassAccuracy(num_classes=50, average="micro"),
        "macro": lmc.MulticlassF1Score(num_classes=50),
        "mcc": lmc.MulticlassMatthewsCorrCoef(num_classes=50),
    }
    collection = MetricCollection(members)
    assert len(collection.compute_groups) == 1
    assert {m.statistic_spec.kind for m in collection.values()} == {"confmat"}
    pair = MetricCollection(
        {"micro": lmc.MulticlassAccuracy(num_classes=50, average="micro"), "macro": lmc.MulticlassRecall(num_classes=50)}
    )
    assert len(pair.compute_groups) == 1 and pair["micro"].statistic_spec.kind == "counts"


@pytest.mark.parametrize("num_classes", [6, 40])
@pytest.mark.parametrize("ignore_index", [None, 1])
@pytest.mark.parametrize("average", ["micro", "macro", "weighted", "none"])
def test_lone_values_equal_the_shared_confusion_matrix(average, ignore_index, num_classes):
    gen = torch.Generator().manual_seed(5)
    c = num_classes
    kwargs = {"num_classes": c, "average": average, "ignore_index": ignore_index}
    lone = {name: getattr(lmc, name)(**kwargs) for name in RATIOS}
    shared = MetricCollection(
        {name: getattr(lmc, name)(**kwargs) for name in RATIOS} | {"confmat": lmc.MulticlassConfusionMatrix(c, ignore_index=ignore_index)}
    )
    shared_kinds = {m.statistic_spec.kind for k, m in shared.items() if k != "confmat" and m.statistic_spec}
    assert shared_kinds == {"confmat"}
    batches = [(torch.randn(n, c, generator=gen), torch.randint(0, c, (n,), generator=gen)) for n in (7, 1, 30)]
    for preds, target in batches:
        shared.update(preds, target)
        for metric in lone.values():
            metric.update(preds, target)
    together = shared.compute()
    for name, metric in lone.items():
        torch.testing.assert_close(metric.compute(), together[name], msg=name)
        for state in ("tp", "fp", "tn", "fn"):  # torchmetrics' state names read the same from any level
            torch.testing.assert_close(getattr(metric, state), getattr(shared[name], state), msg=f"{name}.{state}")
    batch = shared(*batches[0])
    for name in RATIOS:
        fresh = getattr(lmc, name)(**kwargs)
        fresh.update(*batches[0])
        torch.testing.assert_close(lone[name](*batches[0]), fresh.compute(), msg=name)
        torch.testing.assert_close(batch[name], fresh.compute(), msg=name)
