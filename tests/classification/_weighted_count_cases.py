"""Generated cases for the weighted count metrics: hundreds of items, ties at the threshold, integer,
fractional and zero weights, ignored positions; and the functions of every count family by task."""

from __future__ import annotations

from typing import Any, Callable, Optional

import torch

import lightning_metrics.functional.classification as lmf

C, L = 4, 3  # classes, labels


def weights(n: int, g: torch.Generator, kind: str = "mixed") -> torch.Tensor:
    """``n`` float64 weights: integers 0..3, fractions, or a mix with zeros."""
    if kind == "integer":
        return torch.randint(0, 4, (n,), generator=g).double()
    fractional = torch.rand(n, generator=g, dtype=torch.float64) * 3
    if kind == "fractional":
        return fractional + 0.05
    mixed = torch.where(torch.rand(n, generator=g) < 0.5, fractional.round(), fractional)
    return torch.where(torch.rand(n, generator=g) < 0.15, 0.0, mixed)


def case(task: str, seed: int, n: int = 300, extra: tuple = (), ignore_index: Optional[int] = None,
         weight_kind: str = "mixed") -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``preds``, ``target``, per-sample ``weight`` (``(n,)``) of ``task``; binary and multilabel scores hit the
    threshold 0.5 exactly at about one position in ten (a tie: predicted negative)."""
    g = torch.Generator().manual_seed(seed)
    if task == "multiclass":
        target = torch.randint(0, C, (n, *extra), generator=g)
        preds = torch.randn((n, C, *extra), generator=g)
        preds = preds + 1.5 * torch.nn.functional.one_hot(target, C).movedim(-1, 1)  # better than chance
    else:
        shape = (n, *extra) if task == "binary" else (n, L, *extra)
        target = torch.randint(0, 2, shape, generator=g)
        preds = (0.35 * target + 0.65 * torch.rand(shape, generator=g)).clamp(0, 1)
        preds = torch.where(torch.rand(shape, generator=g) < 0.1, 0.5, preds)
    if ignore_index is not None:
        ignored = torch.rand(target.shape, generator=g) < 0.2
        target = torch.where(ignored, ignore_index, target)
    return preds, target, weights(n, g, weight_kind)


def labels(task: str, preds: torch.Tensor) -> torch.Tensor:
    """Predicted labels as the metrics read them (top-1 class, or ``preds > 0.5``)."""
    return preds.argmax(1) if task == "multiclass" else (preds > 0.5).long()


SIZE = {"binary": {}, "multiclass": {"num_classes": C}, "multilabel": {"num_labels": L}}

# family -> (tasks, extra argument grid per task); the function is lmf.<task>_<family>
_AVERAGED = {"multiclass": [{"average": a} for a in ("micro", "macro", "weighted", None)],
             "multilabel": [{"average": a} for a in ("micro", "macro", "weighted", None, "samples")]}
_RATIO = ("binary", "multiclass", "multilabel")
FAMILIES: dict[str, tuple[tuple, dict[str, list[dict[str, Any]]]]] = {
    "stat_scores": (_RATIO, {**_AVERAGED, "multilabel": _AVERAGED["multiclass"]}),
    "accuracy": (_RATIO, _AVERAGED),
    "precision": (_RATIO, _AVERAGED),
    "recall": (_RATIO, _AVERAGED),
    "f1_score": (_RATIO, _AVERAGED),
    "fbeta_score": (_RATIO, {t: [{**a, "beta": 2.0} for a in _AVERAGED[t]] for t in _AVERAGED}),
    "specificity": (_RATIO, _AVERAGED),
    "negative_predictive_value": (_RATIO, _AVERAGED),
    "hamming_distance": (_RATIO, _AVERAGED),
    "jaccard_index": (_RATIO, _AVERAGED),
    "exact_match": (("multiclass", "multilabel"), {}),
    "matthews_corrcoef": (_RATIO, {}),
    "cohen_kappa": (("binary", "multiclass"), {t: [{"weights": w} for w in (None, "linear", "quadratic")]
                                               for t in ("binary", "multiclass")}),
    "confusion_matrix": (_RATIO, {t: [{"normalize": z} for z in (None, "true", "pred", "all")] for t in _RATIO}),
}
COUNTS_VALUED = ("stat_scores", "confusion_matrix")


def family_calls(families=FAMILIES) -> list[tuple[str, str, dict[str, Any]]]:  # noqa: ANN001
    """(family, task, arguments) of every function and argument set in ``families``."""
    calls = []
    for family, (tasks, grid) in families.items():
        for task in tasks:
            for extra in grid.get(task, [{}]):
                fbeta = {"beta": 2.0} if family == "fbeta_score" else {}
                calls.append((family, task, {**SIZE[task], **fbeta, **extra}))
    return calls


def function(family: str, task: str) -> Callable:
    return getattr(lmf, f"{task}_{family}")


def call_id(call: tuple) -> str:
    family, task, args = call
    shown = ",".join(f"{k}={v}" for k, v in args.items() if k not in ("num_classes", "num_labels"))
    return f"{task}_{family}[{shown}]"
