"""Behaviour parity with torchmetrics beyond values, for every public class of the registry.

- a metric that is not differentiable returns results without autograd history, whatever the
  inputs required (torchmetrics' results are detached there; a user calls ``.numpy()`` on them);
- ``distributed_available_fn`` is asked once per ``compute``, as in torchmetrics.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import torch
import torchmetrics
from torch import Tensor

from tests.reliability._registry import ENTRIES, batches


def _requiring_grad(value: Any) -> Any:
    if isinstance(value, Tensor) and value.is_floating_point():
        return value.clone().requires_grad_(True)
    if isinstance(value, dict):
        return {k: _requiring_grad(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(_requiring_grad(v) for v in value)
    return value


def _tensors(value: Any) -> list[Tensor]:
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors(v)]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    return []


def _run(metric: Any, kind: str) -> tuple[Any, Any]:
    first, second = batches(kind, (8, 9), seed=11)
    assert any(t.requires_grad for t in _tensors(_requiring_grad(first))), kind
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        batch_value = metric(*_requiring_grad(first))
        metric.update(*_requiring_grad(second))
        return batch_value, metric.compute()


NOT_DIFFERENTIABLE = sorted(k for k, e in ENTRIES.items() if getattr(e.build(), "is_differentiable", None) is False)


def test_the_table_holds_the_non_differentiable_metrics() -> None:
    assert len(NOT_DIFFERENTIABLE) > 60
    assert {"BinaryROC", "MulticlassCalibrationError", "BinaryPrecisionAtFixedRecall"} <= set(NOT_DIFFERENTIABLE)


# Containers whose ``forward`` returns each inner metric's batch value, differentiable where the
# inner metric is, as in torchmetrics; their ``compute`` is detached like every other.
CONTAINERS = {"MultioutputWrapper", "MultitaskWrapper"}


@pytest.mark.parametrize("key", NOT_DIFFERENTIABLE)
def test_non_differentiable_results_carry_no_autograd_history(key: str) -> None:
    entry = ENTRIES[key]
    _, oracle_value = _run(entry.build(torchmetrics), entry.kind)
    assert all(t.grad_fn is None for t in _tensors(oracle_value)), f"{key}: torchmetrics' compute has history"
    batch_value, value = _run(entry.build(), entry.kind)
    checked = _tensors(value) + ([] if key in CONTAINERS else _tensors(batch_value))
    assert checked
    for tensor in checked:
        assert tensor.grad_fn is None and not tensor.requires_grad, f"{key}: {tensor}"


@pytest.mark.parametrize("key", ["MeanSquaredError", "KLDivergence", "PearsonCorrCoef", "SumMetric"])
def test_differentiable_forward_keeps_autograd_history(key: str) -> None:
    """Only non-differentiable metrics detach: the batch value of the others still backpropagates."""
    entry = ENTRIES[key]
    metric = entry.build()
    if metric.is_differentiable is False:
        pytest.skip("not differentiable")
    first = _requiring_grad(batches(entry.kind, (8,), seed=5)[0])
    value = metric(*first)
    assert value.grad_fn is not None
    value.sum().backward()
    assert first[0].grad is not None


@pytest.mark.parametrize("key", ["BinaryAccuracy", "MeanSquaredError", "MeanMetric", "MulticlassAUROC"])
def test_distributed_available_fn_is_asked_once_per_compute(key: str) -> None:
    calls = {"torchmetrics": 0, "ours": 0}
    entry = ENTRIES[key]
    for lib, name in ((torchmetrics, "torchmetrics"), (None, "ours")):

        def available(name: str = name) -> bool:
            calls[name] += 1
            return False

        metric = entry.build(lib)
        metric.distributed_available_fn = available
        for batch in batches(entry.kind, (6, 4), seed=2):
            metric.update(*batch)
        metric.compute()
    assert calls["ours"] == calls["torchmetrics"] == 1
