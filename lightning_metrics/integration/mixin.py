"""``MetricsMixin``: the engine behind a ``LightningModule`` mixin (the other door)."""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence, Union

from torch import nn

from lightning_metrics.integration._packages import callback_bases
from lightning_metrics.integration.callback import _UNUSED_BATCH_HOOKS
from lightning_metrics.integration.coalesce import DEFAULT_MAX_BATCHES
from lightning_metrics.integration.engine import MetricsEngine
from lightning_metrics.integration.loggers import plot_sinks


CHECKPOINT_KEY = "lightning_metrics"  # where the mixin's metric states live in a checkpoint


class MetricsMixin:
    """Give a ``LightningModule`` per-stage metrics that are updated, logged and reset for it.

    Mix it in before ``LightningModule`` and return the metrics from :meth:`configure_metrics`
    (one set cloned per stage, or a dict from stage to metrics). Steps return
    ``{"preds": ..., "target": ...}`` or call :meth:`update_metrics`. The per-stage collections
    are submodules (``self.stage_metrics``), so they follow the module's device. If you
    override ``setup``, an ``on_*_batch_end``/``on_*_epoch_end`` hook or ``on_save_checkpoint``/
    ``on_load_checkpoint``, call ``super()``. Checkpoints carry the accumulated states merged
    across ranks (under ``"lightning_metrics"``), and a resumed fit logs what the uninterrupted one
    would have, wherever the checkpoint was written (see :mod:`lightning_metrics.integration.resume`).
    Lightning runs the module's batch-end hook after the callbacks', so for a checkpoint that
    ``ModelCheckpoint(every_n_train_steps=...)`` writes in ``on_train_batch_end`` the mixin adds a
    small callback (through ``configure_callbacks``; call ``super()`` if you override it) that
    hands it that batch's output first. The ``metrics_*`` class attributes are the engine's
    options (see :class:`~lightning_metrics.integration.engine.MetricsEngine`); ``metrics_inputs``
    names the step output's keys for metrics with other inputs than ``(preds, target)``, and
    ``metrics_track_loss`` logs the step loss per stage. The per-stage metrics keep their dtypes
    under the ``"bf16-true"``/``"16-true"`` precisions (counts stay int64, moments float64).

    Small batches are updated together (``metrics_coalesce_batches``, see
    :class:`~lightning_metrics.MetricsCallback`): the ``self.stage_metrics`` entries apply the
    buffered batches before any ``compute``, ``forward``, ``state_dict`` or device move; to read
    one metric inside them mid-epoch, call ``self.stage_metrics["val_metrics"].flush()`` first.

    Example:

    >>> import lightning.pytorch as L
    >>> import lightning_metrics as lm
    >>> from lightning_metrics.aggregation import MeanMetric
    >>> class Model(lm.MetricsMixin, L.LightningModule):
    ...     def configure_metrics(self):
    ...         return {"mean_target": MeanMetric()}
    >>> model = Model()
    >>> sorted(model.metrics_engine.templates), sorted(model.stage_metrics)
    (['test', 'train', 'val'], ['test_metrics', 'train_metrics', 'val_metrics'])
    """

    metrics_stages: Optional[Sequence[str]] = None
    metrics_preds_key: str = "preds"
    metrics_target_key: str = "target"
    metrics_sample_weight_key: Optional[str] = "sample_weight"  # per-sample weights in the step output (None: off)
    metrics_separator: str = "/"
    metrics_prog_bar: Union[bool, Sequence[str]] = False
    metrics_log_on_step: Union[bool, Sequence[str]] = False
    metrics_class_names: Optional[Union[Sequence[str], Mapping[int, str]]] = None
    metrics_plots: Any = True  # images of non-scalars: True, every N epochs, "end", False or a LoggerSink
    metrics_track_best: Any = False  # names (or True) whose best so far is logged as "{stage}/{name}_best"
    metrics_confidence_intervals: Union[bool, Sequence[str]] = False  # "{stage}/{name}_ci_low"/"_ci_high"
    metrics_ci_level: float = 0.95
    metrics_ci_bootstraps: int = 100
    metrics_ci_stages: Sequence[str] = ("val", "test")
    metrics_coalesce_batches: int = DEFAULT_MAX_BATCHES  # batches updated together (1: every batch)
    metrics_inputs: Any = None  # output keys of the metric inputs: ("preds", "target", "indexes"), a mapping, ...
    metrics_track_loss: Any = False  # "sample" / "batch": log the step loss as "{stage}/loss"
    metrics_checkpoint_mismatch: str = "warn"  # checkpoint states of other metrics: "warn" (start empty) or "raise"
    # for metrics given by name (configure_metrics may return ["accuracy", "f1"]): None infers from the first batch
    metrics_task: Optional[str] = None
    metrics_num_classes: Optional[int] = None
    metrics_num_labels: Optional[int] = None
    metrics_average: Optional[str] = None
    metrics_threshold: Optional[float] = None

    def configure_metrics(self) -> Any:
        """Return the metrics: a metric, a collection, a dict/list of them (names such as ``"accuracy"``
        among them, built for the task of the first batch; see ``metrics_task``), or a dict per stage."""
        raise NotImplementedError(f"{type(self).__name__} mixes in MetricsMixin but does not define configure_metrics()")

    def extract_metric_inputs(self, outputs: Any, batch: Any) -> Any:
        """Override to build the metric inputs from a step's output and batch: a tuple (positional)
        or a dict (keyword arguments). By default the inputs are read by key (``metrics_inputs``)."""
        return None

    @property
    def metrics_engine(self) -> MetricsEngine:
        """The engine, built from :meth:`configure_metrics` on first use."""
        engine = self.__dict__.get("_metrics_engine")
        if engine is None:
            try:
                engine = self._build_metrics_engine()
            except AttributeError as err:  # a property must not let nn.Module's __getattr__ hide it
                raise RuntimeError(f"{type(self).__name__}: building the metrics failed: {err}") from err
        return engine

    def _build_metrics_engine(self) -> MetricsEngine:
        store = nn.ModuleDict()
        self.stage_metrics = store  # a submodule: device moves and module copies include it
        overridden = type(self).extract_metric_inputs is not MetricsMixin.extract_metric_inputs
        engine = MetricsEngine(
            self.configure_metrics(),
            self.metrics_stages,
            preds_key=self.metrics_preds_key,
            target_key=self.metrics_target_key,
            sample_weight_key=self.metrics_sample_weight_key,
            inputs=self.metrics_inputs,
            extract=self.extract_metric_inputs if overridden else None,
            separator=self.metrics_separator,
            prog_bar=self.metrics_prog_bar,
            log_on_step=self.metrics_log_on_step,
            class_names=self.metrics_class_names,
            sinks=plot_sinks(self.metrics_plots),
            store=store,
            owner=type(self).__name__,
            track_best=self.metrics_track_best,
            confidence_intervals=self.metrics_confidence_intervals,
            ci_level=self.metrics_ci_level,
            ci_bootstraps=self.metrics_ci_bootstraps,
            ci_stages=self.metrics_ci_stages,
            coalesce_batches=self.metrics_coalesce_batches,
            track_loss=self.metrics_track_loss,
            checkpoint_mismatch=self.metrics_checkpoint_mismatch,
            task=self.metrics_task,
            num_classes=self.metrics_num_classes,
            num_labels=self.metrics_num_labels,
            average=self.metrics_average,
            threshold=self.metrics_threshold,
        )
        self.__dict__["_metrics_engine"] = engine
        for stage in engine.templates:
            engine.metrics_for(stage, 0, device=self.device)  # type: ignore[attr-defined]
        return engine

    def update_metrics(self, stage: str, *args: Any, **kwargs: Any) -> None:
        """Feed ``stage``'s metrics from inside a step, e.g. ``self.update_metrics("val", logits, y)``
        or ``self.update_metrics("val", scores, relevant, indexes=query)``.

        The update itself runs at the batch end (where the padding of a distributed sampler is
        dropped), once per call; each metric gets what its ``update`` takes.
        """
        self.metrics_engine.defer_update(stage, args, kwargs)

    def configure_callbacks(self) -> Any:
        """Lightning's hook, extended by one small callback that hands a train batch's output to the
        metrics before a checkpoint written in that batch's ``on_train_batch_end`` (call ``super()``)."""
        callbacks = super().configure_callbacks()  # type: ignore[misc]
        callbacks = list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks] if callbacks else []
        if "train" in self.metrics_engine.templates:
            callbacks.append(_TrainOutputCapture())
        return callbacks

    # ------------------------------------------------------------------- hooks
    def setup(self, stage: str) -> None:
        super().setup(stage)  # type: ignore[misc]
        self.metrics_engine.setup()

    def on_train_start(self) -> None:
        super().on_train_start()  # type: ignore[misc]
        self.metrics_engine.resume(self.trainer)  # type: ignore[attr-defined]

    def on_train_batch_end(self, outputs: Any, batch: Any, batch_idx: int) -> None:
        super().on_train_batch_end(outputs, batch, batch_idx)  # type: ignore[misc]
        self.metrics_engine.batch_end(self.trainer, self, "train", outputs, batch, batch_idx)  # type: ignore[attr-defined]

    def on_validation_batch_end(self, outputs: Any, batch: Any, batch_idx: int, dataloader_idx: int = 0) -> None:
        super().on_validation_batch_end(outputs, batch, batch_idx, dataloader_idx)  # type: ignore[misc]
        self.metrics_engine.batch_end(self.trainer, self, "val", outputs, batch, batch_idx, dataloader_idx)  # type: ignore[attr-defined]

    def on_test_batch_end(self, outputs: Any, batch: Any, batch_idx: int, dataloader_idx: int = 0) -> None:
        super().on_test_batch_end(outputs, batch, batch_idx, dataloader_idx)  # type: ignore[misc]
        self.metrics_engine.batch_end(self.trainer, self, "test", outputs, batch, batch_idx, dataloader_idx)  # type: ignore[attr-defined]

    def on_train_epoch_end(self) -> None:
        super().on_train_epoch_end()  # type: ignore[misc]
        self.metrics_engine.epoch_end(self.trainer, self, "train")  # type: ignore[attr-defined]

    def on_validation_epoch_end(self) -> None:
        super().on_validation_epoch_end()  # type: ignore[misc]
        self.metrics_engine.epoch_end(self.trainer, self, "val")  # type: ignore[attr-defined]

    def on_save_checkpoint(self, checkpoint: dict[str, Any]) -> None:
        """Put the accumulated states, merged across ranks, in the checkpoint (every rank calls this)."""
        super().on_save_checkpoint(checkpoint)  # type: ignore[misc]
        trainer = getattr(self, "_trainer", None)
        if trainer is not None:
            checkpoint[CHECKPOINT_KEY] = self.metrics_engine.state_dict(trainer)

    def on_load_checkpoint(self, checkpoint: dict[str, Any]) -> None:
        """Restore them: rank zero takes the merged states when the metrics are next used."""
        super().on_load_checkpoint(checkpoint)  # type: ignore[misc]
        if CHECKPOINT_KEY in checkpoint:
            self.metrics_engine.load_state_dict(checkpoint[CHECKPOINT_KEY])

    def on_test_epoch_end(self) -> None:
        super().on_test_epoch_end()  # type: ignore[misc]
        self.metrics_engine.epoch_end(self.trainer, self, "test")  # type: ignore[attr-defined]


class _TrainOutputCapture(*callback_bases()):  # type: ignore[misc]
    """Keeps a train batch's output for the mixin until the module's batch-end hook takes it, so that
    a checkpoint written by a later callback in ``on_train_batch_end`` holds that batch."""

    def __init__(self) -> None:
        # Lightning calls every callback's hooks around every batch but skips what is not callable:
        # this callback needs one hook, the others would cost a call each per batch
        for hook in (*_UNUSED_BATCH_HOOKS, "on_validation_batch_end", "on_test_batch_end"):
            setattr(self, hook, None)

    def on_train_batch_end(self, trainer: Any, pl_module: Any, outputs: Any, batch: Any, batch_idx: int) -> None:
        if isinstance(pl_module, MetricsMixin):
            pl_module.metrics_engine.capture(outputs, batch, batch_idx)
