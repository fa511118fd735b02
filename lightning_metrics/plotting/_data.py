"""What figures are made of: the shape of a value, curve lines and areas, normalized confusion
matrices, calibration bins read from a metric's states. No drawing here (see :mod:`lightning_metrics.plotting`).

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
    """``"roc"``, ``"pr"`` or ``None`` (a generic curve), from the metric's class (or the classes
    it derives from: a user's ``IsZeroPR(BinaryPrecisionRecallCurve)`` is a PR curve) or the
    result's name. A metric may say it directly with a ``plot_curve_kind`` attribute.

    >>> curve_kind(name="val/roc"), curve_kind(name="pr_curve"), curve_kind(name="lift")
    ('roc', 'pr', None)
    """
    classes = [cls.__name__ for cls in type(metric).__mro__[:-1]] if metric is not None else []
    hints = [getattr(metric, "plot_curve_kind", None), *classes, name]
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
    recall rising on x, up to the first point at full recall: the points after it only add
    negatives (precision falls at the same recall), so they are no part of the curve a reader
    wants (scikit-learn stops there too). Non-finite points (classes without positives) are
    dropped.

    >>> import torch
    >>> precision, recall = torch.tensor([0.4, 0.5, 1.0]), torch.tensor([1.0, 1.0, 0.0])
    >>> [(x.tolist(), y.tolist()) for x, y in curve_lines((precision, recall), "pr")]
    [([0.0, 1.0], [1.0, 0.5])]
    """
    pairs, _ = _raw_pairs(value)
    out = []
    for a, b in pairs:
        x, y = (b, a) if kind == "pr" else (a, b)
        keep = torch.isfinite(x) & torch.isfinite(y)
        x, y = x[keep], y[keep]
        if kind == "pr" and x.numel() > 1:
            if x[0] > x[-1]:  # the metrics list thresholds rising, so recall falls: draw it rising
                x, y = x.flip(0), y.flip(0)
            first_full = int(torch.nonzero(x == x.max())[0])
            x, y = x[: first_full + 1], y[: first_full + 1]
        out.append((x, y))
    return out


def _raw_pairs(value: Any) -> tuple[list[tuple[Tensor, Tensor]], bool]:
    """The curve's ``(first, second)`` tensors per line, and whether they came as tensors (a
    binary curve or binned per-class rows) rather than as per-class lists (exact curves)."""
    first, second = value[0], value[1]
    if isinstance(first, Tensor) and first.ndim <= 1:
        pairs, stacked = [(first, second)], True
    elif isinstance(first, Tensor):
        pairs, stacked = list(zip(first.unbind(0), second.unbind(0))), True
    else:
        pairs, stacked = list(zip(first, second)), False
    as_double = lambda t: torch.as_tensor(t).detach().cpu().double().flatten()  # noqa: E731
    return [(as_double(a), as_double(b)) for a, b in pairs], stacked


def average_precision(precision: Tensor, recall: Tensor) -> float:
    """Average precision of one precision-recall curve: each rise of recall times the precision
    at the higher-recall end (the steps of the drawn curve), in either order of the points.

    This is :class:`~lightning_metrics.classification.BinaryAveragePrecision`'s value on the same
    curve (and scikit-learn's ``average_precision_score``), not the trapezoid area.

    >>> import torch
    >>> precision = torch.tensor([0.5, 2 / 3, 0.5, 1.0, 1.0])  # scores (.9, .5, .6, .1), target (1, 1, 0, 0)
    >>> round(average_precision(precision, torch.tensor([1.0, 1.0, 0.5, 0.5, 0.0])), 4)  # sklearn's too
    0.8333
    """
    rise = recall[1:] - recall[:-1]
    upper = torch.where(rise < 0, precision[:-1], precision[1:])
    return float((rise.abs() * upper).sum()) if rise.numel() else float("nan")


def curve_scores(value: Any, kind: Optional[str] = None) -> list[float]:
    """One number per line of a curve value: the average precision of a PR curve, the area
    under any other curve (the AUROC of a ROC curve).

    As the metrics themselves: NaN points of a binary or binned curve count as 0, a class of an
    exact curve without positives has NaN.

    >>> import torch
    >>> fpr, tpr = torch.tensor([0.0, 0.0, 1.0]), torch.tensor([0.0, 1.0, 1.0])
    >>> curve_scores((fpr, tpr, torch.tensor([1.0, 0.5, 0.0])), "roc")
    [1.0]
    """
    pairs, stacked = _raw_pairs(value)
    out = []
    for a, b in pairs:
        if kind == "pr":
            if stacked:
                a, b = a.nan_to_num(0.0), b.nan_to_num(0.0)
            out.append(average_precision(a, b))
        else:
            keep = torch.isfinite(a) & torch.isfinite(b)
            out.append(area(a[keep], b[keep]))
    return out


def mean_score(scores: Sequence[float]) -> float:
    """The mean of the finite scores (classes without positives left out, as the macro average).

    >>> mean_score([0.5, float("nan"), 1.0])
    0.75
    """
    finite = [s for s in scores if s == s]
    return sum(finite) / len(finite) if finite else float("nan")


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


NORMALIZED_OVER = {
    "true": "normalized over the true class: rows sum to 1",
    "pred": "normalized over the predicted class: columns sum to 1",
    "all": "normalized over all samples: cells sum to 1",
}
COLOR_SCALES = ("linear", "log", "row")


def format_fraction(value: float) -> str:
    """A share in [0, 1] in at most 4 characters, never in scientific notation.

    >>> [format_fraction(v) for v in (0.0, 0.004, 0.0123, 0.5, 0.996, 1.0)]
    ['0', '<.01', '.01', '.50', '1', '1']
    """
    if value != value:
        return "nan"
    if value == 0:
        return "0"
    if 0 < value < 0.005:
        return "<.01"
    if value >= 0.995 and value <= 1.0:
        return "1"
    text = f"{value:.2f}"
    return text[1:] if text.startswith("0.") else text


def format_values(values: Sequence[float]) -> list[str]:
    """Labels for values drawn side by side (bars), with one number of decimals for all of them,
    so that 1 and 0.97 read ``1.00`` and ``0.97``; integers stay integers.

    >>> format_values([1.0, 0.97, float("nan")]), format_values([3.0, 12.0])
    (['1.00', '0.97', 'nan'], ['3', '12'])
    """
    finite = [v for v in values if v == v and abs(v) != float("inf")]
    if finite and all(v == int(v) for v in finite):
        return [str(int(v)) if v in finite else str(v) for v in values]
    largest = max((abs(v) for v in finite), default=0.0)
    decimals = 2 if largest < 100 else (1 if largest < 1000 else 0)
    return [f"{v:.{decimals}f}" if v in finite else str(v) for v in values]


def format_count(value: float) -> str:
    """A cell of a count matrix: integers as they are, other values in at most 4 significant
    digits, never in scientific notation below a billion.

    >>> [format_count(v) for v in (0.0, 12.0, 2.5, 0.125, 1234.5)]
    ['0', '12', '2.5', '.125', '1234']
    """
    if value != value:
        return "nan"
    if abs(value) == float("inf"):
        return "-inf" if value < 0 else "inf"
    if value == int(value) and abs(value) < 1e9:
        return str(int(value))
    if abs(value) >= 1000:
        return f"{value:.0f}"
    text = f"{value:.4g}" if abs(value) >= 0.001 else f"{value:.3f}"
    return text.replace("0.", ".", 1) if text.startswith(("0.", "-0.")) else text


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
