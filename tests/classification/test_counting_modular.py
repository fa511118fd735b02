"""Parity of the modular count-based metrics with torchmetrics' modular ones, over two batches.

Also checks ``forward`` (the batch value) and that the task wrappers build the same classes.
"""

from __future__ import annotations

import warnings

import pytest
import torch
import torchmetrics
import torchmetrics.classification as tmc

import lightning_metrics as lm
import lightning_metrics.classification as lmc
from tests.classification._counting_cases import FAMILIES, argument_grid, make_inputs, size_kwargs
from tests.classification.test_counting_functional import compare, known_deviation

CLASS_STEMS = {
    "stat_scores": "StatScores",
    "accuracy": "Accuracy",
    "precision": "Precision",
    "recall": "Recall",
    "f1_score": "F1Score",
    "fbeta_score": "FBetaScore",
    "specificity": "Specificity",
    "negative_predictive_value": "NegativePredictiveValue",
    "hamming_distance": "HammingDistance",
    "jaccard_index": "JaccardIndex",
    "matthews_corrcoef": "MatthewsCorrCoef",
    "cohen_kappa": "CohenKappa",
    "confusion_matrix": "ConfusionMatrix",
    "exact_match": "ExactMatch",
}


def class_name(family: str, task: str) -> str:
    return f"{task.capitalize()}{CLASS_STEMS[family]}"


def modular_failures(family: str, task: str, kind: str, scenario: str) -> list[str]:
    failures = []
    name = class_name(family, task)
    for i, args in enumerate(argument_grid(family, task, kind)):
        if scenario == "all_ignored" and args["ignore_index"] is None:
            continue
        if i % 2 and scenario != "all_ignored":  # every other combination: the functional table covers all
            continue
        kwargs = {**size_kwargs(task), **args}
        if known_deviation(family, task, kwargs) or (family == "negative_predictive_value" and args.get("zero_division")):
            continue  # torchmetrics' modular NPV ignores zero_division (its functional honours it; so do we)
        samplewise = args.get("multidim_average") == "samplewise"
        preds, target = make_inputs(task, kind, scenario, args["ignore_index"], samplewise, seed=i)
        theirs, ours = getattr(tmc, name)(**kwargs), getattr(lmc, name)(**kwargs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                expected_batch = theirs(preds[:5], target[:5])
                theirs.update(preds[5:], target[5:])
                expected = theirs.compute()
            except Exception:  # noqa: BLE001 - torchmetrics cannot; nothing to compare
                continue
            got_batch = ours(preds[:5], target[:5])
            ours.update(preds[5:], target[5:])
            got = ours.compute()
        for label, a, b in (("forward", got_batch, expected_batch), ("compute", got, expected)):
            problem = compare(a, b)
            if problem:
                failures.append(f"{name}({kind}, {scenario}, {kwargs}) {label}: {problem}")
    return failures


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_modular_parity(family: str) -> None:
    failures = []
    for task in FAMILIES[family].get("tasks", ("binary", "multiclass", "multilabel")):
        for kind in ("labels", "logits"):
            for scenario in ("random", "absent", "all_ignored"):
                failures += modular_failures(family, task, kind, scenario)
    assert not failures, f"{len(failures)} mismatches, e.g.:\n" + "\n".join(failures[:15])


@pytest.mark.parametrize("stem", sorted(set(CLASS_STEMS.values())))
def test_task_wrappers_build_the_task_class(stem: str) -> None:
    wrapper = getattr(lm, stem)
    tasks = {"ExactMatch": ("multiclass", "multilabel"), "CohenKappa": ("binary", "multiclass")}.get(
        stem, ("binary", "multiclass", "multilabel")
    )
    for task in tasks:
        kwargs = {"binary": {}, "multiclass": {"num_classes": 3}, "multilabel": {"num_labels": 3}}[task]
        metric = wrapper(task=task, **kwargs)
        assert type(metric).__name__ == f"{task.capitalize()}{stem}"
        assert type(getattr(torchmetrics, stem)(task=task, **kwargs)).__name__ == type(metric).__name__
    with pytest.raises(ValueError, match="task"):
        wrapper(task="multitask", num_classes=3)


def test_task_wrapper_defaults_are_micro() -> None:
    assert lm.Precision(task="multiclass", num_classes=3).average == "micro"
    assert lmc.MulticlassPrecision(num_classes=3).average == "macro"
    assert lm.JaccardIndex(task="multiclass", num_classes=3)._reduction.average == "macro"


def test_attributes_match_torchmetrics() -> None:
    for stem in CLASS_STEMS.values():
        for task in ("Binary", "Multiclass", "Multilabel"):
            ours, theirs = getattr(lmc, task + stem, None), getattr(tmc, task + stem, None)
            if ours is None or theirs is None:
                assert (ours is None) == (theirs is None), task + stem
                continue
            for attr in ("higher_is_better", "is_differentiable", "full_state_update"):
                assert getattr(ours, attr) == getattr(theirs, attr), (task + stem, attr)


def test_samplewise_compute_before_update_is_empty() -> None:
    metric = lmc.MulticlassAccuracy(num_classes=3, multidim_average="samplewise")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert metric.compute().shape == (0,)
