"""Retrieval metrics at scale: lightning_metrics vs torchmetrics, side by side in one process.

Run: ``python benchmarks/retrieval.py [--sizes 8000x40 100000x20] [--repeats 5] [--tm-repeats 1]
[--device cpu] [--clock cpu] [--threads 1]``.

For each size (queries x documents per query) and document order, both libraries get the same
batches (512 queries each; graded targets 0..3, about a third of them relevant), then ``compute``
is timed (the compute caches are cleared before each timing): the normalized DCG alone, and a
collection of MAP, MRR, NDCG, precision@10, recall@10 and hit rate@10. The document orders:

- ``grouped``: each query's documents together, ids ascending (a recommender's evaluation loop
  over users); our ranking skips its id sort then;
- ``shuffled``: documents in random order across batches, sparse random int64 ids.

Prints the median compute time of ``repeats`` runs (``tm-repeats`` for torchmetrics, which is
slow), the ratio torchmetrics / ours, and checks that both return the same values. On a shared,
oversubscribed machine wall time mostly measures the neighbours: ``--clock cpu`` times the CPU
time of this process instead (with ``--threads 1`` that is one core's work, on both sides).
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from typing import Any, Callable

import torch
import torchmetrics
import torchmetrics.retrieval as tmr

import lightning_metrics as lm
import lightning_metrics.retrieval as lmr

BATCH_QUERIES = 512


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


CLOCK: Callable[[], float] = time.perf_counter


def _median_time(fn: Callable[[], Any], repeats: int, device: torch.device) -> float:
    times = []
    for _ in range(repeats):
        _sync(device)
        start = CLOCK()
        fn()
        _sync(device)
        times.append(CLOCK() - start)
    return statistics.median(times)


def make_batches(queries: int, docs: int, order: str, device: torch.device) -> list[tuple]:
    g = torch.Generator().manual_seed(queries * 31 + docs)
    n = queries * docs
    grades = torch.randint(0, 4, (n,), generator=g) * (torch.rand(n, generator=g) < 0.35)
    preds = torch.rand(n, generator=g) + 0.3 * grades  # informative scores, ties unlikely
    if order == "grouped":
        indexes = torch.arange(queries).repeat_interleave(docs)
    else:
        ids = torch.randint(-(2**62), 2**62, (queries,), generator=g)
        indexes = ids.repeat_interleave(docs)
        perm = torch.randperm(n, generator=g)
        preds, grades, indexes = preds[perm], grades[perm], indexes[perm]
    step = BATCH_QUERIES * docs
    return [
        (preds[i : i + step].to(device), grades[i : i + step].to(device), indexes[i : i + step].to(device))
        for i in range(0, n, step)
    ]


def _ndcg(lib: Any) -> Any:
    return lib.RetrievalNormalizedDCG()


def _collection(lib: Any, root: Any) -> Any:
    return root.MetricCollection(
        {
            "map": lib.RetrievalMAP(),
            "mrr": lib.RetrievalMRR(),
            "ndcg": lib.RetrievalNormalizedDCG(),
            "precision@10": lib.RetrievalPrecision(top_k=10),
            "recall@10": lib.RetrievalRecall(top_k=10),
            "hit_rate@10": lib.RetrievalHitRate(top_k=10),
        }
    )


def _binary(batches: list[tuple]) -> list[tuple]:
    return [(p, (t > 0).long(), i) for p, t, i in batches]


def _clear_caches(metric: Any) -> None:
    for module in metric.modules():
        if hasattr(module, "_computed"):
            module._computed = None


def time_compute(metric: Any, batches: list[tuple], repeats: int, device: torch.device) -> tuple[float, Any]:
    metric = metric.to(device)
    for batch in batches:
        metric.update(*batch)

    values: list = []

    def run() -> None:
        _clear_caches(metric)
        values.append(metric.compute())

    if repeats > 1:
        run()  # warm-up (a single timed run is torchmetrics' at scale: tens of seconds, no warm-up needed)
    return _median_time(run, repeats, device), values[-1]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return all(_same(a[k], b[k]) for k in a)
    return bool(torch.allclose(a.double().cpu(), b.double().cpu(), rtol=1e-5, atol=1e-6))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", nargs="+", default=["8000x40", "100000x20"])
    parser.add_argument("--orders", nargs="+", default=["grouped", "shuffled"])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--tm-repeats", type=int, default=1)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    parser.add_argument("--threads", type=int, default=None, help="torch intra-op threads (default: torch's)")
    args = parser.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    warnings.simplefilter("ignore")
    print(
        f"torch {torch.__version__}, torchmetrics {torchmetrics.__version__}, device {device}, "
        f"{torch.get_num_threads()} threads; compute time ({args.clock} clock), "
        f"median of {args.repeats} (ours) / "
        f"{args.tm_repeats} (torchmetrics)"
    )
    header = (
        f"{'size':>16s} {'order':>9s} {'case':>22s} {'ours':>10s} {'torchmetrics':>13s} {'tm/ours':>8s}  same"
    )
    print(header)
    print("-" * len(header))
    for size in args.sizes:
        queries, docs = (int(x) for x in size.split("x"))
        for order in args.orders:
            graded = make_batches(queries, docs, order, device)
            cases = [
                ("NDCG", lambda lib: _ndcg(lib), graded),
                (
                    "collection of 6",
                    lambda lib: _collection(lib, lm if lib is lmr else torchmetrics),
                    _binary(graded),
                ),
            ]
            for case, build, data in cases:
                ours, ours_value = time_compute(build(lmr), data, args.repeats, device)
                theirs, their_value = time_compute(build(tmr), data, args.tm_repeats, device)
                same = _same(ours_value, their_value)
                print(
                    f"{queries:>7,d} x {docs:<6d} {order:>9s} {case:>22s} {ours * 1e3:>8.1f}ms "
                    f"{theirs * 1e3:>11.1f}ms {theirs / ours:>7.1f}x  {'yes' if same else 'NO'}"
                )


if __name__ == "__main__":
    main()
