"""The public surface of the clustering and nominal packages: torchmetrics' names and signatures, runnable
examples, and imports that stay light (scipy, scikit-learn, lightning and torchmetrics are never loaded)."""

from __future__ import annotations

import importlib
import inspect

import pytest

from tests._imports import heavy_modules_loaded

MODULES = {
    "lightning_metrics.clustering": "torchmetrics.clustering",
    "lightning_metrics.functional.clustering": "torchmetrics.functional.clustering",
    "lightning_metrics.nominal": "torchmetrics.nominal",
    "lightning_metrics.functional.nominal": "torchmetrics.functional.nominal",
}


def _parameters(obj) -> list[tuple]:
    target = obj.__init__ if inspect.isclass(obj) else obj
    return [(p.name, p.kind, p.default) for p in inspect.signature(target).parameters.values()]


@pytest.mark.parametrize("ours", sorted(MODULES))
def test_names_and_signatures_are_torchmetrics(ours: str) -> None:
    module, theirs = importlib.import_module(ours), importlib.import_module(MODULES[ours])
    assert sorted(module.__all__) == sorted(theirs.__all__)
    for name in module.__all__:
        assert _parameters(getattr(module, name)) == _parameters(getattr(theirs, name)), name


@pytest.mark.parametrize("ours", sorted(MODULES))
def test_every_export_has_a_runnable_example(ours: str) -> None:
    module = importlib.import_module(ours)
    assert ">>>" in (module.__doc__ or "")
    missing = [name for name in module.__all__ if ">>>" not in (inspect.getdoc(getattr(module, name)) or "")]
    assert not missing


def test_imports_stay_light() -> None:
    heavy = ("scipy", "sklearn", "torchmetrics", "matplotlib", "lightning", "pytorch_lightning")
    assert heavy_modules_loaded(["lightning_metrics", *MODULES], heavy) == []
