"""Parity with torchmetrics 1.9: every class and function over sampled argument combinations.

Cases mix queries without relevant documents, with only relevant ones, of one document, larger
than k, logits (scores below 0 and above 1), graded targets for NDCG, ignored documents, huge
sparse query ids and queries split across batches. Ties are "safe" (between documents of equal
target), where torchmetrics' value does not depend on its sort's order among ties; ties across
targets are checked against the brute-force oracle in ``test_oracles.py``.
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import pytest
import torch
import torchmetrics.functional.retrieval as tm_functional
import torchmetrics.retrieval as tm_retrieval

import lightning_metrics.functional.retrieval as lm_functional
import lightning_metrics.retrieval as lm_retrieval
from tests.reliability._registry import assert_close
from tests.retrieval._cases import (
    CLASS_ARGUMENTS,
    FUNCTION_ARGUMENTS,
    GRADE_KINDS,
    GRADED,
    class_cases,
    draw_class_case,
    make_documents,
    sample_arguments,
)

RTOL, ATOL = 1e-5, 1e-6
CASES_PER_CLASS = 24
CASES_PER_FUNCTION = 40


def _assert_same_kind(ours: Any, theirs: Any) -> None:
    """Same structure, dtypes and shapes (the values are compared with a tolerance)."""
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _assert_same_kind(a, b)
        return
    assert isinstance(ours, torch.Tensor), ours
    assert (ours.dtype, ours.shape) == (theirs.dtype, theirs.shape), f"{ours!r} vs {theirs!r}"


def _run(metric: Any, batches: list, skip_empty: bool) -> tuple[str, Any]:
    try:
        for preds, target, indexes in batches:
            if skip_empty and not bool((target != -1).any()):
                continue  # torchmetrics refuses a batch left empty by ignore_index; ours adds nothing
            metric.update(preds, target, indexes)
        return "value", metric.compute()
    except ValueError as err:
        return "error", str(err)


@pytest.mark.parametrize(("name", "case"), class_cases(CASES_PER_CLASS))
def test_class_matches_torchmetrics(name: str, case: int) -> None:
    rng = random.Random(f"{name}-{case}")
    kwargs, docs = draw_class_case(name, rng, 14, [3, 9, 25])
    batches = [b for b in docs.batches(rng.randint(1, 4), seed=case) if b[0].numel()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = _run(getattr(lm_retrieval, name)(**kwargs), batches, skip_empty=False)
        theirs = _run(
            getattr(tm_retrieval, name)(**kwargs), batches, skip_empty=kwargs["ignore_index"] is not None
        )
    assert ours[0] == theirs[0], f"{name}({kwargs}): ours {ours}, torchmetrics {theirs}"
    if ours[0] == "error":
        assert kwargs["empty_target_action"] == "error" and "`empty_target_action`" in ours[1]
        return
    _assert_same_kind(ours[1], theirs[1])
    assert_close(ours[1], theirs[1], RTOL, ATOL, path=f"{name}({kwargs})")


def _function_cases() -> list[tuple[str, int]]:
    return [(name, i) for name in sorted(FUNCTION_ARGUMENTS) for i in range(CASES_PER_FUNCTION)]


@pytest.mark.parametrize(("name", "case"), _function_cases())
def test_function_matches_torchmetrics(name: str, case: int) -> None:
    rng = random.Random(f"{name}-{case}")
    kwargs = sample_arguments(FUNCTION_ARGUMENTS[name], rng)
    docs = make_documents(
        seed=rng.randrange(2**31),
        num_queries=1,
        max_docs=rng.choice([1, 3, 9, 25]),
        graded=name in GRADED and rng.choice(GRADE_KINDS),
        logits=rng.random() < 0.3,
    )
    preds, target = docs.preds, docs.target
    if rng.random() < 0.3:  # any shape is one query, flattened
        preds, target = preds.repeat(2).reshape(2, -1), target.repeat(2).reshape(2, -1)
    ours = getattr(lm_functional, name)(preds, target, **kwargs)
    theirs = getattr(tm_functional, name)(preds, target, **kwargs)
    _assert_same_kind(ours, theirs)
    assert_close(ours, theirs, RTOL, ATOL, path=f"{name}({kwargs})")


@pytest.mark.parametrize("name", sorted(CLASS_ARGUMENTS))
def test_default_arguments_match(name: str) -> None:
    """Larger data, default arguments, bool targets, float64 scores (cast to float32 as torchmetrics)."""
    docs = make_documents(seed=7, num_queries=300, max_docs=30, graded=name in GRADED)
    preds = docs.preds.double()
    target = docs.target if name in GRADED else docs.target.bool()
    ours, theirs = getattr(lm_retrieval, name)(), getattr(tm_retrieval, name)()
    for i in range(0, len(preds), 700):
        ours.update(preds[i : i + 700], target[i : i + 700], indexes=docs.indexes[i : i + 700])
        theirs.update(preds[i : i + 700], target[i : i + 700], indexes=docs.indexes[i : i + 700])
    _assert_same_kind(ours.compute(), theirs.compute())
    assert_close(ours.compute(), theirs.compute(), RTOL, ATOL, path=name)


def test_constants_match() -> None:
    for name in lm_retrieval.__all__:
        ours, theirs = getattr(lm_retrieval, name), getattr(tm_retrieval, name)
        for attribute in ("higher_is_better", "is_differentiable", "full_state_update"):
            assert getattr(ours, attribute) == getattr(theirs, attribute), (name, attribute)
