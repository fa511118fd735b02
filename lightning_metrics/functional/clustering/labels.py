"""Scores that compare two labelings of the same samples (extrinsic clustering scores).

Cluster ids are arbitrary integers: each function builds the contingency table of the two labelings
(:func:`~lightning_metrics.functional._contingency.dense_table`, one ``torch.unique`` per labeling)
and reads the score from it (:data:`~lightning_metrics.functional._contingency_measures.MEASURES`).
``cluster_accuracy`` takes labels in ``[0, num_classes)`` and a fixed table instead.
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Real
from typing import Any, Literal

from torch import Tensor

from lightning_metrics.functional._contingency import (
    TableStats,
    check_label_range,
    check_num_classes,
    dense_table,
    fixed_table,
)
from lightning_metrics.functional._contingency_measures import AVERAGE_METHODS, MEASURES
from lightning_metrics.utilities.checks import check_choice

AverageMethod = Literal["min", "geometric", "arithmetic", "max"]


# ------------------------------------------------------------------ checks
def check_cluster_labels(preds: Any, target: Any) -> None:
    """Two 1-D integer tensors of the same length (shapes and dtypes only: no value is read)."""
    for name, value in (("preds", preds), ("target", target)):
        if not isinstance(value, Tensor):
            raise TypeError(f"Argument `{name}` must be a torch.Tensor, got {type(value).__name__}")
        if value.is_floating_point() or value.is_complex():
            raise ValueError(
                f"Argument `{name}` must hold integer cluster labels, got dtype {value.dtype}; "
                "convert it with `.long()` if the values are whole numbers"
            )
        if value.ndim != 1:
            raise ValueError(
                f"Argument `{name}` must be a 1-D tensor of cluster labels, got shape {tuple(value.shape)}"
            )
    if preds.shape != target.shape:
        raise ValueError(
            f"Arguments `preds` and `target` must have the same shape, got {tuple(preds.shape)} and "
            f"{tuple(target.shape)}"
        )


def check_beta(beta: Any) -> None:
    if isinstance(beta, bool) or not isinstance(beta, Real) or not beta > 0:
        raise ValueError(f"Argument `beta` must be a positive float, got {beta!r}")


def check_average_method(average_method: Any) -> None:
    check_choice("average_method", average_method, AVERAGE_METHODS)


_OPTION_CHECKS: dict[str, Callable[[Any], None]] = {
    "average_method": check_average_method,
    "beta": check_beta,
}


def check_label_options(**options: Any) -> None:
    """A score's own arguments (``average_method``, ``beta``), in the functions and the modular metrics alike."""
    for option, value in options.items():
        _OPTION_CHECKS[option](value)


def label_score(measure: str, preds: Tensor, target: Tensor, **options: Any) -> Tensor:
    """``MEASURES[measure]`` of the contingency table of two labelings (its options checked first)."""
    check_label_options(**options)
    check_cluster_labels(preds, target)
    return MEASURES[measure](TableStats(dense_table(preds, target)), **options)


# ------------------------------------------------------------------ the scores
def mutual_info_score(preds: Tensor, target: Tensor) -> Tensor:
    """Mutual information (nats) between two clusterings.

    >>> import torch
    >>> mutual_info_score(torch.tensor([2, 1, 0, 1, 0]), torch.tensor([0, 2, 1, 1, 0]))
    tensor(0.5004)
    """
    return label_score("mutual_info_score", preds, target)


def normalized_mutual_info_score(
    preds: Tensor, target: Tensor, average_method: AverageMethod = "arithmetic"
) -> Tensor:
    """Mutual information divided by a mean (``average_method``) of the two entropies.

    >>> import torch
    >>> normalized_mutual_info_score(torch.tensor([2, 1, 0, 1, 0]), torch.tensor([0, 2, 1, 1, 0]))
    tensor(0.4744)
    """
    return label_score("normalized_mutual_info_score", preds, target, average_method=average_method)


def adjusted_mutual_info_score(
    preds: Tensor, target: Tensor, average_method: AverageMethod = "arithmetic"
) -> Tensor:
    """Mutual information adjusted for chance: 0 for random labelings, 1 for equal ones.

    >>> import torch
    >>> adjusted_mutual_info_score(torch.tensor([2, 1, 0, 1, 0]), torch.tensor([0, 2, 1, 1, 0]))
    tensor(-0.2500)
    """
    return label_score("adjusted_mutual_info_score", preds, target, average_method=average_method)


def rand_score(preds: Tensor, target: Tensor) -> Tensor:
    """The share of sample pairs on which the two clusterings agree (same cluster in both, or in neither).

    >>> import torch
    >>> rand_score(torch.tensor([0, 0, 1, 2]), torch.tensor([0, 0, 1, 1]))
    tensor(0.8333)
    """
    return label_score("rand_score", preds, target)


def adjusted_rand_score(preds: Tensor, target: Tensor) -> Tensor:
    """The Rand score adjusted for chance.

    >>> import torch
    >>> adjusted_rand_score(torch.tensor([0, 0, 1, 2]), torch.tensor([0, 0, 1, 1]))
    tensor(0.5714)
    """
    return label_score("adjusted_rand_score", preds, target)


def fowlkes_mallows_index(preds: Tensor, target: Tensor) -> Tensor:
    """The geometric mean of pair precision and pair recall.

    >>> import torch
    >>> fowlkes_mallows_index(torch.tensor([2, 2, 0, 1, 0]), torch.tensor([2, 2, 1, 1, 0]))
    tensor(0.5000)
    """
    return label_score("fowlkes_mallows_index", preds, target)


def homogeneity_score(preds: Tensor, target: Tensor) -> Tensor:
    """Whether each predicted cluster holds a single target class: ``MI / H(target)``.

    >>> import torch
    >>> homogeneity_score(torch.tensor([0, 0, 1, 2]), torch.tensor([0, 0, 1, 1]))
    tensor(1.)
    """
    return label_score("homogeneity_score", preds, target)


def completeness_score(preds: Tensor, target: Tensor) -> Tensor:
    """Whether each target class lies in a single predicted cluster: ``MI / H(preds)``.

    >>> import torch
    >>> completeness_score(torch.tensor([0, 0, 1, 2]), torch.tensor([0, 0, 1, 1]))
    tensor(0.6667)
    """
    return label_score("completeness_score", preds, target)


def v_measure_score(preds: Tensor, target: Tensor, beta: float = 1.0) -> Tensor:
    """The weighted harmonic mean of homogeneity and completeness (``beta`` weighs homogeneity).

    >>> import torch
    >>> v_measure_score(torch.tensor([0, 0, 1, 2]), torch.tensor([0, 0, 1, 1]))
    tensor(0.8000)
    """
    return label_score("v_measure_score", preds, target, beta=beta)


def cluster_accuracy(preds: Tensor, target: Tensor, num_classes: int) -> Tensor:
    """Accuracy after the best one-to-one mapping of predicted clusters to target classes.

    Labels lie in ``[0, num_classes)``; the mapping solves a linear sum assignment (in torch, see
    :mod:`lightning_metrics.functional._assignment`; no extra dependency).

    >>> import torch
    >>> cluster_accuracy(torch.tensor([1, 1, 0, 0, 2]), torch.tensor([0, 0, 1, 1, 1]), num_classes=3)
    tensor(0.8000)
    """
    check_num_classes(num_classes)
    check_cluster_labels(preds, target)
    check_label_range(preds, target, num_classes)
    return MEASURES["cluster_accuracy"](TableStats(fixed_table(preds, target, num_classes)))


__all__ = [
    "adjusted_mutual_info_score",
    "adjusted_rand_score",
    "cluster_accuracy",
    "completeness_score",
    "fowlkes_mallows_index",
    "homogeneity_score",
    "mutual_info_score",
    "normalized_mutual_info_score",
    "rand_score",
    "v_measure_score",
]
