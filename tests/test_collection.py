"""MetricCollection: construction rules, naming, explicit compute groups, forward/compute/reset."""

from __future__ import annotations

import copy

import pytest
import torch
import torchmetrics

import lightning_metrics as lm
from lightning_metrics.aggregation import MaxMetric, MeanMetric, MinMetric, SumMetric


class ThresholdHits(lm.Metric):
    """Counts preds above a threshold; the statistic depends on the threshold, so does the spec."""

    full_state_update = False
    updates = 0  # class-wide update counter

    def __init__(self, threshold: float = 0.5, scale: float = 1.0):
        super().__init__()
        self.threshold, self.scale = threshold, scale
        self.add_state("hits", torch.tensor(0), dist_reduce_fx="sum")
        self.add_state("total", torch.tensor(0), dist_reduce_fx="sum")

    @property
    def statistic_spec(self):
        return ("threshold_hits", self.threshold)  # `scale` only changes compute: not in the spec

    def update(self, preds):
        type(self).updates += 1
        self.hits += (preds > self.threshold).sum()
        self.total += preds.numel()

    def compute(self):
        return self.scale * self.hits / self.total


def test_dict_keys_are_sorted_and_prefix_postfix_apply():
    mc = lm.MetricCollection({"b": SumMetric(), "a": MaxMetric()}, prefix="val/", postfix="_x")
    assert list(mc.keys()) == ["val/a_x", "val/b_x"]
    assert list(mc.keys(keep_base=True)) == ["a", "b"]
    mc.update(torch.tensor([1.0, 2.0]))
    assert mc.compute() == {"val/a_x": torch.tensor(2.0), "val/b_x": torch.tensor(3.0)}
    assert isinstance(mc["val/a_x"], MaxMetric) and isinstance(mc["a"], MaxMetric)


def test_list_uses_class_names_and_rejects_duplicates():
    mc = lm.MetricCollection([SumMetric(), MaxMetric()], MinMetric())
    assert sorted(mc.keys()) == ["MaxMetric", "MinMetric", "SumMetric"]
    with pytest.raises(ValueError, match="SumMetric"):
        lm.MetricCollection([SumMetric(), SumMetric()])
    with pytest.raises(ValueError, match="metrics"):
        lm.MetricCollection([SumMetric(), "not a metric"])
    with pytest.raises(ValueError, match="metrics"):
        lm.MetricCollection(5)


def test_nested_collections_match_torchmetrics_naming():
    def build(pkg):
        inner = pkg.MetricCollection({"mean": pkg.aggregation.MeanMetric()}, prefix="in_")
        return pkg.MetricCollection({"outer": inner, "sum": pkg.aggregation.SumMetric()}, prefix="p/")

    ours, theirs = build(lm), build(torchmetrics)
    for mc in (ours, theirs):
        mc.update(torch.tensor([1.0, 3.0]))
    assert list(ours.keys()) == list(theirs.keys())
    assert ours.compute().keys() == theirs.compute().keys()


def test_items_values_clone_add_metrics_persistent():
    mc = lm.MetricCollection({"s": SumMetric()})
    mc.add_metrics({"m": MeanMetric()})
    assert [k for k, _ in mc.items()] == ["s", "m"]
    mc.update(torch.tensor([2.0]))
    twin = mc.clone(prefix="train/")
    assert list(twin.compute()) == ["train/s", "train/m"]
    twin.update(torch.tensor([4.0]))
    assert mc.compute()["s"] == 2.0
    mc.persistent(True)
    assert {"s.sum_value", "m.mean_value", "m.weight"} <= set(mc.state_dict())


def test_forward_returns_batch_values_and_accumulates():
    mc = lm.MetricCollection({"mean": MeanMetric(), "max": MaxMetric()})
    assert mc(torch.tensor([1.0, 3.0])) == {"max": torch.tensor(3.0), "mean": torch.tensor(2.0)}
    assert mc(torch.tensor([5.0])) == {"max": torch.tensor(5.0), "mean": torch.tensor(5.0)}
    assert mc.compute() == {"max": torch.tensor(5.0), "mean": torch.tensor(3.0)}
    mc.reset()
    mc.update(torch.tensor([7.0]))
    assert mc.compute()["mean"] == 7.0


def test_equal_specs_share_one_update_per_batch():
    ThresholdHits.updates = 0
    mc = lm.MetricCollection({"a": ThresholdHits(0.5), "b": ThresholdHits(0.5, scale=2.0), "c": ThresholdHits(0.7)})
    assert sorted(map(sorted, mc.compute_groups.values())) == [["a", "b"], ["c"]]
    batches = [torch.tensor([0.0, 1.0]), torch.tensor([0.6, 0.6, 0.9])]
    for b in batches:
        mc.update(b)
    assert ThresholdHits.updates == 2 * 2  # two groups, one update each per batch
    out = mc.compute()
    assert out["a"] == pytest.approx(4 / 5) and out["b"] == pytest.approx(8 / 5) and out["c"] == pytest.approx(2 / 5)
    ThresholdHits.updates = 0
    batch_values = mc(torch.tensor([0.6]))
    assert ThresholdHits.updates == 2
    assert batch_values == {"a": torch.tensor(1.0), "b": torch.tensor(2.0), "c": torch.tensor(0.0)}
    assert mc.compute()["a"] == pytest.approx(5 / 6)


def test_metrics_differing_in_threshold_never_share_unlike_torchmetrics():
    # torchmetrics merges groups by comparing states after batch 1; if they happen to be equal
    # there, two precisions with different thresholds share state forever and one is wrong.
    first, second = torch.tensor([0.0, 1.0, 1.0]), torch.tensor([0.6, 0.6, 0.6])
    target1, target2 = torch.tensor([0, 1, 1]), torch.tensor([1, 0, 1])
    tm = torchmetrics.MetricCollection(
        {"p5": torchmetrics.classification.BinaryPrecision(threshold=0.5),
         "p7": torchmetrics.classification.BinaryPrecision(threshold=0.7)}
    )
    tm.update(first, target1)
    tm.update(second, target2)
    tm_values = tm.compute()
    truth_p7 = 2 / 2  # threshold 0.7: only the two confident positives of batch 1, both right
    assert tm_values["p7"] != pytest.approx(truth_p7)  # the torchmetrics bug this design avoids

    ours = lm.MetricCollection({"h5": ThresholdHits(0.5), "h7": ThresholdHits(0.7)})
    ours.update(first)
    ours.update(second)
    assert len(ours.compute_groups) == 2
    assert ours.compute() == {"h5": torch.tensor(5 / 6), "h7": torch.tensor(2 / 6)}


def test_explicit_groups_are_checked():
    mc = lm.MetricCollection({"a": SumMetric(), "b": SumMetric()}, compute_groups=[["a", "b"]])
    assert mc.compute_groups == {0: ["a", "b"]}
    with pytest.raises(ValueError, match="compute_groups.*'z'"):
        lm.MetricCollection({"a": SumMetric()}, compute_groups=[["a", "z"]])
    with pytest.raises(ValueError, match="compute_groups"):
        lm.MetricCollection({"a": SumMetric(), "m": MeanMetric()}, compute_groups=[["a", "m"]])
    off = lm.MetricCollection({"a": ThresholdHits(), "b": ThresholdHits()}, compute_groups=False)
    assert off.compute_groups == {}  # as torchmetrics reports: no groups when grouping is off
    assert len(off._groups) == 2  # each metric updates alone


def test_shared_state_survives_deepcopy_and_reset():
    mc = lm.MetricCollection({"a": ThresholdHits(0.5), "b": ThresholdHits(0.5)})
    mc.update(torch.tensor([0.9]))
    twin = copy.deepcopy(mc)
    assert twin["a"].hits is twin["b"].hits
    mc.reset()
    assert mc["a"].hits is mc["b"].hits and mc["b"].hits == 0


class ResetCountingHits(ThresholdHits):
    """A member with its own ``reset``: the collection must still call it."""

    resets = 0

    def reset(self):
        type(self).resets += 1
        super().reset()


def test_reset_restores_every_member_and_calls_overridden_resets():
    mc = lm.MetricCollection({"a": ThresholdHits(0.5), "b": ThresholdHits(0.5), "c": ResetCountingHits(0.5)})
    assert len(mc.compute_groups) == 1
    mc.update(torch.tensor([0.9, 0.1]))
    mc.compute()
    ResetCountingHits.resets = 0
    mc.reset()
    assert ResetCountingHits.resets == 1
    for name in "abc":
        member = mc[name]
        assert member.hits is mc["a"].hits and member.hits == 0 and member.total == 0
        assert member.update_count == 0 and member._computed is None and member._forward_cache is None
    mc.update(torch.tensor([0.7]))
    assert {k: float(v) for k, v in mc.compute().items()} == {"a": 1.0, "b": 1.0, "c": 1.0}


def test_compute_shares_derived_counts_within_a_group_but_never_stale_ones(monkeypatch):
    from lightning_metrics.classification import MulticlassF1Score, MulticlassPrecision, MulticlassRecall
    from lightning_metrics.functional.classification._measures import Counts

    derivations = []
    from_confmat = Counts.from_confmat
    from_ovr = Counts.from_ovr
    monkeypatch.setattr(Counts, "from_confmat", lambda confmat: derivations.append(1) or from_confmat(confmat))
    # alone and in this collection, these metrics keep per-class one-vs-rest counts
    monkeypatch.setattr(Counts, "from_ovr", lambda counts: derivations.append(1) or from_ovr(counts))
    mc = lm.MetricCollection({"f1": MulticlassF1Score(3), "p": MulticlassPrecision(3), "r": MulticlassRecall(3)})
    alone = [MulticlassF1Score(3), MulticlassPrecision(3), MulticlassRecall(3)]
    for preds, target in [(torch.tensor([0, 1, 2, 2]), torch.tensor([0, 2, 2, 1])), (torch.tensor([1]), torch.tensor([1]))]:
        mc.update(preds, target)
        for metric in alone:
            metric.update(preds, target)
        derivations.clear()
        got = mc.compute()  # a second compute after an in-place update must see the new counts
        assert len(derivations) == 1  # one derivation for the three members of the group
        for (name, value), metric in zip(got.items(), alone):
            assert torch.equal(value, metric.compute()), name


def test_compute_of_states_made_in_inference_mode():
    """Lightning evaluates under torch.inference_mode: states created there have no version counter."""
    from lightning_metrics.classification import MulticlassF1Score, MulticlassPrecision

    mc = lm.MetricCollection({"f1": MulticlassF1Score(3), "p": MulticlassPrecision(3)})
    with torch.inference_mode():
        mc.reset()
        mc.update(torch.tensor([0, 1, 2, 2]), torch.tensor([0, 2, 2, 1]))
        got = mc.compute()
    assert torch.allclose(got["f1"], torch.tensor(0.5)) and torch.allclose(got["p"], torch.tensor(0.5))


def test_update_is_all_or_nothing_without_copying_states(monkeypatch):
    """Every group checks the batch before any commits: the second group rejects a label the first accepts,
    and neither changes; no state is cloned for the rollback (prepare, then commit)."""
    from lightning_metrics.classification import MulticlassAccuracy
    from lightning_metrics.regression import MeanSquaredError

    rolled_back = []
    original = lm.MetricCollection._rollback_on_error
    monkeypatch.setattr(
        lm.MetricCollection, "_rollback_on_error", lambda self, metrics: rolled_back.extend(metrics) or original(self, metrics)
    )
    mc = lm.MetricCollection({"five": MulticlassAccuracy(num_classes=5), "three": MulticlassAccuracy(num_classes=3)})
    assert len(mc.compute_groups) == 2
    mc.update(torch.tensor([0, 1, 2]), torch.tensor([0, 1, 1]))
    before = {k: {n: v.clone() for n, v in m.metric_state.items()} for k, m in mc.items()}
    counts = {k: m.update_count for k, m in mc.items()}
    with pytest.raises(Exception, match="must hold values"):
        mc.update(torch.tensor([0, 4]), torch.tensor([4, 1]))
    for key, metric in mc.items():
        assert metric.update_count == counts[key]
        for name, value in metric.metric_state.items():
            assert torch.equal(value, before[key][name]), (key, name)
    assert rolled_back == []
    regression = lm.MetricCollection([MeanSquaredError(), MulticlassAccuracy(num_classes=3)])
    with pytest.raises(Exception):
        regression.update(torch.tensor([0.0, 1.0]), torch.tensor([0, 7]))
    assert regression["MeanSquaredError"].update_count == 0 and rolled_back == []
