"""TorchScript: ``torch.jit.script`` works on every public metric class and on collections, as in
torchmetrics, and a scripted metric saved and loaded keeps its states.

torchmetrics' own tests only check that ``torch.jit.script(metric)`` does not raise (``forward``
is unused for the compiler, so a scripted metric is a container of its states). Here each class
of the registry is scripted after two updates, round-tripped through ``torch.jit.save``/``load``,
and every tensor state of it and of the metrics nested in it must come back equal; the metric
itself still computes torchmetrics' value afterwards.
"""

from __future__ import annotations

import functools
import io
import warnings
from typing import Any, Callable

import pytest
import torch
import torchmetrics
from torch import Tensor

import lightning_metrics as lm
from lightning_metrics import Metric
from tests.reliability._registry import ENTRIES, assert_close, assert_identical, batches

# torchmetrics 1.9 classes that ``torch.jit.script`` rejects; ours script as well (a superset).
TORCHMETRICS_NOT_SCRIPTABLE = {
    "CatMetric": "its `value` annotation says Tensor, the state is a list",
    "RunningMean": "Running.forward takes *args and is not marked unused",
    "RunningSum": "Running.forward takes *args and is not marked unused",
    "Running": "Running.forward takes *args and is not marked unused",
    "BootStrapper": "BootStrapper.forward takes *args and is not marked unused",
    "MinMaxMetric": "MinMaxMetric.forward takes *args and is not marked unused",
    "ClasswiseWrapper": "an annotation names a Python class",
    "MetricTracker": "a Union annotation TorchScript cannot read",
    "MultitaskWrapper": "forward's signature",
}


RANDOM = {"BootStrapper"}  # resamples with the global generator: two copies draw differently


def _round_trip(module: torch.nn.Module) -> Any:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*torch.jit.(save|load)` is deprecated", category=DeprecationWarning)
        torch.jit.save(torch.jit.script(module), buffer)
        buffer.seek(0)
        return torch.jit.load(buffer)


def _tensor_states(module: torch.nn.Module) -> dict[str, Tensor]:
    """Every tensor state of ``module`` and its nested metrics, by dotted path."""
    out = {}
    for prefix, sub in module.named_modules():
        if isinstance(sub, Metric):
            for name in sub._defaults:
                value = getattr(sub, name)
                if isinstance(value, Tensor):
                    out[f"{prefix}.{name}" if prefix else name] = value
                elif value:  # a non-empty list state is a List[Tensor] attribute
                    out[f"{prefix}.{name}" if prefix else name] = torch.cat([v.flatten() for v in value])
    return out


def _loaded_value(loaded: Any, path: str) -> Tensor:
    obj = loaded
    for part in path.split("."):
        obj = getattr(obj, part)
    return torch.cat([v.flatten() for v in obj]) if isinstance(obj, list) else obj


@pytest.mark.parametrize("key", sorted(ENTRIES))
def test_every_metric_scripts_and_keeps_its_states(key: str) -> None:
    entry = ENTRIES[key]
    scripted, twin = entry.build(), entry.build()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for batch in batches(entry.kind, (7, 5), seed=3):
            scripted.update(*batch)
            twin.update(*batch)
        loaded = _round_trip(scripted)
        states = _tensor_states(scripted)
        assert states, f"{key}: no tensor state to compare"
        for path, value in states.items():
            assert torch.equal(_loaded_value(loaded, path), value), f"{key}: state {path} changed"
        # scripting leaves the Python metric as it was: it computes what its unscripted twin does
        if key not in RANDOM:
            assert_identical(scripted.compute(), twin.compute())


@pytest.mark.parametrize("key", ["MulticlassAccuracy", "MeanSquaredError", "BinaryAUROC", "MaxMetric"])
def test_a_scripted_metric_still_computes_torchmetrics_value(key: str) -> None:
    entry = ENTRIES[key]
    ours, theirs = entry.build(), entry.build(torchmetrics)
    for batch in batches(entry.kind, (7, 5), seed=3):
        ours.update(*batch)
        theirs.update(*batch)
    torch.jit.script(theirs)
    _round_trip(ours)
    assert_close(ours.compute(), theirs.compute(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("key", sorted(TORCHMETRICS_NOT_SCRIPTABLE))
def test_the_torchmetrics_exceptions_are_still_exceptions(key: str) -> None:
    """The table above stays true: these do not script in torchmetrics (ours do, see above)."""
    with warnings.catch_warnings(), pytest.raises(Exception):  # noqa: B017 (any compiler error)
        warnings.simplefilter("ignore")
        torch.jit.script(ENTRIES[key].build(torchmetrics))


def _collections(lib: Any) -> dict[str, Any]:
    c, r = lib.classification, lib.regression
    return {
        "grouped": lib.MetricCollection(
            [c.MulticlassAccuracy(num_classes=3), c.MulticlassPrecision(num_classes=3), c.MulticlassAUROC(num_classes=3)],
            prefix="val_",
        ),
        "ungrouped": lib.MetricCollection(
            {"acc": c.MulticlassAccuracy(num_classes=3), "f1": c.MulticlassF1Score(num_classes=3)},
            compute_groups=False,
        ),
        "nested": lib.MetricCollection(
            [lib.MetricCollection([c.MulticlassRecall(num_classes=3)], postfix="_macro")], prefix="test/"
        ),
        "user groups": lib.MetricCollection(
            c.MulticlassRecall(num_classes=3),
            c.MulticlassPrecision(num_classes=3),
            r.MeanSquaredError(),
            compute_groups=[["MulticlassRecall", "MulticlassPrecision"], ["MeanSquaredError"]],
        ),
    }


# torchmetrics cannot script a collection with ``compute_groups=False`` (its empty ``_groups``
# dict has no TorchScript type); ours can.
ORACLE_SCRIPTS = {"grouped": True, "ungrouped": False, "nested": True}


@pytest.mark.parametrize("name", sorted(ORACLE_SCRIPTS))
def test_collections_script_and_keep_their_states(name: str) -> None:
    ours, theirs = _collections(lm)[name], _collections(torchmetrics)[name]
    preds, target = torch.randn(12, 3).softmax(-1), torch.randint(0, 3, (12,))
    ours.update(preds, target)
    theirs.update(preds, target)
    if ORACLE_SCRIPTS[name]:
        torch.jit.script(theirs)
    else:
        with pytest.raises(RuntimeError, match="_groups"):
            torch.jit.script(theirs)
    loaded = _round_trip(ours)
    for key, metric in ours.items(keep_base=True):
        for path, value in _tensor_states(metric).items():
            assert torch.equal(_loaded_value(getattr(loaded, key), path), value), f"{key}.{path}"
    assert_close(ours.compute(), theirs.compute(), rtol=1e-5, atol=1e-6)


def test_collection_with_user_groups_scripts() -> None:
    torch.jit.script(_collections(lm)["user groups"])


def test_scripting_a_metric_raises_no_torchscript_warning() -> None:
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*TorchScript.*")
        torch.jit.script(lm.classification.MulticlassAccuracy(num_classes=3))
        torch.jit.script(lm.MetricCollection([lm.regression.MeanSquaredError(), lm.aggregation.MeanMetric()]))


def test_custom_metric_written_for_torchmetrics_scripts() -> None:
    """A user's subclass (own forward, properties, string annotations) scripts like torchmetrics'."""

    class Hits(Metric):
        hits: Tensor  # a string annotation (``from __future__ import annotations``)
        weigh: Callable[[Tensor], Tensor]  # a type TorchScript has no counterpart for
        undefined: NotDefinedAnywhere  # noqa: F821 (an annotation that does not evaluate)

        def __init__(self) -> None:
            super().__init__()
            self.add_state("hits", torch.tensor(0), dist_reduce_fx="sum")
            self.weigh = functools.partial(torch.mul, 2)  # a callable object, not a function
            self.undefined = object()

        @property
        def doubled(self) -> Tensor:
            return self.hits * 2

        def update(self, x: Tensor) -> None:
            self.hits += (x > 0).sum()

        def compute(self) -> Tensor:
            return self.hits

        def forward(self, *args: Any, **kwargs: Any) -> Any:
            return super().forward(*args, **kwargs)

    metric = Hits()
    metric.update(torch.tensor([1.0, -1.0, 2.0]))
    assert torch.equal(_round_trip(metric).hits, torch.tensor(2))
    assert metric(torch.tensor([3.0])) == 1
