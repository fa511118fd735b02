"""Exception classes: for each bad call, ours raises an instance of the class torchmetrics raises
(ours may subclass it), so ``except RuntimeError`` / ``except TorchMetricsUserError`` written for
torchmetrics keeps working. Messages differ, but name the argument and the value.

Every case runs the same call on torchmetrics and on ours side by side.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import pytest
import torch
import torchmetrics
import torchmetrics.utilities.exceptions as tm_exceptions

import lightning_metrics as lm
from lightning_metrics.utilities import exceptions

C = 3
_gen = torch.Generator().manual_seed(0)
BIN = (torch.rand(6, generator=_gen), torch.randint(0, 2, (6,), generator=_gen))
# every class occurs: torchmetrics detects out-of-range labels by counting distinct values
MC = (torch.randn(6, C, generator=_gen).softmax(-1), torch.tensor([0, 1, 2, 2, 1, 0]))
ML = (torch.rand(6, C, generator=_gen), torch.randint(0, 2, (6, C), generator=_gen))
REAL = (torch.randn(6, generator=_gen), torch.randn(6, generator=_gen))
REAL2 = (torch.randn(6, 2, generator=_gen), torch.randn(6, 2, generator=_gen))


def _set(t: torch.Tensor, index: Any, value: Any) -> torch.Tensor:
    t = t.clone() if not t.is_floating_point() or isinstance(value, float) else t.clone().float()
    t[index] = value
    return t


# id -> (call on a library: it must raise, the substrings the message of ours must hold)
CASES: dict[str, tuple[Callable[[Any], Any], tuple[str, ...]]] = {
    "binary shape mismatch": (
        lambda L: L.classification.BinaryAccuracy().update(BIN[0][:-1], BIN[1]),
        ("preds", "(5,)", "(6,)"),
    ),
    "binary target out of range": (
        lambda L: L.classification.BinaryPrecision().update(BIN[0], _set(BIN[1], 0, 2)),
        ("target", "2"),
    ),
    "binary fractional float target": (
        lambda L: L.classification.BinaryMatthewsCorrCoef().update(BIN[0], _set(BIN[1].float(), 1, 0.5)),
        ("target", "0.5"),
    ),
    "binary label preds out of range": (
        lambda L: L.classification.BinarySpecificity().update(torch.full((6,), 3), BIN[1]),
        ("preds", "3"),
    ),
    "confusion matrix: too many classes in target": (
        lambda L: L.classification.MulticlassConfusionMatrix(num_classes=C).update(MC[0], _set(MC[1], 0, 5)),
        ("target", "5"),
    ),
    "multiclass label preds out of range": (
        lambda L: L.classification.MulticlassConfusionMatrix(num_classes=C).update(torch.tensor([0, 1, 2, 7, 1, 0]), MC[1]),
        ("preds", "7"),
    ),
    "multiclass batch size mismatch": (
        lambda L: L.classification.MulticlassMatthewsCorrCoef(num_classes=C).update(MC[0], MC[1][:-2]),
        ("preds", "(6, 3)", "(4,)"),
    ),
    "multiclass class dimension of the wrong size": (
        lambda L: L.classification.MulticlassPrecision(num_classes=C).update(torch.cat([MC[0], MC[0][:, :1]], 1), MC[1]),
        ("preds", "(6, 4)"),
    ),
    "multilabel wrong number of labels": (
        lambda L: L.classification.MultilabelF1Score(num_labels=C).update(ML[0][:, :2], ML[1]),
        ("preds", "(6, 2)"),
    ),
    "multilabel target out of range": (
        lambda L: L.classification.MultilabelAccuracy(num_labels=C).update(ML[0], _set(ML[1], (0, 0), 2)),
        ("target", "2"),
    ),
    "average precision shape mismatch": (
        lambda L: L.classification.BinaryAveragePrecision().update(BIN[0], BIN[1][:-1]),
        ("preds", "(6,)", "(5,)"),
    ),
    "multilabel AUROC wrong number of labels": (
        lambda L: L.classification.MultilabelAUROC(num_labels=C).update(ML[0][:, :2], ML[1]),
        ("preds", "(6, 2)"),
    ),
    "multiclass ROC target out of range": (
        lambda L: L.classification.MulticlassROC(num_classes=C, thresholds=5).update(MC[0], _set(MC[1], 0, 3)),
        ("target", "3"),
    ),
    "mean squared error length mismatch": (
        lambda L: L.regression.MeanSquaredError().update(REAL[0], REAL[1][:-1]),
        ("preds", "target", "(6,)", "(5,)"),
    ),
    "mean absolute error length mismatch": (
        lambda L: L.regression.MeanAbsoluteError().update(REAL[0][:-2], REAL[1]),
        ("preds", "(4,)", "(6,)"),
    ),
    "mean squared error num_outputs mismatch": (
        lambda L: L.regression.MeanSquaredError(num_outputs=2).update(REAL2[0][:, :1].repeat(1, 3), REAL2[1][:, :1].repeat(1, 3)),
        ("num_outputs", "2", "(6, 3)"),
    ),
    "pearson num_outputs mismatch": (
        lambda L: L.regression.PearsonCorrCoef(num_outputs=2).update(REAL2[0][:, 0], REAL2[1][:, 0]),
        ("preds", "num_outputs", "(6,)"),
    ),
    "CRPS ensemble shape": (
        lambda L: L.regression.ContinuousRankedProbabilityScore().update(torch.randn(6, 4), REAL[1][:-1]),
        ("preds", "target", "(5,)"),
    ),
    "KL divergence shape mismatch": (
        lambda L: L.regression.KLDivergence().update(torch.rand(6, 4), torch.rand(6, 3)),
        ("(6, 4)", "(6, 3)"),
    ),
    "mean metric weight of another shape": (
        lambda L: L.aggregation.MeanMetric().update(REAL[0], torch.ones(7)),
        ("weight", "(7,)"),
    ),
    "mean metric NaN with nan_strategy=error": (
        lambda L: L.aggregation.MeanMetric(nan_strategy="error").update(torch.tensor([1.0, float("nan")])),
        ("value", "nan"),
    ),
    "multioutput wrapper with too few outputs": (
        lambda L: L.wrappers.MultioutputWrapper(L.regression.MeanSquaredError(), num_outputs=2).update(
            REAL2[0][:, :1], REAL2[1][:, :1]
        ),
        ("num_outputs", "2", "(6, 1)"),
    ),
    "minkowski p below one (class)": (lambda L: L.regression.MinkowskiDistance(p=0.5), ("p", "0.5")),
    "minkowski p below one (function)": (
        lambda L: L.functional.regression.minkowski_distance(REAL[0], REAL[1], p=0.5),
        ("p", "0.5"),
    ),
    "merge_state with full_state_update": (
        lambda L: L.aggregation.MaxMetric().merge_state(L.aggregation.MaxMetric()),
        ("merge_state",),
    ),
    "sync twice": (lambda L: _sync_twice(L), ("synced",)),
    "unsync twice": (lambda L: _unsync_twice(L), ("un-synced",)),
    "forward while synced": (lambda L: _forward_synced(L), ("synced",)),
}


def _echo_gather(tensor: torch.Tensor, group: Any = None) -> list[torch.Tensor]:
    return [tensor]


def _synced_metric(L: Any) -> Any:
    metric = L.aggregation.SumMetric()
    metric.update(torch.tensor(1.0))
    metric.sync(dist_sync_fn=_echo_gather, distributed_available=lambda: True)
    return metric


def _sync_twice(L: Any) -> None:
    _synced_metric(L).sync(dist_sync_fn=_echo_gather, distributed_available=lambda: True)


def _unsync_twice(L: Any) -> None:
    metric = _synced_metric(L)
    metric.unsync()
    metric.unsync()


def _forward_synced(L: Any) -> None:
    _synced_metric(L)(torch.tensor(2.0))


def _ours_of(cls: type) -> type:
    """The class ours must be an instance of: ours for torchmetrics' own classes, else the same."""
    if cls.__module__ == tm_exceptions.__name__:
        return getattr(exceptions, cls.__name__)
    return cls


def _raised(call: Callable[[], Any]) -> BaseException:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            call()
        except Exception as err:  # noqa: BLE001 (any class: that is what is compared)
            return err
    pytest.fail("the call did not raise")


@pytest.mark.parametrize("case", sorted(CASES))
def test_ours_raises_an_instance_of_the_class_torchmetrics_raises(case: str) -> None:
    call, needles = CASES[case]
    theirs = _raised(lambda: call(torchmetrics))
    ours = _raised(lambda: call(lm))
    assert isinstance(ours, _ours_of(type(theirs))), (
        f"{case}: torchmetrics raises {type(theirs).__name__}, ours {type(ours).__name__}: {ours}"
    )
    for needle in needles:
        assert needle in str(ours), f"{case}: {needle!r} not in {str(ours)!r}"


def test_torchmetrics_names_and_bases() -> None:
    for name in ("TorchMetricsUserError", "TorchMetricsUserWarning"):
        ours, theirs = getattr(exceptions, name), getattr(tm_exceptions, name)
        assert ours.__bases__[0].__name__ == theirs.__bases__[0].__name__
        assert ours.__bases__ == theirs.__bases__
    # the classes ours raises are the torchmetrics class and the built-in one a reader expects
    assert issubclass(exceptions.MetricUserError, (exceptions.TorchMetricsUserError, RuntimeError))
    assert issubclass(exceptions.MetricInputError, ValueError) and issubclass(exceptions.MetricInputError, RuntimeError)
    assert issubclass(exceptions.MetricArgumentError, exceptions.TorchMetricsUserError)
    assert lm.metric.MetricUserError is exceptions.MetricUserError
