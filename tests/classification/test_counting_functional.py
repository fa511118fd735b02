"""Parity of the functional count-based metrics with torchmetrics, table-driven.

Each test runs one (family, task, input kind, scenario) over every combination of the family's
arguments (average, top_k, ignore_index, multidim_average, zero_division, beta, ...) and reports
every mismatch of value, shape or dtype at once.
"""

from __future__ import annotations

import warnings

import pytest
import torch
import torchmetrics.functional.classification as tmf

import lightning_metrics.functional.classification as lmf
from tests.classification._counting_cases import FAMILIES, argument_grid, cases, make_inputs, size_kwargs


def compare(ours: torch.Tensor, theirs: torch.Tensor) -> str:
    """An empty string when equal (values to rtol 1e-5, shapes, dtypes), else what differs."""
    if ours.shape != theirs.shape:
        return f"shape {tuple(ours.shape)} != {tuple(theirs.shape)}"
    if ours.dtype != theirs.dtype:
        return f"dtype {ours.dtype} != {theirs.dtype}"
    if not torch.allclose(ours.double(), theirs.double(), rtol=1e-5, atol=1e-6, equal_nan=True):
        return f"values {ours} != {theirs}"
    return ""


def known_deviation(family: str, task: str, kwargs: dict) -> bool:
    """torchmetrics normalizes multilabel samplewise ``weighted`` stat scores by the support of ALL
    samples (multiclass does it per sample); we do it per sample for both."""
    return (family, task, kwargs.get("multidim_average"), kwargs.get("average")) == (
        "stat_scores", "multilabel", "samplewise", "weighted"
    )


def run_grid(family: str, task: str, kind: str, scenario: str, call) -> list[str]:  # noqa: ANN001
    failures, seen = [], 0
    for args in argument_grid(family, task, kind):
        samplewise = args.get("multidim_average") == "samplewise"
        if scenario == "all_ignored" and args["ignore_index"] is None:
            continue
        preds, target = make_inputs(task, kind, scenario, args["ignore_index"], samplewise, seed=len(failures) + seen)
        seen += 1
        kwargs = {**size_kwargs(task), **args}
        if known_deviation(family, task, kwargs):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                theirs = getattr(tmf, f"{task}_{family}")(preds, target, **kwargs)
            except Exception as err:  # torchmetrics cannot do it: we must not return garbage silently
                theirs = err
            ours = call(family, task, preds, target, kwargs)
        if isinstance(theirs, Exception):
            continue
        problem = compare(ours, theirs)
        if problem:
            failures.append(f"{task}_{family}({kind}, {scenario}, {kwargs}): {problem}")
    return failures


def functional(family, task, preds, target, kwargs):  # noqa: ANN001, ANN201
    return getattr(lmf, f"{task}_{family}")(preds, target, **kwargs)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_functional_parity(family: str) -> None:
    failures = []
    for task, kind, scenario in cases(family):
        failures += run_grid(family, task, kind, scenario, functional)
    assert not failures, f"{len(failures)} mismatches, e.g.:\n" + "\n".join(failures[:15])


def test_multilabel_samplewise_weighted_stat_scores_weigh_by_the_total_support() -> None:
    """As torchmetrics 1.9: each label's weight is its support over the support of every sample."""
    preds = torch.tensor([[[1], [0]], [[1], [1]]])
    target = torch.tensor([[[1], [1]], [[0], [1]]])
    res = lmf.multilabel_stat_scores(preds, target, num_labels=2, average="weighted", multidim_average="samplewise")
    per_label = lmf.multilabel_stat_scores(preds, target, num_labels=2, average=None, multidim_average="samplewise")
    support = per_label[..., 4].float()  # (samples, labels): 1, 1 and 0, 1 -> total 3
    expected = (per_label * (support / support.sum()).unsqueeze(-1)).sum(1)
    torch.testing.assert_close(res, expected)
    assert res[0, 4].item() == pytest.approx(2 / 3)  # not 1: the weights of a sample do not sum to one
