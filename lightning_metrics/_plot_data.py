"""What figures are made of: the shape of a value, curve lines and areas, normalized confusion
matrices, calibration bins read from a metric's states. No drawing here (see :mod:`.plotting`).

>>> import torch
>>> value_kind(torch.tensor(0.5)), value_kind(torch.tensor([0.2, 0.8])), value_kind(torch.eye(2))
('scalar', 'vector', 'matrix')
"""

from __future__ import annotations

import numbers
from typing import Any, Mapping, Optional, Sequence

import torch
from torch import Tensor

from lightning_metrics.utilities.checks import check_choice

NORMALIZATIONS = (None, "true", "pred", "all")


# ----------------------------------------------------------------- value shapes
def _is_scalar(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, numbers.Number) or (isinstance(value, Tensor) and value.numel() == 1)


def value_kind(value: Any) -> str:
    """What a computed value looks like, for drawing.

    One of ``"scalar"``, ``"series"`` (a sequence of scalars, e.g. one value per step),
    ``"series_of_mappings"``, ``"vector"``, ``"matrix"``, ``"multilabel_matrix"`` (``(L, 2, 2)``),
    ``"curve"`` (``(x, y[, thresholds])`` of tensors or of per-class lists), ``"mapping"`` or
    ``"other"``.

    >>> import torch
    >>> value_kind(torch.zeros(4, 2, 2)), value_kind((torch.rand(3), torch.rand(3), torch.rand(2)))
    ('multilabel_matrix', 'curve')
    >>> value_kind([torch.tensor(0.1), torch.tensor(0.2)]), value_kind({"a": torch.tensor(1.0)})
    ('series', 'mapping')
    """
    if _is_scalar(value):
        return "scalar"
    if isinstance(value, Mapping):
        return "mapping"
    if isinstance(value, Tensor):
        if value.ndim == 1 and value.numel() > 0:
            return "vector"
        if value.ndim == 2 and value.numel() > 0:
            return "matrix"
        if value.ndim == 3 and value.numel() > 0 and tuple(value.shape[1:]) == (2, 2):
            return "multilabel_matrix"
        return "other"
    if isinstance(value, (list, tuple)) and value:
        if all(_is_scalar(v) for v in value):
            return "series"
        if all(isinstance(v, Mapping) for v in value):
            return "series_of_mappings"
        if len(value) in (2, 3) and all(isinstance(v, (Tensor, list, tuple)) for v in value):
            return "curve"
    return "other"


def curve_kind(metric: Any = None, name: Optional[str] = None) -> Optional[str]:
    """``"roc"``, ``"pr"`` or ``None`` (a generic curve), from the metric's class or the result's name.

    A metric may say it directly with a ``plot_curve_kind`` attribute.

    >>> curve_kind(name="val/roc"), curve_kind(name="pr_curve"), curve_kind(name="lift")
    ('roc', 'pr', None)
    """
    hints = [
        getattr(metric, "plot_curve_kind", None),
        type(metric).__name__ if metric is not None else None,
        name,
    ]
    for hint in hints:
        if not isinstance(hint, str):
            continue
        text = hint.lower().replace("_", "").replace("-", "").rsplit("/", 1)[-1]
        if text in ("roc", "pr") or "precisionrecall" in text or text.startswith("prcurve"):
            return "roc" if text == "roc" else "pr"
        if "roc" in text and "auroc" not in text:
            return "roc"
    return None


def curve_lines(value: Any, kind: Optional[str] = None) -> list[tuple[Tensor, Tensor]]:
    """The ``(x, y)`` line(s) of a curve value: one for a binary curve, one per class otherwise.

    Precision-recall values come as ``(precision, recall, thresholds)`` and are drawn with
    recall on x. Non-finite points (classes without positives) are dropped.

    >>> import torch
    >>> precision, recall = torch.tensor([1.0, 0.5]), torch.tensor([0.0, 1.0])
    >>> [(x.tolist(), y.tolist()) for x, y in curve_lines((precision, recall), "pr")]
    [([0.0, 1.0], [1.0, 0.5])]
    """
    first, second = value[0], value[1]
    if isinstance(first, Tensor) and first.ndim <= 1:
        pairs = [(first, second)]
    elif isinstance(first, Tensor):
        pairs = list(zip(first.unbind(0), second.unbind(0)))
    else:
        pairs = list(zip(first, second))
    out = []
    for a, b in pairs:
        a = torch.as_tensor(a).detach().cpu().double().flatten()
        b = torch.as_tensor(b).detach().cpu().double().flatten()
        x, y = (b, a) if kind == "pr" else (a, b)
        keep = torch.isfinite(x) & torch.isfinite(y)
        out.append((x[keep], y[keep]))
    return out


def area(x: Tensor, y: Tensor) -> float:
    """The area under a monotone line (trapezoid rule, either direction of x).

    >>> import torch
    >>> area(torch.tensor([0.0, 0.5, 1.0]), torch.tensor([0.0, 1.0, 1.0]))
    0.75
    """
    return abs(float(torch.trapezoid(y, x))) if x.numel() > 1 else float("nan")


def normalize_confusion(matrix: Tensor, normalize: Optional[str]) -> Tensor:
    """Rows (``"true"``), columns (``"pred"``) or the whole (``"all"``) summing to one; 0/0 -> 0.

    >>> import torch
    >>> normalize_confusion(torch.tensor([[3, 1], [0, 0]]), "true")
    tensor([[0.7500, 0.2500],
            [0.0000, 0.0000]])
    """
    check_choice("normalize", normalize, NORMALIZATIONS)
    matrix = torch.as_tensor(matrix)
    if normalize is None:
        return matrix
    value = matrix.double()
    if normalize == "true":
        total = value.sum(dim=-1, keepdim=True)
    elif normalize == "pred":
        total = value.sum(dim=-2, keepdim=True)
    else:
        total = value.sum(dim=(-2, -1), keepdim=True)
    return torch.nan_to_num(value / total).float()


def reliability_bins(metric: Any) -> Optional[tuple[Tensor, Tensor, Tensor]]:
    """Mean confidence, accuracy and sample count per confidence bin of a calibration metric.

    Read from the metric's (merged) states: a ``(3, n_bins + 1)`` histogram (count, confidence
    sum, accuracy sum) or torchmetrics' ``confidences``/``accuracies`` states. ``None`` when the
    metric has neither. A confidence of exactly 1 is counted in the last bin.
    """
    n_bins = getattr(metric, "n_bins", None)
    if not isinstance(n_bins, int) or isinstance(n_bins, bool) or n_bins < 1:
        return None
    states = _states(metric)
    histogram = None
    for value in states.values():
        if isinstance(value, Tensor) and value.ndim == 2 and tuple(value.shape) == (3, n_bins + 1):
            histogram = value.detach().cpu().double()
    if histogram is None and "confidences" in states and "accuracies" in states:
        confidences = _cat(states["confidences"]).double()
        accuracies = _cat(states["accuracies"]).double()
        edges = torch.linspace(0, 1, n_bins + 1, dtype=torch.float64)
        index = (torch.bucketize(confidences, edges, right=True) - 1).clamp(0, n_bins)
        histogram = torch.zeros(3, n_bins + 1, dtype=torch.float64)
        histogram.index_add_(1, index, torch.stack([torch.ones_like(confidences), confidences, accuracies]))
    if histogram is None:
        return None
    folded = histogram[:, :n_bins].clone()
    folded[:, -1] += histogram[:, n_bins]  # confidences of exactly 1 join the last bin
    count, confidence_sum, accuracy_sum = folded
    return torch.nan_to_num(confidence_sum / count), torch.nan_to_num(accuracy_sum / count), count


def _states(metric: Any) -> dict[str, Any]:
    state = getattr(metric, "metric_state", None)
    if isinstance(state, Mapping):
        return dict(state)
    names = getattr(metric, "_defaults", None) or {}
    return {name: getattr(metric, name) for name in names if hasattr(metric, name)}


def _cat(value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return value.detach().cpu().flatten()
    return (
        torch.cat([torch.as_tensor(v).detach().cpu().flatten() for v in value]) if value else torch.zeros(0)
    )


def _as_tensor(value: Any) -> Tensor:
    return torch.as_tensor(value).detach().cpu()


def _labels(size: int, names: Optional[Sequence[Any]]) -> list[str]:
    if names is not None and len(names) == size:
        return [str(n) for n in names]
    return [str(i) for i in range(size)]
