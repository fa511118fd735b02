"""The retrieval surface: torchmetrics' names, each with its arguments (ours may add keywords), documented."""

from __future__ import annotations

import inspect

import pytest
import torchmetrics.functional.retrieval as tm_functional
import torchmetrics.retrieval as tm_retrieval

import lightning_metrics.functional.retrieval as lm_functional
import lightning_metrics.retrieval as lm_retrieval
from tests._imports import heavy_modules_loaded

PAIRS = [(lm_retrieval, tm_retrieval), (lm_functional, tm_functional)]


@pytest.mark.parametrize(("ours", "theirs"), PAIRS, ids=["modular", "functional"])
def test_the_names_are_torchmetrics_names(ours, theirs) -> None:
    assert sorted(ours.__all__) == sorted(theirs.__all__)
    assert all(hasattr(ours, name) for name in ours.__all__)


@pytest.mark.parametrize(("ours", "theirs"), PAIRS, ids=["modular", "functional"])
def test_every_torchmetrics_argument_is_accepted_in_place(ours, theirs) -> None:
    """Same parameters in the same order and with the same defaults; ours may add keywords after them."""
    for name in theirs.__all__:
        mine = inspect.signature(getattr(ours, name)).parameters
        their = inspect.signature(getattr(theirs, name)).parameters
        positional = [p for p in their.values() if p.kind is not p.VAR_KEYWORD]
        assert list(mine)[: len(positional)] == [p.name for p in positional], name
        for p in positional:
            assert mine[p.name].default == p.default, (name, p.name)
        extra = [p for n, p in mine.items() if n not in their and p.kind is not p.VAR_KEYWORD]
        assert all(p.default is not p.empty for p in extra), (name, extra)


def test_update_takes_preds_target_indexes() -> None:
    for name in lm_retrieval.__all__:
        assert list(inspect.signature(getattr(lm_retrieval, name).update).parameters) == [
            "self",
            "preds",
            "target",
            "indexes",
        ]


@pytest.mark.parametrize("module", [lm_retrieval, lm_functional], ids=["modular", "functional"])
def test_every_export_has_a_runnable_example(module) -> None:
    missing = [name for name in module.__all__ if ">>>" not in (inspect.getdoc(getattr(module, name)) or "")]
    assert not missing


def test_state_cost_is_documented() -> None:
    undocumented = [
        n
        for n in lm_retrieval.__all__
        if "16 bytes per document" not in inspect.getdoc(getattr(lm_retrieval, n))
    ]
    assert not undocumented


def test_import_is_light() -> None:
    modules = ["lightning_metrics.retrieval", "lightning_metrics.functional.retrieval"]
    heavy = ("lightning", "matplotlib", "scipy", "torchmetrics", "sklearn")
    assert heavy_modules_loaded(modules, heavy) == []
