"""Wrappers beyond values, side by side with torchmetrics: MinMaxMetric's forward and state_dict,
MetricTracker.plot and BootStrapper's batch values."""

from __future__ import annotations

import pytest
import torch
import torchmetrics

import lightning_metrics as lm

P1 = torch.tensor([[0.1, 0.9], [0.2, 0.8]])
P2 = torch.tensor([[0.9, 0.1], [0.2, 0.8]])
LABELS = torch.tensor([[0, 1], [0, 1]])


def _minmax_trace(lib) -> list:
    """torchmetrics' documented MinMaxMetric example, plus a second forward."""
    metric = lib.wrappers.MinMaxMetric(lib.classification.BinaryAccuracy())
    trace = [metric(P1, LABELS), metric.compute()]
    metric.update(P2, LABELS)
    trace.append(metric.compute())
    trace.append(metric(P2, LABELS))  # the batch value and the extremes including it
    return trace


def test_minmax_forward_and_compute_as_torchmetrics() -> None:
    ours, theirs = _minmax_trace(lm), _minmax_trace(torchmetrics)
    for got, expected in zip(ours, theirs):
        assert got.keys() == expected.keys()
        for key in expected:
            torch.testing.assert_close(got[key], expected[key])
    assert ours[0] == {"raw": torch.tensor(1.0), "max": torch.tensor(1.0), "min": torch.tensor(1.0)}


def test_minmax_forward_keeps_accumulating_the_wrapped_metric() -> None:
    """The documented fix: torchmetrics' wrapped metric holds only the last batch after forward."""
    ours = lm.wrappers.MinMaxMetric(lm.classification.BinaryAccuracy())
    theirs = torchmetrics.wrappers.MinMaxMetric(torchmetrics.classification.BinaryAccuracy())
    for metric in (ours, theirs):
        metric(P1, LABELS)
        metric(P2, LABELS)
    assert theirs.compute()["raw"] == 0.5  # the last batch only
    assert ours.compute()["raw"] == 0.75  # both batches, as update() would give
    assert ours.compute()["min"] == theirs.compute()["min"] == 0.5


@pytest.mark.parametrize("mode", [False, True])
def test_minmax_state_dict_keys_as_torchmetrics(mode: bool) -> None:
    ours = lm.wrappers.MinMaxMetric(lm.regression.MeanSquaredError())
    theirs = torchmetrics.wrappers.MinMaxMetric(torchmetrics.regression.MeanSquaredError())
    ours.persistent(mode)
    theirs.persistent(mode)
    expected = set(theirs.state_dict())
    got = set(ours.state_dict())
    if not mode:
        assert got == expected == set()
    else:  # ours also saves the extremes (torchmetrics loses them, its #3323); the rest are our states
        assert {"min_val", "max_val"} <= got and all(k.startswith("_base_metric.") for k in expected)


def test_tracker_plot_draws_every_step() -> None:
    pytest.importorskip("matplotlib")
    for lib in (lm, torchmetrics):
        tracker = lib.wrappers.MetricTracker(lib.regression.MeanAbsoluteError())
        for error in (3.0, 1.0, 2.0):
            tracker.increment()
            tracker.update(torch.tensor([error]), torch.tensor([0.0]))
        fig, ax = tracker.plot()
        assert fig is not None and ax is not None
    ys = [float(y) for line in ax.get_lines() for y in line.get_ydata()]
    assert sorted(ys) == [1.0, 2.0, 3.0]
    fig, ax = lm.wrappers.MetricTracker(lm.regression.MeanAbsoluteError()).plot(val=torch.tensor([1.0, 0.5]))
    assert [float(y) for y in ax.get_lines()[0].get_ydata()] == [1.0, 0.5]


def test_bootstrapper_forward_as_torchmetrics() -> None:
    """Seeded draws give torchmetrics' batch values, without autograd history as there."""
    preds = torch.randn(12, requires_grad=True)
    target = torch.randn(12)
    values = []
    for lib in (torchmetrics, lm):
        metric = lib.wrappers.BootStrapper(lib.regression.MeanSquaredError(), num_bootstraps=4)
        torch.manual_seed(7)
        values.append(metric(preds, target))
    theirs, ours = values
    assert ours.keys() == theirs.keys()
    for key in theirs:
        torch.testing.assert_close(ours[key], theirs[key])
        assert ours[key].grad_fn is None and theirs[key].grad_fn is None
