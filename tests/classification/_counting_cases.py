"""Case tables shared by the count-based classification tests (torchmetrics is the oracle).

A case is (family, task, arguments, input kind, data scenario); every family runs over every
combination of its arguments with small tensors, so one parametrized test covers hundreds of
configurations in a fraction of a second.
"""

from __future__ import annotations

import itertools
from typing import Any, Iterator, Optional

import torch

N, X, C, L = 12, 3, 4, 3
TASKS = ("binary", "multiclass", "multilabel")
KINDS = ("labels", "probs", "logits")
SCENARIOS = ("random", "absent", "all_ignored")
AVERAGES = ("micro", "macro", "weighted", "none", None)

# family -> which arguments it takes (per task where they differ)
RATIO_FAMILIES = {
    "stat_scores": {},
    "accuracy": {},
    "precision": {"zero_division": True},
    "recall": {"zero_division": True},
    "f1_score": {"zero_division": True},
    "fbeta_score": {"zero_division": True, "beta": True},
    "specificity": {},
    "negative_predictive_value": {"zero_division": True},
    "hamming_distance": {},
}
MATRIX_FAMILIES = {
    "jaccard_index": {"zero_division": True, "average": True, "samplewise": False, "top_k": False},
    "matthews_corrcoef": {"average": False, "samplewise": False, "top_k": False},
    "cohen_kappa": {"average": False, "samplewise": False, "top_k": False, "weights": True, "tasks": ("binary", "multiclass")},
    "confusion_matrix": {"average": False, "samplewise": False, "top_k": False, "normalize": True},
    "exact_match": {"average": False, "samplewise": True, "top_k": False, "tasks": ("multiclass", "multilabel")},
}
FAMILIES = {
    **{k: {"average": True, "samplewise": True, "top_k": True, **v} for k, v in RATIO_FAMILIES.items()},
    **MATRIX_FAMILIES,
}


def family_tasks(family: str) -> tuple:
    return FAMILIES[family].get("tasks", TASKS)


def ignore_values(task: str) -> tuple:
    return (None, -1, 0) if task == "multiclass" else (None, -1)


def argument_grid(family: str, task: str, kind: str) -> Iterator[dict[str, Any]]:
    """Every argument combination of ``family`` for ``task`` and an input ``kind``."""
    spec = FAMILIES[family]
    axes: dict[str, tuple] = {"ignore_index": ignore_values(task)}
    if spec["samplewise"]:
        axes["multidim_average"] = ("global", "samplewise")
    if task != "binary" and spec["average"]:
        axes["average"] = AVERAGES
    if task == "multiclass" and spec["top_k"] and kind != "labels":
        axes["top_k"] = (1, 2)
    if spec.get("zero_division"):
        axes["zero_division"] = (0, 1)
    if spec.get("beta"):
        axes["beta"] = (0.5, 2.0)
    if spec.get("weights"):
        axes["weights"] = (None, "linear", "quadratic")
    if spec.get("normalize"):
        axes["normalize"] = (None, "true", "pred", "all")
    names = list(axes)
    for values in itertools.product(*(axes[n] for n in names)):
        yield dict(zip(names, values))


def size_kwargs(task: str) -> dict[str, int]:
    return {"binary": {}, "multiclass": {"num_classes": C}, "multilabel": {"num_labels": L}}[task]


def make_inputs(
    task: str, kind: str, scenario: str, ignore_index: Optional[int], samplewise: bool, seed: int = 0
) -> tuple[torch.Tensor, torch.Tensor]:
    """Small random ``preds`` / ``target`` of the given task, input kind and scenario.

    ``absent``: some classes (labels) never occur in the target, one never in the predictions.
    ``all_ignored``: every target equals ``ignore_index`` (when there is one).
    """
    g = torch.Generator().manual_seed(seed)
    extra = (X,) if samplewise or seed % 2 else ()
    if task == "binary":
        target = torch.randint(0, 2, (N, *extra), generator=g)
        scores = torch.rand((N, *extra), generator=g)
    elif task == "multiclass":
        target = torch.randint(0, C, (N, *extra), generator=g)
        scores = torch.rand((N, C, *extra), generator=g)
    else:
        target = torch.randint(0, 2, (N, L, *extra), generator=g)
        scores = torch.rand((N, L, *extra), generator=g)
    if scenario == "absent":
        if task == "multiclass":
            target = target % 2  # classes 2, 3 never in the target
            scores[:, 2] = -1.0  # class 2 never predicted
        elif task == "multilabel":
            target[:, 2] = 0
            scores[:, 2] = 0.1
        else:
            target = torch.zeros_like(target)
    if kind == "labels":
        preds = scores.argmax(1) if task == "multiclass" else (scores > 0.5).long()
    elif kind == "probs":
        preds = scores.clamp(0, 1).softmax(1) if task == "multiclass" else scores.clamp(0, 1)
    else:
        preds = scores * 6 - 3 if task == "multiclass" else torch.logit(scores.clamp(0.01, 0.99))
    if ignore_index is not None:
        mask = torch.rand(target.shape, generator=g) < 0.25
        if scenario == "all_ignored":
            mask[:] = True
        target = torch.where(mask, torch.full_like(target, ignore_index), target)
    return preds, target


def cases(family: str) -> list[tuple]:
    """(task, kind, scenario) triples of ``family``, as pytest params."""
    return [(t, k, s) for t in family_tasks(family) for k in KINDS for s in SCENARIOS]
