"""Fuzzing every public metric against its oracle.

Hypothesis draws a public class (from the registry), changes its constructor arguments (valid
and invalid values), then draws the data: batch sizes (empty batches included), dtypes
(float16/bfloat16/float32/float64), logits or probabilities or labels, ties, and faults (NaN
scores, labels out of range, ignore_index). Two outcomes are allowed:

- a documented error: ``ValueError``/``TypeError``/``RuntimeError`` whose message names an
  argument (a backquoted name such as `preds`); an error of ``compute`` may instead say that
  there are too few samples (R2 needs two, as in torchmetrics);
- the value of the oracle (torchmetrics, fed the same batches) within the input's tolerance,
  with no NaN where the oracle has a number.

Where torchmetrics itself fails on an input we accept (an empty batch), the oracle is fed the
non-empty batches only. The CI profile is bounded and derandomized (see ``conftest.py``).
"""

from __future__ import annotations

import importlib
import inspect
import re
import warnings
from collections import Counter
from typing import Any

import pytest
import torch
import torchmetrics
from hypothesis import event, given
from hypothesis import strategies as st

import lightning_metrics as lm
from tests.reliability._registry import ENTRIES, Entry, assert_close, make_batch
from tests.reliability.conftest import fuzz_settings

ERRORS = (ValueError, TypeError, RuntimeError)
DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
TOLERANCE = {
    torch.float32: (1e-4, 1e-5),
    torch.float64: (1e-5, 1e-6),
    torch.float16: (5e-3, 2e-3),
    torch.bfloat16: (3e-2, 1e-2),
}
OUTCOMES: Counter = Counter()  # printed at the end of the module (pytest -s) for the closing note

# Constructor arguments the fuzzer may change, with valid and invalid values.
ARGUMENTS: dict[str, Any] = {
    "average": st.sampled_from(["micro", "macro", "weighted", "none", None, "mean"]),
    "threshold": st.sampled_from([0.0, 0.3, 0.5, 1.0, 1.5, -0.2]),
    "top_k": st.integers(1, 4),
    "ignore_index": st.sampled_from([None, None, -1, 0, 1, 7]),
    "thresholds": st.sampled_from([None, None, 3, 11, [0.0, 0.4, 1.0], [0.5, 0.2], 1]),
    "multidim_average": st.sampled_from(["global", "global", "samplewise"]),
    "zero_division": st.sampled_from([0, 1]),
    "normalize": st.sampled_from([None, "true", "pred", "all", "rows"]),
    "beta": st.sampled_from([0.5, 2.0, 0.0]),
    "min_recall": st.sampled_from([0.0, 0.5, 1.0, 1.5]),
    "min_precision": st.sampled_from([0.0, 0.5, 1.0]),
    "min_specificity": st.sampled_from([0.0, 0.5, 1.0]),
    "min_sensitivity": st.sampled_from([0.0, 0.5, 1.0]),
    "max_fpr": st.sampled_from([None, 0.5, 1.0, 0.0]),
    "n_bins": st.integers(1, 6),
    "norm": st.sampled_from(["l1", "l2", "max"]),
    "squared": st.booleans(),
    "multiclass_mode": st.sampled_from(["crammer-singer", "one-vs-all"]),
    "fpr_range": st.sampled_from([(0.001, 0.1), (0.0, 1.0), (0.2, 0.5)]),
    "weights": st.sampled_from([None, "linear", "quadratic"]),
    "multioutput": st.sampled_from(["raw_values", "uniform_average", "variance_weighted"]),
    "adjusted": st.sampled_from([0, 0, 1, 3]),
    "reduction": st.sampled_from(["mean", "sum", "none"]),
    "p": st.sampled_from([1.0, 2.0, 3.5, 0.5]),
    "power": st.sampled_from([0.0, 1.0, 1.5, 2.0, 3.0]),
    "variant": st.sampled_from(["a", "b", "c"]),
    "t_test": st.booleans(),
    "normalization": st.sampled_from(["mean", "range", "std", "l2"]),
    "nan_strategy": st.sampled_from(["error", "warn", "ignore", 0.0]),
    "window": st.integers(1, 4),
    "empty_target_action": st.sampled_from(["neg", "pos", "skip", "error"]),
    "aggregation": st.sampled_from(["mean", "median", "min", "max"]),
    "adaptive_k": st.booleans(),
    "max_k": st.sampled_from([None, 1, 3, 10]),
}
SIZE_ARGUMENTS = ("num_classes", "num_labels", "num_outputs")  # the data follows these


def _accepted(entry: Entry) -> set[str]:
    cls = getattr(importlib.import_module(f"lightning_metrics.{entry.package}"), entry.name)
    target = cls.__new__ if "__new__" in cls.__dict__ else cls.__init__
    return set(inspect.signature(target).parameters)


@st.composite
def metric_cases(draw: Any, keys: list[str]) -> tuple[Entry, dict, list[tuple], torch.dtype, str]:
    """A public class, its (possibly invalid) arguments and uneven batches with faults."""
    entry = ENTRIES[draw(st.sampled_from(keys))]
    kwargs = dict(entry.kwargs)
    accepted = _accepted(entry) if entry.package != "wrappers" else set()
    if "num_outputs" in accepted and entry.kind in ("real", "real2"):
        kwargs["num_outputs"] = draw(st.sampled_from([1, 2]))
    for name in sorted(accepted & set(ARGUMENTS)):
        if draw(st.booleans()):
            kwargs[name] = draw(ARGUMENTS[name])
    kind = entry.kind
    if kind == "real" and kwargs.get("num_outputs", 1) == 2:
        kind = "real2"
    if kwargs.get("multidim_average") == "samplewise" and kind == "multiclass":
        kind = "multiclass_2d"
    dtype = draw(st.sampled_from(DTYPES))
    fault = draw(
        st.sampled_from(["none"] * 6 + ["nan", "label", "ties", "logits", "int_preds", "ignored", "constant"])
    )
    sizes = draw(st.lists(st.integers(0, 9), min_size=1, max_size=3))
    seed = draw(st.integers(0, 2**16))
    gen = torch.Generator().manual_seed(seed)
    data = [_apply_fault(make_batch(kind, n, gen, torch.float64), fault, kwargs, kind, gen) for n in sizes]
    data = [
        tuple(t.to(dtype) if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in b)
        for b in data
    ]
    return entry, kwargs, data, dtype, fault


def _apply_fault(batch: tuple, fault: str, kwargs: dict, kind: str, gen: torch.Generator) -> tuple:
    if kind in ("values", "multitask") or not batch[0].numel():
        return batch
    preds, target = batch[0].clone(), batch[1].clone()
    classification = kind in ("binary", "multiclass", "multiclass_2d", "multilabel")
    if fault == "nan":
        preds.view(-1)[0] = float("nan")
    elif fault == "label" and classification:
        target.view(-1)[0] = 2 if kind in ("binary", "multilabel") else 9
    elif fault == "ties":
        preds = (preds * 4).round() / 4
    elif fault == "logits" and classification:
        preds = (preds - 0.5) * 12
    elif fault == "int_preds" and classification:
        preds = preds.argmax(1) if kind.startswith("multiclass") else (preds > 0.5).long()
    elif fault == "ignored" and classification and kwargs.get("ignore_index") is not None:
        target.view(-1)[: max(1, target.numel() // 3)] = kwargs["ignore_index"]
    elif fault == "constant":
        target = torch.zeros_like(target) if classification else torch.full_like(target, 1.5)
    return (preds, target, *batch[2:])


def _names_an_argument(message: str) -> bool:
    return bool(re.search(r"`[A-Za-z_][\w.]*`", message)) or "Argument" in message


class ComputeError(Exception):
    """An error raised by ``compute`` (after every update was accepted)."""


def _run(lib: Any, entry: Entry, kwargs: dict, data: list[tuple]) -> Any:
    build = Entry(entry.key, entry.package, entry.name, entry.kind, kwargs)
    torch.manual_seed(0)
    metric = build.build(lib)
    for batch in data:
        torch.manual_seed(1)
        metric.update(*batch)
    try:
        return metric.compute()
    except ERRORS as err:
        raise ComputeError(err) from err


CURVE_NAMES = set(lm.classification._curves.__all__)
WINDOWED = {"RunningMean", "RunningSum", "Running"}  # a window counts update calls, empty or not


def _non_empty(batch: tuple) -> bool:
    first = batch[0]
    if isinstance(first, dict):
        return all(v.numel() for v in first.values())
    return not isinstance(first, torch.Tensor) or first.numel() > 0


def _to_float64(batch: tuple) -> tuple:
    def cast(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: cast(v) for k, v in value.items()}
        return value.double() if isinstance(value, torch.Tensor) and value.is_floating_point() else value

    return tuple(cast(v) for v in batch)


def _close(ours: Any, oracle: Any, dtype: torch.dtype) -> bool:
    try:
        assert_close(ours, oracle, *TOLERANCE[dtype])
    except AssertionError:
        return False
    return True


def _known_deviation(entry: Entry, kwargs: dict, data: list[tuple]) -> bool:
    """Where we differ from torchmetrics 1.9 on purpose:

    - its modular NPV ignores ``zero_division`` (its functional honours it, as we do);
    - it weights multilabel samplewise stat scores by the support of all samples;
    - its binned multiclass curves with ``average="micro"`` keep a class axis (ROC, EER) or fail
      (PR curve), against its documentation; ours are the curves of the flattened one-hot problem,
      equal to its binary metrics on that problem;
    - binned curves that saw no sample at all (other shapes there too);
    - NRMSE with ``normalization="std"`` of a constant target: the std is 0 and ours is inf, where
      its float32 running sums leave a rounding residue and a large finite number;
    - generalized Dice when a sample's target lacks a class: its weight is 0 here, where torchmetrics
      fills it from the other samples of the batch (``functional/segmentation/overlap.py``).
    - retrieval queries with a score shared by relevant and non-relevant documents (NaNs alike):
      its order among ties is its sort's (topk, argsort) and differs between measures; ours ranks
      the non-relevant one first, whatever the order documents arrive in.
    """
    if entry.package == "retrieval" and _retrieval_ties_across_relevance(data, kwargs.get("ignore_index")):
        return True
    if "NegativePredictiveValue" in entry.name and kwargs.get("zero_division"):
        return True
    if "Multilabel" in entry.name and (kwargs.get("multidim_average"), kwargs.get("average")) == (
        "samplewise",
        "weighted",
    ):
        return True
    binned_curve = entry.name in CURVE_NAMES and bool(kwargs.get("thresholds"))
    if binned_curve and (kwargs.get("average") == "micro" or not any(_non_empty(b) for b in data)):
        return True
    if entry.name == "GeneralizedDiceScore" and kwargs.get("weight_type", "square") != "linear":
        classes = kwargs["num_classes"]
        return any(len(t.reshape(-1).unique()) < classes for b in data if _non_empty(b) for t in b[1])
    if entry.name == "NormalizedRootMeanSquaredError" and kwargs.get("normalization") == "std":
        targets = [b[1].reshape(len(b[1]), -1) for b in data if _non_empty(b)]
        return bool(targets) and bool((torch.cat(targets) == targets[0][:1]).all())
    return False


def _retrieval_ties_across_relevance(data: list[tuple], ignore_index: Any) -> bool:
    groups: dict[tuple, set] = {}
    for preds, target, indexes in (b for b in data if _non_empty(b)):
        for p, t, i in zip(preds.float().tolist(), target.tolist(), indexes.tolist()):
            if t != ignore_index:
                score = "nan" if p != p else p
                groups.setdefault((i, score), set()).add(t > 0)
    return any(len(kinds) > 1 for kinds in groups.values())


def _check(entry: Entry, kwargs: dict, data: list[tuple], dtype: torch.dtype, fault: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ours = _run(lm, entry, kwargs, data)
        except ERRORS as err:
            assert _names_an_argument(str(err)), (
                f"{entry.name}({kwargs}): error without an argument name: {err!r}"
            )
            OUTCOMES["documented error"] += 1
            event("documented error")
            return
        except ComputeError as wrapped:
            err = wrapped.__cause__
            assert isinstance(err, ERRORS) and (_names_an_argument(str(err)) or "sample" in str(err)), (
                f"{entry.name}({kwargs}): compute error names no argument and no lack of samples: {err!r}"
            )
            OUTCOMES["documented error"] += 1
            event("documented error (compute)")
            return
        # empty batches are no-ops here (torchmetrics may fail on them, or count them), except in windows
        fed = data if entry.name in WINDOWED else [b for b in data if _non_empty(b)]
        try:
            oracle = _run(torchmetrics, entry, kwargs, fed)
        except Exception:  # noqa: BLE001 - torchmetrics cannot do it: we returned a value, checked below
            oracle = None
        if (
            dtype in (torch.float16, torch.bfloat16)
            and oracle is not None
            and not _close(ours, oracle, dtype)
        ):
            # torchmetrics' half arithmetic drifts (sums, variances): then the exact answer for these
            # values is the oracle (float64 copies); a half result may still overflow where it does
            try:
                oracle = _run(torchmetrics, entry, kwargs, [_to_float64(b) for b in fed])
            except Exception:  # noqa: BLE001
                oracle = None
        if oracle is None:
            OUTCOMES["oracle failed, ours returned"] += 1
            event("oracle failed")
            return
        if _known_deviation(entry, kwargs, data):
            OUTCOMES["known torchmetrics deviation"] += 1
            event("known deviation")
            return
    rtol, atol = TOLERANCE[dtype]
    assert_close(
        ours, oracle, rtol=rtol, atol=atol, path=f"{entry.name}({kwargs}) fault={fault} dtype={dtype}"
    )
    OUTCOMES["equal to the oracle"] += 1
    event("equal to the oracle")


def _keys(package: str, predicate: Any = lambda e: True) -> list[str]:
    return sorted(k for k, e in ENTRIES.items() if e.package == package and predicate(e))


COUNT_KEYS = _keys("classification", lambda e: e.name in lm.classification._counting.__all__)
CURVE_KEYS = _keys("classification", lambda e: e.name in lm.classification._curves.__all__)
FAMILIES = {
    "classification counts": COUNT_KEYS,
    "classification curves": CURVE_KEYS,
    "regression": _keys("regression"),
    "aggregation": _keys("aggregation"),
    "wrappers": _keys("wrappers"),
    # torchmetrics' Hausdorff distance is wrong on non-square images and slow: tests/segmentation covers it
    "segmentation": _keys("segmentation", lambda e: e.kind == "seg_scores"),
    "retrieval": _keys("retrieval"),
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_fuzz_against_the_oracle(family: str) -> None:
    @fuzz_settings()
    @given(metric_cases(FAMILIES[family]))
    def run(case: tuple) -> None:
        _check(*case)

    run()


@fuzz_settings()
@given(
    names=st.lists(
        st.sampled_from(
            [
                "MulticlassAccuracy",
                "MulticlassF1Score",
                "MulticlassPrecision",
                "MulticlassConfusionMatrix",
                "MulticlassAUROC",
                "MulticlassAveragePrecision",
                "MulticlassCohenKappa",
                "MulticlassMatthewsCorrCoef",
            ]
        ),
        min_size=1,
        max_size=4,
        unique=True,
    ),
    average=st.sampled_from(["micro", "macro", "weighted", None]),
    ignore_index=st.sampled_from([None, -1]),
    sizes=st.lists(st.integers(0, 9), min_size=1, max_size=3).filter(any),
    seed=st.integers(0, 2**16),
)
def test_fuzz_collections_match_the_metrics_alone(
    names: list[str], average: Any, ignore_index: Any, sizes: list[int], seed: int
) -> None:
    """A collection (shared compute groups) gives what each torchmetrics metric gives alone."""

    def build(lib: Any, name: str) -> Any:
        cls = getattr(lib.classification, name)
        kwargs = {"num_classes": 3, "ignore_index": ignore_index}
        if (
            "average" in inspect.signature(cls.__init__).parameters
            and "AUROC" not in name
            and "Average" not in name
        ):
            kwargs["average"] = average
        return cls(**kwargs)

    gen = torch.Generator().manual_seed(seed)
    data = [make_batch("multiclass", n, gen) for n in sizes]
    if ignore_index is not None:
        for _, target in data:
            target[: len(target) // 3] = ignore_index
    collection = lm.MetricCollection({n: build(lm, n) for n in names})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for batch in data:
            collection.update(*batch)
        ours = collection.compute()
        for name in names:
            oracle = build(torchmetrics, name)
            non_empty = [b for b in data if b[0].numel()]
            for batch in non_empty:
                oracle.update(*batch)
            if non_empty:
                assert_close(ours[name], oracle.compute(), rtol=1e-5, atol=1e-6, path=name)
    OUTCOMES["collection equal to the metrics alone"] += 1


def teardown_module() -> None:
    print(f"\nfuzz outcomes: {dict(OUTCOMES)}")
