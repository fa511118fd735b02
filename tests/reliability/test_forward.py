"""``forward`` returns the value of the batch alone: for every public class (the registry), the value a fresh
metric computes on that batch, and the accumulated state afterwards equals updates of every batch. The
same holds for the members of a collection that share one statistic."""

from __future__ import annotations

import warnings

import pytest
import torch

from lightning_metrics import MetricCollection
from tests.reliability._registry import ENTRIES, assert_close, batches

# the batch value of these is not a fresh metric's value by definition
NOT_A_FRESH_VALUE = {
    "BootStrapper": "resamples each batch at random",
    "MetricTracker": "forward is the tracked metric's, of the current increment",
    "MinMaxMetric": "its min and max run over the values of every compute, as in torchmetrics",
    "MultitaskWrapper": "forward returns a dict of the tasks' batch values (checked through its members)",
}


def _quiet(fn, *args):  # noqa: ANN001, ANN202
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args)


@pytest.mark.parametrize("key", sorted(ENTRIES))
def test_forward_is_the_value_of_the_batch_alone(key: str) -> None:
    entry = ENTRIES[key]
    if entry.name in NOT_A_FRESH_VALUE:
        pytest.skip(NOT_A_FRESH_VALUE[entry.name])
    first, second = batches(entry.kind, (6, 5), seed=3)
    metric, fresh, whole = entry.build(), entry.build(), entry.build()
    _quiet(metric, *first)
    got = _quiet(metric, *second)
    _quiet(fresh.update, *second)
    assert_close(got, _quiet(fresh.compute), rtol=1e-5, atol=1e-6, path=f"{key} forward")
    _quiet(whole.update, *first)
    _quiet(whole.update, *second)
    assert_close(_quiet(metric.compute), _quiet(whole.compute), rtol=1e-5, atol=1e-6, path=f"{key} accumulated")


@pytest.mark.parametrize("package", ["classification", "regression"])
def test_collection_forward_is_the_value_of_the_batch_alone(package: str) -> None:
    """All multiclass (or all regression) entries in one collection: shared statistics, one forward."""
    kind = "multiclass" if package == "classification" else "real"
    keys = sorted(k for k, e in ENTRIES.items() if e.package == package and e.kind == kind)
    collection = MetricCollection({k: ENTRIES[k].build() for k in keys})
    assert len(collection.compute_groups) < len(keys)  # some share
    first, second = batches(kind, (6, 5), seed=4)
    _quiet(collection, *first)
    got = _quiet(collection, *second)
    for key in keys:
        fresh = ENTRIES[key].build()
        _quiet(fresh.update, *second)
        assert_close(got[key], _quiet(fresh.compute), rtol=1e-5, atol=1e-6, path=f"{key} forward in a collection")


def _doubling(base: type) -> type:
    """A subclass whose ``update`` doubles its first input before the base class's update."""

    def update(self, first, *rest, **kwargs):
        base.update(self, first * 2, *rest, **kwargs)

    return type(f"Doubled{base.__name__}", (base,), {"update": update})


@pytest.mark.parametrize(
    "base, kwargs, inputs",
    [
        ("aggregation.MeanMetric", {}, 1),
        ("aggregation.SumMetric", {}, 1),
        ("regression.MeanAbsoluteError", {}, 2),
        ("regression.MinkowskiDistance", {"p": 3}, 2),
        ("regression.WeightedMeanAbsolutePercentageError", {}, 2),
        ("regression.TweedieDevianceScore", {}, 2),
        ("regression.MeanSquaredError", {}, 2),
        ("regression.R2Score", {}, 2),
        ("classification.BinaryAccuracy", {}, 2),
    ],
)
def test_a_subclass_update_is_what_forward_and_collections_run(base: str, kwargs: dict, inputs: int) -> None:
    """forward and a collection's update add a batch's statistic themselves only for the package's own
    ``update``: a subclass that transforms its inputs in ``update`` gets its transform applied there too."""
    import importlib

    package, name = base.split(".")
    cls = getattr(importlib.import_module(f"lightning_metrics.{package}"), name)
    g = torch.Generator().manual_seed(0)
    batch = [torch.rand(16, generator=g) + 0.5, (torch.rand(16, generator=g) > 0.5).float() + 0.5][:inputs]
    if name == "BinaryAccuracy":
        batch = [torch.rand(16, generator=g) * 0.5, torch.randint(0, 2, (16,), generator=g)]
    doubled = [batch[0] * 2, *batch[1:]]
    reference = cls(**kwargs)
    reference.update(*doubled)
    assert cls(**kwargs)._prepared_batch(*batch) is not None  # the package's update: forward's own path
    metric = _doubling(cls)(**kwargs)
    assert metric._prepared_batch(*batch) is None  # a subclass's update: run as such
    torch.testing.assert_close(metric(*batch), reference.compute())
    collection = MetricCollection({"m": _doubling(cls)(**kwargs)})
    collection.update(*batch)
    torch.testing.assert_close(collection.compute()["m"], reference.compute())


@pytest.mark.parametrize("name", ["MeanSquaredError", "R2Score", "RelativeSquaredError", "PearsonCorrCoef"])
def test_a_subclass_compute_is_what_forward_returns(name: str) -> None:
    """A moment metric's forward reads its batch value straight off the batch's moments only for the package's
    own ``compute``: a subclass that changes ``compute`` gets its value from it, alone and in a collection."""
    import lightning_metrics.regression as regression

    cls = getattr(regression, name)
    halved = type(f"Halved{name}", (cls,), {"compute": lambda self: cls.compute(self) / 2})
    g = torch.Generator().manual_seed(0)
    preds = torch.rand(16, generator=g)
    target = preds + 0.3 * torch.rand(16, generator=g)
    fresh = cls()
    fresh.update(preds, target)
    assert cls()._batch_value_fn() is not None  # the package's compute: the batch value read directly
    metric = halved()
    assert metric._batch_value_fn() is None  # a subclass's compute: called as such
    torch.testing.assert_close(metric(preds, target), fresh.compute() / 2)
    collection = MetricCollection({"plain": cls(), "halved": halved()})
    values = collection(preds, target)
    torch.testing.assert_close(values["plain"], fresh.compute())
    torch.testing.assert_close(values["halved"], fresh.compute() / 2)
