"""What is drawn and written for one non-scalar result, rendered once for every logger.

:func:`render_result` turns a value into a :class:`Rendering`: the images (drawn by
:mod:`lightning_metrics.plotting`, titled with the tag and the epoch), a markdown text, a CSV
table, a histogram or the data of TensorBoard's PR-curve plugin, by the shape of the value (see
:mod:`.loggers` for the table of what each value becomes). :func:`summary_rendering` makes the
one table of a stage's scalars that a standalone ``validate``/``test`` run writes to the Text
tab instead of leaving a reader a dozen single-point charts.

>>> import torch
>>> print(markdown_table(torch.tensor([[3, 1], [0, 4]]), ["cat", "dog"]))
| true \\ predicted | cat | dog |
| --- | --- | --- |
| **cat** | 3 | 1 |
| **dog** | 0 | 4 |
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

import torch
from torch import Tensor

from lightning_metrics import plotting
from lightning_metrics.plotting import _data as _plot_data
from lightning_metrics.integration.routing import ResultKind


@dataclass
class Rendering:
    """Everything written for one result, rendered once for all loggers."""

    tag: str  # "val/confmat"
    stem: str  # "val_confmat_epoch3" (file names)
    # [(tag suffix, file suffix, (H, W, 3) uint8 array)]; "" for the main image
    images: list = field(default_factory=list)
    text: Optional[str] = None  # markdown
    table: Optional[list] = None  # CSV rows, header first
    histogram: Optional[Tensor] = None
    pr_curve: Optional[dict] = None  # {"raw": (tp, fp, tn, fn)} or {"labels": ..., "scores": ...}
    # the chart a logger with charts of its own (W&B) draws from `table`: "confusion_matrix",
    # "roc", "pr", "curve" (any other curve) or "bar"; None: `table` is shown as a table
    chart: str | None = None


# ------------------------------------------------------------------ rendering
def _cell(value: Any) -> str:
    value = float(value)
    return str(int(value)) if value == value and value == int(value) and abs(value) < 1e15 else f"{value:.6g}"


MAX_TABLE_SIDE = 64  # larger matrices get a note instead of a table (the image and CSV hold them)


def markdown_table(matrix: Tensor, class_names: Optional[Sequence[Any]] = None) -> str:
    """A confusion matrix as a markdown table, true classes down and predicted across."""
    matrix = torch.as_tensor(matrix).detach().cpu()
    if max(matrix.shape) > MAX_TABLE_SIDE:
        return (
            f"A {matrix.shape[0]} x {matrix.shape[1]} matrix is too large for a table (total "
            f"{_cell(matrix.double().sum())}, trace {_cell(matrix.double().diagonal().sum())}); "
            "see the image, or the CSV file of a CSVLogger."
        )
    labels = _plot_data._labels(matrix.shape[0], class_names)
    columns = _plot_data._labels(matrix.shape[1], class_names if matrix.shape[0] == matrix.shape[1] else None)
    lines = ["| true \\ predicted | " + " | ".join(columns) + " |", "|" + " --- |" * (len(columns) + 1)]
    for label, row in zip(labels, matrix.tolist()):
        lines.append(f"| **{label}** | " + " | ".join(_cell(v) for v in row) + " |")
    return "\n".join(lines)


def _multilabel_rows(matrices: Tensor, names: Optional[Sequence[Any]]) -> list[list[str]]:
    rows = [["label", "tn", "fp", "fn", "tp"]]
    for label, m in zip(_plot_data._labels(matrices.shape[0], names), matrices.tolist()):
        rows.append([label, _cell(m[0][0]), _cell(m[0][1]), _cell(m[1][0]), _cell(m[1][1])])
    return rows


def _markdown_rows(rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + " --- |" * len(rows[0])]
    return "\n".join(lines + ["| " + " | ".join(map(str, row)) + " |" for row in rows[1:]])


def _curve_rows(value: Any, style: Optional[str], names: Optional[Sequence[Any]]) -> list[list[Any]]:
    header = {"roc": ["fpr", "tpr"], "pr": ["precision", "recall"]}.get(style, ["x", "y"])
    rows: list[list[Any]] = [["class", *header, "threshold"]]
    first, second, thresholds = (list(value) + [None])[:3]
    if isinstance(first, Tensor) and first.ndim <= 1:
        parts = [(first, second, thresholds)]
    else:  # per class: rows of 2-D tensors (binned) or lists of 1-D tensors (exact)
        if thresholds is None or (isinstance(thresholds, Tensor) and thresholds.ndim <= 1):
            thresholds = [thresholds] * len(first)  # binned curves share one threshold vector
        parts = list(zip(first, second, thresholds))
    for label, (a, b, t) in zip(_plot_data._labels(len(parts), names), parts):
        a, b = torch.as_tensor(a).flatten().tolist(), torch.as_tensor(b).flatten().tolist()
        t = torch.as_tensor(t).flatten().tolist() if t is not None else []
        for i in range(len(a)):
            rows.append([label, a[i], b[i], t[i] if i < len(t) else ""])
    return rows


def binary_pr_data(metric: Any) -> Optional[dict]:
    """What TensorBoard's PR-curve plugin needs from a binary PR-curve metric's (merged) states:
    binned counts ``(T, 2, 2)`` indexed [threshold, target, prediction], or the exact scores."""
    if metric is None:
        return None
    states = _plot_data._states(metric)
    for value in states.values():
        if isinstance(value, Tensor) and value.ndim == 3 and tuple(value.shape[1:]) == (2, 2):
            counts = value.detach().cpu().double()
            return {"raw": (counts[:, 1, 1], counts[:, 0, 1], counts[:, 0, 0], counts[:, 1, 0])}
    if "preds" in states and "target" in states:
        scores, target = _plot_data._cat(states["preds"]).double(), _plot_data._cat(states["target"])
        if scores.numel() != target.numel() or scores.numel() == 0:
            return None
        valid = (target == 0) | (target == 1)  # drops ignore_index
        scores, target = scores[valid], target[valid]
        if scores.numel() and (scores.min() < 0 or scores.max() > 1):
            scores = scores.sigmoid()  # logits, as the metric itself reads them
        return {"labels": target.long().numpy(), "scores": scores.numpy()}
    return None


def _kind_name(kind: Any, value: Any) -> str:
    if isinstance(kind, ResultKind):
        kind = kind.value
    if kind is None:
        kind = {"vector": "per_class", "multilabel_matrix": "matrix", "series": "other"}.get(
            plotting.value_kind(value), plotting.value_kind(value)
        )
    if (
        kind == "matrix"
        and isinstance(value, Tensor)
        and value.ndim == 3
        and tuple(value.shape[1:]) != (2, 2)
    ):
        return "other"
    if kind == "curve" and plotting.value_kind(value) != "curve":  # e.g. (value, threshold) of scalars
        return "other"
    return kind


def figure_title(tag: str, epoch: int) -> str:
    """The title of every logged figure: its tag and the epoch Lightning logs with the same
    epoch-end scalars (``trainer.current_epoch``), e.g. ``"val/confmat · epoch 3"``.

    >>> figure_title("val/confmat", 3)
    'val/confmat · epoch 3'
    """
    return f"{tag} · epoch {epoch}"


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")


def render_result(
    stage: str,
    name: str,
    value: Any,
    kind: Any = None,
    epoch: int = 0,
    class_names: Optional[Sequence[Any]] = None,
    *,
    metric: Any = None,
    normalize: Optional[str] = None,
    tag: Optional[str] = None,
    read_states: bool = True,
    color_scale: str = "linear",
) -> Rendering:
    """Render one non-scalar result (images, text, table, histogram, PR data); see the module doc.

    Every image is titled with its tag and ``epoch`` (:func:`figure_title`); ``color_scale``
    colours confusion matrices (``"linear"``, ``"log"``, ``"row"``). ``read_states=False``
    keeps to the value: nothing is drawn from the metric's states (which are one rank's only
    when they were not synced)."""
    kind = _kind_name(kind, value)
    state_source = metric if read_states else None
    tag = tag or f"{stage}/{name}"
    out = Rendering(tag=tag, stem=f"{_safe(stage)}_{_safe(name)}_epoch{epoch}")
    draw = dict(title=figure_title(tag, epoch), class_names=class_names)
    if kind == "matrix":
        matrix = torch.as_tensor(value).detach().cpu()
        out.images.append(
            ("", "", plotting.render_image("confusion_matrix", matrix, color_scale=color_scale, **draw))
        )
        if normalize is not None:
            normalized = plotting.render_image(
                "confusion_matrix",
                matrix,
                normalize=normalize,
                color_scale=color_scale,
                **{**draw, "title": figure_title(f"{tag}/normalized", epoch)},
            )
            out.images.append(("normalized", "normalized", normalized))
        if matrix.ndim == 3:
            out.table = _multilabel_rows(matrix, class_names)
            out.text = _markdown_rows(out.table)
        else:
            out.text = markdown_table(matrix, class_names)
            if max(matrix.shape) <= MAX_TABLE_SIDE:  # a chart of one cell per pair, as the markdown
                out.chart = "confusion_matrix"
            labels = _plot_data._labels(matrix.shape[0], class_names)
            columns = _plot_data._labels(
                matrix.shape[1], class_names if matrix.shape[0] == matrix.shape[1] else None
            )
            out.table = [["true\\predicted", *columns]] + [
                [label, *map(_cell, r)] for label, r in zip(labels, matrix.tolist())
            ]
    elif kind == "curve":
        style = plotting.curve_kind(metric, name)
        out.images.append(("", "", plotting.render_image("curves", value, curve_kind=style, **draw)))
        out.table = _curve_rows(value, style, class_names)
        out.chart = style if style in ("roc", "pr") else "curve"
        binary = isinstance(value[0], Tensor) and value[0].ndim == 1
        if binary and style == "pr":
            out.pr_curve = binary_pr_data(state_source)
    elif kind == "per_class":
        vector = torch.as_tensor(value).detach().cpu().flatten()
        out.images.append(
            ("", "", plotting.render_image("bars", vector, name=name.rsplit("/", 1)[-1], **draw))
        )
        out.table = [["class", "value"]] + [
            [label, _cell(v)]
            for label, v in zip(_plot_data._labels(vector.numel(), class_names), vector.tolist())
        ]
        out.chart = "bar"
    elif kind == "scalar" and plotting.reliability_bins(state_source) is not None:
        bins = plotting.reliability_bins(state_source)
        # the scalar itself is logged under the tag: TensorBoard gives a tag to one plugin only
        out.images.append(
            (
                "reliability",
                "",
                plotting.render_image(
                    "reliability", bins, title=figure_title(f"{tag}/reliability", epoch)
                ),
            )
        )
        out.table = [["bin", "confidence", "accuracy", "count"]] + [
            [i, c, a, _cell(n)] for i, (c, a, n) in enumerate(zip(*(b.tolist() for b in bins)))
        ]
    else:
        _render_other(value, out)
    return out


def _render_other(value: Any, out: Rendering) -> None:
    """A tensor summary (histogram) and a text rendering; a table of the values when numeric."""
    try:
        tensor = torch.as_tensor(value).detach().cpu()
    except (TypeError, ValueError, RuntimeError):
        out.text = f"```\n{value!r}\n```"
        return
    if tensor.dtype == torch.bool:
        tensor = tensor.long()
    finite = tensor[torch.isfinite(tensor)] if tensor.is_floating_point() else tensor
    if finite.numel() > 1:
        out.histogram = finite.double().flatten()
    import numpy as np

    body = np.array2string(tensor.numpy(), threshold=1000, max_line_width=120)
    out.text = (
        f"shape {tuple(tensor.shape)}, dtype {str(tensor.dtype).replace('torch.', '')}\n\n```\n{body}\n```"
    )
    indices = itertools.product(*(range(n) for n in tensor.shape))  # one () for a 0-d tensor
    out.table = [["index", "value"]] + [
        ["/".join(map(str, ix)), _cell(v)] for ix, v in zip(indices, tensor.reshape(-1).tolist())
    ]


def _summary_value(value: Any) -> str:
    """Integers as they are, every floating-point value with 4 decimals (``1.0000`` beside ``0.9300``)."""
    tensor = torch.as_tensor(value)
    if not tensor.is_floating_point():
        return str(int(tensor))
    number = float(tensor)
    return f"{number:.4f}" if number == number and abs(number) != float("inf") else str(number)


def summary_rendering(
    stage: str, values: Sequence[tuple[str, Any]], epoch: int = 0, tag: Optional[str] = None
) -> Rendering:
    """One table of a stage's scalars (``(key, value)`` pairs, per-class ones included), for the
    Text tab: what a standalone ``validate``/``test`` run shows at a glance.

    >>> import torch
    >>> rows = [("test/acc", torch.tensor(0.93)), ("test/recall/0_cat", torch.tensor(1.0)),
    ...         ("test/seen", 128)]
    >>> print(summary_rendering("test", rows).text)
    | metric | value |
    | --- | --- |
    | test/acc | 0.9300 |
    | test/recall/0_cat | 1.0000 |
    | test/seen | 128 |
    """
    rows = [["metric", "value"]] + [[key, _summary_value(v)] for key, v in values]
    tag = tag or f"{stage}/summary"
    return Rendering(tag=tag, stem=f"{_safe(tag)}_epoch{epoch}", text=_markdown_rows(rows), table=rows)
