"""Functional parity of the curve / score metrics with torchmetrics 1.9 and scikit-learn."""

from __future__ import annotations

import warnings

import pytest
import torch
import torchmetrics.functional.classification as tmf

import lightning_metrics.functional.classification as lmf
from tests.classification._curve_cases import (
    CURVE_CASE_ARGS,
    NUM_CLASSES,
    TASK_WRAPPERS,
    THRESHOLD_KINDS,
    VARIANTS,
    assert_same,
    curve_cases,
    functional_name,
    make_batch,
)

MULTICLASS_CURVE_AVERAGES = [{"average": None}, {"average": "micro"}, {"average": "macro"}]
CURVE_FAMILIES = {
    "precision_recall_curve": {"binary": [{}], "multiclass": MULTICLASS_CURVE_AVERAGES, "multilabel": [{}]},
    "roc": {"binary": [{}], "multiclass": MULTICLASS_CURVE_AVERAGES, "multilabel": [{}]},
    "auroc": {
        "binary": [{}, {"max_fpr": 0.5}],
        "multiclass": [{"average": a} for a in ("macro", "weighted", "none", None)],
        "multilabel": [{"average": a} for a in ("micro", "macro", "weighted", "none")],
    },
    "average_precision": {
        "binary": [{}],
        "multiclass": [{"average": a} for a in ("macro", "weighted", "none")],
        "multilabel": [{"average": a} for a in ("micro", "macro", "weighted", None)],
    },
    "precision_at_fixed_recall": {t: [{"min_recall": 0.5}] for t in ("binary", "multiclass", "multilabel")},
    "recall_at_fixed_precision": {
        t: [{"min_precision": 0.5}] for t in ("binary", "multiclass", "multilabel")
    },
    "sensitivity_at_specificity": {
        t: [{"min_specificity": 0.6}] for t in ("binary", "multiclass", "multilabel")
    },
    "specificity_at_sensitivity": {
        t: [{"min_sensitivity": 0.6}] for t in ("binary", "multiclass", "multilabel")
    },
    "eer": {"binary": [{}], "multiclass": MULTICLASS_CURVE_AVERAGES, "multilabel": [{}]},
    "logauc": {
        "binary": [{}, {"fpr_range": (0.05, 0.5)}],
        "multiclass": [{"average": "macro"}, {"average": None}],
        "multilabel": [{"average": "macro"}, {"average": "none", "fpr_range": (0.05, 0.5)}],
    },
}


def _inputs(task, kind, ignore_index, variant, seed):
    return make_batch(
        task,
        kind,
        ignore_index,
        seed,
        extra_dim=variant == "extra_dim",
        ties=variant == "ties",
        absent_class=variant == "absent_class",
    )


def _call(module, name, task, preds, target, kwargs):
    fn = getattr(module, f"{task}_{name}")
    if task == "multiclass":
        kwargs = {"num_classes": NUM_CLASSES, **kwargs}
    elif task == "multilabel":
        kwargs = {"num_labels": NUM_CLASSES, **kwargs}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(preds, target, **kwargs)


@pytest.mark.parametrize(CURVE_CASE_ARGS, list(curve_cases(CURVE_FAMILIES)))
def test_curve_family_matches_torchmetrics(
    family, task, kwargs, kind, ignore_index, thresholds, variant, seed
):
    preds, target = _inputs(task, kind, ignore_index, variant, seed)
    kwargs = {**kwargs, "thresholds": THRESHOLD_KINDS[thresholds], "ignore_index": ignore_index}
    expected = _call(tmf, family, task, preds, target, kwargs)
    assert_same(_call(lmf, family, task, preds, target, kwargs), expected)


SCORE_CASES = [
    ("calibration_error", "binary", {"n_bins": 15, "norm": "l1"}),
    ("calibration_error", "binary", {"n_bins": 5, "norm": "l2"}),
    ("calibration_error", "binary", {"n_bins": 10, "norm": "max"}),
    ("calibration_error", "multiclass", {"n_bins": 15, "norm": "l1"}),
    ("calibration_error", "multiclass", {"n_bins": 4, "norm": "l2"}),
    ("calibration_error", "multiclass", {"n_bins": 7, "norm": "max"}),
    ("hinge_loss", "binary", {}),
    ("hinge_loss", "binary", {"squared": True}),
    ("hinge_loss", "multiclass", {}),
    ("hinge_loss", "multiclass", {"squared": True}),
    ("hinge_loss", "multiclass", {"multiclass_mode": "one-vs-all"}),
    ("hinge_loss", "multiclass", {"multiclass_mode": "one-vs-all", "squared": True}),
    ("coverage_error", "multilabel", {}),
    ("ranking_average_precision", "multilabel", {}),
    ("ranking_loss", "multilabel", {}),
]


@pytest.mark.parametrize(("family", "task", "kwargs"), SCORE_CASES)
@pytest.mark.parametrize("kind", ["probs", "logits"])
@pytest.mark.parametrize("ignore_index", [None, -1])
@pytest.mark.parametrize("variant", VARIANTS)
def test_score_family_matches_torchmetrics(family, task, kwargs, kind, ignore_index, variant):
    preds, target = _inputs(task, kind, ignore_index, variant, seed=hash((family, kind, variant)) % 1000)
    kwargs = {**kwargs, "ignore_index": ignore_index}
    expected = _call(tmf, family, task, preds, target, kwargs)
    assert_same(_call(lmf, family, task, preds, target, kwargs), expected)


@pytest.mark.parametrize(("name", "kwargs"), [(functional_name(family), kw) for family, kw in TASK_WRAPPERS])
def test_task_wrapper_functions_match_torchmetrics(name, kwargs):
    preds, target = make_batch(kwargs["task"], "logits", None, seed=7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = getattr(tmf, name)(preds, target, **kwargs)
        assert_same(getattr(lmf, name)(preds, target, **kwargs), expected)


def test_binned_large_input_matches_torchmetrics_loop_path():
    """Above 50k samples torchmetrics switches to a per-threshold loop; the histogram must agree."""
    g = torch.Generator().manual_seed(3)
    preds, target = torch.rand(60_000, generator=g), torch.randint(0, 2, (60_000,), generator=g)
    for name in ("roc", "precision_recall_curve", "auroc", "average_precision"):
        expected = getattr(tmf, f"binary_{name}")(preds, target, thresholds=50)
        assert_same(getattr(lmf, f"binary_{name}")(preds, target, thresholds=50), expected)
