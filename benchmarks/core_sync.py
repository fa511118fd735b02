"""Synced compute of a collection at 2 gloo ranks: collective calls and wall time, ours vs torchmetrics.

Run: ``python benchmarks/core_sync.py``. Prints one row per collection size with the number of
collective calls of one ``compute()`` and its time relative to an unsynced compute.
"""

from __future__ import annotations

import os
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tests._distributed import CollectiveCounter, free_port  # noqa: E402

SIZES = (1, 8, 32)
REPEATS = 20


def _collection(pkg, n):
    agg = pkg.aggregation
    kinds = [agg.MeanMetric, agg.SumMetric, agg.MaxMetric, agg.MinMetric, agg.CatMetric]
    return pkg.MetricCollection({f"m{i:02d}": kinds[i % len(kinds)]() for i in range(n)})


def _measure(pkg, n, rank):
    mc = _collection(pkg, n)
    g = torch.Generator().manual_seed(rank)
    for _ in range(4):
        mc.update(torch.randn(64, generator=g))
    with CollectiveCounter() as counter:
        mc.compute()
    timings = []
    for synced in (True, False):
        for m in mc.values():
            m.sync_on_compute = synced
            m._to_sync = synced
        start = time.perf_counter()
        for _ in range(REPEATS):
            for m in mc.values():
                m._computed = None
            mc.compute()
        timings.append((time.perf_counter() - start) / REPEATS)
    return counter.total, timings[0], timings[1]


def _worker(rank, world, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    import torchmetrics

    import lightning_metrics

    rows = []
    for n in SIZES:
        ours = _measure(lightning_metrics, n, rank)
        theirs = _measure(torchmetrics, n, rank)
        rows.append((n, ours, theirs))
    if rank == 0:
        print(f"{'metrics':>7} | {'calls ours':>10} {'calls tm':>8} | {'synced ms ours':>14} {'tm':>8} {'tm/ours':>7}"
              f" | {'synced/unsynced ours':>20} {'tm':>6}")
        for n, (c1, s1, u1), (c2, s2, u2) in rows:
            print(f"{n:>7} | {c1:>10} {c2:>8} | {s1 * 1e3:>14.2f} {s2 * 1e3:>8.2f} {s2 / s1:>7.1f}"
                  f" | {s1 / u1:>20.1f} {s2 / u2:>6.1f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(_worker, args=(2, free_port()), nprocs=2, join=True)
