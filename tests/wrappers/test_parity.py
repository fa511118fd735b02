"""Table-driven parity with torchmetrics 1.9 for ClasswiseWrapper, MultioutputWrapper, MultitaskWrapper,
Running and MinMaxMetric: batch values from ``forward``, accumulated values from ``compute``, resets."""

from __future__ import annotations

import pytest
import torch
import torchmetrics
import torchmetrics.wrappers as tw

import lightning_metrics as lm
import lightning_metrics.wrappers as lw
from tests.wrappers._cases import (
    AGGREGATION_PAIRS,
    CLASSIFICATION_PAIRS,
    SCALAR_PAIRS,
    VECTOR_PAIRS,
    assert_same,
    binary_batches,
    multiclass_batches,
    regression_batches,
    value_batches,
)

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _drive(ours, theirs, batches, use_forward=True, calls=None):
    """Feed both the same batches; compare every forward value and the final compute."""
    for i, batch in enumerate(batches):
        if use_forward and (calls is None or calls[i % len(calls)] == "forward"):
            assert_same(ours(*batch), theirs(*batch), path=f"forward[{i}]")
        else:
            ours.update(*batch)
            theirs.update(*batch)
    assert_same(ours.compute(), theirs.compute(), path="compute")


# ------------------------------------------------------------------ Classwise
CLASSWISE_OPTIONS = [
    {},
    {"labels": ["a", "b", "c"]},
    {"prefix": "pre-"},
    {"postfix": "-post"},
    {"labels": ["x", "y", "z"], "prefix": "p_", "postfix": "_q"},
]


@pytest.mark.parametrize("options", CLASSWISE_OPTIONS, ids=lambda o: "-".join(o) or "default")
@pytest.mark.parametrize("base", sorted(VECTOR_PAIRS))
def test_classwise_parity(base, options):
    ours_base, theirs_base = VECTOR_PAIRS[base]()
    ours, theirs = lw.ClasswiseWrapper(ours_base, **options), tw.ClasswiseWrapper(theirs_base, **options)
    _drive(ours, theirs, regression_batches(seed=len(options), outputs=3), calls=["forward", "update"])
    ours.reset(), theirs.reset()
    _drive(ours, theirs, regression_batches(seed=99, outputs=3)[:2])
    assert ours.higher_is_better == theirs.higher_is_better


@pytest.mark.parametrize("options", CLASSWISE_OPTIONS[:3], ids=lambda o: "-".join(o) or "default")
@pytest.mark.parametrize("base", ["mc_acc_none", "mc_recall_none"])
def test_classwise_classification_parity(base, options):
    ours_base, theirs_base = CLASSIFICATION_PAIRS[base]()
    ours, theirs = lw.ClasswiseWrapper(ours_base, **options), tw.ClasswiseWrapper(theirs_base, **options)
    _drive(ours, theirs, multiclass_batches(seed=2), calls=["forward", "update"])
    ours.reset(), theirs.reset()
    _drive(ours, theirs, multiclass_batches(seed=3)[:2])


def test_classwise_in_collection_and_attribute_access():
    labels = ["horse", "fish", "dog"]
    ours = lm.MetricCollection({
        "mse": lw.ClasswiseWrapper(lm.regression.MeanSquaredError(num_outputs=3), labels),
        "mae": lw.ClasswiseWrapper(lm.regression.MeanAbsoluteError(num_outputs=3), labels),
    })
    theirs = torchmetrics.MetricCollection({
        "mse": tw.ClasswiseWrapper(torchmetrics.regression.MeanSquaredError(num_outputs=3), labels),
        "mae": tw.ClasswiseWrapper(torchmetrics.regression.MeanAbsoluteError(num_outputs=3), labels),
    })
    _drive(ours, theirs, regression_batches(seed=5, outputs=3))
    assert ours["mse"].num_outputs == 3  # read through to the wrapped metric


@pytest.mark.parametrize("bad", [{"labels": "abc"}, {"labels": [1, 2]}, {"prefix": 3}, {"postfix": ["x"]}])
def test_classwise_rejects_bad_arguments(bad):
    name = next(iter(bad))
    with pytest.raises(ValueError, match=f"`{name}`"):
        lw.ClasswiseWrapper(lm.regression.MeanSquaredError(), **bad)
    with pytest.raises(ValueError, match="`metric`"):
        lw.ClasswiseWrapper(torchmetrics.regression.MeanSquaredError())


# ---------------------------------------------------------------- Multioutput
MULTIOUTPUT_CASES = [
    # (base, options, nan fraction)
    ("r2", {}, 0.0),
    ("r2", {}, 0.15),
    ("mse", {"output_dim": 1}, 0.1),
    ("spearman", {}, 0.1),
    ("pearson", {"squeeze_outputs": True}, 0.0),
    ("mae", {"remove_nans": False}, 0.0),
    ("explained_variance", {}, 0.05),
]


@pytest.mark.parametrize(("base", "options", "nan_fraction"), MULTIOUTPUT_CASES)
def test_multioutput_parity(base, options, nan_fraction):
    ours_base, theirs_base = SCALAR_PAIRS[base]()
    ours = lw.MultioutputWrapper(ours_base, num_outputs=3, **options)
    theirs = tw.MultioutputWrapper(theirs_base, num_outputs=3, **options)
    sizes = (9, 23, 16, 12)  # every output keeps at least 2 rows after NaN removal
    _drive(ours, theirs, regression_batches(seed=3, outputs=3, sizes=sizes, nan_fraction=nan_fraction),
           calls=["forward", "update"])
    ours.reset(), theirs.reset()
    _drive(ours, theirs, regression_batches(seed=4, outputs=3, sizes=sizes[:2]))


def test_multioutput_classification_parity():
    ours_base, theirs_base = CLASSIFICATION_PAIRS["binary_acc"]()
    ours = lw.MultioutputWrapper(ours_base, num_outputs=3)
    theirs = tw.MultioutputWrapper(theirs_base, num_outputs=3)
    _drive(ours, theirs, binary_batches(seed=3, outputs=3), calls=["forward", "update"])


def test_multioutput_failed_update_leaves_every_output_unchanged():
    metric = lw.MultioutputWrapper(lm.regression.MeanSquaredError(), num_outputs=2)
    preds, target = regression_batches(seed=1, outputs=2)[0]
    metric.update(preds, target)
    before = metric.compute().clone()
    bad_target = target.clone()[:, :1].expand(-1, 2).clone()
    with pytest.raises((ValueError, RuntimeError)):
        metric.update(preds, bad_target[:-1])  # shape mismatch in every output
    with pytest.raises(ValueError, match="outputs along dim"):
        metric.update(preds[:, :1], target[:, :1])
    assert metric.metrics[0].update_count == metric.metrics[1].update_count == 1
    torch.testing.assert_close(metric.compute(), before)


# ------------------------------------------------------------------ Multitask
def _multitask(package, collection_cls, prefix=None, postfix=None):
    reg = package.regression
    tasks = {
        "depth": reg.MeanAbsoluteError(),
        "size": collection_cls({"mse": reg.MeanSquaredError(), "r2": reg.R2Score(), "pearson": reg.PearsonCorrCoef()}),
        "rank": reg.SpearmanCorrCoef(),
    }
    wrapper = lw.MultitaskWrapper if package is lm else tw.MultitaskWrapper
    return wrapper(tasks, prefix=prefix, postfix=postfix)


@pytest.mark.parametrize(("prefix", "postfix"), [(None, None), ("train_", None), (None, "_val"), ("a/", "/b")])
def test_multitask_parity(prefix, postfix):
    ours = _multitask(lm, lm.MetricCollection, prefix, postfix)
    theirs = _multitask(torchmetrics, torchmetrics.MetricCollection, prefix, postfix)
    tasks = ["depth", "size", "rank"]
    batches = [
        tuple({t: b[j] for t, b in zip(tasks, per_task)} for j in range(2))
        for per_task in zip(*(regression_batches(seed=s) for s in range(3)))
    ]
    _drive(ours, theirs, batches, calls=["forward", "update"])
    assert list(ours.keys()) == list(theirs.keys())
    assert list(ours.keys(flatten=False)) == list(theirs.keys(flatten=False))
    assert [type(m).__name__ for m in ours.values()] == [type(m).__name__ for m in theirs.values()]
    copy_ours, copy_theirs = ours.clone(prefix="c_"), theirs.clone(prefix="c_")
    assert_same(copy_ours.compute(), copy_theirs.compute())
    ours.reset(), theirs.reset()
    _drive(ours, theirs, batches[:1])


def test_multitask_classification_and_regression_parity():
    def build(package, collection):
        cls, reg = package.classification, package.regression
        wrapper = lw.MultitaskWrapper if package is lm else tw.MultitaskWrapper
        return wrapper({
            "cls": collection({"acc": cls.MulticlassAccuracy(3), "f1": cls.MulticlassF1Score(3)}),
            "bin": cls.BinaryAccuracy(),
            "reg": reg.MeanSquaredError(),
        })

    ours, theirs = build(lm, lm.MetricCollection), build(torchmetrics, torchmetrics.MetricCollection)
    batches = [
        ({"cls": mc[0], "bin": b[0], "reg": r[0]}, {"cls": mc[1], "bin": b[1], "reg": r[1]})
        for mc, b, r in zip(multiclass_batches(seed=1), binary_batches(seed=1), regression_batches(seed=1))
    ]
    _drive(ours, theirs, batches, calls=["forward", "update"])


def test_multitask_rejects_bad_input_without_partial_update():
    ours = _multitask(lm, lm.MetricCollection)
    preds, target = regression_batches(seed=0)[0]
    good = {"depth": preds, "size": preds, "rank": preds}
    with pytest.raises(ValueError, match="`task_preds`"):
        ours.update({"depth": preds}, good)
    with pytest.raises((ValueError, RuntimeError)):  # the last task fails after the first two were updated
        ours.update(good, {"depth": target, "size": target, "rank": target[:-1]})
    assert all(m.update_count == 0 for m in ours._child_metrics())
    with pytest.raises(TypeError, match="`task_metrics`"):
        lw.MultitaskWrapper({"a": object()})
    with pytest.raises(TypeError, match="`task_metrics`"):
        lw.MultitaskWrapper([lm.regression.MeanSquaredError()])


# -------------------------------------------------------------------- Running
@pytest.mark.parametrize("window", [1, 2, 3, 5])
@pytest.mark.parametrize("base", ["sum", "mean"])
def test_running_aggregation_parity(base, window):
    ours_base, theirs_base = AGGREGATION_PAIRS[base]()
    ours, theirs = lw.Running(ours_base, window=window), tw.Running(theirs_base, window=window)
    for i, values in enumerate(value_batches(seed=window) * 2):
        if i % 2:
            ours.update(values), theirs.update(values)
        else:
            assert_same(ours(values), theirs(values), path=f"forward[{i}]")
        assert_same(ours.compute(), theirs.compute(), path=f"compute[{i}]")


@pytest.mark.parametrize("base", ["mse", "mae", "r2", "explained_variance", "mc_f1_macro"])
def test_running_parity(base):
    ours_base, theirs_base = {**SCALAR_PAIRS, **CLASSIFICATION_PAIRS}[base]()
    make = multiclass_batches if base.startswith("mc") else regression_batches
    ours, theirs = lw.Running(ours_base, window=2), tw.Running(theirs_base, window=2)
    for i, batch in enumerate(make(seed=11, sizes=(8, 5, 13, 9, 4))):
        assert_same(ours(*batch), theirs(*batch), path=f"forward[{i}]")
        assert_same(ours.compute(), theirs.compute(), path=f"compute[{i}]")


def test_running_with_list_states_is_the_metric_over_the_window():
    # torchmetrics' Running loses list states (its reset clears the lists the slots share); ours keeps them
    metric = lw.Running(lm.regression.SpearmanCorrCoef(), window=2)
    batches = regression_batches(seed=12, sizes=(8, 5, 13, 9))
    for i, batch in enumerate(batches):
        metric(*batch) if i % 2 else metric.update(*batch)
        window = batches[max(0, i - 1) : i + 1]
        expected = torchmetrics.functional.spearman_corrcoef(
            torch.cat([b[0] for b in window]), torch.cat([b[1] for b in window])
        )
        assert_same(metric.compute(), expected, path=f"compute[{i}]")


# --------------------------------------------------------------------- MinMax
@pytest.mark.parametrize("base", ["mse", "mae", "r2", "pearson", "mc_acc_micro"])
def test_minmax_parity_over_epochs(base):
    ours_base, theirs_base = {**SCALAR_PAIRS, **CLASSIFICATION_PAIRS}[base]()
    make = multiclass_batches if base.startswith("mc") else regression_batches
    ours, theirs = lw.MinMaxMetric(ours_base), tw.MinMaxMetric(theirs_base)
    for epoch in range(4):  # update + compute + reset per epoch: the extremes span the epochs
        for batch in make(seed=epoch):
            ours.update(*batch), theirs.update(*batch)
        assert_same(ours.compute(), theirs.compute(), path=f"epoch {epoch}")
        ours.reset(), theirs.reset()


@pytest.mark.parametrize("base", ["mean", "sum", "max"])
def test_minmax_forward_values_match(base):
    ours_base, theirs_base = AGGREGATION_PAIRS[base]()
    ours, theirs = lw.MinMaxMetric(ours_base), tw.MinMaxMetric(theirs_base)
    for i, values in enumerate(value_batches(seed=7)):
        assert_same(ours(values), theirs(values), path=f"forward[{i}]")
    # deviation (documented): torchmetrics' forward keeps only the last batch in the base metric,
    # ours accumulates every batch, as forward does for any metric
    reference = ours_base.__class__()
    for values in value_batches(seed=7):
        reference.update(values)
    torch.testing.assert_close(ours.compute()["raw"], reference.compute())


def test_minmax_state_dict_is_empty_unless_persistent():
    """As torchmetrics: a module checkpoint holding a MinMaxMetric has no key of it by default."""
    ours = lw.MinMaxMetric(lm.regression.MeanSquaredError())
    theirs = torchmetrics.wrappers.MinMaxMetric(torchmetrics.regression.MeanSquaredError())
    for metric in (ours, theirs):
        metric.update(*regression_batches(seed=1)[0])
        metric.compute()
    assert dict(ours.state_dict()) == dict(theirs.state_dict()) == {}
    holder = torch.nn.Module()
    holder.minmax = lw.MinMaxMetric(lm.regression.MeanSquaredError())
    holder.load_state_dict(torch.nn.Module().state_dict())  # a torchmetrics checkpoint: strict load works


def test_minmax_state_dict_roundtrip_keeps_extremes():
    metric = lw.MinMaxMetric(lm.regression.MeanSquaredError())
    metric.persistent(True)
    for epoch in range(3):
        for batch in regression_batches(seed=epoch):
            metric.update(*batch)
        metric.compute()
        metric.reset()
    saved = metric.state_dict()
    assert {"min_val", "max_val"} <= set(saved)
    restored = lw.MinMaxMetric(lm.regression.MeanSquaredError())
    restored.persistent(True)
    restored.load_state_dict(saved)
    torch.testing.assert_close(restored.min_val, metric.min_val)
    torch.testing.assert_close(restored.max_val, metric.max_val)
    assert float(restored.min_val) < float(restored.max_val)
    restored.update(*regression_batches(seed=0)[0])
    out = restored.compute()
    assert out["min"] <= out["raw"] <= out["max"] or out["raw"] < metric.min_val or out["raw"] > metric.max_val
    # inside a module's checkpoint too
    holder = torch.nn.Module()
    holder.minmax = metric
    assert "minmax.max_val" in holder.state_dict()


def test_minmax_rejects_non_scalar_values():
    metric = lw.MinMaxMetric(lm.regression.MeanSquaredError(num_outputs=2))
    metric.update(*regression_batches(seed=0, outputs=2)[0])
    with pytest.raises(RuntimeError, match="scalar"):
        metric.compute()
    assert torch.isinf(metric.min_val) and torch.isinf(metric.max_val)
    with pytest.raises(ValueError, match="`base_metric`"):
        lw.MinMaxMetric(torchmetrics.regression.MeanSquaredError())
