"""Bad input to the clustering metrics: a clear error naming the argument and the value, and the state
exactly as it was (checked bit for bit against a metric fed only the good batches)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

import lightning_metrics.clustering as lmc
import lightning_metrics.functional.clustering as lmf
from lightning_metrics import MetricCollection
from tests._bad_input import assert_raises_naming, assert_rejected_untouched
from tests.reliability._registry import assert_identical

GOOD_LABELS = [
    (torch.tensor([0, 1, 1, 2, 0]), torch.tensor([1, 1, 0, 2, 2])),
    (torch.tensor([2, 2, 0]), torch.tensor([0, 1, 1])),
]
GOOD_EMBEDDINGS = [
    (torch.randn(6, 3), torch.tensor([0, 1, 2, 0, 1, 2])),
    (torch.randn(4, 3), torch.tensor([2, 2, 0, 1])),
]

BAD_LABELS = {
    "float preds": ((torch.tensor([0.0, 1.0]), torch.tensor([0, 1])), ("`preds`", "torch.float32")),
    "float target": ((torch.tensor([0, 1]), torch.tensor([0.5, 1.0])), ("`target`", "torch.float32")),
    "2-D preds": ((torch.zeros(2, 2, dtype=torch.long), torch.tensor([0, 1])), ("`preds`", "(2, 2)")),
    "shape mismatch": ((torch.tensor([0, 1, 2]), torch.tensor([0, 1])), ("(3,)", "(2,)")),
    "not a tensor": (([0, 1], torch.tensor([0, 1])), ("`preds`", "list")),
}
BAD_EMBEDDINGS = {
    "integer data": (
        (torch.zeros(3, 2, dtype=torch.long), torch.tensor([0, 1, 1])),
        ("`data`", "torch.int64"),
    ),
    "1-D data": ((torch.zeros(3), torch.tensor([0, 1, 1])), ("`data`", "(3,)")),
    "float labels": ((torch.zeros(3, 2), torch.tensor([0.0, 1.0, 1.0])), ("`labels`", "torch.float32")),
    "sample mismatch": ((torch.zeros(3, 2), torch.tensor([0, 1])), ("3", "2")),
}


def _label_classes() -> dict[str, Callable[[], Any]]:
    out: dict[str, Callable[[], Any]] = {
        name: getattr(lmc, name) for name in lmc.labels.__all__ if name != "ClusterAccuracy"
    }
    out["ClusterAccuracy"] = lambda: lmc.ClusterAccuracy(num_classes=3)
    out["collection"] = lambda: MetricCollection(
        {"ami": lmc.AdjustedMutualInfoScore(), "acc": lmc.ClusterAccuracy(num_classes=3)}
    )
    return out


@pytest.mark.parametrize("mode", ["update", "forward"])
@pytest.mark.parametrize("bad", sorted(BAD_LABELS))
def test_bad_labels_leave_every_label_metric_untouched(bad: str, mode: str) -> None:
    batch, needles = BAD_LABELS[bad]
    for build in _label_classes().values():
        assert_rejected_untouched(build, GOOD_LABELS, batch, needles=needles, modes=(mode,))


@pytest.mark.parametrize("mode", ["update", "forward"])
@pytest.mark.parametrize("bad", sorted(BAD_EMBEDDINGS))
def test_bad_embeddings_leave_the_metric_untouched(bad: str, mode: str) -> None:
    batch, needles = BAD_EMBEDDINGS[bad]
    for name in lmc.embeddings.__all__:
        assert_rejected_untouched(getattr(lmc, name), GOOD_EMBEDDINGS, batch, needles=needles, modes=(mode,))


def test_labels_outside_num_classes_are_rejected() -> None:
    bad = (torch.tensor([0, 3]), torch.tensor([0, 1]))
    assert_rejected_untouched(
        lambda: lmc.ClusterAccuracy(num_classes=3),
        GOOD_LABELS,
        bad,
        needles=("`preds`", "`num_classes`=3", "[3]"),
        modes=("update",),
    )
    bad = (torch.tensor([0, 1]), torch.tensor([-1, 1]))
    assert_rejected_untouched(
        lambda: lmc.ClusterAccuracy(num_classes=3),
        GOOD_LABELS,
        bad,
        needles=("`target`", "[-1]"),
        modes=("forward",),
    )
    with pytest.raises(ValueError, match=r"`num_classes`=2, got \[2\]"):
        lmf.cluster_accuracy(torch.tensor([0, 2]), torch.tensor([0, 1]), num_classes=2)


@pytest.mark.parametrize(
    ("build", "needles"),
    [
        (lambda: lmc.ClusterAccuracy(num_classes=0), ("`num_classes`", "0")),
        (lambda: lmc.ClusterAccuracy(num_classes=2.0), ("`num_classes`", "2.0")),
        (lambda: lmc.NormalizedMutualInfoScore(average_method="mean"), ("`average_method`", "'mean'")),
        (lambda: lmc.AdjustedMutualInfoScore(average_method=None), ("`average_method`", "None")),
        (lambda: lmc.VMeasureScore(beta=0.0), ("`beta`", "0.0")),
        (lambda: lmc.VMeasureScore(beta="1"), ("`beta`", "'1'")),
        (lambda: lmc.DunnIndex(p="2"), ("`p`", "'2'")),
        (lambda: lmc.RandScore(average_method="min"), ("unexpected keyword", "average_method")),
    ],
)
def test_bad_arguments_raise_at_construction(build: Callable[[], Any], needles: tuple) -> None:
    assert_raises_naming(build, needles)


def test_functions_check_like_the_classes() -> None:
    with pytest.raises(ValueError, match="`preds` must hold integer cluster labels"):
        lmf.rand_score(torch.tensor([0.0, 1.0]), torch.tensor([0, 1]))
    with pytest.raises(ValueError, match="`average_method`"):
        lmf.adjusted_mutual_info_score(torch.tensor([0, 1]), torch.tensor([0, 1]), average_method="median")
    with pytest.raises(ValueError, match="`beta`"):
        lmf.v_measure_score(torch.tensor([0, 1]), torch.tensor([0, 1]), beta=-1.0)
    with pytest.raises(ValueError, match="`data` must be floating point"):
        lmf.dunn_index(torch.zeros(3, 2, dtype=torch.long), torch.tensor([0, 1, 1]))


def test_integer_beta_is_accepted() -> None:
    """torchmetrics' class rejects ``beta=2`` (an int) but its function takes it; both take it here."""
    preds, target = GOOD_LABELS[0]
    assert_identical(lmc.VMeasureScore(beta=2)(preds, target), lmf.v_measure_score(preds, target, beta=2.0))
