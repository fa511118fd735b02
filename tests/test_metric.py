"""The Metric contract: states, wrapping, forward, merging, copies, devices, arithmetic."""

from __future__ import annotations

import copy
import operator
import pickle

import pytest
import torch
import torchmetrics

import lightning_metrics as lm
from lightning_metrics.aggregation import MeanMetric, SumMetric


class Counting(lm.Metric):
    """Sum states plus a call counter, to see how often ``update`` runs."""

    full_state_update = False

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.add_state("total", torch.tensor(0.0), dist_reduce_fx="sum", persistent=True)
        self.add_state("count", torch.tensor(0), dist_reduce_fx="sum")
        self.add_state("values", [], dist_reduce_fx="cat")
        self.calls = 0
        self.grad_enabled = []

    def update(self, x):
        if not isinstance(x, torch.Tensor):
            raise TypeError(f"Argument `x` must be a tensor, got {x!r}")
        self.calls += 1
        self.grad_enabled.append(torch.is_grad_enabled())
        self.values.append(x.detach())
        if (x < 0).any():  # fails after a list append and before the sums: must roll back
            raise ValueError(f"Argument `x` must be non-negative, got {x}")
        self.total += x.sum()
        self.count += x.numel()

    def compute(self):
        return self.total / self.count


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"dist_reduce_fx": "avg"}, "dist_reduce_fx"),
        ({"dist_reduce_fx": 3}, "dist_reduce_fx"),
        ({"default": 0.0}, "default"),
        ({"default": [torch.tensor(1.0)]}, "default"),
        ({"name": "update"}, "name"),
        ({"name": "not an identifier"}, "name"),
        ({"persistent": "yes"}, "persistent"),
    ],
)
def test_add_state_rejects_bad_arguments(kwargs, match):
    metric = Counting()
    args = {"name": "extra", "default": torch.tensor(0.0), "dist_reduce_fx": "sum", **kwargs}
    with pytest.raises(ValueError, match=match):
        metric.add_state(**args)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"dist_sync_fn": 3}, "dist_sync_fn"),
        ({"compute_on_cpu": 1}, "compute_on_cpu"),
        ({"dist_sync_on_step": "no"}, "dist_sync_on_step"),
        ({"sync_on_compute": None}, "sync_on_compute"),
        ({"compute_with_cache": 0}, "compute_with_cache"),
        ({"distributed_available_fn": 5}, "distributed_available_fn"),
        ({"bogus": 1}, "bogus"),
    ],
)
def test_constructor_keywords_are_checked(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Counting(**kwargs)


def test_states_are_not_buffers_or_parameters():
    metric = Counting()
    assert dict(metric.named_buffers()) == {}
    assert list(metric.parameters()) == []


def test_update_count_cache_and_warning():
    metric = Counting()
    with pytest.warns(UserWarning, match="before the ``update``"):
        metric.compute()
    metric.reset()
    metric.update(torch.tensor([1.0, 2.0]))
    metric.update(torch.tensor([3.0]))
    assert metric.update_count == 2 and metric.update_called
    first = metric.compute()
    assert metric.compute() is first  # cached
    metric.update(torch.tensor([4.0]))
    assert metric.compute() == pytest.approx(2.5)
    metric.reset()
    assert metric.update_count == 0 and metric.values == [] and metric.total == 0


def test_gradients_only_inside_forward():
    metric = Counting()
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    metric.update(x)
    metric(x)
    assert metric.grad_enabled == [False, True]


def test_forward_makes_a_single_update_and_returns_batch_value():
    metric = Counting()
    metric.update(torch.tensor([10.0]))
    batch = metric(torch.tensor([1.0, 3.0]))
    assert batch == pytest.approx(2.0)
    assert metric.calls == 2  # one for update, ONE for forward
    assert metric.update_count == 2
    assert metric.compute() == pytest.approx(14 / 3)
    assert torch.equal(lm.utilities.dim_zero_cat(metric.values), torch.tensor([10.0, 1.0, 3.0]))


def test_rejected_update_leaves_state_untouched():
    metric = Counting()
    metric.update(torch.tensor([1.0, 2.0]))
    before = copy.deepcopy(metric.metric_state)
    with pytest.raises(ValueError, match="non-negative"):
        metric.update(torch.tensor([5.0, -1.0]))
    with pytest.raises(ValueError, match="non-negative"):
        metric(torch.tensor([-5.0]))
    after = metric.metric_state
    assert torch.equal(after["total"], before["total"]) and torch.equal(after["count"], before["count"])
    assert len(after["values"]) == len(before["values"]) == 1
    assert metric.update_count == 1
    assert metric.compute() == pytest.approx(1.5)


def test_merge_state_with_metric_and_dict():
    a, b = Counting(), Counting()
    a.update(torch.tensor([1.0]))
    b.update(torch.tensor([2.0, 3.0]))
    a.merge_state(b)
    assert a.compute() == pytest.approx(2.0)
    a.merge_state({"total": torch.tensor(4.0), "count": torch.tensor(1), "values": [torch.tensor([4.0])]})
    assert a.compute() == pytest.approx(2.5)
    with pytest.raises(ValueError, match="incoming_state"):
        a.merge_state(SumMetric())
    with pytest.raises(ValueError, match="incoming_state"):
        a.merge_state(3)


def test_state_dict_persistent_only_and_roundtrip():
    metric = Counting()
    metric.update(torch.tensor([1.0, 2.0]))
    assert set(metric.state_dict()) == {"total"}
    metric.persistent(True)
    sd = metric.state_dict()
    assert set(sd) == {"total", "count", "values"}
    fresh = Counting()
    fresh.persistent(True)
    fresh.load_state_dict(sd)
    fresh._update_count = 1
    assert fresh.compute() == metric.compute()


@pytest.mark.parametrize("copier", [copy.deepcopy, lambda m: pickle.loads(pickle.dumps(m)), lambda m: m.clone()])
def test_copies_keep_states_and_are_independent(copier):
    metric = Counting()
    metric.update(torch.tensor([1.0, 5.0]))
    twin = copier(metric)
    assert twin.compute() == metric.compute()
    twin.update(torch.tensor([0.0]))
    assert metric.update_count == 1 and twin.update_count == 2
    assert twin.compute() == pytest.approx(2.0)


def test_dtype_and_device_moves():
    metric = MeanMetric()
    metric.update(torch.tensor([1.0, 2.0]))
    metric.half()  # precision casts never touch metric states
    assert metric.mean_value.dtype == torch.float32
    metric.set_dtype(torch.float64)
    assert metric.mean_value.dtype == torch.float64 and metric.weight.dtype == torch.float64
    counting = Counting().set_dtype(torch.float16)
    assert counting.count.dtype == torch.int64  # integer counters keep their exact dtype
    moved = Counting().to("cpu")
    assert moved.device == torch.device("cpu")


def test_compute_on_cpu_moves_list_states():
    metric = Counting(compute_on_cpu=True)
    metric.update(torch.tensor([1.0]))
    assert metric.values[0].device.type == "cpu"


def test_sync_is_noop_without_process_group_and_sync_errors():
    metric = Counting()
    metric.update(torch.tensor([2.0]))
    metric.sync()
    assert not metric._is_synced
    metric.sync(distributed_available=lambda: True, dist_sync_fn=lambda t, group=None: [t, t])
    assert metric._is_synced and metric.total == 4.0
    with pytest.raises(lm.metric.MetricUserError, match="already been synced"):
        metric.sync(distributed_available=lambda: True, dist_sync_fn=lambda t, group=None: [t])
    metric.unsync()
    assert metric.total == 2.0
    with pytest.raises(lm.metric.MetricUserError, match="un-synced"):
        metric.unsync()
    with metric.sync_context(distributed_available=lambda: True, dist_sync_fn=lambda t, group=None: [t, t, t]):
        assert metric.count == 3
    assert metric.count == 1


def test_constant_attributes_cannot_change():
    with pytest.raises(RuntimeError, match="higher_is_better"):
        Counting().higher_is_better = True


_BINARY_OPS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
               operator.pow, operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]


@pytest.mark.parametrize("op", _BINARY_OPS)
@pytest.mark.parametrize("other", ["metric", 2.0, "tensor"], ids=["metric", "float", "tensor"])
def test_arithmetic_matches_torchmetrics(op, other):
    def build(pkg):
        a = pkg.aggregation.SumMetric()
        b = {"metric": pkg.aggregation.MaxMetric(), "tensor": torch.tensor(3.0)}.get(other, other)
        return op(a, b), op(b, a) if not isinstance(b, float) or op not in (operator.eq, operator.ne) else None

    ours, theirs = build(lm), build(torchmetrics)
    for mine, ref in zip(ours, theirs):
        if mine is None:
            continue
        for batch in (torch.tensor([1.0, 2.0]), torch.tensor([4.0])):
            mine.update(batch)
            ref.update(batch)
        try:
            expected = ref.compute().float()
        except TypeError:  # torchmetrics cannot put a number first for some ops (e.g. 2.0 % metric)
            expected = op(torch.tensor(2.0), torch.tensor(7.0)).float()
        assert torch.allclose(mine.compute().float(), expected, equal_nan=True)


class IntSum(lm.Metric):
    full_state_update = False

    def __init__(self):
        super().__init__()
        self.add_state("total", torch.tensor(0), dist_reduce_fx="sum")

    def update(self, x):
        self.total += x.sum()

    def compute(self):
        return self.total


@pytest.mark.parametrize("op", [operator.and_, operator.or_, operator.xor])
def test_bitwise_arithmetic(op):
    left, right = op(IntSum(), torch.tensor(6)), op(torch.tensor(6), IntSum())
    for m in (left, right):
        m.update(torch.tensor([1, 2]))
        assert m.compute() == op(torch.tensor(3), torch.tensor(6))


def test_unary_and_indexing():
    cat = lm.aggregation.CatMetric()
    neg, absolute, first, inverted = -cat, abs(cat), cat[0], ~(cat > 1.0)
    cat.update(torch.tensor([-2.0, 3.0]))
    for m in (neg, absolute, first, inverted):
        m._update_count = 1
    assert torch.equal(neg.compute(), torch.tensor([2.0, -3.0]))
    assert torch.equal(absolute.compute(), torch.tensor([2.0, 3.0]))
    assert first.compute() == -2.0
    assert torch.equal(inverted.compute(), torch.tensor([True, False]))


def test_compositional_forward_and_reset():
    total = SumMetric() + SumMetric()
    assert total(torch.tensor([1.0, 2.0])) == 6.0
    assert total.compute() == 6.0
    total.reset()
    assert total.metric_a.update_count == 0


def test_exact_dtype_states_survive_casts():
    from lightning_metrics.regression import R2Score

    metric = R2Score()
    metric.update(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.5, 2.0]))
    metric.set_dtype(torch.float16)
    metric.to(torch.float32)
    assert metric.moments.dtype == torch.float64
