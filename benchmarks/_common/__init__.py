"""What several benchmarks share: the 8 count metrics of one multiclass input, the median time of
one call, and interleaved timing of several candidates.

A script imports it as ``from _common import ...`` (Python puts the script's own folder,
``benchmarks/``, on ``sys.path``). It is a package, not a ``benchmarks/*.py`` file, so ``make bench``
does not run it as a benchmark.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

# key in the collection -> class name, in lightning_metrics.classification and torchmetrics.classification
COUNT_METRICS = {
    "acc": "MulticlassAccuracy",
    "precision": "MulticlassPrecision",
    "recall": "MulticlassRecall",
    "f1": "MulticlassF1Score",
    "mcc": "MulticlassMatthewsCorrCoef",
    "jaccard": "MulticlassJaccardIndex",
    "kappa": "MulticlassCohenKappa",
    "confmat": "MulticlassConfusionMatrix",
}


def eight(module: Any, num_classes: int, **kwargs: Any) -> dict[str, Any]:
    """The 8 metrics of :data:`COUNT_METRICS` from ``module`` (ours or torchmetrics' classification),
    each built with ``num_classes`` and ``kwargs``: all read one confusion matrix."""
    return {key: getattr(module, name)(num_classes=num_classes, **kwargs) for key, name in COUNT_METRICS.items()}


def median_seconds(call: Callable[[], object], repeats: int, warmup: int) -> float:
    """The median wall time of one ``call()`` over ``repeats`` timed calls, after ``warmup`` untimed ones."""
    for _ in range(warmup):
        call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def per_call_us(call: Callable[[], object], repeats: int) -> float:
    """Median microseconds of one call (5 warm-up calls)."""
    return median_seconds(call, repeats, warmup=5) * 1e6


def per_call_ms(call: Callable[[], object], repeats: int) -> float:
    """Median milliseconds of one call (2 warm-up calls)."""
    return median_seconds(call, repeats, warmup=2) * 1e3


def wall_us(call: Callable[[], object]) -> float:
    """Wall microseconds of one ``call()``."""
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1e6


def cpu_us(call: Callable[[], object]) -> float:
    """CPU microseconds of this thread in one ``call()`` (time other processes take is not counted)."""
    start = time.thread_time()
    call()
    return (time.thread_time() - start) * 1e6


def interleaved(
    candidates: dict[str, Callable[[], object]],
    repeats: int,
    warmup: int = 3,
    clock_us: Callable[[Callable[[], object]], float] = wall_us,
) -> dict[str, float]:
    """Median microseconds per call of each candidate, the candidates taking turns (so the drifts of
    a shared machine fall on all of them alike); ``clock_us`` times one call."""
    for call in candidates.values():
        for _ in range(warmup):
            call()
    times: dict[str, list[float]] = {k: [] for k in candidates}
    for _ in range(repeats):
        for name, call in candidates.items():
            times[name].append(clock_us(call))
    return {k: statistics.median(v) for k, v in times.items()}
