"""Writers of non-scalar results to the trainer's loggers: TensorBoard, files, W&B and MLflow.

A result is rendered once (:func:`~.rendering.render_result`) and written to every logger
(:func:`log_result`), by the shape of the value:

==================  =====================================================================
value               written
==================  =====================================================================
confusion matrix    heat-map image (+ a normalized one on request), markdown table (text)
multilabel (L,2,2)  grid of 2x2 heat-maps on one colour scale, markdown table of
                    TN/FP/FN/TP per label
ROC / PR curves     image, one line per class with its AUC (ROC) or average precision (PR);
                    binary PR curves also to TensorBoard's PR-curve plugin (exact scores
                    or binned counts)
per-class vector    bar chart image (the per-class scalars are logged by the engine)
calibration         reliability diagram with the samples per bin (read from the metric's
                    merged bins)
dict                key by key
anything else       histogram (tensor summary) + text rendering
==================  =====================================================================

and by the logger:

==================  =====================================================================
logger              gets
==================  =====================================================================
TensorBoard         images, text (Text tab), histograms, PR-curve plugin data
CSV (files)         ``{stage}_{name}_epoch{E}.png`` and ``.csv`` files
W&B                 one history row per stage and step: ``wandb.Image`` beside W&B's own
                    charts of the data (confusion matrix, ROC/PR, line, per-class bars)
                    and tables, at the scalars' ``trainer/global_step``
                    (:mod:`.logger_services`)
MLflow              images logged with ``key`` and ``step`` (its image view steps through
                    the epochs), tables as ``plots/{stage}_{name}_epoch{E}.csv`` artifacts
==================  =====================================================================

Every image is titled with its tag and the epoch (``"val/confmat · epoch 3"``) and written at
the step Lightning logs the same epoch's scalars at (:func:`logged_step`), so that in
TensorBoard's Time Series an image sits beside the values of its epoch. TensorBoard gets images
tagged ``"{stage}/{name}"`` and text under the same tag (TensorBoard shows
``"{stage}/{name}/text_summary"``); since its server gives a tag to one plugin only, the
PR-curve plugin data is tagged ``"{stage}/{name}/pr_curve"`` and a reliability diagram
``"{stage}/{name}/reliability"`` (the calibration error itself is the scalar ``"{stage}/{name}"``);
a CSV logger (or any logger with a ``log_dir`` that is not TensorBoard) gets
``{stage}_{name}_epoch{E}.png`` and ``.csv`` files; W&B and MLflow their own image, chart and
table APIs, at the same step. :class:`LoggerSink` plugs this into the engine's router (rank
zero only), with a frequency, and writes a stage's results together at the stage's end; in a
standalone ``validate``/``test`` run it also writes one table of the stage's scalars,
``"{stage}/summary"``, to the Text tab (when the engine calls the router's ``finish``).

>>> import torch
>>> print(markdown_table(torch.tensor([[3, 1], [0, 4]]), ["cat", "dog"]))
| true \\ predicted | cat | dog |
| --- | --- | --- |
| **cat** | 3 | 1 |
| **dog** | 0 | 4 |
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any, Optional, Sequence, Union

import torch

from lightning_metrics import plotting
from lightning_metrics.integration.logger_services import csv_text, variant_tag, write_mlflow, write_wandb
from lightning_metrics.integration.rendering import (
    Rendering,
    _kind_name,
    binary_pr_data,
    figure_title,
    markdown_table,
    render_result,
    summary_rendering,
)
from lightning_metrics.integration.routing import ResultKind, RouteContext, RoutedResult, per_class_labels
from lightning_metrics.utilities.checks import check_choice


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
    """PNG bytes of an ``(H, W, 3)`` uint8 image (with PIL, which matplotlib depends on)."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="PNG")
    return buffer.getvalue()


PR_CURVE_SUFFIX = (
    "pr_curve"  # the PR plugin's tag: "{stage}/{name}/pr_curve" (the image has "{stage}/{name}")
)


def _write_tensorboard(experiment: Any, r: Rendering, step: int) -> None:
    for variant, _, image in r.images:
        experiment.add_image(variant_tag(r.tag, variant, "/"), image, step, dataformats="HWC")
    if r.text is not None:
        experiment.add_text(r.tag, r.text, step)
    if r.histogram is not None:
        experiment.add_histogram(r.tag, r.histogram.numpy(), step)
    if r.pr_curve is not None and "raw" in r.pr_curve:
        tp, fp, tn, fn = r.pr_curve["raw"]
        precision = tp / (tp + fp).clamp(min=1e-7)
        recall = tp / (tp + fn).clamp(min=1e-7)
        experiment.add_pr_curve_raw(
            variant_tag(r.tag, PR_CURVE_SUFFIX, "/"),
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
            variant_tag(r.tag, PR_CURVE_SUFFIX, "/"), r.pr_curve["labels"], r.pr_curve["scores"], step
        )


def _write_files(directory: Union[str, Path], r: Rendering) -> None:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for _, variant, image in r.images:
        (directory / f"{variant_tag(r.stem, variant, '_')}.png").write_bytes(png_bytes(image))
    if r.table is not None:
        (directory / f"{r.stem}.csv").write_text(csv_text(r.table))
    elif r.text is not None:
        (directory / f"{r.stem}.md").write_text(r.text)


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
    read_states: bool = True,
    color_scale: str = "linear",
) -> list[str]:
    """Write one non-scalar result to every logger; returns where it went (``"tensorboard"``,
    ``"files:<dir>"``, ...), once per rendering (a dict gives one per key). Call it on global rank
    zero only (it writes, it does not sync).

    ``kind`` is the router's :class:`ResultKind` (or its value); by default it is read from the
    value's shape. ``metric`` (optional) supplies curve kind, PR-plugin data and reliability bins.
    ``step`` is where TensorBoard, W&B and MLflow put it (the sink passes :func:`logged_step`),
    ``epoch`` goes into the figures' titles and the file names.
    """
    check_choice("normalize", normalize, plotting.NORMALIZATIONS)
    loggers = list(loggers) if isinstance(loggers, (list, tuple)) else [loggers]
    renderings = _render_all(stage, name, value, kind, epoch, class_names, metric=metric, normalize=normalize,
                             tag=tag, read_states=read_states, color_scale=color_scale)
    return write_renderings(loggers, renderings, step)


def _render_all(stage: str, name: str, value: Any, kind: Any, epoch: int, class_names: Sequence[Any] | None,
                *, tag: str | None, **options: Any) -> list[Rendering]:
    """The renderings of one result: one, or one per key of a dict (recursively)."""
    if _kind_name(kind, value) != "mapping":
        return [render_result(stage, name, value, kind, epoch, class_names, tag=tag, **options)]
    renderings: list[Rendering] = []
    for key, item in value.items():
        renderings += _render_all(stage, f"{name}/{key}", item, None, epoch, class_names,
                                  tag=f"{tag or f'{stage}/{name}'}/{key}", **options)
    return renderings


def write_rendering(loggers: Sequence[Any], rendering: Rendering, step: int) -> list[str]:
    """Write what was rendered to every logger that takes it; returns where it went.

    >>> import tempfile
    >>> from lightning.pytorch.loggers import CSVLogger
    >>> logger = CSVLogger(tempfile.mkdtemp(), name="run")
    >>> write_rendering([logger], summary_rendering("test", [("test/acc", 0.9)]), step=0) == [
    ...     f"files:{logger.log_dir}"]
    True
    """
    return write_renderings(loggers, [rendering], step)


def write_renderings(loggers: Sequence[Any], renderings: Sequence[Rendering], step: int) -> list[str]:
    """Write renderings of one step to every logger that takes them; returns where each went
    (rendering by rendering). W&B gets them all in one history row (see :mod:`.logger_services`)."""
    targets = []
    for logger in loggers:
        target = logger_kind(logger)
        if target == "tensorboard":
            for rendering in renderings:
                _write_tensorboard(logger.experiment, rendering, step)
        elif target == "wandb":
            write_wandb(logger, renderings, step)
        elif target == "mlflow":
            for rendering in renderings:
                write_mlflow(logger, rendering, step)
        else:
            directory = _file_directory(logger)
            if directory is None:
                continue
            for rendering in renderings:
                _write_files(directory, rendering)
            target = f"files:{directory}"
        targets.append(target)
    return [target for _ in renderings for target in targets]


# ----------------------------------------------------------------------- sink
def figure_epoch(trainer: Any) -> int:
    """The epoch a figure's title names: the epoch in progress during a fit; in a run of its own
    (``trainer.test`` or ``trainer.validate`` after a fit or from a checkpoint) the last epoch whose
    training produced the weights, which Lightning's ``current_epoch`` has already moved past.

    >>> from types import SimpleNamespace as NS
    >>> figure_epoch(NS(current_epoch=10, training=False, sanity_checking=False, state=NS(fn="test")))
    9
    >>> figure_epoch(NS(current_epoch=9, training=False, sanity_checking=False, state=NS(fn="fit")))
    9
    """
    epoch = int(getattr(trainer, "current_epoch", 0))
    fn = getattr(getattr(trainer, "state", None), "fn", None)
    standalone = str(getattr(fn, "value", fn)) in ("test", "validate", "predict")
    return epoch - 1 if standalone and epoch > 0 else epoch


def logged_step(trainer: Any, stage: Optional[str] = None) -> int:
    """The step at which Lightning logs the epoch-end scalars being computed now.

    Lightning logs epoch-end values at its count of batches that stepped the optimizer
    (``fit_loop.epoch_loop._batches_that_stepped``), and for the training epoch end one less,
    since that count has already moved past the epoch's last batch; ``global_step`` can be one
    ahead of both. A trainer without that loop (a stand-in) gives its ``global_step``.

    >>> from types import SimpleNamespace as NS
    >>> trainer = NS(global_step=19, training=True, fit_loop=NS(epoch_loop=NS(_batches_that_stepped=19)))
    >>> logged_step(trainer, "train"), logged_step(NS(global_step=19, training=False,
    ...     fit_loop=NS(epoch_loop=NS(_batches_that_stepped=18))), "val")
    (18, 18)
    """
    loop = getattr(getattr(trainer, "fit_loop", None), "epoch_loop", None)
    stepped = getattr(loop, "_batches_that_stepped", None)
    if isinstance(stepped, bool) or not isinstance(stepped, int):
        return int(getattr(trainer, "global_step", 0))
    # the engine computes the train stage in on_train_epoch_end, before Lightning's decrement
    if stage == "train" and getattr(trainer, "training", True):
        return stepped - 1
    return stepped


def _standalone(trainer: Any) -> bool:
    fn = getattr(getattr(trainer, "state", None), "fn", None)
    return getattr(fn, "value", fn) in ("validate", "test")


class LoggerSink:
    """The router's sink for the trainer's loggers (see :mod:`.routing`), with a frequency.

    Args:
        every_n_epochs: write at every N-th epoch of a fit (epochs N-1, 2N-1, ...); standalone
            ``trainer.validate``/``trainer.test`` runs always write.
        only_at_end: write only in standalone ``trainer.validate``/``trainer.test`` runs.
        normalize: also draw confusion matrices normalized over ``"true"``, ``"pred"`` or ``"all"``
            (tagged ``"{stage}/{name}/normalized"``).
        color_scale: how confusion matrices are coloured: ``"linear"``, ``"log"`` (errors of 1-3
            show next to a diagonal of hundreds) or ``"row"`` (each true class on its own scale).
        summary: in a standalone ``validate``/``test`` run, also write one table of the stage's
            scalars (``"{stage}/summary"``, the Text tab), written when the router's
            :meth:`finish` is called at the end of the stage.

    What a stage writes at one step is held until the router's :meth:`finish` (or until results
    of another stage or step arrive), then written at once: W&B gets it in one history row.

    >>> LoggerSink(every_n_epochs=2, normalize="true")
    LoggerSink(every_n_epochs=2, only_at_end=False, normalize='true')
    """

    def __init__(
        self,
        every_n_epochs: int = 1,
        only_at_end: bool = False,
        normalize: Optional[str] = None,
        color_scale: str = "linear",
        summary: bool = True,
    ) -> None:
        if isinstance(every_n_epochs, bool) or not isinstance(every_n_epochs, int) or every_n_epochs < 1:
            raise ValueError(f"Argument `every_n_epochs` must be an integer >= 1, got {every_n_epochs!r}")
        check_choice("normalize", normalize, plotting.NORMALIZATIONS)
        check_choice("color_scale", color_scale, plotting.COLOR_SCALES)
        if not isinstance(summary, bool):
            raise ValueError(f"Argument `summary` must be a bool, got {summary!r}")
        self.every_n_epochs, self.only_at_end, self.normalize = every_n_epochs, bool(only_at_end), normalize
        self.color_scale, self.summary = color_scale, summary
        self._pending: dict = {}  # stage -> (run token, [(key, value)]) of a standalone run
        self._held: tuple | None = None  # ((trainer id, stage, step), loggers, [Rendering]) to write

    def __repr__(self) -> str:
        return (
            f"LoggerSink(every_n_epochs={self.every_n_epochs}, only_at_end={self.only_at_end}, "
            f"normalize={self.normalize!r})"
        )

    def due(self, trainer: Any) -> bool:
        """Whether this epoch's results are written (the same answer for every stage of the epoch)."""
        standalone = _standalone(trainer)
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

    def _summarising(self, trainer: Any) -> bool:
        return self.summary and _standalone(trainer)

    def accepts(self, result: RoutedResult, context: RouteContext) -> bool:
        trainer = context.trainer
        if trainer is None or not writable(trainer.loggers):
            return False
        if result.kind is ResultKind.SCALAR:  # a picture for calibration metrics, a row of the summary
            return self._summarising(trainer) or (
                self.states_readable(result, trainer) and plotting.reliability_bins(result.metric) is not None
            )
        return True

    def write(self, result: RoutedResult, context: RouteContext) -> None:
        trainer = context.trainer
        if self._summarising(trainer) and result.kind in (ResultKind.SCALAR, ResultKind.PER_CLASS):
            self._remember(result, trainer)
        if not self.due(trainer):
            return
        if result.kind is ResultKind.SCALAR and not (
            self.states_readable(result, trainer) and plotting.reliability_bins(result.metric) is not None
        ):
            return
        # drawn now, while the metric's states are merged; written with the stage's other results
        renderings = _render_all(
            result.stage,
            result.name + result.suffix,
            result.value,
            result.kind,
            figure_epoch(trainer),
            getattr(result, "class_names", None),
            metric=getattr(result, "metric", None),
            normalize=self.normalize,
            tag=result.key + result.suffix,
            read_states=self.states_readable(result, trainer),
            color_scale=self.color_scale,
        )
        self._hold(trainer, result.stage, renderings)

    def _hold(self, trainer: Any, stage: str, renderings: list[Rendering]) -> None:
        token = (id(trainer), stage, logged_step(trainer, stage))
        if self._held is not None and self._held[0] != token:
            if self._held[0][0] == token[0]:
                self._flush()  # this run's stage whose finish was not called (not the engine's router)
            else:
                self._held = None  # left by a run that failed mid-stage, whose loggers may be closed
        if self._held is None:
            self._held = (token, list(trainer.loggers), [])
        self._held[2].extend(renderings)

    def _flush(self) -> None:
        held, self._held = self._held, None
        if held is not None and held[2]:
            write_renderings(held[1], held[2], held[0][2])

    def _remember(self, result: RoutedResult, trainer: Any) -> None:
        token = (id(trainer), getattr(trainer, "current_epoch", 0), logged_step(trainer, result.stage))
        held = self._pending.get(result.stage)
        if held is None or held[0] != token:  # a new run: whatever an earlier one left is dropped
            held = self._pending[result.stage] = (token, [])
        if result.kind is ResultKind.SCALAR:
            held[1].append((result.key + result.suffix, result.value))
            return
        values = torch.as_tensor(result.value).detach().cpu().flatten()
        labels = getattr(result, "class_labels", None) or per_class_labels(values.numel(), result.class_names)
        for label, value in zip(labels, values.unbind(0)):
            held[1].append((f"{result.key}/{label}{result.suffix}", value))

    def finish(self, stage: str, context: RouteContext) -> None:
        """The stage's results are all routed: write them, with the summary table of a standalone run."""
        held = self._pending.pop(stage, None)
        trainer = context.trainer
        if held and held[1] and trainer is not None and self._summarising(trainer):
            self._hold(trainer, stage, [summary_rendering(stage, held[1], epoch=figure_epoch(trainer))])
        self._flush()


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
    "figure_title",
    "log_result",
    "logged_step",
    "logger_kind",
    "markdown_table",
    "plot_sinks",
    "png_bytes",
    "render_result",
    "summary_rendering",
    "writable",
    "write_rendering",
    "write_renderings",
]
