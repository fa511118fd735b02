"""Every public metric survives state_dict/load_state_dict, pickle, deepcopy and clone.

"Survives" means: the copy computes exactly what the original computes, and keeps doing so
after both receive one more batch (so the states travelled, not just a cached value). The
state dict goes through ``torch.save`` and ``torch.load(weights_only=True)``: loading the
package's own state never needs arbitrary unpickling.
"""

from __future__ import annotations

import copy
import io
import pickle
import warnings
from typing import Any, Callable

import pytest
import torch

from lightning_metrics import Metric, MetricCollection
from lightning_metrics import classification as cls
from lightning_metrics import regression as reg
from tests.reliability._registry import ENTRIES, EXCLUDED, assert_identical, batches, public_classes

METHODS = ("state_dict", "pickle", "deepcopy", "clone")


def test_every_public_class_has_an_entry() -> None:
    covered = {f"{e.package}.{e.name}" for e in ENTRIES.values()}
    missing = [name for name in public_classes() if name not in covered and name not in EXCLUDED]
    assert not missing, f"public classes without an entry in tests/reliability/_registry.py: {missing}"


def _set_persistent(obj: Any) -> None:
    if hasattr(obj, "persistent"):
        obj.persistent(True)
    else:  # MetricTracker is a ModuleList of metrics
        for module in obj.modules():
            if isinstance(module, Metric):
                module.persistent(True)


def _through_state_dict(metric: Any, build: Callable[[], Any]) -> Any:
    _set_persistent(metric)
    buffer = io.BytesIO()
    torch.save(metric.state_dict(), buffer)
    buffer.seek(0)
    loaded = torch.load(buffer, weights_only=True)
    fresh = build()
    _set_persistent(fresh)
    fresh.load_state_dict(loaded)
    return fresh


def _copy(metric: Any, method: str, build: Callable[[], Any]) -> Any:
    if method == "state_dict":
        return _through_state_dict(metric, build)
    if method == "pickle":
        return pickle.loads(pickle.dumps(metric))
    if method == "deepcopy":
        return copy.deepcopy(metric)
    if not hasattr(metric, "clone"):
        return None  # MetricTracker (an nn.ModuleList, as in torchmetrics) has no clone()
    return metric.clone()


def _feed(metric: Any, batch: tuple, seed: int) -> None:
    torch.manual_seed(seed)  # BootStrapper draws from the global generator
    metric.update(*batch)


def _check_round_trips(build: Callable[[], Any], kind: str) -> None:
    """Copy one fed metric by every method, then compare before and after one more batch."""
    good = batches(kind, (7, 5, 6), seed=11)
    failures = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        original = build()
        for i, batch in enumerate(good[:2]):
            _feed(original, batch, i)
        copies = {method: _copy(original, method, build) for method in METHODS}
        expected = [original.compute()]
        _feed(original, good[2], 2)
        expected.append(original.compute())
        for method, copied in copies.items():
            if copied is None:
                continue
            try:
                assert_identical(copied.compute(), expected[0])
                _feed(copied, good[2], 2)
                assert_identical(copied.compute(), expected[1])
            except AssertionError as err:
                failures[method] = str(err)
    assert not failures, failures


@pytest.mark.parametrize("key", sorted(ENTRIES))
def test_round_trip_preserves_compute(key: str) -> None:
    """state_dict (persistent, weights_only load), pickle, deepcopy and clone preserve compute()."""
    entry = ENTRIES[key]
    _check_round_trips(entry.build, entry.kind)


def _collection() -> MetricCollection:
    # two compute groups with shared state (counts, curve scores) and a moment group
    return MetricCollection(
        {
            "acc": cls.MulticlassAccuracy(num_classes=3),
            "f1": cls.MulticlassF1Score(num_classes=3),
            "confmat": cls.MulticlassConfusionMatrix(num_classes=3),
            "auroc": cls.MulticlassAUROC(num_classes=3),
            "ap": cls.MulticlassAveragePrecision(num_classes=3),
        }
    )


def test_collection_round_trip_keeps_shared_state() -> None:
    _check_round_trips(_collection, "multiclass")


def test_regression_collection_round_trip() -> None:
    _check_round_trips(
        lambda: MetricCollection(
            [reg.MeanSquaredError(), reg.R2Score(), reg.PearsonCorrCoef(), reg.SpearmanCorrCoef()]
        ),
        "real",
    )


def test_state_dict_holds_only_tensors_and_lists_of_tensors() -> None:
    """What a checkpoint stores for the package is plain data: weights_only loading is enough."""
    for key in ("MulticlassAUROC", "SpearmanCorrCoef", "MinMaxMetric", "CatMetric", "R2Score"):
        metric = ENTRIES[key].build()
        _set_persistent(metric)
        metric.update(*batches(ENTRIES[key].kind, (4,), seed=0)[0])
        for name, value in metric.state_dict().items():
            values = value if isinstance(value, list) else [value]
            assert all(isinstance(v, torch.Tensor) for v in values), f"{key}.{name}: {type(value).__name__}"


def test_persistent_false_saves_no_state() -> None:
    metric = cls.MulticlassAccuracy(num_classes=3)
    assert metric.state_dict() == {}
    metric.persistent(True)
    assert set(metric.state_dict()) == set(metric._defaults)
