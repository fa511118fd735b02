"""Fused sync across 2 gloo processes: exact values, bounded collective calls, uneven and empty ranks."""

from __future__ import annotations

import pytest
import torch

import lightning_metrics as lm
from lightning_metrics.aggregation import CatMetric, MaxMetric, MeanMetric, MinMetric, SumMetric
from tests._distributed import CollectiveCounter, run_distributed

pytestmark = pytest.mark.timeout(240)


class Mixed(lm.Metric):
    """Every state kind: sum, mean, max, min, cat (list, 2-D, int), None and a callable."""

    full_state_update = False

    def __init__(self):
        super().__init__()
        self.add_state("total", torch.zeros(3), dist_reduce_fx="sum")
        self.add_state("count", torch.tensor(0), dist_reduce_fx="sum")
        self.add_state("peak", torch.tensor(-1e9), dist_reduce_fx="max")
        self.add_state("low", torch.tensor(1e9), dist_reduce_fx="min")
        self.add_state("avg", torch.tensor(0.0), dist_reduce_fx="mean")
        self.add_state("rows", [], dist_reduce_fx="cat")
        self.add_state("labels", [], dist_reduce_fx="cat")
        self.add_state("stacked", torch.zeros(2), dist_reduce_fx=None)
        self.add_state("custom", torch.zeros(2), dist_reduce_fx=lambda x: x.sum(0) * 10)

    def update(self, x, y):
        self.total += x.sum(0)
        self.count += x.shape[0]
        self.peak = torch.maximum(self.peak, x.max())
        self.low = torch.minimum(self.low, x.min())
        self.avg = x.mean()
        self.rows.append(x)
        self.labels.append(y)
        self.stacked = self.stacked + 1
        self.custom = self.custom + 1

    def compute(self):
        return {
            "total": self.total, "count": self.count, "peak": self.peak, "low": self.low, "avg": self.avg,
            "rows": lm.utilities.dim_zero_cat(self.rows), "labels": lm.utilities.dim_zero_cat(self.labels),
            "stacked": self.stacked, "custom": self.custom,
        }


def _data(rank: int, n_batches: int, rows_per_batch: int):
    g = torch.Generator().manual_seed(100 + rank)
    return [(torch.randn(rows_per_batch + i, 3, generator=g), torch.randint(0, 9, (rows_per_batch + i,), generator=g))
            for i in range(n_batches)]


def _collection(n: int) -> lm.MetricCollection:
    kinds = [SumMetric, MeanMetric, MaxMetric, MinMetric, CatMetric]
    return lm.MetricCollection({f"m{i:02d}": kinds[i % len(kinds)]() for i in range(n)})


def _collection_worker(rank, world, n_metrics):
    mc = _collection(n_metrics)
    batches = [x[:, 0] for x, _ in _data(rank, 3 if rank == 0 else 2, 4)]  # uneven per rank
    for b in batches:
        mc.update(b)
    local_before = {k: [t.clone() for t in v] if isinstance(v, list) else v.clone()
                    for k, v in mc["m04"].metric_state.items()} if n_metrics > 4 else None
    with CollectiveCounter() as counter:
        synced = mc.compute()
    after = mc["m04"].metric_state if n_metrics > 4 else None
    if local_before is not None:  # local states untouched after the implicit unsync
        assert len(after["value"]) == len(local_before["value"])
    return counter.total, counter.calls, synced


@pytest.mark.parametrize("n_metrics", [1, 8, 32])
def test_collection_sync_is_exact_and_bounded(n_metrics):
    results = run_distributed(_collection_worker, n_metrics)
    reference = _collection(n_metrics)
    for rank, n in ((0, 3), (1, 2)):
        for x, _ in _data(rank, n, 4):
            reference.update(x[:, 0])
    expected = reference.compute()
    for total, calls, synced in results:
        assert total <= 8, calls
        assert synced.keys() == expected.keys()
        for key in expected:
            if key.endswith(("04", "09", "14", "19", "24", "29")):  # cat: rank order is kept
                assert torch.allclose(synced[key], expected[key])
            else:
                assert torch.allclose(synced[key], expected[key], rtol=1e-6), key


def _mixed_worker(rank, world, empty_rank):
    metric = Mixed()
    if rank != empty_rank:
        for x, y in _data(rank, 2 + rank, 3):
            metric.update(x, y)
    with CollectiveCounter() as counter:
        value = metric.compute()
    local_rows = len(metric.rows)
    return counter.total, value, local_rows


@pytest.mark.parametrize("empty_rank", [None, 0, 1])
def test_every_state_kind_with_uneven_and_empty_ranks(empty_rank):
    results = run_distributed(_mixed_worker, empty_rank)
    batches = [b for r in (0, 1) if r != empty_rank for b in _data(r, 2 + r, 3)]
    rows = torch.cat([x for x, _ in batches])
    labels = torch.cat([y for _, y in batches])
    for rank, (calls, value, local_rows) in enumerate(results):
        assert calls <= 8
        assert local_rows == (0 if rank == empty_rank else 2 + rank)
        assert torch.allclose(value["total"], rows.sum(0), atol=1e-5)
        assert value["count"] == rows.shape[0] and value["count"].dtype == torch.int64
        assert value["peak"] == rows.max() and value["low"] == rows.min()
        assert torch.equal(value["rows"], rows) and torch.equal(value["labels"], labels)
        assert value["labels"].dtype == torch.int64
        assert value["stacked"].shape == (2, 2)
        n_updates = [0 if r == empty_rank else 2 + r for r in (0, 1)]
        assert torch.equal(value["stacked"][:, 0], torch.tensor(n_updates, dtype=torch.float32))
        assert torch.equal(value["custom"], torch.full((2,), 10.0 * sum(n_updates)))


def _mismatch_worker(rank, world):
    mc = lm.MetricCollection({"a": SumMetric()} if rank == 0 else {"a": SumMetric(), "b": MaxMetric()})
    mc.update(torch.tensor([1.0]))
    try:
        mc.compute()
    except RuntimeError as err:
        return str(err)
    return "no error"


def test_different_collections_fail_clearly_on_every_rank():
    messages = run_distributed(_mismatch_worker)
    assert all("differ across processes" in m for m in messages), messages


def _single_metric_worker(rank, world):
    metric = CatMetric()
    metric.update(torch.arange(rank * 5, dtype=torch.float32))
    with CollectiveCounter() as counter:
        value = metric.compute()
    metric.sync()
    synced = metric.value.clone()
    metric.unsync()
    return counter.total, value, synced, [t.clone() for t in metric.value]


def test_single_metric_sync_and_unsync_restore_local_state():
    results = run_distributed(_single_metric_worker)
    for rank, (calls, value, synced, local) in enumerate(results):
        assert calls <= 4
        assert torch.equal(value, torch.arange(5, dtype=torch.float32))
        assert torch.equal(synced, value)
        assert len(local) == rank  # rank 0 fed an empty batch (a no-op), rank 1 one batch


def _custom_sync_fn_worker(rank, world):
    from lightning_metrics.distributed import gather_all_tensors

    metric = CatMetric(dist_sync_fn=gather_all_tensors)
    metric.update(torch.ones(rank + 1))
    return metric.compute()


def test_user_dist_sync_fn_protocol():
    for value in run_distributed(_custom_sync_fn_worker):
        assert torch.equal(value, torch.ones(3))


def _torchmetrics_parity_worker(rank, world):
    import torchmetrics

    out = {}
    for pkg in (lm, torchmetrics):
        mc = pkg.MetricCollection({"mean": pkg.aggregation.MeanMetric(), "max": pkg.aggregation.MaxMetric(),
                                   "sum": pkg.aggregation.SumMetric()})
        for x, _ in _data(rank, 2, 3):
            mc.update(x[:, 0])
        with CollectiveCounter() as counter:
            out[pkg.__name__] = (mc.compute(), counter.total)
    return out


def test_matches_torchmetrics_under_ddp():
    for out in run_distributed(_torchmetrics_parity_worker):
        ours, ours_calls = out["lightning_metrics"]
        theirs, theirs_calls = out["torchmetrics"]
        assert ours.keys() == theirs.keys()
        for key in ours:
            assert torch.allclose(ours[key], theirs[key], rtol=1e-6)
        assert ours_calls < theirs_calls
