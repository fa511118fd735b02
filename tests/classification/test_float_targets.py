"""Float targets: whole-number floats (the 0.0/1.0 targets a model trained with
``BCEWithLogitsLoss`` keeps) are labels, as torchmetrics accepts them; other floats are rejected
with an error that names ``target`` and the values.

Every classification class of the registry, with and without ``validate_args``: the value with
float targets equals torchmetrics' value with the same targets as integers.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

import pytest
import torch
import torchmetrics

import lightning_metrics as lm
from lightning_metrics.utilities.exceptions import MetricInputError
from tests.reliability._registry import ENTRIES, assert_close, batches

LABEL_KINDS = ("binary", "multilabel", "multiclass", "multiclass_2d")
KEYS = sorted(k for k, e in ENTRIES.items() if e.kind in LABEL_KINDS)


def _build(key: str, lib: Any, validate_args: bool) -> Any:
    entry = ENTRIES[key]
    if entry.package == "wrappers":
        return entry.build(lib)
    kwargs = dict(entry.kwargs, validate_args=validate_args)
    return getattr(importlib.import_module(f"{lib.__name__}.{entry.package}"), entry.name)(**kwargs)


def test_every_classification_class_is_covered() -> None:
    assert len(KEYS) > 100


@pytest.mark.parametrize("validate_args", [True, False], ids=["validated", "unvalidated"])
@pytest.mark.parametrize("key", KEYS)
def test_whole_number_float_targets_are_labels(key: str, validate_args: bool) -> None:
    kind = ENTRIES[key].kind
    ours, oracle = _build(key, lm, validate_args), _build(key, torchmetrics, validate_args)
    for preds, target in batches(kind, (7, 6), seed=4):
        ours.update(preds, target.float())
        oracle.update(preds, target)  # integer targets: what the float targets stand for
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_close(ours.compute(), oracle.compute(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("key", KEYS)
def test_fractional_float_targets_are_rejected(key: str) -> None:
    kind = ENTRIES[key].kind
    metric = _build(key, lm, validate_args=True)
    preds, target = batches(kind, (7,), seed=8)[0]
    fractional = target.float()
    fractional.view(-1)[1] = 0.5
    count = metric.update_count
    with pytest.raises(MetricInputError, match=r"`target`.*whole numbers.*0\.5"):
        metric.update(preds, fractional)
    assert metric.update_count == count


@pytest.mark.parametrize(
    "name",
    ["BinaryMatthewsCorrCoef", "BinaryAccuracy", "BinaryAUROC", "BinaryCalibrationError", "BinaryHingeLoss"],
)
def test_binary_float_targets_as_torchmetrics_accepts_them(name: str) -> None:
    """Side by side with torchmetrics given the same float targets (where it accepts them)."""
    gen = torch.Generator().manual_seed(1)
    logits = torch.randn(32, generator=gen)
    target = (torch.rand(32, generator=gen) > 0.5).float()  # as for BCEWithLogitsLoss
    ours = getattr(lm.classification, name)()
    theirs = getattr(torchmetrics.classification, name)()
    ours.update(logits, target)
    theirs.update(logits, target)
    assert_close(ours.compute(), theirs.compute(), rtol=1e-5, atol=1e-6)


def test_float_targets_with_ignore_index() -> None:
    target = torch.tensor([0.0, 1.0, -1.0, 1.0, 0.0])
    preds = torch.tensor([0.2, 0.9, 0.7, 0.4, 0.6])
    ours = lm.classification.BinaryF1Score(ignore_index=-1)
    theirs = torchmetrics.classification.BinaryF1Score(ignore_index=-1)
    assert_close(ours(preds, target), theirs(preds, target.long()), rtol=1e-6, atol=0)
