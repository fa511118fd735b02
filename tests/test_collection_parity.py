"""MetricCollection behaviour side by side with torchmetrics: compute-group reporting, user-defined
groups, key kinds, nested prefix/postfix naming, key order, ClasswiseWrapper in a group.

Groups themselves are decided by declared statistics (ours) rather than by comparing state values
after the first update (torchmetrics); where the two differ it is listed in ``OURS_GROUP_MORE``.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any

import pytest
import torch
import torchmetrics

import lightning_metrics as lm
from tests._distributed import run_distributed

_gen = torch.Generator().manual_seed(42)
MC = (torch.randn(10, 3, 2, generator=_gen).softmax(dim=1), torch.randint(3, (10, 2), generator=_gen))
ML = (torch.rand(10, 3, generator=_gen), torch.randint(2, (10, 3), generator=_gen))
FLAT = (torch.randn(10, 3, generator=_gen).softmax(-1), torch.randint(3, (10,), generator=_gen))


def _group_cases(L: Any) -> dict[str, tuple[Any, tuple]]:
    C = L.classification
    return {
        "one metric": (C.MulticlassAccuracy(num_classes=3), MC),
        "two of one class": ({"acc0": C.MulticlassAccuracy(num_classes=3), "acc1": C.MulticlassAccuracy(num_classes=3)}, MC),
        "precision and recall": ([C.MulticlassPrecision(num_classes=3), C.MulticlassRecall(num_classes=3)], MC),
        "confusion matrix and recall": ([C.MulticlassConfusionMatrix(num_classes=3), C.MulticlassRecall(num_classes=3)], MC),
        "four": (
            [
                C.MulticlassConfusionMatrix(num_classes=3),
                C.MulticlassCohenKappa(num_classes=3),
                C.MulticlassRecall(num_classes=3),
                C.MulticlassPrecision(num_classes=3),
            ],
            MC,
        ),
        "samplewise apart": (
            {
                "acc": C.MulticlassAccuracy(num_classes=3),
                "acc2": C.MulticlassAccuracy(num_classes=3),
                "acc3": C.MulticlassAccuracy(num_classes=3, multidim_average="samplewise"),
                "f1": C.MulticlassF1Score(num_classes=3),
                "recall": C.MulticlassRecall(num_classes=3),
                "confmat": C.MulticlassConfusionMatrix(num_classes=3),
            },
            MC,
        ),
        "list states": ([C.MulticlassAUROC(num_classes=3), C.MulticlassAveragePrecision(num_classes=3)], MC),
        "nested": (
            [
                L.MetricCollection(
                    C.MultilabelAUROC(num_labels=3, average="micro"),
                    C.MultilabelAveragePrecision(num_labels=3, average="micro"),
                    postfix="_micro",
                ),
                L.MetricCollection(
                    C.MultilabelAUROC(num_labels=3, average="macro"),
                    C.MultilabelAveragePrecision(num_labels=3, average="macro"),
                    postfix="_macro",
                ),
            ],
            ML,
        ),
        "classwise wrapper": (
            {
                "acc": C.MulticlassAccuracy(num_classes=3, average=None),
                "cw": L.wrappers.ClasswiseWrapper(C.MulticlassAccuracy(num_classes=3, average=None)),
                "f1": C.MulticlassF1Score(num_classes=3),
            },
            FLAT,
        ),
    }


# Cases where our declared statistics group more than torchmetrics' value comparison: a confusion
# matrix is the statistic the stat-score metrics are computed from (one update serves them all).
OURS_GROUP_MORE = {
    "confusion matrix and recall": {0: ["MulticlassConfusionMatrix", "MulticlassRecall"]},
    "four": {0: ["MulticlassConfusionMatrix", "MulticlassCohenKappa", "MulticlassRecall", "MulticlassPrecision"]},
    "samplewise apart": {0: ["acc", "acc2", "confmat", "f1", "recall"], 1: ["acc3"]},
}


@pytest.mark.parametrize("prefix", [None, "val_"])
@pytest.mark.parametrize("case", sorted(_group_cases(lm)))
def test_compute_groups_reported_as_torchmetrics(case: str, prefix: Any) -> None:
    results = {}
    for L in (torchmetrics, lm):
        metrics, (preds, target) = _group_cases(L)[case]
        nested = isinstance(metrics, list) and isinstance(metrics[0], L.MetricCollection)
        grouped = L.MetricCollection(deepcopy(metrics), prefix=None if nested else prefix, compute_groups=True)
        alone = L.MetricCollection(deepcopy(metrics), prefix=None if nested else prefix, compute_groups=False)
        assert alone.compute_groups == {}
        for _ in range(2):
            grouped.update(preds, target)
            alone.update(preds, target)
        assert alone.compute_groups == {}
        results[L.__name__] = (grouped.compute_groups, grouped.compute(), alone.compute(), grouped(preds, target))
    theirs, ours = results["torchmetrics"], results["lightning_metrics"]
    assert ours[0] == OURS_GROUP_MORE.get(case, theirs[0])
    for got in (ours[1], ours[2]):  # with and without groups: torchmetrics' values
        assert list(got) == list(theirs[1])
        for key in theirs[1]:
            torch.testing.assert_close(got[key], theirs[1][key], equal_nan=True)
    assert list(ours[3]) == list(theirs[3])  # forward keys in torchmetrics' order


def test_user_defined_groups_as_torchmetrics() -> None:
    reports = []
    for L in (torchmetrics, lm):
        C = L.classification
        metrics = L.MetricCollection(
            C.MulticlassConfusionMatrix(3),
            C.MulticlassRecall(3),
            C.MulticlassPrecision(3),
            compute_groups=[["MulticlassConfusionMatrix"], ["MulticlassRecall", "MulticlassPrecision"]],
        )
        assert metrics._groups_checked  # torchmetrics' flag: user groups need no first update
        metrics.update(*FLAT)
        reports.append((metrics.compute_groups, metrics.compute()))
    assert reports[0][0] == reports[1][0] == {0: ["MulticlassConfusionMatrix"], 1: ["MulticlassRecall", "MulticlassPrecision"]}
    for key, value in reports[0][1].items():
        torch.testing.assert_close(reports[1][1][key], value)


def _summing(L: Any) -> type:
    class Summing(L.Metric):  # a custom metric as written for torchmetrics: full_state_update unset
        def __init__(self) -> None:
            super().__init__()
            self.add_state("x", torch.tensor(0.0), dist_reduce_fx="sum")

        def update(self, value: torch.Tensor) -> None:
            self.x += value.sum()

        def compute(self) -> torch.Tensor:
            return self.x

    return Summing


def test_user_groups_of_full_state_metrics_update_once_per_forward() -> None:
    out = []
    for L in (torchmetrics, lm):
        Summing = _summing(L)
        metrics = L.MetricCollection({"a": Summing(), "b": Summing()}, compute_groups=[["a", "b"]])
        out.append([metrics(torch.tensor([1.0, 2.0])), metrics(torch.tensor([1.0])), metrics.compute()])
    assert out[0] == out[1]
    assert out[1][2] == {"a": torch.tensor(4.0), "b": torch.tensor(4.0)}


def test_classwise_wrapper_in_user_defined_group() -> None:
    out = []
    for L in (torchmetrics, lm):
        C = L.classification
        metrics = L.MetricCollection(
            {
                "cw": L.wrappers.ClasswiseWrapper(C.MulticlassAccuracy(num_classes=3, average=None), labels=["x", "y", "z"]),
                "acc": C.MulticlassAccuracy(num_classes=3, average=None),
            },
            compute_groups=[["acc", "cw"]],
            prefix="val/",
        )
        batch_value = metrics(*FLAT)
        metrics.update(*FLAT)
        value = metrics.compute()
        metrics.reset()
        metrics.update(*FLAT)
        out.append((batch_value, value, metrics.compute(), metrics.compute_groups))
    for got, expected in zip(out[1][:3], out[0][:3]):
        assert list(got) == list(expected)
        for key in expected:
            torch.testing.assert_close(got[key], expected[key])
    assert out[1][3] == out[0][3] == {0: ["acc", "cw"]}


def _dummy_dict(L: Any) -> type:
    class TwoOutputs(L.Metric):
        full_state_update = True

        def __init__(self) -> None:
            super().__init__()
            self.add_state("x", torch.tensor(0.0), dist_reduce_fx="sum")

        def update(self, x: torch.Tensor) -> None:
            self.x += x

        def compute(self) -> dict[str, torch.Tensor]:
            return {"output1": self.x, "output2": self.x}

    return TwoOutputs


def _naming_cases(L: Any) -> dict[str, Any]:
    C = L.classification

    def pair(average: str, **kwargs: Any) -> Any:
        return L.MetricCollection(
            [C.MulticlassAccuracy(num_classes=3, average=average), C.MulticlassPrecision(num_classes=3, average=average)],
            **kwargs,
        )

    TwoOutputs = _dummy_dict(L)
    return {
        "nested list with prefixes": lambda: L.MetricCollection(
            [pair("macro", prefix="macro_"), pair("micro", prefix="micro_")], prefix="valmetrics/"
        ),
        "nested dict": lambda: L.MetricCollection({"macro": pair("macro"), "micro": pair("micro")}, prefix="valmetrics/"),
        "nested with postfixes": lambda: L.MetricCollection(
            [pair("macro", postfix="_macro"), pair("micro", postfix="_micro")], prefix="valmetrics/"
        ),
        "double nested, one dict metric": lambda: L.MetricCollection(
            [L.MetricCollection(TwoOutputs(), prefix="prefix1_", postfix="_postfix1")],
            prefix="prefix2_",
            postfix="_postfix2",
        ),
        "double nested, two dict metrics": lambda: L.MetricCollection(
            [L.MetricCollection({"metric1": TwoOutputs(), "metric2": TwoOutputs()}, prefix="prefix1_", postfix="_postfix1")],
            prefix="prefix2_",
            postfix="_postfix2",
        ),
    }


@pytest.mark.parametrize("case", sorted(_naming_cases(lm)))
def test_nested_prefix_postfix_naming_as_torchmetrics(case: str) -> None:
    out = []
    for L in (torchmetrics, lm):
        metrics = _naming_cases(L)[case]()
        inputs = (torch.tensor(1.5),) if "dict metric" in case else FLAT
        out.append((list(metrics(*inputs)), list(metrics.keys()), list(metrics.keys(keep_base=True))))
    assert out[1] == out[0]


@pytest.mark.parametrize("keep_base", [False, True])
def test_keys_items_values_are_dict_views_as_torchmetrics(keep_base: bool) -> None:
    kinds = []
    for L in (torchmetrics, lm):
        metrics = L.MetricCollection([L.aggregation.MeanMetric(), L.aggregation.SumMetric()], prefix="p_", postfix="_q")
        kinds.append(
            (
                type(metrics.keys(keep_base=keep_base)).__name__,
                type(metrics.items(keep_base=keep_base)).__name__,
                type(metrics.values()).__name__,
                list(metrics.keys(keep_base=keep_base)),
                [k for k, _ in metrics.items(keep_base=keep_base)],
            )
        )
    assert kinds[1] == kinds[0]


# ------------------------------------------------------------------------------ under DDP
def _ddp_worker(rank: int, world: int) -> dict[str, Any]:
    gen = torch.Generator().manual_seed(100 + rank)
    preds, target = torch.randn(8, 3, generator=gen).softmax(-1), torch.randint(3, (8,), generator=gen)
    out: dict[str, Any] = {}
    for L in (torchmetrics, lm):
        C = L.classification
        metrics = L.MetricCollection(
            {
                "cw": L.wrappers.ClasswiseWrapper(C.MulticlassAccuracy(num_classes=3, average=None)),
                "acc": C.MulticlassAccuracy(num_classes=3, average=None),
                "f1": C.MulticlassF1Score(num_classes=3),
            },
            compute_groups=[["acc", "cw", "f1"]],
        )
        metrics.update(preds, target)
        out[f"{L.__name__} group"] = {k: v.tolist() for k, v in metrics.compute().items()}
        acc = metrics["acc"]
        out[f"{L.__name__} local after"] = int(acc.tp.sum() + acc.fn.sum())  # unsync restored the local counts
        # a list state no rank added to, synced: torchmetrics gives tensor([]) (float32 whatever the
        # state holds), ours keeps the empty list of one process, so compute gives that value or error
        cat = L.aggregation.CatMetric()
        cat._update_count = 1
        cat.sync()
        out[f"{L.__name__} empty"] = (type(cat.value).__name__, getattr(cat.value, "dtype", None), len(cat.value))
        cat.unsync()
    return out


def test_grouped_classwise_wrapper_and_empty_list_states_under_ddp() -> None:
    results = run_distributed(_ddp_worker)
    for rank in results:
        assert rank["lightning_metrics group"].keys() == rank["torchmetrics group"].keys()
        for key, value in rank["torchmetrics group"].items():
            torch.testing.assert_close(torch.tensor(rank["lightning_metrics group"][key]), torch.tensor(value))
        assert rank["torchmetrics empty"] == ("Tensor", torch.float32, 0)
        assert rank["lightning_metrics empty"] == ("list", None, 0)
        assert rank["lightning_metrics local after"] == rank["torchmetrics local after"] == 8
