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
    if isinstance(value, (tuple, list)):  # detection's batches are lists of dicts
        return type(value)(_requiring_grad(v) for v in value)
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


def _takes_floats(kind: str) -> bool:
    return any(t.is_floating_point() for t in _tensors(batches(kind, (2,), seed=0)[0]))


# the classes that are not differentiable and take floating inputs (labels alone carry no gradient)
NOT_DIFFERENTIABLE = sorted(
    k for k, e in ENTRIES.items() if getattr(e.build(), "is_differentiable", None) is False and _takes_floats(e.kind)
)


def test_the_table_holds_the_non_differentiable_metrics() -> None:
    assert len(NOT_DIFFERENTIABLE) > 60
    assert {"BinaryROC", "MulticlassCalibrationError", "BinaryPrecisionAtFixedRecall"} <= set(NOT_DIFFERENTIABLE)


# Containers whose ``forward`` returns each inner metric's batch value, differentiable where the
# inner metric is, as in torchmetrics; their ``compute`` is detached like every other.
CONTAINERS = {"MultioutputWrapper", "MultitaskWrapper"}


@pytest.mark.parametrize("key", NOT_DIFFERENTIABLE)
def test_non_differentiable_results_carry_no_autograd_history(key: str) -> None:
    entry = ENTRIES[key]
    try:
        oracle = entry.build(torchmetrics)
    except (ImportError, AttributeError, RuntimeError, TypeError, ValueError):
        oracle = None  # an argument or a class torchmetrics lacks, or a package it needs here: ours alone
    if oracle is not None:
        _, oracle_value = _run(oracle, entry.kind)
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


# ------------------------------------------------------------------------------ warnings
def _tracker_best(L: Any, base: Any, maximize: Any, batch: tuple) -> Any:
    tracker = L.wrappers.MetricTracker(base, maximize=maximize)
    for _ in range(2):
        tracker.increment()
        tracker.update(*batch)
    return tracker.best_metric(return_step=True)


_ZEROS = torch.zeros(6, dtype=torch.long)
_ONES = torch.ones(6, dtype=torch.long)
_SCORES = torch.linspace(0.1, 0.9, 6)
_MC_SCORES = torch.tensor([[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.6, 0.3, 0.1], [0.1, 0.8, 0.1]])
_MC_TARGET = torch.tensor([0, 1, 0, 1])  # class 2 never occurs

# id -> (the call on a library, a pattern of torchmetrics' warning: both must warn with it)
WARNINGS: dict[str, tuple[Any, str]] = {
    "average precision without positives": (
        lambda L: L.functional.classification.binary_average_precision(_SCORES, _ZEROS),
        r"No positive samples found in target, recall is undefined\. Setting recall",
    ),
    "precision-recall curve without positives": (
        lambda L: L.classification.BinaryPrecisionRecallCurve()(_SCORES, _ZEROS),
        r"No positive samples found in target, recall is undefined",
    ),
    "multiclass average precision with an absent class": (
        lambda L: L.classification.MulticlassAveragePrecision(num_classes=3)(_MC_SCORES, _MC_TARGET),
        r"Average precision score for one or more classes was `nan`\. Ignoring these classes in macro-average",
    ),
    "ROC without negatives": (
        lambda L: L.classification.BinaryROC()(_SCORES, _ONES),
        r"No negative samples in targets, false positive value should be meaningless",
    ),
    "AUROC without positives": (
        lambda L: L.classification.BinaryAUROC()(_SCORES, _ZEROS),
        r"No positive samples in targets, true positive value should be meaningless",
    ),
    "pearson on inputs below the float32 resolution": (
        lambda L: L.functional.regression.pearson_corrcoef(1e-32 * torch.randn(50), 1e-32 * torch.randn(50)),
        r"The variance of predictions or target is close to zero",
    ),
    "pearson on float16 inputs below its resolution": (
        lambda L: L.functional.regression.pearson_corrcoef(
            1e-4 * torch.randn(50).half(), 1e-4 * torch.randn(50).half()
        ),
        r"The variance of predictions or target is close to zero",
    ),
    "pearson with a constant target": (
        lambda L: L.regression.PearsonCorrCoef()(torch.randn(6), torch.ones(6)),
        r"The variance of predictions or target is close to zero",
    ),
    "spearman keeps every sample": (
        lambda L: L.regression.SpearmanCorrCoef(),
        r"Metric `SpearmanCorrcoef` will save all targets and predictions in the buffer",
    ),
    "adjusted r2 with too few samples": (
        lambda L: L.regression.R2Score(adjusted=5)(torch.randn(4), torch.randn(4)),
        r"More independent regressions than data points in adjusted r2 score",
    ),
    "mean metric drops NaN": (
        lambda L: L.aggregation.MeanMetric(nan_strategy="warn")(torch.tensor([1.0, float("nan")])),
        r"Encountered `nan` values in tensor",
    ),
    "compute before update": (
        lambda L: L.aggregation.SumMetric().compute(),
        r"The ``compute`` method of metric SumMetric was called before the ``update`` method",
    ),
    "tracker: no best value of a confusion matrix": (
        lambda L: _tracker_best(
            L,
            L.MetricCollection([L.classification.MulticlassConfusionMatrix(3), L.classification.MulticlassAccuracy(3)]),
            [True, True],
            (torch.tensor([0, 1, 2, 1]), torch.tensor([0, 1, 1, 1])),
        ),
        r"Encountered the following error when trying to get the best metric for metric MulticlassConfusionMatrix",
    ),
    "tracker: no best value of a multi-output metric": (
        lambda L: _tracker_best(
            L, L.wrappers.MultioutputWrapper(L.regression.MeanSquaredError(), num_outputs=2), False,
            (torch.randn(5, 2), torch.randn(5, 2)),
        ),
        r"Encountered the following error when trying to get the best metric",
    ),
    "normalized confusion matrix with an empty row": (
        lambda L: L.classification.MulticlassConfusionMatrix(num_classes=3, normalize="true")(
            torch.tensor([0, 1, 0]), torch.tensor([0, 1, 1])
        ),
        r"3 NaN values found in confusion matrix have been replaced with zeros",
    ),
}


@pytest.mark.parametrize("case", sorted(WARNINGS))
def test_the_warnings_torchmetrics_gives(case: str) -> None:
    import lightning_metrics as lm

    call, pattern = WARNINGS[case]
    for lib in (torchmetrics, lm):
        torch.manual_seed(0)
        with pytest.warns(UserWarning, match=pattern):
            call(lib)


# ------------------------------------------------------------------------------ base class
@pytest.mark.parametrize("key", ["CatMetric", "BinaryAUROC", "SpearmanCorrCoef", "MulticlassAccuracy[samplewise]"])
def test_reset_empties_list_states_in_place(key: str) -> None:
    entry = ENTRIES[key]
    for lib in (torchmetrics, None):
        metric = entry.build(lib)
        for batch in batches(entry.kind, (5, 4), seed=1):
            metric.update(*batch)
        held = {name: getattr(metric, name) for name, d in metric._defaults.items() if isinstance(d, list)}
        # the curves' ``weights`` stay empty without ``sample_weight`` (issue 39)
        assert held and all(len(v) == (0 if name == "weights" else 2) for name, v in held.items())
        metric.reset()
        for name, value in held.items():
            assert value == [] and getattr(metric, name) is value, f"{key}.{name}"


def test_reset_of_a_group_member_leaves_the_shared_lists_alone() -> None:
    import lightning_metrics as lm

    metrics = lm.MetricCollection({"a": lm.classification.BinaryAUROC(), "b": lm.classification.BinaryAveragePrecision()})
    preds, target = torch.rand(6), torch.randint(0, 2, (6,))
    metrics.update(preds, target)
    metrics["b"].reset()  # b reads a's lists: emptying them would lose a's samples
    assert len(metrics["a"].preds) == 1
    metrics.reset()
    assert metrics["a"].preds == [] and metrics["b"].preds == []
