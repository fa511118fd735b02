"""Wrappers across 2 gloo processes: every copy syncs in the core's ONE fused exchange (a bounded number
of collective calls, whatever the number of copies) and the values equal a single-process run."""

from __future__ import annotations

import pytest
import torch

import lightning_metrics as lm
import lightning_metrics.wrappers as lw
from lightning_metrics.wrappers.pooled_bootstrap import PooledBootstrap
from tests._distributed import CollectiveCounter, run_distributed
from tests.wrappers._cases import multiclass_batches, regression_batches

pytestmark = [pytest.mark.timeout(240), pytest.mark.filterwarnings("ignore::UserWarning")]

NUM_BOOTSTRAPS = 50
CORE_BOUND = 8  # collective calls of one fused sync (tests/test_distributed.py)


def _bootstrappers(seed: int) -> dict[str, lw.BootStrapper]:
    """A sum-state base (MSE moments) and a cat-state base (Spearman), each with its own generator."""
    return {
        name: lw.BootStrapper(base, num_bootstraps=NUM_BOOTSTRAPS, raw=True, quantile=torch.tensor([0.05, 0.95]),
                              generator=torch.Generator().manual_seed(seed))
        for name, base in (("mse", lm.regression.MeanSquaredError()), ("spearman", lm.regression.SpearmanCorrCoef()))
    }


def _rank_batches(rank: int):
    return regression_batches(seed=rank, sizes=(9, 14) if rank == 0 else (11,))  # uneven ranks


def _tracker_and_multitask():
    reg = lm.regression
    tracker = lw.MetricTracker(lm.MetricCollection({"mse": reg.MeanSquaredError(), "r2": reg.R2Score()}))
    multitask = lw.MultitaskWrapper({
        "a": reg.MeanAbsoluteError(),
        "b": lm.MetricCollection({"mse": reg.MeanSquaredError(), "spearman": reg.SpearmanCorrCoef()}),
    })
    return tracker, multitask


def _with_intervals() -> lm.MetricCollection:
    """The engine's set-up: acc and f1 share one statistic, so one PooledBootstrap serves both."""
    cls = lm.classification
    collection = lm.MetricCollection({"acc": cls.MulticlassAccuracy(3), "f1": cls.MulticlassF1Score(3)})
    # what Tracking.prepare does (without importing lightning into the workers)
    collection.add_metrics({"@ci0": PooledBootstrap(collection["acc"], dict(collection.items()), NUM_BOOTSTRAPS)})
    return collection


def _worker(rank: int, world: int):
    torch.set_num_threads(1)  # two processes on a shared 2-core machine
    out = {}
    for name, metric in _bootstrappers(seed=100 + rank).items():
        for batch in _rank_batches(rank):
            metric.update(*batch)
        with CollectiveCounter() as counter:
            value = metric.compute()
        out[name] = (counter.total, dict(counter.calls), value)
        # local states are back after compute: the copies still hold this rank's data only
        assert sum(m.update_count for m in metric.metrics) <= NUM_BOOTSTRAPS * len(_rank_batches(rank))

    tracker, multitask = _tracker_and_multitask()
    for epoch in range(3):
        tracker.increment()
        for batch in regression_batches(seed=10 * epoch + rank):
            tracker.update(*batch)
    for batch in _rank_batches(rank):
        multitask.update({"a": batch[0], "b": batch[0]}, {"a": batch[1], "b": batch[1]})
    with CollectiveCounter() as counter:
        all_steps = tracker.compute_all()
    out["tracker"] = (counter.total, dict(counter.calls), all_steps)
    with CollectiveCounter() as counter:
        tasks = multitask.compute()
    out["multitask"] = (counter.total, dict(counter.calls), tasks)

    collection = _with_intervals()
    for batch in multiclass_batches(seed=rank, sizes=(9, 14) if rank == 0 else (11,)):
        collection.update(*batch)
    with CollectiveCounter() as counter:
        values = collection.compute()
    out["intervals"] = (counter.total, dict(counter.calls), values)
    return out


def _single_process_reference():
    ref = {}
    for name in ("mse", "spearman"):
        metric = _bootstrappers(seed=100)[name]
        for rank in (0, 1):
            metric.generator.manual_seed(100 + rank)  # the draws each rank made
            for batch in _rank_batches(rank):
                metric.update(*batch)
        ref[name] = metric.compute()
    tracker, multitask = _tracker_and_multitask()
    for epoch in range(3):
        tracker.increment()
        for rank in (0, 1):
            for batch in regression_batches(seed=10 * epoch + rank):
                tracker.update(*batch)
    for rank in (0, 1):
        for batch in _rank_batches(rank):
            multitask.update({"a": batch[0], "b": batch[0]}, {"a": batch[1], "b": batch[1]})
    ref["tracker"] = tracker.compute_all()
    ref["multitask"] = multitask.compute()
    collection = _with_intervals()
    shadow = next(m for m in collection.values() if isinstance(m, PooledBootstrap))
    for rank in (0, 1):
        shadow._generator = torch.Generator().manual_seed(shadow.seed + 7919 * rank)  # what each rank drew
        for batch in multiclass_batches(seed=rank, sizes=(9, 14) if rank == 0 else (11,)):
            collection.update(*batch)
    ref["intervals"] = collection.compute()
    assert list(ref["intervals"]) == ["acc", "f1", "acc@ci", "f1@ci"]
    return ref


def _close(a, b):
    if isinstance(a, dict):
        assert list(a) == list(b)
        for key in a:
            _close(a[key], b[key])
    else:
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)


def test_wrappers_sync_in_one_fused_exchange_and_match_one_process():
    results = run_distributed(_worker, timeout=180)
    reference = _single_process_reference()
    for rank_result in results:
        for name, (calls, by_name, value) in rank_result.items():
            assert calls <= CORE_BOUND, (name, by_name)
            _close(value, reference[name])
    # the 50 copies really were synced: each rank alone gives other values
    assert not torch.allclose(results[0]["mse"][2]["raw"], _rank_zero_only())


def _rank_zero_only():
    metric = _bootstrappers(seed=100)["mse"]
    for batch in _rank_batches(0):
        metric.update(*batch)
    return metric.compute()["raw"]
