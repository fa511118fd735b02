"""Generated inputs and a structural comparator for the curve / score metric parity tests."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any, Optional

import pytest
import torch

NUM_CLASSES = 4
THRESHOLD_KINDS = {
    "exact": None,
    "int": 5,
    "list": [0.0, 0.2, 0.45, 0.7, 1.0],
    "tensor": torch.linspace(0, 1, 9),
}
VARIANTS = ("plain", "ties", "absent_class", "extra_dim")
# one configuration per task wrapper (the class name; functional_name gives the function's)
TASK_WRAPPERS = [
    ("ROC", {"task": "multiclass", "num_classes": NUM_CLASSES, "average": "macro"}),
    ("PrecisionRecallCurve", {"task": "multilabel", "num_labels": NUM_CLASSES, "thresholds": 5}),
    ("AUROC", {"task": "binary", "max_fpr": 0.3}),
    ("AUROC", {"task": "multilabel", "num_labels": NUM_CLASSES, "average": "micro"}),
    ("AveragePrecision", {"task": "multiclass", "num_classes": NUM_CLASSES, "average": "weighted"}),
    ("PrecisionAtFixedRecall", {"task": "binary", "min_recall": 0.3}),
    ("RecallAtFixedPrecision", {"task": "multilabel", "num_labels": NUM_CLASSES, "min_precision": 0.3}),
    ("SensitivityAtSpecificity", {"task": "multiclass", "num_classes": NUM_CLASSES, "min_specificity": 0.3}),
    ("SpecificityAtSensitivity", {"task": "binary", "min_sensitivity": 0.3, "thresholds": 11}),
    ("EER", {"task": "multiclass", "num_classes": NUM_CLASSES, "average": "micro"}),
    ("LogAUC", {"task": "multilabel", "num_labels": NUM_CLASSES}),
    ("CalibrationError", {"task": "multiclass", "num_classes": NUM_CLASSES, "norm": "l2"}),
    ("HingeLoss", {"task": "multiclass", "num_classes": NUM_CLASSES, "multiclass_mode": "one-vs-all"}),
]
_FUNCTIONAL_NAME = {"ROC": "roc", "EER": "eer", "LogAUC": "logauc", "AUROC": "auroc"}


def functional_name(family: str) -> str:
    """The function of a class family: ``PrecisionRecallCurve`` -> ``precision_recall_curve``."""
    return _FUNCTIONAL_NAME.get(family) or re.sub(r"(?<!^)(?=[A-Z])", "_", family).lower()
CURVE_CASE_ARGS = ("family", "task", "kwargs", "kind", "ignore_index", "thresholds", "variant", "seed")


def curve_cases(families: dict[str, dict[str, list[dict]]]) -> Iterator[Any]:
    """The parameters :data:`CURVE_CASE_ARGS` of every configuration of ``families`` (family -> task ->
    kwargs list) with probs or logits, with and without ``ignore_index`` and every threshold kind; the
    input variants take turns and the running index is the seed."""
    index = 0
    for family, tasks in families.items():
        for task, kwarg_list in tasks.items():
            for kwargs, kind, ignore_index, thresholds in itertools.product(
                kwarg_list, ("probs", "logits"), (None, -1), THRESHOLD_KINDS
            ):
                variant = VARIANTS[index % len(VARIANTS)]
                index += 1
                yield pytest.param(
                    family,
                    task,
                    kwargs,
                    kind,
                    ignore_index,
                    thresholds,
                    variant,
                    index,
                    id=f"{family}-{task}-{kwargs}-{kind}-ii{ignore_index}-{thresholds}-{variant}",
                )


def make_batch(
    task: str,
    kind: str,
    ignore_index: Optional[int],
    seed: int,
    n: int = 48,
    extra_dim: bool = False,
    ties: bool = False,
    absent_class: bool = False,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Scores (probabilities or logits) and integer targets for one task, with optional hard cases."""
    g = torch.Generator().manual_seed(seed)
    extra = (3,) if extra_dim else ()
    if task == "binary":
        shape, target_high = (n, *extra), 2
    else:
        shape, target_high = (n, NUM_CLASSES, *extra), 2
    if task == "multiclass":
        logits = torch.randn(shape, generator=g) * 2
        preds = logits if kind == "logits" else logits.softmax(dim=1)
        high = NUM_CLASSES - 1 if absent_class else NUM_CLASSES
        target = torch.randint(0, high, (n, *extra), generator=g)
    else:
        logits = torch.randn(shape, generator=g) * 2
        preds = logits if kind == "logits" else logits.sigmoid()
        target = torch.randint(0, target_high, shape, generator=g)
        if absent_class and task == "multilabel":
            target[:, -1] = 0
    if ties:
        preds = (preds * 4).round() / 4 if kind == "probs" else preds.round()
    if ignore_index is not None:
        drop = torch.rand(target.shape, generator=g) < 0.15
        target = target.masked_fill(drop, ignore_index)
    return preds, target


def assert_same(ours: Any, theirs: Any, rtol: float = 1e-5, atol: float = 1e-6, path: str = "result") -> None:
    """Same structure (tuple/list/tensor), shapes, dtypes and values (nan == nan)."""
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)), f"{path}: expected a sequence, got {type(ours).__name__}"
        assert type(ours) is type(theirs), f"{path}: {type(ours).__name__} != {type(theirs).__name__}"
        assert len(ours) == len(theirs), f"{path}: length {len(ours)} != {len(theirs)}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_same(a, b, rtol, atol, f"{path}[{i}]")
        return
    assert isinstance(ours, torch.Tensor), f"{path}: expected a tensor, got {type(ours).__name__}"
    torch.testing.assert_close(
        ours, theirs, rtol=rtol, atol=atol, equal_nan=True, msg=lambda m: f"{path}: {m}"
    )
