"""Modular curve / score metrics: streaming parity with torchmetrics' classes, forward, task wrappers."""

from __future__ import annotations

import warnings

import pytest
import torch
import torchmetrics.classification as tmc

import lightning_metrics as lm
import lightning_metrics.classification as lmc
from tests.classification._curve_cases import (
    CURVE_CASE_ARGS,
    NUM_CLASSES,
    TASK_WRAPPERS,
    THRESHOLD_KINDS,
    assert_same,
    curve_cases,
    functional_name,
    make_batch,
)

TASK_PREFIX = {"binary": "Binary", "multiclass": "Multiclass", "multilabel": "Multilabel"}
CURVE_AVERAGES = [{"average": None}, {"average": "micro"}, {"average": "macro"}]
CURVE_CLASSES = {
    "PrecisionRecallCurve": {"binary": [{}], "multiclass": CURVE_AVERAGES, "multilabel": [{}]},
    "ROC": {"binary": [{}], "multiclass": CURVE_AVERAGES, "multilabel": [{}]},
    "AUROC": {
        "binary": [{}, {"max_fpr": 0.4}],
        "multiclass": [{"average": a} for a in ("macro", "weighted", "none")],
        "multilabel": [{"average": a} for a in ("micro", "macro", "weighted", None)],
    },
    "AveragePrecision": {
        "binary": [{}],
        "multiclass": [{"average": a} for a in ("macro", "weighted", None)],
        "multilabel": [{"average": a} for a in ("micro", "macro", "weighted", "none")],
    },
    "PrecisionAtFixedRecall": {t: [{"min_recall": 0.5}] for t in TASK_PREFIX},
    "RecallAtFixedPrecision": {t: [{"min_precision": 0.5}] for t in TASK_PREFIX},
    "SensitivityAtSpecificity": {t: [{"min_specificity": 0.6}] for t in TASK_PREFIX},
    "SpecificityAtSensitivity": {t: [{"min_sensitivity": 0.6}] for t in TASK_PREFIX},
    "EER": {"binary": [{}], "multiclass": CURVE_AVERAGES, "multilabel": [{}]},
    "LogAUC": {
        "binary": [{}],
        "multiclass": [{"average": None}, {"average": "macro", "fpr_range": (0.05, 0.5)}],
        "multilabel": [{"average": "macro"}, {"average": None}],
    },
}
SCORE_CLASSES = [
    ("CalibrationError", "binary", {"n_bins": 10, "norm": "l1"}),
    ("CalibrationError", "binary", {"norm": "l2"}),
    ("CalibrationError", "multiclass", {"n_bins": 5, "norm": "max"}),
    ("CalibrationError", "multiclass", {"norm": "l1"}),
    ("HingeLoss", "binary", {"squared": True}),
    ("HingeLoss", "multiclass", {}),
    ("HingeLoss", "multiclass", {"multiclass_mode": "one-vs-all"}),
    ("CoverageError", "multilabel", {}),
    ("RankingAveragePrecision", "multilabel", {}),
    ("RankingLoss", "multilabel", {}),
]


def _make(module, family, task, kwargs):
    cls = getattr(module, TASK_PREFIX[task] + family)
    size = {"multiclass": {"num_classes": NUM_CLASSES}, "multilabel": {"num_labels": NUM_CLASSES}}.get(
        task, {}
    )
    return cls(**size, **kwargs)


def _stream(metric, batches, use_forward=False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = [metric(*b) if use_forward else metric.update(*b) for b in batches]
        return values, metric.compute()


def _functional_oracle(family, task, kwargs, batches):
    """torchmetrics' function on all batches at once, for configurations its class cannot run."""
    import torchmetrics.functional.classification as tmf

    name = functional_name(family)
    size = {"multiclass": {"num_classes": NUM_CLASSES}, "multilabel": {"num_labels": NUM_CLASSES}}.get(
        task, {}
    )
    preds, target = torch.cat([b[0] for b in batches]), torch.cat([b[1] for b in batches])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(tmf, f"{task}_{name}")(preds, target, **size, **kwargs)


def _batches(task, kind, ignore_index, seed, variant):
    return [
        make_batch(
            task,
            kind,
            ignore_index,
            seed + i,
            n=20 + 7 * i,
            ties=variant == "ties",
            absent_class=variant == "absent_class",
            extra_dim=variant == "extra_dim",
        )
        for i in range(3)
    ]


@pytest.mark.parametrize(CURVE_CASE_ARGS, list(curve_cases(CURVE_CLASSES)))
def test_curve_class_streams_like_torchmetrics(
    family, task, kwargs, kind, ignore_index, thresholds, variant, seed
):
    kwargs = {**kwargs, "thresholds": THRESHOLD_KINDS[thresholds], "ignore_index": ignore_index}
    batches = _batches(task, kind, ignore_index, seed, variant)
    use_forward = seed % 3 == 0  # forward also returns the batch value, checked below
    ours_batch, ours = _stream(_make(lmc, family, task, kwargs), batches, use_forward)
    try:
        theirs_batch, theirs = _stream(_make(tmc, family, task, kwargs), batches, use_forward)
    except RuntimeError:
        # torchmetrics' multiclass micro-averaged binned curve classes crash in update (state shape
        # mismatch); its functional form on the concatenated batches is the oracle then
        assert kwargs.get("average") == "micro" and thresholds != "exact"
        theirs = _functional_oracle(family, task, kwargs, batches)
        theirs_batch = (
            [_functional_oracle(family, task, kwargs, [b]) for b in batches] if use_forward else None
        )
    assert_same(ours, theirs)
    if use_forward:
        assert_same(ours_batch, theirs_batch)


@pytest.mark.parametrize(("family", "task", "kwargs"), SCORE_CLASSES)
@pytest.mark.parametrize("kind", ["probs", "logits"])
@pytest.mark.parametrize("ignore_index", [None, -1])
def test_score_class_streams_like_torchmetrics(family, task, kwargs, kind, ignore_index):
    kwargs = {**kwargs, "ignore_index": ignore_index}
    batches = _batches(task, kind, ignore_index, seed=11, variant="ties" if kind == "probs" else "extra_dim")
    theirs_batch, theirs = _stream(_make(tmc, family, task, kwargs), batches, use_forward=True)
    ours_batch, ours = _stream(_make(lmc, family, task, kwargs), batches, use_forward=True)
    assert_same(ours, theirs)
    assert_same(ours_batch, theirs_batch)


@pytest.mark.parametrize(("name", "kwargs"), TASK_WRAPPERS)
def test_task_wrapper_builds_the_same_metric_as_torchmetrics(name, kwargs):
    import torchmetrics.classification

    ours, theirs = getattr(lm, name)(**kwargs), getattr(torchmetrics.classification, name)(**kwargs)
    assert type(ours).__name__ == type(theirs).__name__
    batches = _batches(kwargs["task"], "logits", None, seed=5, variant="plain")
    assert_same(_stream(ours, batches)[1], _stream(theirs, batches)[1])


@pytest.mark.parametrize("name", ["ROC", "AUROC", "PrecisionAtFixedRecall", "CalibrationError", "HingeLoss"])
def test_task_wrapper_rejects_unknown_task_and_missing_sizes(name):
    extra = {"min_recall": 0.5} if name == "PrecisionAtFixedRecall" else {}
    with pytest.raises(ValueError, match="task"):
        getattr(lm, name)(task="regression", **extra)
    with pytest.raises(ValueError, match="num_classes"):
        getattr(lm, name)(task="multiclass", num_classes=None, **extra)


def test_class_attributes_match_torchmetrics():
    for name in lmc.curves.__all__:
        theirs = getattr(tmc, name, None)
        if theirs is None or name in lmc.curves.TASK_WRAPPERS:
            continue
        ours = getattr(lmc, name)
        for attribute in ("is_differentiable", "higher_is_better", "full_state_update"):
            assert getattr(ours, attribute) == getattr(theirs, attribute), (name, attribute)


def test_exported_names_are_complete():
    assert set(lmc.curves.__all__) <= set(lmc.__all__)
    for name in lmc.curves.TASK_WRAPPERS:
        assert name in lm.__all__ and getattr(lm, name) is getattr(lmc, name)
    import lightning_metrics.functional.classification as lmf

    assert set(lmf.curves.__all__) <= set(lmf.__all__)
