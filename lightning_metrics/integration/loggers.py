"""Writers of non-scalar results to the trainer's loggers: TensorBoard, files, W&B and MLflow.

A result is rendered once (:func:`render_result`) and written to every logger
(:func:`log_result`), by the shape of the value:

==================  =====================================================================
value               written
==================  =====================================================================
confusion matrix    heat-map image (+ a normalized one on request), markdown table (text)
multilabel (L,2,2)  grid of 2x2 heat-maps, markdown table of TN/FP/FN/TP per label
ROC / PR curves     image, one line per class with the AUC; binary PR curves also to
                    TensorBoard's PR-curve plugin (exact scores or binned counts)
per-class vector    bar chart image (the per-class scalars are logged by the engine)
calibration         reliability diagram (read from the metric's merged bins)
dict                key by key
anything else       histogram (tensor summary) + text rendering
==================  =====================================================================

TensorBoard gets images tagged ``"{stage}/{name}"`` at ``global_step`` and text under the same tag
(TensorBoard shows ``"{stage}/{name}/text_summary"``); since its server gives a tag to one plugin
only, the PR-curve plugin data is tagged ``"{stage}/{name}/pr_curve"`` and a reliability diagram
``"{stage}/{name}/reliability"`` (the calibration error itself is the scalar ``"{stage}/{name}"``);
a CSV logger (or any logger with a ``log_dir`` that is not TensorBoard) gets
``{stage}_{name}_epoch{E}.png`` and ``.csv`` files; W&B and MLflow their own image APIs.
:class:`LoggerSink` plugs this into the engine's router (rank zero only), with a frequency.

>>> import torch
>>> print(markdown_table(torch.tensor([[3, 1], [0, 4]]), ["cat", "dog"]))
| true \\ predicted | cat | dog |
| --- | --- | --- |
| **cat** | 3 | 1 |
| **dog** | 0 | 4 |
"""

from __future__ import annotations

import csv
import io
import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence, Union

import torch
from torch import Tensor

from lightning_metrics import _plot_data, _raster, plotting
from lightning_metrics.integration.routing import ResultKind, RouteContext, RoutedResult
from lightning_metrics.utilities.checks import check_choice


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
    backend: str = "auto",
    read_states: bool = True,
) -> Rendering:
    """Render one non-scalar result (images, text, table, histogram, PR data); see the module doc.

    ``read_states=False`` keeps to the value: nothing is drawn from the metric's states (which
    are one rank's only when they were not synced)."""
    kind = _kind_name(kind, value)
    state_source = metric if read_states else None
    tag = tag or f"{stage}/{name}"
    out = Rendering(tag=tag, stem=f"{_safe(stage)}_{_safe(name)}_epoch{epoch}")
    draw = dict(backend=backend, title=tag, class_names=class_names)
    if kind == "matrix":
        matrix = torch.as_tensor(value).detach().cpu()
        out.images.append(("", "", plotting.render_image("confusion_matrix", matrix, **draw)))
        if normalize is not None:
            normalized = plotting.render_image("confusion_matrix", matrix, normalize=normalize, **draw)
            out.images.append(("normalized", "normalized", normalized))
        if matrix.ndim == 3:
            out.table = _multilabel_rows(matrix, class_names)
            out.text = _markdown_rows(out.table)
        else:
            out.text = markdown_table(matrix, class_names)
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
        binary = isinstance(value[0], Tensor) and value[0].ndim == 1
        if binary and style == "pr":
            out.pr_curve = binary_pr_data(state_source)
    elif kind == "per_class":
        vector = torch.as_tensor(value).detach().cpu().flatten()
        out.images.append(("", "", plotting.render_image("bars", vector, **draw)))
        out.table = [["class", "value"]] + [
            [label, _cell(v)]
            for label, v in zip(_plot_data._labels(vector.numel(), class_names), vector.tolist())
        ]
    elif kind == "scalar" and plotting.reliability_bins(state_source) is not None:
        bins = plotting.reliability_bins(state_source)
        # the scalar itself is logged under the tag: TensorBoard gives a tag to one plugin only
        out.images.append(
            ("reliability", "", plotting.render_image("reliability", bins, backend=backend, title=tag))
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


# -------------------------------------------------------------------- writers
def logger_kind(logger: Any) -> str:
    """``"tensorboard"``, ``"wandb"``, ``"mlflow"`` or ``"files"`` (by class, without importing any)."""
    names = {cls.__name__ for cls in type(logger).__mro__}
    for kind, cls in (
        ("tensorboard", "TensorBoardLogger"),
        ("wandb", "WandbLogger"),
        ("mlflow", "MLFlowLogger"),
    ):
        if cls in names:
            return kind
    return "files"


def png_bytes(image: Any) -> bytes:
    """PNG bytes of an ``(H, W, 3)`` uint8 image: with PIL when installed, else our own encoder."""
    try:
        from PIL import Image
    except ImportError:
        return _raster.encode_png(torch.as_tensor(image))
    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="PNG")
    return buffer.getvalue()


def _csv_text(rows: list) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()


def _variant(base: str, variant: str, separator: str) -> str:
    return f"{base}{separator}{variant}" if variant else base


PR_CURVE_SUFFIX = (
    "pr_curve"  # the PR plugin's tag: "{stage}/{name}/pr_curve" (the image has "{stage}/{name}")
)


def _write_tensorboard(experiment: Any, r: Rendering, step: int) -> None:
    for variant, _, image in r.images:
        tag = _variant(r.tag, variant, "/")
        try:
            experiment.add_image(tag, image, step, dataformats="HWC")
        except ImportError:  # torch's image summary needs PIL: encode the PNG ourselves
            from tensorboard.compat.proto.summary_pb2 import Summary

            height, width, _ = image.shape
            encoded = Summary.Image(
                height=height, width=width, colorspace=3, encoded_image_string=png_bytes(image)
            )
            experiment._get_file_writer().add_summary(
                Summary(value=[Summary.Value(tag=tag, image=encoded)]), step
            )
    if r.text is not None:
        experiment.add_text(r.tag, r.text, step)
    if r.histogram is not None:
        experiment.add_histogram(r.tag, r.histogram.numpy(), step)
    if r.pr_curve is not None and "raw" in r.pr_curve:
        tp, fp, tn, fn = r.pr_curve["raw"]
        precision = tp / (tp + fp).clamp(min=1e-7)
        recall = tp / (tp + fn).clamp(min=1e-7)
        experiment.add_pr_curve_raw(
            _variant(r.tag, PR_CURVE_SUFFIX, "/"),
            tp.numpy(),
            fp.numpy(),
            tn.numpy(),
            fn.numpy(),
            precision.numpy(),
            recall.numpy(),
            step,
            num_thresholds=tp.numel(),
        )
    elif r.pr_curve is not None:
        experiment.add_pr_curve(
            _variant(r.tag, PR_CURVE_SUFFIX, "/"), r.pr_curve["labels"], r.pr_curve["scores"], step
        )


def _write_files(directory: Union[str, Path], r: Rendering) -> None:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for _, variant, image in r.images:
        (directory / f"{_variant(r.stem, variant, '_')}.png").write_bytes(png_bytes(image))
    if r.table is not None:
        (directory / f"{r.stem}.csv").write_text(_csv_text(r.table))
    elif r.text is not None:
        (directory / f"{r.stem}.md").write_text(r.text)


def _write_wandb(logger: Any, r: Rendering, step: int) -> None:
    for variant, _, image in r.images:
        logger.log_image(key=_variant(r.tag, variant, "/"), images=[image], step=step)
    if r.text is not None and callable(getattr(logger, "log_text", None)):
        logger.log_text(key=f"{r.tag}/text", columns=["markdown"], data=[[r.text]], step=step)


def _write_mlflow(logger: Any, r: Rendering) -> None:
    client, run_id = logger.experiment, logger.run_id
    for _, variant, image in r.images:
        client.log_image(run_id, image, artifact_file=f"plots/{_variant(r.stem, variant, '_')}.png")
    if r.table is not None:
        client.log_text(run_id, _csv_text(r.table), f"plots/{r.stem}.csv")
    if r.text is not None:
        client.log_text(run_id, r.text, f"plots/{r.stem}.md")


def _file_directory(logger: Any) -> Optional[str]:
    for attribute in ("log_dir", "save_dir"):
        directory = getattr(logger, attribute, None)
        if isinstance(directory, (str, Path)) and str(directory):
            return str(directory)
    return None


def writable(loggers: Sequence[Any]) -> bool:
    """Whether at least one of ``loggers`` can take images or files."""
    return any(logger_kind(lg) != "files" or _file_directory(lg) is not None for lg in loggers)


def write_margin_charts(loggers: Sequence[Any], charts: dict, category: str = "confidence intervals") -> int:
    """Show each value with its interval in one TensorBoard margin chart (custom-scalars layout).

    ``charts`` maps a chart title to the logged keys ``(value, low, high)``. TensorBoard keeps the
    last layout of a run, so pass every chart each time. Returns how many loggers got it.
    (Added for the engine's confidence intervals, issue 9.)
    """
    written = 0
    for logger in loggers:
        if logger_kind(logger) != "tensorboard":
            continue
        prefix, join = getattr(logger, "_prefix", ""), getattr(logger, "LOGGER_JOIN_CHAR", "-")
        tags = {
            title: [f"{prefix}{join}{k}" if prefix else k for k in keys] for title, keys in charts.items()
        }
        logger.experiment.add_custom_scalars({category: {title: ["Margin", t] for title, t in tags.items()}})
        written += 1
    return written


def log_result(
    loggers: Union[Any, Sequence[Any]],
    stage: str,
    name: str,
    value: Any,
    kind: Any = None,
    step: int = 0,
    epoch: int = 0,
    class_names: Optional[Sequence[Any]] = None,
    *,
    metric: Any = None,
    normalize: Optional[str] = None,
    tag: Optional[str] = None,
    backend: str = "auto",
    read_states: bool = True,
) -> list[str]:
    """Write one non-scalar result to every logger; returns where it went (``"tensorboard"``,
    ``"files:<dir>"``, ...). Call it on global rank zero only (it writes, it does not sync).

    ``kind`` is the router's :class:`ResultKind` (or its value); by default it is read from the
    value's shape. ``metric`` (optional) supplies curve kind, PR-plugin data and reliability bins.
    """
    check_choice("normalize", normalize, plotting.NORMALIZATIONS)
    loggers = list(loggers) if isinstance(loggers, (list, tuple)) else [loggers]
    if _kind_name(kind, value) == "mapping":
        written: list[str] = []
        for key, item in value.items():
            written += log_result(
                loggers,
                stage,
                f"{name}/{key}",
                item,
                None,
                step,
                epoch,
                class_names,
                metric=metric,
                normalize=normalize,
                tag=f"{tag or f'{stage}/{name}'}/{key}",
                backend=backend,
                read_states=read_states,
            )
        return written
    rendering = render_result(
        stage,
        name,
        value,
        kind,
        epoch,
        class_names,
        metric=metric,
        normalize=normalize,
        tag=tag,
        backend=backend,
        read_states=read_states,
    )
    written = []
    for logger in loggers:
        target = logger_kind(logger)
        if target == "tensorboard":
            _write_tensorboard(logger.experiment, rendering, step)
        elif target == "wandb":
            _write_wandb(logger, rendering, step)
        elif target == "mlflow":
            _write_mlflow(logger, rendering)
        else:
            directory = _file_directory(logger)
            if directory is None:
                continue
            _write_files(directory, rendering)
            target = f"files:{directory}"
        written.append(target)
    return written


# ----------------------------------------------------------------------- sink
class LoggerSink:
    """The router's sink for the trainer's loggers (see :mod:`.routing`), with a frequency.

    Args:
        every_n_epochs: write at every N-th epoch of a fit (epochs N-1, 2N-1, ...); standalone
            ``trainer.validate``/``trainer.test`` runs always write.
        only_at_end: write only in standalone ``trainer.validate``/``trainer.test`` runs.
        normalize: also draw confusion matrices normalized over ``"true"``, ``"pred"`` or ``"all"``
            (tagged ``"{stage}/{name}/normalized"``).
        backend: ``"auto"`` (matplotlib if installed), ``"matplotlib"`` or ``"raster"``.

    >>> LoggerSink(every_n_epochs=2, normalize="true")
    LoggerSink(every_n_epochs=2, only_at_end=False, normalize='true')
    """

    def __init__(
        self,
        every_n_epochs: int = 1,
        only_at_end: bool = False,
        normalize: Optional[str] = None,
        backend: str = "auto",
    ) -> None:
        if isinstance(every_n_epochs, bool) or not isinstance(every_n_epochs, int) or every_n_epochs < 1:
            raise ValueError(f"Argument `every_n_epochs` must be an integer >= 1, got {every_n_epochs!r}")
        check_choice("normalize", normalize, plotting.NORMALIZATIONS)
        check_choice("backend", backend, ("auto", "matplotlib", "raster"))
        self.every_n_epochs, self.only_at_end, self.normalize, self.backend = (
            every_n_epochs,
            bool(only_at_end),
            normalize,
            backend,
        )

    def __repr__(self) -> str:
        return (
            f"LoggerSink(every_n_epochs={self.every_n_epochs}, only_at_end={self.only_at_end}, "
            f"normalize={self.normalize!r})"
        )

    def due(self, trainer: Any) -> bool:
        """Whether this epoch's results are written (the same answer for every stage of the epoch)."""
        fn = getattr(getattr(trainer, "state", None), "fn", None)
        standalone = getattr(fn, "value", fn) in ("validate", "test")
        if self.only_at_end or standalone:
            return standalone
        return (trainer.current_epoch + 1) % self.every_n_epochs == 0

    @staticmethod
    def states_readable(result: RoutedResult, trainer: Any) -> bool:
        """Whether the metric's states hold every rank's data (single process, or synced for the
        routing), so that pictures drawn from them (PR counts, reliability bins) are exact."""
        metric = getattr(result, "metric", None)
        return metric is not None and (
            getattr(trainer, "world_size", 1) <= 1 or bool(getattr(metric, "_is_synced", False))
        )

    def accepts(self, result: RoutedResult, context: RouteContext) -> bool:
        trainer = context.trainer
        if trainer is None or not writable(trainer.loggers):
            return False
        if result.kind is ResultKind.SCALAR:  # only calibration metrics have a picture
            return (
                self.states_readable(result, trainer) and plotting.reliability_bins(result.metric) is not None
            )
        return True

    def write(self, result: RoutedResult, context: RouteContext) -> None:
        trainer = context.trainer
        if not self.due(trainer):
            return
        log_result(
            trainer.loggers,
            result.stage,
            result.name + result.suffix,
            result.value,
            result.kind,
            step=trainer.global_step,
            epoch=trainer.current_epoch,
            class_names=getattr(result, "class_names", None),
            metric=getattr(result, "metric", None),
            normalize=self.normalize,
            tag=result.key + result.suffix,
            backend=self.backend,
            read_states=self.states_readable(result, trainer),
        )


def plot_sinks(plots: Any) -> list:
    """The sinks for the ``plots`` option of ``MetricsCallback``/``MetricsMixin``.

    ``True``/``"epoch"``: every epoch; an int N: every N epochs; ``"end"``: only standalone
    ``validate``/``test`` runs; ``False``/``None``: none; or a :class:`LoggerSink` (or any sink).

    >>> plot_sinks(True), plot_sinks(False)
    ([LoggerSink(every_n_epochs=1, only_at_end=False, normalize=None)], [])
    >>> plot_sinks("end")
    [LoggerSink(every_n_epochs=1, only_at_end=True, normalize=None)]
    >>> plot_sinks(3)
    [LoggerSink(every_n_epochs=3, only_at_end=False, normalize=None)]
    """
    if plots is None or plots is False:
        return []
    if plots is True or plots == "epoch":
        return [LoggerSink()]
    if plots == "end":
        return [LoggerSink(only_at_end=True)]
    if isinstance(plots, int) and not isinstance(plots, bool) and plots >= 1:
        return [LoggerSink(every_n_epochs=plots)]
    if callable(getattr(plots, "accepts", None)) and callable(getattr(plots, "write", None)):
        return [plots]
    raise ValueError(
        "Argument `plots` must be True/'epoch' (every epoch), an int N >= 1 (every N epochs), 'end' (only "
        f"trainer.validate/test), False/None, or a LoggerSink; got {plots!r}"
    )


__all__ = [
    "LoggerSink",
    "Rendering",
    "binary_pr_data",
    "log_result",
    "logger_kind",
    "markdown_table",
    "plot_sinks",
    "png_bytes",
    "render_result",
    "writable",
]
