"""Bad-input catalogue: every rejected call names the argument and the offending value, and
leaves the metric exactly as it was.

A case is a metric factory, the kind of its good batches and either a bad batch (a function of
a good batch) or a constructor that must fail. For update cases the test feeds a good batch,
the bad one (through ``update`` and, separately, through ``forward``), then a second good batch,
and compares ``compute()`` bit for bit with a fresh metric fed only the two good batches. So a
half-applied batch, a bumped update count or a poisoned cache all fail the case.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import torch
import torchmetrics

import lightning_metrics as lm
from tests._bad_input import update_count
from tests.reliability._registry import ENTRIES, TEXT_KINDS, assert_identical, batches, make_batch

C = 3
ERRORS = (ValueError, TypeError, RuntimeError)
from tests.reliability._bad_cases import COUNTS, CURVES, INF, Case
from tests.reliability._bad_cases_more import AGGREGATION, COLLECTION, REGRESSION, WRAPPERS

CASES = COUNTS + CURVES + REGRESSION + AGGREGATION + WRAPPERS + COLLECTION


# ------------------------------------------------------------------ the checks
def _good(case: Case) -> list[tuple]:
    return batches(case.kind, (6, 5), seed=sum(map(ord, case.id)))


def _check_message(err: BaseException, case: Case) -> None:
    message = str(err)
    assert message, f"{case.id}: empty message"
    assert "`" in message or any(n in message for n in case.needles), message
    for needle in case.needles:
        assert needle in message, f"{case.id}: {needle!r} not in message {message!r}"


def _fresh_result(case: Case, good: list[tuple]) -> Any:
    metric = case.build()
    for batch in good:
        metric.update(*batch)
    return metric.compute()


def test_catalogue_size() -> None:
    families = {c.family for c in CASES}
    assert families == {"counts", "curves", "regression", "aggregation", "wrappers", "collection"}
    assert len(CASES) >= 40
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", [c for c in CASES if c.is_constructor], ids=lambda c: f"{c.family}:{c.id}")
def test_bad_constructor(case: Case) -> None:
    with pytest.raises(ERRORS) as info:
        case.build()
    _check_message(info.value, case)


@pytest.mark.parametrize("mode", ["update", "forward"])
@pytest.mark.parametrize(
    "case", [c for c in CASES if not c.is_constructor], ids=lambda c: f"{c.family}:{c.id}"
)
def test_bad_batch_leaves_state_unchanged(case: Case, mode: str) -> None:
    good = _good(case)
    bad = case.bad(good[0])
    metric = case.build()
    metric.update(*good[0])
    before_count = update_count(metric)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. nan_strategy="warn" is not what these cases test
        with pytest.raises(ERRORS) as info:
            metric.update(*bad) if mode == "update" else metric(*bad)
    _check_message(info.value, case)
    assert update_count(metric) == before_count, f"{case.id}: the rejected batch was counted"
    metric.update(*good[1])
    assert_identical(metric.compute(), _fresh_result(case, good))


# ------------------------------------------------------------------ infinite scores
# Infinite scores are not bad input: they are logits (a masked class scores -inf), squashed by a
# sigmoid or softmax as in torchmetrics. Infinite regression values propagate as in torchmetrics.
INFINITE = [
    ("BinaryAccuracy", (torch.tensor([INF, -INF, 0.3, 2.0]), torch.tensor([1, 0, 0, 1]))),
    ("BinaryAUROC", (torch.tensor([INF, -INF, 0.3, 2.0]), torch.tensor([1, 0, 0, 1]))),
    (
        "MultilabelF1Score",
        (torch.tensor([[INF, -INF, 1.0], [-2.0, 3.0, -INF]]), torch.tensor([[1, 0, 1], [0, 1, 1]])),
    ),
    ("MeanAbsoluteError", (torch.tensor([INF, 1.0]), torch.tensor([0.0, 1.0]))),
    ("MaxMetric", (torch.tensor([1.0, INF]),)),
]


@pytest.mark.parametrize(("key", "batch"), INFINITE, ids=[k for k, _ in INFINITE])
def test_infinite_scores_are_logits_not_errors(key: str, batch: tuple) -> None:
    entry = ENTRIES[key]
    ours, oracle = entry.build(), entry.build(torchmetrics)
    ours.update(*batch)
    oracle.update(*batch)
    torch.testing.assert_close(ours.compute(), oracle.compute(), equal_nan=True, check_dtype=False)


# ------------------------------------------------------------------ empty batches
# Windowed metrics count update calls, as torchmetrics does: an empty batch takes a window slot.
WINDOWED = {"RunningMean", "RunningSum", "Running"}


@pytest.mark.parametrize("key", sorted(ENTRIES))
def test_empty_batch_is_a_no_op(key: str) -> None:
    """Empty batches before, between and after good ones change nothing and never cause a NaN."""
    entry = ENTRIES[key]
    good = batches(entry.kind, (6, 5), seed=3)
    empty = make_batch(entry.kind, 0, torch.Generator().manual_seed(0))
    lib = torchmetrics if entry.name in WINDOWED else lm
    torch.manual_seed(0)
    metric, reference = entry.build(), entry.build(lib)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.manual_seed(1)
        metric.update(*empty)
        for batch in good:
            metric.update(*batch)
            metric.update(*empty)
        torch.manual_seed(1)
        for batch in good:
            if entry.name in WINDOWED:
                reference.update(*empty)
            reference.update(*batch)
        if entry.name in WINDOWED:
            reference.update(*empty)
    assert_identical(metric.compute(), reference.compute()) if lib is lm else torch.testing.assert_close(
        metric.compute(), reference.compute()
    )


# ------------------------------------------------------------------ devices
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a second device (CUDA)")
@pytest.mark.parametrize(
    "key", ["MulticlassAccuracy", "MultilabelF1Score", "BinaryAUROC[thresholds=5]", "MeanSquaredError"]
)
def test_cpu_metric_fed_tensors_on_another_device(key: str) -> None:
    entry = ENTRIES[key]
    good = batches(entry.kind, (6, 5), seed=4)
    metric = entry.build()
    metric.update(*good[0])
    bad = tuple(t.cuda() for t in good[1])
    with pytest.raises(ERRORS) as info:
        metric.update(*bad)
    message = str(info.value)
    assert "cuda" in message or "device" in message, message
    metric.update(*good[1])
    assert_identical(metric.compute(), _fresh_result(Case(key, "device", entry.build), good))


# ------------------------------------------------------------------ validation behind validate_args
# Always-on value checks that read a tensor back (a host sync), with the reason they are kept.
ALWAYS_CHECKED = {
    "MeanSquaredLogError": "negative inputs are rejected (the torchmetrics API has no validate_args here)",
    "TweedieDevianceScore": "the domain of `power` is checked, as torchmetrics does",
    # a label outside [0, num_classes) would land in another cell of the fixed table
    "CramersV": "labels are checked against num_classes (torchmetrics' API has no validate_args here)",
    "PearsonsContingencyCoefficient": "labels are checked against num_classes (no validate_args in the API)",
    "TheilsU": "labels are checked against num_classes (no validate_args in the API)",
    "TschuprowsT": "labels are checked against num_classes (no validate_args in the API)",
    "ClusterAccuracy": "labels are checked against num_classes, as torchmetrics' confusion matrix does",
    "Perplexity": "target classes outside the vocabulary (the index would fault on an accelerator) and NaN "
    "logits are rejected, in one read",
    "PanopticQuality": "unknown predicted categories raise, as torchmetrics; segments are found with unique",
    "ModifiedPanopticQuality": "unknown predicted categories raise, as torchmetrics; segments are found with unique",
}
HOST_READS = ("item", "tolist", "__bool__", "nonzero", "unique")


@pytest.mark.parametrize("key", sorted(k for k, e in ENTRIES.items() if e.package != "wrappers"))
def test_no_host_read_in_update_without_validation(key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``validate_args=False`` (and ``nan_strategy="disable"``) ``update`` never reads a value back."""
    from lightning_metrics.functional.classification import _scores

    entry = ENTRIES[key]
    if entry.name in ALWAYS_CHECKED:
        pytest.skip(ALWAYS_CHECKED[entry.name])
    if entry.kind in TEXT_KINDS:
        pytest.skip("strings are tokenised on the host: the tensors read back are CPU tensors of that batch")
    metric = entry.unchecked().build()
    good = batches(entry.kind, (6, 5), seed=0)
    metric.update(*good[0])
    monkeypatch.setattr(_scores, "CPU_HOST_BRANCH", False)  # the accelerator path (CPU may branch for free)

    def forbid(*args: Any, **kwargs: Any) -> None:
        raise AssertionError(f"{key}: update read a tensor value back to the host")

    for name in HOST_READS:
        monkeypatch.setattr(torch.Tensor, name, forbid)
    metric.update(*good[1])
