"""MetricTracker parity with torchmetrics 1.9: single metrics and collections, maximize, best steps."""

from __future__ import annotations

import pytest
import torch
import torchmetrics
import torchmetrics.wrappers as tw

import lightning_metrics as lm
import lightning_metrics.wrappers as lw
from tests.wrappers._cases import (
    CLASSIFICATION_PAIRS,
    SCALAR_PAIRS,
    assert_same,
    multiclass_batches,
    regression_batches,
)

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _run(ours, theirs, epochs=4, use_forward=False, make=regression_batches):
    for epoch in range(epochs):
        ours.increment(), theirs.increment()
        for batch in make(seed=10 + epoch):
            if use_forward:
                assert_same(ours(*batch), theirs(*batch))
            else:
                ours.update(*batch), theirs.update(*batch)
        assert_same(ours.compute(), theirs.compute(), path=f"epoch {epoch}")
    assert ours.n_steps == theirs.n_steps == epochs
    assert_same(ours.compute_all(), theirs.compute_all(), path="compute_all")
    assert_same(ours.best_metric(), theirs.best_metric(), path="best")
    assert_same(ours.best_metric(return_step=True), theirs.best_metric(return_step=True), path="best+step")


@pytest.mark.parametrize("maximize", [None, True, False])
@pytest.mark.parametrize("base", ["mse", "r2", "spearman"])
def test_tracker_single_metric(base, maximize):
    ours_base, theirs_base = SCALAR_PAIRS[base]()
    ours, theirs = lw.MetricTracker(ours_base, maximize=maximize), tw.MetricTracker(theirs_base, maximize=maximize)
    assert ours.maximize == theirs.maximize
    _run(ours, theirs, use_forward=base == "mse")


@pytest.mark.parametrize("maximize", [None, [False, True, True], True])
def test_tracker_collection(maximize):
    def build(package, collection):
        reg = package.regression
        return collection([reg.MeanSquaredError(), reg.R2Score(), reg.ExplainedVariance()])

    ours = lw.MetricTracker(build(lm, lm.MetricCollection), maximize=maximize)
    theirs = tw.MetricTracker(build(torchmetrics, torchmetrics.MetricCollection), maximize=maximize)
    assert ours.maximize == theirs.maximize
    _run(ours, theirs)


def test_tracker_classification_collection_with_shared_statistic():
    def build(package, collection):
        cls = package.classification
        return collection({"acc": cls.MulticlassAccuracy(3), "f1": cls.MulticlassF1Score(3),
                           "recall": cls.MulticlassRecall(3, average="micro")})

    ours = lw.MetricTracker(build(lm, lm.MetricCollection))
    theirs = tw.MetricTracker(build(torchmetrics, torchmetrics.MetricCollection))
    _run(ours, theirs, make=multiclass_batches, use_forward=True)
    single_ours, single_theirs = CLASSIFICATION_PAIRS["mc_acc_micro"]()
    _run(lw.MetricTracker(single_ours), tw.MetricTracker(single_theirs), make=multiclass_batches)


def test_tracker_classwise_expands_maximize_and_stacks_dicts():
    classwise = lm.MetricCollection({"acc": lw.ClasswiseWrapper(lm.classification.MulticlassAccuracy(3, average=None))})
    tm_classwise = torchmetrics.MetricCollection(
        {"acc": tw.ClasswiseWrapper(torchmetrics.classification.MulticlassAccuracy(3, average=None))}
    )
    assert lw.MetricTracker(classwise).maximize == tw.MetricTracker(tm_classwise).maximize == [True] * 3
    ours = lw.MetricTracker(lw.ClasswiseWrapper(lm.regression.MeanSquaredError(num_outputs=3)), maximize=False)
    theirs = tw.MetricTracker(
        tw.ClasswiseWrapper(torchmetrics.regression.MeanSquaredError(num_outputs=3)), maximize=False
    )
    for epoch in range(3):
        ours.increment(), theirs.increment()
        for batch in regression_batches(seed=epoch, outputs=3):
            ours.update(*batch), theirs.update(*batch)
    assert_same(ours.compute_all(), theirs.compute_all())
    assert_same(ours.best_metric(return_step=True), theirs.best_metric(return_step=True))


def test_tracker_state_and_errors():
    tracker = lw.MetricTracker(lm.regression.MeanAbsoluteError())
    for method in ("update", "compute", "compute_all"):
        with pytest.raises(ValueError, match="increment"):
            getattr(tracker, method)(*(regression_batches(seed=0)[0] if method == "update" else ()))
    with pytest.raises(TypeError, match="`metric`"):
        lw.MetricTracker(torchmetrics.regression.MeanAbsoluteError())
    with pytest.raises(AttributeError, match="maximize"):
        lw.MetricTracker(lm.aggregation.SumMetric())
    with pytest.raises(ValueError, match="`maximize`"):
        lw.MetricTracker(lm.regression.MeanAbsoluteError(), maximize=[True])
    with pytest.raises(ValueError, match="`maximize`"):
        lw.MetricTracker(lm.MetricCollection([lm.regression.MeanAbsoluteError()]), maximize=[True, False])
    tracker.increment()
    tracker.update(*regression_batches(seed=0)[0])
    tracker.increment()
    tracker.update(*regression_batches(seed=1)[0])
    assert len(tracker) == 3 and tracker[-1] is not tracker[1]
    tracker.reset_all()
    assert all(m.update_count == 0 for m in tracker)
    assert isinstance(tracker, torch.nn.ModuleList)
