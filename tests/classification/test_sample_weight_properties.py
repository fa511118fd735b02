"""The rules of ``sample_weight`` for every count measure, function by function (issue 39).

For each function and argument set (every ``average``, normalization, kappa weighting), over inputs with
ignored targets, ``top_k=2`` and extra dimensions: a zero weight is the sample dropped, integer weights are
repeated samples, a constant weight gives the unweighted value (counts scale by it); bad weights raise
naming ``sample_weight``. ``multidim_average="samplewise"``: a sample's weight scales its own row.
"""

from __future__ import annotations

import warnings

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import lightning_metrics.functional.classification as lmf
from lightning_metrics.utilities.exceptions import MetricInputError
from tests.classification._weighted_count_cases import (
    C,
    COUNTS_VALUED,
    L,
    SIZE,
    call_id,
    case,
    family_calls,
    function,
)

CALLS = family_calls()
TOP_K = ("stat_scores", "accuracy", "precision", "recall", "f1_score", "fbeta_score", "specificity",
         "negative_predictive_value", "hamming_distance")
N = 60


def _quiet(fn, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # normalized matrices with empty rows warn (as torchmetrics)
        return fn(*args, **kwargs)


def _equal(got: torch.Tensor, expected: torch.Tensor) -> None:
    torch.testing.assert_close(got.double(), expected.double(), rtol=1e-6, atol=1e-7, equal_nan=True)


def _variants(family: str, task: str) -> list[dict]:
    """Input variants of a call: ignored targets, extra dimensions, ``top_k=2``."""
    out = [{"ignore_index": -1}]
    if family != "cohen_kappa" or task == "binary":
        out.append({"extra": (3,)})
    if task == "multiclass" and family in TOP_K:
        out.append({"top_k": 2})
    return out


def _inputs(task: str, variant: dict, seed: int, weight_kind: str):  # noqa: ANN202
    return case(task, seed, n=N, extra=variant.get("extra", ()), ignore_index=variant.get("ignore_index"),
                weight_kind=weight_kind)


def _arguments(args: dict, variant: dict) -> dict:
    return {**args, **{k: v for k, v in variant.items() if k != "extra"}}


@pytest.mark.parametrize("call", CALLS, ids=call_id)
def test_zero_weight_drops_integer_weights_repeat_constant_weight_scales(call: tuple) -> None:
    family, task, args = call
    fn = function(family, task)
    for i, variant in enumerate(_variants(family, task)):
        kwargs = _arguments(args, variant)
        preds, target, weight = _inputs(task, variant, seed=10 + i, weight_kind="mixed")
        weighted = _quiet(fn, preds, target, sample_weight=weight, **kwargs)
        kept = weight > 0
        _equal(weighted, _quiet(fn, preds[kept], target[kept], sample_weight=weight[kept], **kwargs))

        preds, target, counts = _inputs(task, variant, seed=20 + i, weight_kind="integer")
        repeated = counts.long()
        expected = _quiet(fn, preds.repeat_interleave(repeated, 0), target.repeat_interleave(repeated, 0), **kwargs)
        _equal(_quiet(fn, preds, target, sample_weight=counts, **kwargs), expected)

        unweighted = _quiet(fn, preds, target, **kwargs)
        scaled = _quiet(fn, preds, target, sample_weight=2.5, **kwargs)
        counts_valued = family in COUNTS_VALUED and kwargs.get("normalize") is None
        _equal(scaled, unweighted * 2.5 if counts_valued else unweighted)
        assert scaled.dtype == (torch.float64 if counts_valued else unweighted.dtype)
        assert scaled.shape == unweighted.shape


# multilabel samplewise weighted stat scores divide by the support pooled over all samples (torchmetrics):
# not a row of its own
SAMPLEWISE = [c for c in CALLS if c[0] in (*TOP_K, "exact_match") and c[2].get("average") != "samples"
              and not (c[0] == "stat_scores" and c[1] == "multilabel" and c[2].get("average") == "weighted")]


@pytest.mark.parametrize("call", SAMPLEWISE, ids=call_id)
def test_samplewise_weight_scales_the_rows_of_its_sample(call: tuple) -> None:
    family, task, args = call
    fn = function(family, task)
    preds, target, counts = case(task, 30, n=N, extra=(4,), ignore_index=-1, weight_kind="integer")
    kwargs = {**args, "multidim_average": "samplewise", "ignore_index": -1}
    weighted = fn(preds, target, sample_weight=counts, **kwargs)
    unweighted = fn(preds, target, **kwargs)
    kept = counts > 0
    factor = counts.view(-1, *[1] * (unweighted.ndim - 1)) if family == "stat_scores" else 1
    _equal(weighted[kept], (unweighted * factor)[kept])
    # a sample of weight 0 is a sample with nothing counted (0/0 rules, as every position ignored)
    _equal(weighted[~kept], fn(preds[~kept], target[~kept], sample_weight=0.0, **kwargs))


def test_per_element_weight_of_binary_positions_is_repetition() -> None:
    """A weight of the target's full shape weighs each position: integer weights repeat positions."""
    preds, target, _ = case("binary", 40, n=N, extra=(5,), ignore_index=-1)
    counts = torch.randint(0, 3, target.shape, generator=torch.Generator().manual_seed(1))
    got = lmf.binary_f1_score(preds, target, ignore_index=-1, sample_weight=counts)
    flat_p, flat_t = preds.reshape(-1), target.reshape(-1)
    reps = counts.reshape(-1)
    expected = lmf.binary_f1_score(flat_p.repeat_interleave(reps), flat_t.repeat_interleave(reps), ignore_index=-1)
    _equal(got, expected)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 25),
    seed=st.integers(0, 2**16),
    task=st.sampled_from(("binary", "multiclass", "multilabel")),
    family=st.sampled_from(("precision", "f1_score", "jaccard_index", "matthews_corrcoef", "stat_scores")),
    average=st.sampled_from(("micro", "macro", "weighted", None)),
)
def test_integer_weights_are_repeated_samples(n: int, seed: int, task: str, family: str, average) -> None:  # noqa: ANN001
    fn = function(family, task)
    kwargs = dict(SIZE[task])
    if task != "binary" and family != "matthews_corrcoef":
        kwargs["average"] = average
    preds, target, counts = case(task, seed, n=n, ignore_index=-1, weight_kind="integer")
    repeated = counts.long()
    expected = fn(preds.repeat_interleave(repeated, 0), target.repeat_interleave(repeated, 0), ignore_index=-1,
                  **kwargs)
    _equal(fn(preds, target, ignore_index=-1, sample_weight=counts, **kwargs), expected)


# ----------------------------------------------------------------------------------------------- bad weights
@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf")])
def test_negative_nan_or_infinite_weight_is_an_error_naming_it(bad: float) -> None:
    preds, target, weight = case("multiclass", 50, n=10)
    weight[3] = bad
    with pytest.raises(MetricInputError, match=r"`sample_weight` must hold finite, non-negative weights.* at index 3"):
        lmf.multiclass_accuracy(preds, target, num_classes=C, sample_weight=weight)
    # validate_args=False skips the value check (and its host sync), as the other value checks
    lmf.multiclass_accuracy(preds, target, num_classes=C, sample_weight=weight.abs(), validate_args=False)


def test_weight_of_another_shape_is_an_error_naming_both_shapes() -> None:
    preds, target, _ = case("multilabel", 51, n=10)
    with pytest.raises(MetricInputError, match=r"`sample_weight`.*\(10, 3\).*got shape \(9,\)"):
        lmf.multilabel_f1_score(preds, target, num_labels=L, sample_weight=torch.ones(9))
    with pytest.raises(MetricInputError, match=r"`sample_weight`.*one weight per sample for exact match.*\(10, 3\)"):
        lmf.multilabel_exact_match(preds, target, num_labels=L, sample_weight=torch.ones(10, 3))
    with pytest.raises(MetricInputError, match=r"`sample_weight`.*`average`='samples'.*\(10, 3\)"):
        lmf.multilabel_recall(preds, target, num_labels=L, average="samples", sample_weight=torch.ones(10, 3))
    with pytest.raises(MetricInputError, match=r"`sample_weight` must hold real numbers"):
        lmf.binary_accuracy(preds[:, 0], target[:, 0], sample_weight=torch.ones(10, dtype=torch.bool))


def test_no_weight_keeps_the_integer_counts() -> None:
    preds, target, _ = case("multiclass", 52, n=20)
    assert lmf.multiclass_confusion_matrix(preds, target, num_classes=C).dtype == torch.long
    assert lmf.multiclass_stat_scores(preds, target, num_classes=C, average=None).dtype == torch.long
    weighted = lmf.multiclass_confusion_matrix(preds, target, num_classes=C, sample_weight=torch.ones(20))
    assert weighted.dtype == torch.float64
    assert torch.equal(weighted, lmf.multiclass_confusion_matrix(preds, target, num_classes=C).double())
