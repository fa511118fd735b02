"""The check the bad-input tests of every domain share: a rejected batch names what is wrong and
leaves the metric exactly as it was.

:func:`assert_rejected_untouched` feeds a good batch, the bad one (through ``update`` and/or
``forward``), then a second good batch, and compares ``compute()`` bit for bit with a fresh metric
fed only the two good batches; the state and the update count are also compared right after the
rejection. So a half-applied batch, a bumped update count or a poisoned cache all fail.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any, Optional, Union

import pytest

from lightning_metrics import MetricCollection
from tests.reliability._registry import assert_identical

Errors = Union[type[BaseException], tuple[type[BaseException], ...]]


def update_count(metric: Any) -> Any:
    """The update count of a metric, or of each member of a collection."""
    if isinstance(metric, MetricCollection):
        return [m.update_count for m in metric.values()]
    return getattr(metric, "update_count", None)


def assert_raises_naming(
    call: Callable[[], Any],
    needles: Sequence[str],
    errors: Errors = (ValueError, TypeError),
    match: Optional[str] = None,
) -> None:
    """``call()`` raises one of ``errors`` whose message matches ``match`` and contains every needle
    (the argument, the value or the shape)."""
    with pytest.raises(errors, match=match) as info:
        call()
    for needle in needles:
        assert needle in str(info.value), f"{needle!r} not in {info.value}"


def assert_rejected_untouched(
    build: Callable[[], Any],
    good: Sequence[tuple],
    bad: tuple,
    errors: Errors = (ValueError, TypeError),
    match: Optional[str] = None,
    needles: Sequence[str] = (),
    modes: Sequence[str] = ("update", "forward"),
) -> None:
    """``build()`` rejects ``bad`` after ``good[0]``, through each of ``modes``, with one of ``errors``
    (whose message matches ``match`` and contains every needle), and is left untouched."""
    metric = build()
    metric.update(*good[0])
    state, count = copy.deepcopy(metric.metric_state), update_count(metric)
    for mode in modes:
        feed = metric.update if mode == "update" else metric
        assert_raises_naming(lambda feed=feed: feed(*bad), needles, errors, match)
    assert update_count(metric) == count, "the rejected batch was counted"
    assert_identical(metric.metric_state, state)
    metric.update(*good[1])
    fresh = build()
    for batch in good[:2]:
        fresh.update(*batch)
    assert_identical(metric.compute(), fresh.compute())
