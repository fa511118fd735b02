"""Aggregation metrics against torchmetrics on the same inputs (values, dtypes, shapes, warnings)."""

from __future__ import annotations

import math
import sys
import warnings

import pytest
import torch
import torchmetrics.aggregation as tm_agg
from hypothesis import given, settings
from hypothesis import strategies as st

import lightning_metrics.aggregation as lm_agg

NAMES = ["MeanMetric", "SumMetric", "MaxMetric", "MinMetric", "CatMetric"]
STRATEGIES = ["error", "warn", "ignore", "disable", 0.5]


def _batches(with_nan: bool):
    g = torch.Generator().manual_seed(7)
    out = [torch.randn(5, generator=g), torch.randn(6, generator=g), torch.tensor(2.5), 1.5]
    if with_nan:
        out[1][1] = float("nan")
    return out


def _run(metric, batches, forward: bool):
    values = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for b in batches:
            values.append(metric(b) if forward else metric.update(b))
        return values, metric.compute()


def _assert_same(a, b):
    if isinstance(b, list):
        assert a == b
        return
    assert a.shape == b.shape and a.dtype == b.dtype, (a, b)
    assert torch.allclose(a, b, equal_nan=True, rtol=1e-6)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("with_nan", [False, True])
@pytest.mark.parametrize("forward", [False, True])
def test_parity_with_torchmetrics(name, strategy, with_nan, forward):
    ours, theirs = getattr(lm_agg, name)(nan_strategy=strategy), getattr(tm_agg, name)(nan_strategy=strategy)
    if with_nan and strategy == "error":
        with pytest.raises(RuntimeError, match="nan|NaN"):
            _run(ours, _batches(True), forward)
        with pytest.raises(RuntimeError):
            _run(theirs, _batches(True), forward)
        return
    ours_steps, ours_final = _run(ours, _batches(with_nan), forward)
    ref_steps, ref_final = _run(theirs, _batches(with_nan), forward)
    _assert_same(ours_final, ref_final)
    for a, b in zip(ours_steps, ref_steps):
        if b is not None:
            _assert_same(a, b)


def test_nan_error_leaves_state_unchanged():
    metric = lm_agg.MeanMetric(nan_strategy="error")
    metric.update(torch.tensor([1.0, 3.0]))
    with pytest.raises(RuntimeError, match="value"):
        metric.update(torch.tensor([float("nan")]))
    assert metric.compute() == 2.0


def test_warn_strategy_warns():
    with pytest.warns(UserWarning, match="nan"):
        lm_agg.SumMetric().update(torch.tensor([float("nan"), 1.0]))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("how", ["update", "forward", "collection"])
def test_nan_warning_points_at_the_callers_line(name, how):
    """However deep in update, forward or a collection the NaN is found, the warning names the user's line."""
    from lightning_metrics import MetricCollection

    metric = getattr(lm_agg, name)()
    call = {"update": metric.update, "forward": metric, "collection": MetricCollection([metric])}[how]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        call(torch.tensor([1.0, float("nan")]))
    assert caught, "no warning"
    assert {(w.filename, w.lineno) for w in caught} == {(__file__, line)}


def test_mean_with_weights_matches_torchmetrics():
    values, weights = torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([1.0, 3.0])
    ours, theirs = lm_agg.MeanMetric(), tm_agg.MeanMetric()
    for m in (ours, theirs):
        m.update(values, weights)
        m.update(5.0, 2.0)
    _assert_same(ours.compute(), theirs.compute())
    with pytest.raises(ValueError, match="weight"):
        ours.update(values, torch.ones(3))


def test_bad_nan_strategy_is_named():
    with pytest.raises(ValueError, match="nan_strategy.*'sometimes'"):
        lm_agg.SumMetric(nan_strategy="sometimes")


@pytest.mark.parametrize("name", ["RunningMean", "RunningSum"])
@pytest.mark.parametrize("window", [1, 3, 5])
def test_running_matches_torchmetrics(name, window):
    ours, theirs = getattr(lm_agg, name)(window=window), getattr(tm_agg, name)(window=window)
    g = torch.Generator().manual_seed(window)
    for step in range(8):
        batch = torch.randn(4, generator=g)
        if step % 2:
            _assert_same(ours(batch), theirs(batch))
        else:
            ours.update(batch)
            theirs.update(batch)
        _assert_same(ours.compute(), theirs.compute())


def test_running_rejects_bad_window():
    with pytest.raises(ValueError, match="window"):
        lm_agg.RunningMean(window=0)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    values=st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=1, max_size=40),
    cuts=st.lists(st.integers(0, 40), max_size=5),
)
def test_streaming_equals_one_batch(values, cuts):
    data = torch.tensor(values, dtype=torch.float64)
    bounds = sorted({0, len(values), *[c for c in cuts if c <= len(values)]})
    for name in NAMES:
        whole, streamed = getattr(lm_agg, name)(), getattr(lm_agg, name)()
        whole.set_dtype(torch.float64)
        streamed.set_dtype(torch.float64)
        whole.update(data)
        for lo, hi in zip(bounds, bounds[1:]):
            streamed.update(data[lo:hi])
        a, b = whole.compute(), streamed.compute()
        assert torch.allclose(a.double(), b.double(), rtol=1e-9, atol=1e-9) or (math.isnan(a) and math.isnan(b))
