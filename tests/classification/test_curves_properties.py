"""Curve / score metrics: scikit-learn oracles, streaming and collection properties, bad input, host reads."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import lightning_metrics.classification as lmc
import lightning_metrics.functional.classification as lmf
from lightning_metrics import MetricCollection
from lightning_metrics.functional.classification import _curve_core, _scores
from tests.classification._curve_cases import assert_same

C = 4


def _probs(n, seed, task="binary"):
    g = torch.Generator().manual_seed(seed)
    if task == "binary":
        return torch.rand(n, generator=g, dtype=torch.float64), torch.randint(0, 2, (n,), generator=g)
    if task == "multiclass":
        return torch.randn(n, C, generator=g, dtype=torch.float64).softmax(1), torch.randint(
            0, C, (n,), generator=g
        )
    return torch.rand(n, C, generator=g, dtype=torch.float64), torch.randint(0, 2, (n, C), generator=g)


# ----------------------------------------------------------------------------- scikit-learn
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("max_fpr", [None, 0.25, 0.8])
def test_binary_auroc_matches_sklearn(seed, max_fpr):
    preds, target = _probs(200, seed)
    expected = skm.roc_auc_score(target.numpy(), preds.numpy(), max_fpr=max_fpr)
    assert np.isclose(lmf.binary_auroc(preds, target, max_fpr=max_fpr).item(), expected, rtol=1e-5)


@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_multiclass_auroc_matches_sklearn_ovr(average):
    preds, target = _probs(300, 1, "multiclass")
    expected = skm.roc_auc_score(target.numpy(), preds.numpy(), multi_class="ovr", average=average)
    assert np.isclose(lmf.multiclass_auroc(preds, target, C, average=average).item(), expected, rtol=1e-5)


@pytest.mark.parametrize("average", ["micro", "macro", "weighted", None])
def test_multilabel_auroc_and_ap_match_sklearn(average):
    preds, target = _probs(300, 2, "multilabel")
    ours_auc = lmf.multilabel_auroc(preds, target, C, average=average or "none")
    ours_ap = lmf.multilabel_average_precision(preds, target, C, average=average or "none")
    np.testing.assert_allclose(
        ours_auc.numpy(), skm.roc_auc_score(target.numpy(), preds.numpy(), average=average), rtol=1e-5
    )
    np.testing.assert_allclose(
        ours_ap.numpy(),
        skm.average_precision_score(target.numpy(), preds.numpy(), average=average),
        rtol=1e-5,
    )


@pytest.mark.parametrize("seed", range(3))
def test_binary_average_precision_matches_sklearn(seed):
    preds, target = _probs(150, seed)
    preds = (preds * 20).round() / 20  # ties
    expected = skm.average_precision_score(target.numpy(), preds.numpy())
    assert np.isclose(lmf.binary_average_precision(preds, target).item(), expected, rtol=1e-5)


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (lmf.multilabel_coverage_error, skm.coverage_error),
        (lmf.multilabel_ranking_average_precision, skm.label_ranking_average_precision_score),
        (lmf.multilabel_ranking_loss, skm.label_ranking_loss),
    ],
)
@pytest.mark.parametrize("seed", range(3))
def test_ranking_matches_sklearn(ours, theirs, seed):
    preds, target = _probs(120, seed, "multilabel")
    expected = theirs(target.numpy(), preds.numpy())
    assert np.isclose(ours(preds.float(), target, C).item(), expected, rtol=1e-5)


# ------------------------------------------------------------------------------ properties
STREAMED = {
    "binary": [
        (lmc.BinaryAUROC, {}),
        (lmc.BinaryAveragePrecision, {"thresholds": 9}),
        (lmc.BinaryROC, {"thresholds": [0.1, 0.5, 0.9]}),
        (lmc.BinaryCalibrationError, {"n_bins": 5}),
        (lmc.BinaryHingeLoss, {}),
        (lmc.BinaryPrecisionAtFixedRecall, {"min_recall": 0.4}),
    ],
    "multiclass": [
        (lmc.MulticlassAUROC, {"num_classes": C, "average": "weighted"}),
        (lmc.MulticlassPrecisionRecallCurve, {"num_classes": C, "thresholds": 5, "average": "macro"}),
        (lmc.MulticlassCalibrationError, {"num_classes": C, "norm": "max"}),
        (lmc.MulticlassHingeLoss, {"num_classes": C, "multiclass_mode": "one-vs-all"}),
        (lmc.MulticlassEER, {"num_classes": C, "thresholds": 7}),
    ],
    "multilabel": [
        (lmc.MultilabelAveragePrecision, {"num_labels": C, "average": "micro"}),
        (lmc.MultilabelAUROC, {"num_labels": C, "thresholds": torch.linspace(0, 1, 6)}),
        (lmc.MultilabelRankingLoss, {"num_labels": C}),
        (lmc.MultilabelRankingAveragePrecision, {"num_labels": C}),
        (lmc.MultilabelCoverageError, {"num_labels": C}),
    ],
}


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    task=st.sampled_from(sorted(STREAMED)),
    n=st.integers(4, 60),
    cuts=st.lists(st.floats(0, 1), max_size=4),
    ignore=st.booleans(),
    seed=st.integers(0, 10_000),
)
def test_streaming_over_any_split_equals_one_batch(task, n, cuts, ignore, seed):
    preds, target = _probs(n, seed, task)
    preds = preds.float()
    if ignore:
        target = target.clone()
        target[:: max(2, n // 3)] = -1
    points = sorted({int(c * n) for c in cuts} | {0, n})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for cls, kwargs in STREAMED[task]:
            kwargs = {**kwargs, "ignore_index": -1 if ignore else None}
            whole, split = cls(**kwargs), cls(**kwargs)
            whole.update(preds, target)
            for a, b in zip(points[:-1], points[1:]):
                if b > a:
                    split.update(preds[a:b], target[a:b])
            assert_same(split.compute(), whole.compute(), rtol=1e-5, atol=1e-6)


def _curve_members(thresholds):
    return {
        "roc": lmc.MulticlassROC(C, thresholds=thresholds),
        "auroc": lmc.MulticlassAUROC(C, thresholds=thresholds, average="weighted"),
        "ap": lmc.MulticlassAveragePrecision(C, thresholds=thresholds),
        "pr": lmc.MulticlassPrecisionRecallCurve(C, thresholds=thresholds, average="micro"),
        "rec@p": lmc.MulticlassRecallAtFixedPrecision(C, min_precision=0.3, thresholds=thresholds),
        "eer": lmc.MulticlassEER(C, thresholds=thresholds, average="macro"),
        "logauc": lmc.MulticlassLogAUC(C, thresholds=thresholds),
    }


@pytest.mark.parametrize("thresholds", [None, 11])
def test_collection_shares_one_update_and_equals_standalone(thresholds, monkeypatch):
    calls = []
    original = _curve_core.curve_update

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    collection = MetricCollection(_curve_members(thresholds))
    standalone = _curve_members(thresholds)
    assert len(collection.compute_groups) == 1
    batches = [_probs(30 + i, i, "multiclass") for i in range(3)]
    import lightning_metrics.classification._curve_metrics as curve_metrics

    monkeypatch.setattr(curve_metrics, "curve_update", counting)
    for preds, target in batches:
        collection.update(preds, target)
    assert len(calls) == len(batches)  # one statistic update per batch for all seven metrics
    for preds, target in batches:
        for m in standalone.values():
            m.update(preds, target)
    values = collection.compute()
    for name, metric in standalone.items():
        assert_same(values[name], metric.compute())


def test_different_specs_do_not_share():
    collection = MetricCollection(
        {
            "a": lmc.BinaryAUROC(thresholds=5),
            "b": lmc.BinaryAUROC(thresholds=6),
            "c": lmc.BinaryAUROC(),
            "d": lmc.BinaryAUROC(ignore_index=-1),
            "e": lmc.BinaryAveragePrecision(thresholds=5),
        }
    )
    assert sorted(map(sorted, collection.compute_groups.values())) == [["a", "e"], ["b"], ["c"], ["d"]]


# ------------------------------------------------------------------------------- bad input
BAD_ARGUMENTS = [
    (lambda: lmc.BinaryAUROC(thresholds=[0.5, 0.2]), "thresholds", "sorted"),
    (lambda: lmc.BinaryROC(thresholds=torch.tensor([0.2, 0.1])), "thresholds", r"\[0.2"),
    (lambda: lmc.BinaryAUROC(thresholds=[0.0, 1.5]), "thresholds", "1.5"),
    (lambda: lmc.MultilabelAUROC(3, thresholds=torch.tensor([-0.1, 0.5])), "thresholds", "-0.1"),
    (lambda: lmc.BinaryAUROC(thresholds=1), "thresholds", "1"),
    (lambda: lmc.BinaryAUROC(max_fpr=0.0), "max_fpr", "0.0"),
    (lambda: lmc.BinaryAUROC(max_fpr=1.5), "max_fpr", "1.5"),
    (lambda: lmc.MulticlassAUROC(3, average="micro"), "average", "micro"),
    (lambda: lmc.MultilabelAveragePrecision(3, average="samples"), "average", "samples"),
    (lambda: lmc.MulticlassROC(3, average="weighted"), "average", "weighted"),
    (lambda: lmc.MulticlassLogAUC(3, average="weighted"), "average", "weighted"),
    (lambda: lmc.BinaryLogAUC(fpr_range=(0.5, 0.1)), "fpr_range", r"\(0.5, 0.1\)"),
    (lambda: lmc.BinaryPrecisionAtFixedRecall(min_recall=1.5), "min_recall", "1.5"),
    (lambda: lmc.MulticlassSpecificityAtSensitivity(3, min_sensitivity=-0.2), "min_sensitivity", "-0.2"),
    (lambda: lmc.MulticlassAUROC(1), "num_classes", "1"),
    (lambda: lmc.BinaryAUROC(ignore_index=0.5), "ignore_index", "0.5"),
    (lambda: lmc.BinaryCalibrationError(n_bins=0), "n_bins", "0"),
    (lambda: lmc.BinaryCalibrationError(norm="l3"), "norm", "l3"),
    (lambda: lmc.MulticlassHingeLoss(3, multiclass_mode="ovr"), "multiclass_mode", "ovr"),
    (lambda: lmc.BinaryHingeLoss(squared="yes"), "squared", "yes"),
    (lambda: lmf.binary_auroc(torch.rand(4), torch.ones(4, dtype=torch.long), max_fpr=2.0), "max_fpr", "2.0"),
    (
        lambda: lmf.multiclass_average_precision(
            torch.rand(4, 3), torch.ones(4, dtype=torch.long), 3, average="x"
        ),
        "average",
        "x",
    ),
]


@pytest.mark.parametrize(("factory", "argument", "value"), BAD_ARGUMENTS)
def test_bad_arguments_raise_naming_argument_and_value(factory, argument, value):
    with pytest.raises((ValueError, TypeError)) as info:
        factory()
    assert f"`{argument}`" in str(info.value)
    assert info.match(value)


def _good(metric):
    task = type(metric).__name__
    if task.startswith("Binary"):
        return torch.tensor([0.2, 0.7, 0.4]), torch.tensor([0, 1, 1])
    if task.startswith("Multiclass"):
        return torch.tensor([[0.2, 0.5, 0.3], [0.6, 0.2, 0.2]]), torch.tensor([1, 0])
    return torch.tensor([[0.2, 0.5, 0.3], [0.6, 0.2, 0.2]]), torch.tensor([[1, 0, 1], [0, 0, 1]])


BAD_TENSORS = [
    (
        "nan scores",
        lambda: lmc.BinaryAUROC(),
        torch.tensor([0.2, float("nan")]),
        torch.tensor([0, 1]),
        "preds",
        "nan",
    ),
    (
        "nan binned",
        lambda: lmc.MultilabelROC(3, thresholds=5),
        torch.tensor([[0.2, float("nan"), 0.1]]),
        torch.tensor([[0, 1, 0]]),
        "preds",
        "nan",
    ),
    (
        "fractional float target",  # whole-number floats are labels, as in torchmetrics
        lambda: lmc.BinaryAveragePrecision(thresholds=5),
        torch.tensor([0.2, 0.3]),
        torch.tensor([0.0, 0.5]),
        "target",
        "0.5",
    ),
    ("target 2", lambda: lmc.BinaryROC(), torch.tensor([0.2, 0.3]), torch.tensor([0, 2]), "target", "2"),
    (
        "class 3 of 3",
        lambda: lmc.MulticlassAUROC(3, thresholds=4),
        torch.rand(2, 3),
        torch.tensor([0, 3]),
        "target",
        "3",
    ),
    (
        "negative class",
        lambda: lmc.MulticlassAveragePrecision(3, ignore_index=-1),
        torch.rand(2, 3),
        torch.tensor([0, -2]),
        "target",
        "-2",
    ),
    (
        "multilabel 5",
        lambda: lmc.MultilabelRankingLoss(3),
        torch.rand(2, 3),
        torch.tensor([[0, 5, 1], [0, 0, 1]]),
        "target",
        "5",
    ),
    ("shape", lambda: lmc.BinaryAUROC(thresholds=3), torch.rand(3), torch.tensor([0, 1]), "preds", r"\(3,\)"),
    ("classes", lambda: lmc.MulticlassROC(3), torch.rand(2, 4), torch.tensor([0, 1]), "num_classes", "4"),
    (
        "int preds",
        lambda: lmc.BinaryCalibrationError(),
        torch.tensor([0, 1]),
        torch.tensor([0, 1]),
        "preds",
        "int64",
    ),
    (
        "hinge shape",
        lambda: lmc.MulticlassHingeLoss(3),
        torch.rand(2, 3),
        torch.tensor([[0], [1]]),
        "preds",
        "3",
    ),
]


def _snapshot(metric):
    return {k: (list(v) if isinstance(v, list) else v.clone()) for k, v in metric.metric_state.items()}


@pytest.mark.parametrize(
    ("case", "factory", "preds", "target", "argument", "value"), BAD_TENSORS, ids=[c[0] for c in BAD_TENSORS]
)
def test_bad_tensors_raise_and_leave_state_unchanged(case, factory, preds, target, argument, value):
    metric = factory()
    metric.update(*_good(metric))
    before, count = _snapshot(metric), metric.update_count
    with pytest.raises((ValueError, RuntimeError)) as info:
        metric.update(preds, target)
    assert f"`{argument}`" in str(info.value) and info.match(value)
    after = _snapshot(metric)
    assert metric.update_count == count and before.keys() == after.keys()
    for name in before:
        if isinstance(before[name], list):
            assert len(before[name]) == len(after[name]) and all(
                a is b for a, b in zip(before[name], after[name])
            )
        else:
            assert torch.equal(before[name], after[name])


def test_no_validation_means_no_host_reads(monkeypatch):
    """With validate_args=False, update never reads a tensor value back to the host."""
    metrics = [
        lmc.BinaryAUROC(thresholds=9, validate_args=False, ignore_index=-1),
        lmc.BinaryAveragePrecision(validate_args=False, ignore_index=-1),
        lmc.MulticlassROC(C, thresholds=5, validate_args=False, ignore_index=-1),
        lmc.MulticlassAUROC(C, validate_args=False, ignore_index=-1),
        lmc.MultilabelAveragePrecision(C, thresholds=5, validate_args=False, ignore_index=-1),
        lmc.MultilabelAUROC(C, validate_args=False),
        lmc.BinaryCalibrationError(validate_args=False, ignore_index=-1),
        lmc.MulticlassCalibrationError(C, validate_args=False, ignore_index=-1),
        lmc.BinaryHingeLoss(validate_args=False, ignore_index=-1),
        lmc.MulticlassHingeLoss(C, validate_args=False, ignore_index=-1),
        lmc.MultilabelRankingLoss(C, validate_args=False, ignore_index=-1),
        lmc.MultilabelRankingAveragePrecision(C, validate_args=False),
        lmc.MultilabelCoverageError(C, validate_args=False, ignore_index=-1),
    ]
    inputs = {
        "Binary": (torch.randn(16) * 3, torch.tensor([0, 1, -1, 1] * 4)),
        "Multiclass": (torch.randn(16, C), torch.tensor([0, 1, -1, 3] * 4)),
        "Multilabel": (torch.randn(16, C), torch.randint(0, 2, (16, C))),
    }

    def forbid(*args, **kwargs):
        raise AssertionError("host read in update")

    monkeypatch.setattr(_scores, "CPU_HOST_BRANCH", False)
    for name in ("item", "tolist", "__bool__", "nonzero", "unique", "numpy"):
        monkeypatch.setattr(torch.Tensor, name, forbid)
    for metric in metrics:
        prefix = next(p for p in inputs if type(metric).__name__.startswith(p))
        metric.update(*inputs[prefix])
    monkeypatch.undo()
    assert all(m.update_count == 1 for m in metrics)


@pytest.mark.parametrize("task", ["binary", "multiclass", "multilabel"])
def test_sync_free_normalization_equals_host_branch(task, monkeypatch):
    g = torch.Generator().manual_seed(0)
    shapes = {"binary": (20,), "multiclass": (20, C), "multilabel": (20, C)}
    for scale in (1.0, 0.3):  # logits, then probabilities-like values inside [0, 1]
        preds = torch.rand(shapes[task], generator=g) * scale + (0.0 if scale < 1 else -0.5)
        target = _probs(20, 1, task)[1]
        spec = _curve_core.CurveSpec(task, 1 if task == "binary" else C, torch.linspace(0, 1, 5), None)
        expected = _curve_core.curve_update(spec, preds, target)
        monkeypatch.setattr(_scores, "CPU_HOST_BRANCH", False)
        assert torch.equal(_curve_core.curve_update(spec, preds, target), expected)
        monkeypatch.setattr(_scores, "CPU_HOST_BRANCH", True)
