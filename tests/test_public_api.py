"""The public surface: every exported name exists, is documented with a runnable example, and the
torchmetrics names we promise are all there."""

from __future__ import annotations

import importlib
import inspect

import pytest

from tests._imports import heavy_modules_loaded

PUBLIC_MODULES = [
    "lightning_metrics",
    "lightning_metrics.aggregation",
    "lightning_metrics.classification",
    "lightning_metrics.regression",
    "lightning_metrics.wrappers",
    "lightning_metrics.functional.classification",
    "lightning_metrics.functional.regression",
    "lightning_metrics.segmentation",
    "lightning_metrics.functional.segmentation",
    "lightning_metrics.detection",
    "lightning_metrics.functional.detection",
    "lightning_metrics.utilities",
]


def _exports():
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            yield module_name, name, getattr(module, name)


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_all_names_resolve(module_name):
    module = importlib.import_module(module_name)
    assert len(module.__all__) == len(set(module.__all__)), "duplicate names in __all__"
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert not missing


def test_public_objects_have_docstrings_with_examples():
    undocumented = []
    for module_name, name, obj in _exports():
        if inspect.ismodule(obj) or not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        doc = inspect.getdoc(obj) or ""
        if ">>>" not in doc:
            undocumented.append(f"{module_name}.{name}")
    assert not undocumented, f"public objects without a runnable example: {undocumented}"


def test_top_level_contract():
    import lightning_metrics as lm

    for name in ("Metric", "MetricCollection", "MetricsCallback", "MetricsMixin"):
        assert hasattr(lm, name), name
    assert lm.utilities.dim_zero_cat is not None


def test_import_is_light():
    modules = [
        "lightning_metrics",
        "lightning_metrics.classification",
        "lightning_metrics.regression",
        "lightning_metrics.segmentation",
    ]
    loaded = heavy_modules_loaded(modules, ("matplotlib", "scipy", "torchmetrics", "sklearn"))
    assert loaded == [], f"importing lightning_metrics pulled in: {loaded}"
