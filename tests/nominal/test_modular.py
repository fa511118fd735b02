"""The nominal classes as states: streaming, merging, forward, one shared table in a collection, and
bad input (errors that name the argument and value, state untouched). Two-process sync of the nominal
metrics runs with the clustering ones in ``tests/clustering/test_distributed.py`` (one spawn)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

import lightning_metrics.functional.nominal as lmf
import lightning_metrics.nominal as lmn
from lightning_metrics import MetricCollection
from lightning_metrics.functional import _contingency
from tests._bad_input import assert_raises_naming, assert_rejected_untouched
from tests.nominal._cases import ASSOCIATIONS, nominal_cases
from tests.reliability._registry import assert_identical

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CASES = {c.id: c for c in nominal_cases()}


def _metrics(num_classes: int, **nan: Any) -> dict[str, Any]:
    return {
        "v": lmn.CramersV(num_classes=num_classes, **nan),
        "v_raw": lmn.CramersV(num_classes=num_classes, bias_correction=False, **nan),
        "t": lmn.TschuprowsT(num_classes=num_classes, **nan),
        "p": lmn.PearsonsContingencyCoefficient(num_classes=num_classes, **nan),
        "u": lmn.TheilsU(num_classes=num_classes, **nan),
    }


@pytest.mark.parametrize(
    "case_id", ["associated-150-5", "floats-with-nan", "tied-scores", "absent-categories"]
)
def test_many_updates_equal_one_update_and_the_function(case_id: str) -> None:
    case = CASES[case_id]
    nan = {"nan_strategy": "drop"} if case.has_nan else {}
    for metric in _metrics(case.num_classes, **nan).values():
        whole = type(metric)(
            **{k: getattr(metric, k) for k in ("num_classes", "nan_strategy", "nan_replace_value")},
            **({"bias_correction": metric.bias_correction} if hasattr(metric, "bias_correction") else {}),
        )
        for preds, target in case.batches():
            metric.update(preds, target)
        whole.update(case.preds, case.target)
        assert_identical(metric.compute(), whole.compute())
        fn = ASSOCIATIONS[type(metric).__name__][0]
        options = {"bias_correction": metric.bias_correction} if hasattr(metric, "bias_correction") else {}
        assert_identical(whole.compute(), getattr(lmf, fn)(case.preds, case.target, **nan, **options))


def test_merge_state_and_forward() -> None:
    case = CASES["associated-150-5"]
    for name in _metrics(5):
        a, b, whole, forwarded = (_metrics(5)[name] for _ in range(4))
        a.update(case.preds[:60], case.target[:60])
        b.update(case.preds[60:], case.target[60:])
        whole.update(case.preds, case.target)
        a.merge_state(b)
        assert_identical(a.compute(), whole.compute())
        batch_value = forwarded(case.preds[:60], case.target[:60])
        assert_identical(batch_value, _single(name, 5, case.preds[:60], case.target[:60]))
        forwarded(case.preds[60:], case.target[60:])
        assert_identical(forwarded.compute(), whole.compute())


def _single(name: str, num_classes: int, preds: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    metric = _metrics(num_classes)[name]
    metric.update(preds, target)
    return metric.compute()


def test_collection_shares_one_table_and_its_statistics(monkeypatch: pytest.MonkeyPatch) -> None:
    case = CASES["associated-150-5"]
    collection = MetricCollection(
        {**_metrics(5), "other": lmn.CramersV(num_classes=6), "dropped": lmn.TheilsU(5, nan_strategy="drop")}
    )
    groups = sorted(collection.compute_groups.values(), key=len)
    assert sorted(groups[-1]) == ["p", "t", "u", "v", "v_raw"] and len(groups) == 3
    collection.update(case.preds, case.target)
    built = []
    real = _contingency.TableStats.__init__
    monkeypatch.setattr(
        _contingency.TableStats, "__init__", lambda self, table: built.append(1) or real(self, table)
    )
    values = collection.compute()
    assert len(built) == 3  # one per table, not one per metric
    for name, metric in _metrics(5).items():
        metric.update(case.preds, case.target)
        assert_identical(values[name], metric.compute())


def test_table_is_int64_and_exact_past_float32() -> None:
    metric = lmn.CramersV(num_classes=2, bias_correction=False)
    metric.confmat = torch.tensor([[2**25, 3], [1, 2**25 + 1]])  # float32 cannot hold these counts
    metric._update_count = 1
    metric.update(torch.tensor([1]), torch.tensor([1]))
    assert metric.confmat.dtype == torch.int64 and metric.confmat[1, 1].item() == 2**25 + 2
    assert 0.99 < metric.compute().item() <= 1.0


# ------------------------------------------------------------------ bad input
GOOD = [
    (torch.tensor([0, 1, 2, 2, 1]), torch.tensor([0, 1, 1, 2, 2])),
    (torch.tensor([1, 0, 2]), torch.tensor([1, 0, 0])),
]
BAD = {
    "preds above num_classes": (
        (torch.tensor([0, 3]), torch.tensor([0, 1])),
        ("`preds`", "`num_classes`=3", "[3]"),
    ),
    "negative target": ((torch.tensor([0, 1]), torch.tensor([-1, 1])), ("`target`", "[-1]")),
    "replaced NaN out of range": (
        (torch.tensor([0.0, float("nan")]), torch.tensor([0, 1])),
        ("`preds`", "[7]"),
    ),
    "length mismatch": ((torch.tensor([0, 1, 2]), torch.tensor([0, 1])), ("`preds`", "3", "2")),
    "3-D preds": ((torch.zeros(2, 3, 1), torch.tensor([0, 1])), ("`preds`", "(2, 3, 1)")),
    "not a tensor": (([0, 1], torch.tensor([0, 1])), ("`preds`", "list")),
}


@pytest.mark.parametrize("mode", ["update", "forward"])
@pytest.mark.parametrize("bad", sorted(BAD))
def test_bad_batches_leave_the_state_untouched(bad: str, mode: str) -> None:
    batch, needles = BAD[bad]
    builds: list[Callable[[], Any]] = [
        lambda cls=cls: getattr(lmn, cls)(num_classes=3, nan_replace_value=7) for cls in ASSOCIATIONS
    ] + [lambda: MetricCollection(_metrics(3, nan_replace_value=7))]
    for build in builds:
        assert_rejected_untouched(build, GOOD, batch, needles=needles, modes=(mode,))


@pytest.mark.parametrize(
    ("build", "needles"),
    [
        (lambda: lmn.CramersV(num_classes=0), ("`num_classes`", "0")),
        (lambda: lmn.TheilsU(num_classes="3"), ("`num_classes`", "'3'")),
        (lambda: lmn.CramersV(num_classes=3, nan_strategy="ignore"), ("`nan_strategy`", "'ignore'")),
        (lambda: lmn.TschuprowsT(num_classes=3, nan_replace_value=None), ("`nan_replace_value`", "None")),
        (
            lambda: lmn.PearsonsContingencyCoefficient(num_classes=3, nan_replace_value="0"),
            ("`nan_replace_value`", "'0'"),
        ),
        (lambda: lmn.CramersV(num_classes=3, bias_correction="yes"), ("`bias_correction`", "'yes'")),
        (
            lambda: lmf.theils_u(torch.tensor([0]), torch.tensor([0]), nan_strategy="zero"),
            ("`nan_strategy`", "'zero'"),
        ),
        (lambda: lmf.cramers_v_matrix(torch.zeros(3)), ("`matrix`", "(3,)")),
    ],
)
def test_bad_arguments(build: Callable[[], Any], needles: tuple) -> None:
    assert_raises_naming(build, needles)


def test_drop_needs_no_replace_value() -> None:
    metric = lmn.CramersV(num_classes=3, nan_strategy="drop", nan_replace_value=None)
    metric.update(torch.tensor([0.0, 1.0, float("nan"), 2.0]), torch.tensor([0.0, 1.0, 2.0, float("nan")]))
    assert int(metric.confmat.sum()) == 2
