"""Numerics: int64 counters that do not overflow, half-precision inputs, float64 regression moments."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch

from lightning_metrics import Metric, MetricCollection
from lightning_metrics import classification as cls
from lightning_metrics import regression as reg
from tests.reliability._registry import ENTRIES, assert_close, batches

BIG = 2**31 + 12345  # past int32


def _metrics_in(obj: Any) -> list[Metric]:
    return [m for m in obj.modules() if isinstance(m, Metric)]


def _tensor_states(obj: Any) -> dict[str, torch.Tensor]:
    out = {}
    for metric in _metrics_in(obj):
        for name in metric._defaults:
            value = getattr(metric, name)
            if isinstance(value, torch.Tensor):
                out[f"{type(metric).__name__}.{name}"] = value
    return out


@pytest.mark.parametrize("key", sorted(ENTRIES))
def test_integer_states_are_int64(key: str) -> None:
    entry = ENTRIES[key]
    metric = entry.build()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        metric.update(*batches(entry.kind, (5,), seed=0)[0])
    for name, value in _tensor_states(metric).items():
        if not value.is_floating_point() and value.dtype != torch.bool:
            assert value.dtype == torch.int64, f"{key}: state {name} is {value.dtype}"


# ------------------------------------------------------------------ counts past 2**31
def test_confusion_matrix_counts_past_int32() -> None:
    metric = cls.MulticlassConfusionMatrix(num_classes=3)
    metric.confmat = torch.tensor([[BIG, 0, 0], [0, 5, 0], [0, 0, 7]])
    metric._update_count = 1
    metric.update(torch.tensor([0, 0, 1]), torch.tensor([0, 0, 2]))
    out = metric.compute()
    assert out.dtype == torch.int64
    assert out[0, 0].item() == BIG + 2 and out[2, 1].item() == 1


def test_accuracy_from_counts_past_int32() -> None:
    metric = cls.MulticlassAccuracy(num_classes=3, average="micro")  # alone: right labels and labels
    metric.correct, metric.total = torch.tensor(3 * BIG), torch.tensor(4 * BIG)
    metric._update_count = 2
    metric.update(torch.tensor([0, 1]), torch.tensor([0, 1]))
    expected = (3 * BIG + 2) / (4 * BIG + 2)
    assert metric.compute().item() == pytest.approx(expected, rel=1e-6)
    recall = cls.MulticlassRecall(num_classes=3, average="micro")
    shared = MetricCollection({"r": recall, "m": cls.MulticlassConfusionMatrix(3)})  # one confusion matrix
    shared["m"].confmat = torch.tensor([[BIG, BIG, 0], [0, BIG, 0], [0, 0, BIG]])
    shared["m"]._update_count = 1
    shared.update(torch.tensor([0, 1]), torch.tensor([0, 1]))
    assert shared.compute()["r"].item() == pytest.approx(expected, rel=1e-6)


def test_binary_counts_past_int32() -> None:
    metric = cls.BinaryF1Score()
    metric.counts = torch.tensor([[BIG, 3], [5, BIG]])  # [[tn, fp], [fn, tp]]
    metric._update_count = 1
    metric.update(torch.tensor([1, 1, 0]), torch.tensor([1, 0, 0]))
    tp, fp, fn = BIG + 1, 3 + 1, 5
    expected = 2 * tp / (2 * tp + fp + fn)
    assert metric.counts.dtype == torch.int64 and metric.counts[1, 1].item() == BIG + 1
    assert metric.compute().item() == pytest.approx(expected, rel=1e-6)


def test_multilabel_and_binned_curve_counts_past_int32() -> None:
    stats = cls.MultilabelStatScores(num_labels=2, average=None)
    stats.counts = torch.full((2, 2, 2), BIG)
    stats._update_count = 1
    stats.update(torch.tensor([[1, 0]]), torch.tensor([[1, 1]]))
    out = stats.compute()  # (L, 5): tp, fp, tn, fn, support
    assert out.dtype == torch.int64 and out[0, 0].item() == BIG + 1 and out[1, 3].item() == BIG + 1

    roc = cls.BinaryROC(thresholds=3)
    roc.confmat = roc.confmat + BIG
    roc._update_count = 1
    roc.update(torch.tensor([0.9, 0.1]), torch.tensor([1, 0]))
    fpr, tpr, _ = roc.compute()
    assert torch.isfinite(fpr).all() and torch.isfinite(tpr).all()
    assert ((fpr >= 0) & (fpr <= 1)).all() and ((tpr >= 0) & (tpr <= 1)).all()


def test_regression_count_past_int32() -> None:
    metric = reg.MeanAbsoluteError()
    metric.total = torch.tensor(float(BIG), dtype=torch.float64)
    metric.count = torch.tensor(BIG)
    metric._update_count = 1
    metric.update(torch.tensor([3.0]), torch.tensor([1.0]))
    assert metric.count.dtype == torch.int64 and metric.count.item() == BIG + 1
    assert metric.compute().item() == pytest.approx((BIG + 2) / (BIG + 1), rel=1e-7)


# ------------------------------------------------------------------ half-precision inputs
HALF_KINDS = (
    "binary",
    "multiclass",
    "multiclass_2d",
    "multilabel",
    "real",
    "real2",
    "positive",
    "prob",
    "ensemble",
    "rows",
)
HALF_KEYS = sorted(k for k, e in ENTRIES.items() if e.package in ("classification", "regression"))
TOLERANCE = {torch.float16: (2e-3, 1e-3), torch.bfloat16: (1.6e-2, 8e-3)}


def _cast(batch: tuple, dtype: torch.dtype) -> tuple:
    return tuple(t.to(dtype) if t.is_floating_point() else t for t in batch)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("key", HALF_KEYS)
def test_half_precision_inputs_match_float32(key: str, dtype: torch.dtype) -> None:
    """The same values given in half precision or in float32 give the same result (input tolerance)."""
    entry = ENTRIES[key]
    data = [_cast(b, dtype) for b in batches(entry.kind, (9, 7), seed=5)]
    half, single = entry.build(), entry.build()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for batch in data:
            half.update(*batch)
            single.update(*_cast(batch, torch.float32))
        rtol, atol = TOLERANCE[dtype]
        assert_close(half.compute(), single.compute(), rtol=rtol, atol=atol)


def test_half_precision_logits_are_not_saturated_differently() -> None:
    """Logits that float16 can hold exactly threshold the same way as in float32."""
    logits = torch.tensor([-8.0, -0.5, 0.0, 0.25, 3.0, 9.0], dtype=torch.float16)
    target = torch.tensor([0, 0, 1, 1, 1, 1])
    for dtype in (torch.float16, torch.bfloat16, torch.float32):
        metric = cls.BinaryAccuracy()
        metric.update(logits.to(dtype), target)
        assert metric.compute().item() == pytest.approx(5 / 6)  # sigmoid(0) = 0.5 is not above 0.5


# ------------------------------------------------------------------ float64 moments
@pytest.mark.parametrize("key", sorted(k for k, e in ENTRIES.items() if e.package == "regression"))
def test_regression_accumulators_are_float64(key: str) -> None:
    entry = ENTRIES[key]
    metric = entry.build()
    metric.update(*batches(entry.kind, (5,), seed=0)[0])
    for name, value in _tensor_states(metric).items():
        if value.is_floating_point():
            assert value.dtype == torch.float64, f"{key}: state {name} is {value.dtype}"


def test_moments_stay_accurate_far_from_zero() -> None:
    """float32 inputs around 1e4 in 50 batches: R2/Pearson/explained variance match a float64 oracle."""
    gen = torch.Generator().manual_seed(0)
    target = 1e4 + torch.randn(50_000, generator=gen, dtype=torch.float64)
    preds = target + 0.3 * torch.randn(50_000, generator=gen, dtype=torch.float64)
    p32, t32 = preds.float(), target.float()
    metrics = {"r2": reg.R2Score(), "pearson": reg.PearsonCorrCoef(), "ev": reg.ExplainedVariance()}
    for p, t in zip(p32.split(1000), t32.split(1000)):
        for m in metrics.values():
            m.update(p, t)
    x, y = p32.double().numpy(), t32.double().numpy()
    oracle = {
        "r2": 1 - ((y - x) ** 2).sum() / ((y - y.mean()) ** 2).sum(),
        "pearson": np.corrcoef(x, y)[0, 1],
        "ev": 1 - np.var(y - x) / np.var(y),
    }
    for name, m in metrics.items():
        assert m.moments.dtype == torch.float64
        assert m.compute().item() == pytest.approx(oracle[name], rel=1e-5), name
