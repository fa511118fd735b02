"""The sample-weight core: the keyword's rules, the switch to weighted states, and every path a state takes.

A small metric with an integer count state (as the count metrics) and a float64 sum shows each path of
``lightning_metrics._sample_weights``: checkpoint, ``merge_state``, ``forward``, ``reset``, dtype casts and the
fused DDP sync where one rank is weighted and the other is not (or has no batch at all).
"""

from __future__ import annotations

import pytest
import torch

from lightning_metrics import Metric
from lightning_metrics.utilities.exceptions import MetricInputError
from lightning_metrics.utilities.sample_weight import as_sample_weight, per_sample
from tests._distributed import run_distributed


class WeightedMean(Metric):
    """Mean of ``x`` with an integer count (float64 once weighted) and a float64 sum."""

    full_state_update = False

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.add_state("total", torch.zeros((), dtype=torch.float64), dist_reduce_fx="sum")
        self.add_state("count", torch.zeros((), dtype=torch.long), dist_reduce_fx="sum")

    def _sample_weight_states(self):
        return ("count",)

    def update(self, x, *, sample_weight=None):
        weight = as_sample_weight(sample_weight, x.shape, device=x.device)
        if weight is None:
            self.total += x.double().sum()
            self.count += x.numel()
            return
        self._use_sample_weights()
        self.total += (x.double() * weight).sum()
        self.count += weight.sum()

    def compute(self):
        return self.total / self.count


def test_as_sample_weight_broadcasts_leading_shapes_and_names_bad_shapes():
    assert as_sample_weight(torch.tensor([1, 2]), (2, 2, 3)).shape == (2, 2, 3)
    assert as_sample_weight(torch.ones(2, 2), (2, 2, 3))[1, 1, 2] == 1
    assert torch.equal(per_sample(3, 2), torch.tensor([3.0, 3.0], dtype=torch.float64))
    with pytest.raises(MetricInputError, match=r"`sample_weight`.*\(2, 3\).*got shape \(3,\)"):
        as_sample_weight(torch.ones(3), (2, 3))
    with pytest.raises(MetricInputError, match=r"got shape \(2, 2\)"):
        as_sample_weight(torch.ones(2, 2), (2, 3))
    for bad, shown in ((float("nan"), "nan at index 1"), (float("inf"), "inf at index 1"), (-0.5, "-0.5 at index 1")):
        with pytest.raises(MetricInputError, match=shown):
            as_sample_weight(torch.tensor([1.0, bad]), (2,))
    with pytest.raises(MetricInputError, match="dtype torch.bool"):
        as_sample_weight(torch.tensor([True]), (1,))
    with pytest.raises(MetricInputError, match="got 'heavy'"):
        as_sample_weight("heavy", (1,))
    assert as_sample_weight(torch.tensor([-1.0]), (1,), validate=False) is not None  # validate_args=False


def test_unweighted_metric_keeps_integer_states_and_weighted_one_switches_exactly():
    metric = WeightedMean()
    metric.update(torch.tensor([1.0, 2.0]))
    assert metric.count.dtype == torch.long and not metric._is_sample_weighted
    metric.update(torch.tensor([4.0, 8.0]), sample_weight=torch.tensor([0.0, 3.0]))
    assert metric.count.dtype == torch.float64 and metric._is_sample_weighted
    assert metric.compute() == pytest.approx((1 + 2 + 24) / 5)
    metric.reset()
    assert metric.count.dtype == torch.long and not metric._is_sample_weighted


def test_bad_weight_leaves_the_state_as_it_was():
    metric = WeightedMean()
    metric.update(torch.tensor([1.0, 2.0]))
    before = {k: v.clone() for k, v in metric.metric_state.items()}
    with pytest.raises(MetricInputError):
        metric.update(torch.tensor([1.0, 2.0]), sample_weight=torch.tensor([1.0, -2.0]))
    assert all(torch.equal(before[k], v) and before[k].dtype == v.dtype for k, v in metric.metric_state.items())


def test_checkpoint_merge_forward_and_casts_keep_weighted_counts():
    weighted = WeightedMean()
    weighted.update(torch.tensor([1.0, 3.0]), sample_weight=torch.tensor([0.5, 1.5]))
    restored = WeightedMean()
    restored.persistent(True)
    weighted.persistent(True)
    restored.load_state_dict(weighted.state_dict())
    assert restored._is_sample_weighted and restored.compute() == weighted.compute()

    plain = WeightedMean()
    plain.update(torch.tensor([5.0]))
    plain.merge_state(weighted)  # integer counts promote
    assert plain.count.dtype == torch.float64 and plain.compute() == pytest.approx((5 + 0.5 + 4.5) / 3)

    forwarded = WeightedMean()
    forwarded.update(torch.tensor([2.0]))
    batch = forwarded(torch.tensor([4.0, 6.0]), sample_weight=torch.tensor([1.0, 0.0]))
    assert batch == 4.0 and forwarded.compute() == 3.0 and forwarded._is_sample_weighted

    weighted.half()  # a user's cast must not round weighted counts
    assert weighted.count.dtype == torch.float64


def _one_rank_weighted(rank: int, world: int) -> dict:
    results = {}
    # rank 0 weighted, rank 1 not; then rank 1 without any batch; then both weighted
    for case in ("mixed", "empty_peer", "both"):
        metric = WeightedMean()
        if rank == 0 or case == "both":
            metric.update(torch.tensor([1.0, 2.0]), sample_weight=torch.tensor([2.0, 0.5]))
        elif case == "mixed":
            metric.update(torch.tensor([3.0, 5.0]))
        value = metric.compute()
        results[case] = (float(value), metric.count.dtype, metric._is_sample_weighted)
    # a metric weighted on no rank keeps integer counts after the sync
    plain = WeightedMean()
    plain.update(torch.tensor([1.0 + rank]))
    results["plain"] = float(plain.compute())
    with plain.sync_context():
        results["plain_synced_dtype"] = plain.count.dtype
    return results


def test_ddp_sync_agrees_on_the_weighted_layout_when_one_rank_is_weighted():
    results = run_distributed(_one_rank_weighted, timeout=120)
    mixed = (1 * 2 + 2 * 0.5 + 3 + 5) / (2.5 + 2)
    for rank, res in enumerate(results):
        assert res["mixed"][0] == pytest.approx(mixed)
        assert res["empty_peer"][0] == pytest.approx((2 + 1) / 2.5)
        assert res["both"][0] == pytest.approx(3 / 2.5)
        # the local state after compute (unsynced) keeps its own layout
        assert res["mixed"][2] == (rank == 0)
        assert res["plain"] == 1.5 and res["plain_synced_dtype"] == torch.long


class Plain(Metric):
    full_state_update = False

    def __init__(self):
        super().__init__()
        self.add_state("n", torch.zeros((), dtype=torch.long), dist_reduce_fx="sum")

    def update(self, x):
        self.n += x.numel()

    def compute(self):
        return self.n


def test_a_collection_says_which_member_cannot_take_weights():
    from lightning_metrics import MetricCollection

    collection = MetricCollection({"mean": WeightedMean(), "plain": Plain()})
    with pytest.warns(UserWarning, match=r"Plain.update takes no `sample_weight`: in this collection it is updated unweighted"):
        collection.update(torch.tensor([1.0, 3.0]), sample_weight=torch.tensor([3.0, 1.0]))
    values = collection.compute()
    assert values["mean"] == pytest.approx(1.5) and values["plain"] == 2
