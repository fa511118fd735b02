"""The text surface: torchmetrics 1.9's names, parameters, defaults and class attributes; runnable
examples; a light import."""

from __future__ import annotations

import inspect

import pytest
import torchmetrics.functional.text as TF
import torchmetrics.text as TM

import lightning_metrics.functional.text as F
import lightning_metrics.text as M
from tests._imports import heavy_modules_loaded

# run transformers models; torchmetrics exports them only when transformers is installed
MODEL_BASED = {"BERTScore", "InfoLM", "bert_score", "infolm"}
EXTRA_PARAMETERS = {"convention"}  # ours only: sacrebleu's values (SacreBLEU, chrF, TER)


def test_the_same_names_as_torchmetrics() -> None:
    assert sorted(set(M.__all__) - MODEL_BASED) == sorted(set(TM.__all__) - MODEL_BASED)
    assert sorted(set(F.__all__) - MODEL_BASED) == sorted(set(TF.__all__) - MODEL_BASED)
    assert MODEL_BASED <= set(M.__all__) | set(F.__all__)
    for module in (M, F):
        assert all(hasattr(module, name) for name in module.__all__)


def _parameters(obj: object) -> dict[str, inspect.Parameter]:
    target = obj.__init__ if inspect.isclass(obj) else obj
    return {n: p for n, p in inspect.signature(target).parameters.items() if n != "self"}


@pytest.mark.parametrize("name", sorted((set(M.__all__) | set(F.__all__)) & (set(TM.__all__) | set(TF.__all__))))
def test_parameters_and_defaults_match_torchmetrics(name: str) -> None:
    ours = _parameters(getattr(M, name) if name in M.__all__ else getattr(F, name))
    theirs = _parameters(getattr(TM, name) if name in M.__all__ else getattr(TF, name))
    assert [n for n in ours if n not in EXTRA_PARAMETERS] == list(theirs)
    for parameter, their in theirs.items():
        assert ours[parameter].default == their.default, (name, parameter)
        assert ours[parameter].kind == their.kind, (name, parameter)
    for extra in set(ours) - set(theirs):
        assert ours[extra].default == "torchmetrics", (name, extra)


# WordInfoPreserved: torchmetrics says higher_is_better=False; more preserved information is better
ATTRIBUTE_EXCEPTIONS = {("WordInfoPreserved", "higher_is_better")}


@pytest.mark.parametrize("name", sorted(set(M.__all__) & set(TM.__all__)))
def test_class_attributes_match_torchmetrics(name: str) -> None:
    for attribute in ("is_differentiable", "higher_is_better", "plot_lower_bound", "plot_upper_bound"):
        if isinstance(getattr(getattr(TM, name), attribute, None), property):  # InfoLM's: per measure
            assert isinstance(getattr(getattr(M, name), attribute), property), (name, attribute)
            continue
        if (name, attribute) in ATTRIBUTE_EXCEPTIONS:
            assert getattr(getattr(M, name), attribute) is True
            continue
        assert getattr(getattr(M, name), attribute, None) == getattr(getattr(TM, name), attribute, None), (
            name,
            attribute,
        )


def test_every_public_object_has_a_runnable_example() -> None:
    missing = [
        n
        for module in (M, F)
        for n in module.__all__
        if ">>>" not in (inspect.getdoc(getattr(module, n)) or "")
    ]
    assert not missing


def test_import_is_light() -> None:
    heavy = ("torchmetrics", "nltk", "regex", "sacrebleu", "lightning", "scipy", "MeCab", "sentencepiece")
    assert heavy_modules_loaded(["lightning_metrics.text", "lightning_metrics.functional.text"], heavy) == []
