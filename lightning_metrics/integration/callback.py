"""``MetricsCallback``: the engine behind a Trainer callback (one door of two)."""

from __future__ import annotations

import hashlib
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

from typing import TYPE_CHECKING

from typing_extensions import override

from lightning_metrics.integration._packages import callback_bases
from lightning_metrics.integration.coalesce import DEFAULT_MAX_BATCHES
from lightning_metrics.integration.engine import Extract, MetricsEngine
from lightning_metrics.integration.loggers import plot_sinks

# Lightning calls every hook of every callback around every batch and skips the attributes that
# are not callable. These per-batch hooks are not used here: each instance sets them to None
# (unless a subclass overrides them), which saves that dispatch, about 1% of a small model's fit.
_UNUSED_BATCH_HOOKS = (
    "on_train_batch_start", "on_before_backward", "on_after_backward", "on_before_optimizer_step",
    "on_before_zero_grad", "on_validation_batch_start", "on_test_batch_start", "on_predict_batch_start",
    "on_predict_batch_end",
)


if TYPE_CHECKING:
    import lightning.pytorch as pl

_BASES = callback_bases()  # lightning.pytorch.Callback and/or pytorch_lightning.Callback


class MetricsCallback(*_BASES):  # type: ignore[misc]
    """Track metrics for a ``LightningModule`` without metric code in it.

    ``MetricsCallback(["accuracy", "f1", "auroc"])`` is enough: metrics given by name (torchmetrics'
    task-wrapper and regression names in snake case, and Keras' spellings, see
    :mod:`~lightning_metrics.integration.by_name`) are built for the task the first batch shows
    (multiclass with ``C`` classes for float ``preds (N, C)`` and integer ``target (N,)``, binary,
    multilabel, regression) with torchmetrics' defaults, identically on every rank; ``task``,
    ``num_classes``, ``num_labels``, ``average`` and ``threshold`` fix what would be inferred or
    defaulted. Names and metric objects mix in one list or dict; a name is logged as given.

    The steps return ``{"preds": ..., "target": ...}`` (keys configurable, or ``extract``);
    every stage gets its own clone of ``metrics``, updated at each batch end and computed,
    logged as ``"{stage}/{name}"`` and reset at each epoch end. Exact under DDP (the
    ``DistributedSampler`` padding is dropped), checkpointed with the states merged across
    ranks. See :class:`~lightning_metrics.integration.engine.MetricsEngine` for the arguments.

    Metrics with other inputs (retrieval's ``indexes``, detection's lists of dicts, text's lists
    of strings, fairness' ``groups``) read them from the step output by name:
    ``inputs=("preds", "target", "indexes")`` passes those keys positionally, a mapping from
    ``update``'s parameter names to output keys passes keyword arguments, and ``extract`` may
    return a tuple or a dict. In a collection each metric gets what its ``update`` takes (an
    accuracy beside a retrieval metric gets ``(preds, target)``). ``track_loss="sample"`` logs
    the step's loss as ``"{stage}/loss"``, the mean per sample (``"batch"``: per batch).

    Resuming is exact wherever Lightning writes a checkpoint (a batch's end, the last batch of an
    epoch, inside validation, an epoch's end): the train states Lightning does not replay are
    restored, an epoch that Lightning will not finish is reported when the fit starts, and a
    partly run evaluation is dropped (Lightning runs it again or skips it). States written by
    other metrics are not applied: a warning says what differs (``checkpoint_mismatch="raise"``
    raises). See :mod:`lightning_metrics.integration.resume`.

    Non-scalar results (confusion matrices, curves, per-class bars, reliability diagrams) go to
    the trainer's loggers as images, text and files; ``plots`` sets how often: ``True`` (every
    epoch), an int N (every N epochs), ``"end"`` (only ``trainer.validate``/``test``), ``False``,
    or a :class:`~lightning_metrics.integration.loggers.LoggerSink` for more options.

    ``track_best`` logs the best value so far and its epoch (``"val/f1_best"``,
    ``"val/f1_best_epoch"``; names without a stage are val results, ``"test/acc"`` tracks the
    test stage) and keeps them in the checkpoint; ``confidence_intervals`` logs
    bootstrap intervals over the pooled statistic (``"val/f1_ci_low"``, ``"val/f1_ci_high"``),
    drawn with the value in one TensorBoard margin chart, for the ``ci_stages`` (by default val
    and test: every batch updates ``ci_bootstraps`` replicates). See :mod:`.tracking`.

    Small batches are updated together: when every metric of a stage declares
    ``additive_update`` (counts, histograms, sums, concatenations: all of ours but the windowed,
    per-batch, resampling and multitask wrappers), up to ``coalesce_batches`` batches wait in a
    buffer and reach the metrics in one update, which makes the callback's cost in a fit with
    small batches a fraction of one update per batch. The values are the same; a bad batch still
    raises its own error, naming its ``batch_idx``, but at the flush. ``coalesce_batches=1``
    updates at every batch. See :mod:`.coalesce`.

    Example:

    >>> import lightning_metrics as lm
    >>> from lightning_metrics.aggregation import MeanMetric, MaxMetric
    >>> callback = lm.MetricsCallback({"mean": MeanMetric(), "max": MaxMetric()}, stages=("val", "test"))
    >>> sorted(callback.engine.templates)
    ['test', 'val']
    >>> lm.MetricsCallback(["accuracy", "f1", "confusion_matrix"]).engine.names()["val"]
    ['accuracy', 'f1', 'confusion_matrix']
    """

    def __init__(
        self,
        metrics: Any,
        stages: Optional[Sequence[str]] = None,
        *,
        preds_key: str = "preds",
        target_key: str = "target",
        sample_weight_key: Optional[str] = "sample_weight",
        inputs: Any = None,
        extract: Optional[Extract] = None,
        separator: str = "/",
        prog_bar: Union[bool, Sequence[str]] = False,
        log_on_step: Union[bool, Sequence[str]] = False,
        class_names: Optional[Union[Sequence[str], Mapping[int, str]]] = None,
        sinks: Iterable[Any] = (),
        plots: Any = True,
        track_best: Any = False,
        confidence_intervals: Union[bool, Sequence[str]] = False,
        ci_level: float = 0.95,
        ci_bootstraps: int = 100,
        ci_seed: int = 0,
        ci_stages: Sequence[str] = ("val", "test"),
        coalesce_batches: int = DEFAULT_MAX_BATCHES,
        track_loss: Any = False,
        checkpoint_mismatch: str = "warn",
        task: Optional[str] = None,
        num_classes: Optional[int] = None,
        num_labels: Optional[int] = None,
        average: Optional[str] = None,
        threshold: Optional[float] = None,
    ) -> None:
        self.engine = MetricsEngine(
            metrics, stages, preds_key=preds_key, target_key=target_key, sample_weight_key=sample_weight_key,
            inputs=inputs, extract=extract,
            separator=separator, prog_bar=prog_bar, log_on_step=log_on_step,
            class_names=class_names, sinks=[*sinks, *plot_sinks(plots)], owner=type(self).__name__,
            track_best=track_best, confidence_intervals=confidence_intervals, ci_level=ci_level,
            ci_bootstraps=ci_bootstraps, ci_seed=ci_seed, ci_stages=ci_stages,
            coalesce_batches=coalesce_batches, track_loss=track_loss, checkpoint_mismatch=checkpoint_mismatch,
            task=task, num_classes=num_classes, num_labels=num_labels, average=average, threshold=threshold,
        )
        self._trainer: Optional["pl.Trainer"] = None
        for hook in _UNUSED_BATCH_HOOKS:
            if getattr(type(self), hook, None) is getattr(_BASES[0], hook, None):
                setattr(self, hook, None)
        # Lightning formats "[Callback]{state_key}.{hook}" around every hook call (a profiler name),
        # so the key is built once and kept short: the metric names enter it as a digest, which
        # still tells instances apart, rather than as a list whose length grows with the metrics
        names = hashlib.sha1(repr(self.engine.names()).encode()).hexdigest()[:12]
        self._state_key = self._generate_state_key(
            stages=tuple(self.engine.templates), metrics=names, separator=self.engine.router.separator
        )

    @property
    @override
    def state_key(self) -> str:
        return self._state_key

    @property
    def results(self) -> dict[str, Any]:
        """The latest computed value of every key (scalars, per-class vectors, matrices, curves)."""
        return self.engine.results

    @property
    def router(self) -> Any:
        """Where results go; add sinks for non-scalars with ``callback.router.sinks.append(...)``."""
        return self.engine.router

    # ------------------------------------------------------------------- hooks
    @override
    def setup(self, trainer: "pl.Trainer", pl_module: "pl.LightningModule", stage: str) -> None:
        self._trainer = trainer
        self.engine.setup()

    @override
    def on_train_start(self, trainer: "pl.Trainer", pl_module: "pl.LightningModule") -> None:
        self.engine.resume(trainer)  # a resumed fit: restore or report the checkpoint's train states

    @override
    def on_train_batch_end(
        self, trainer: "pl.Trainer", pl_module: "pl.LightningModule", outputs: Any, batch: Any, batch_idx: int
    ) -> None:
        self.engine.batch_end(trainer, pl_module, "train", outputs, batch, batch_idx)

    @override
    def on_validation_batch_end(
        self,
        trainer: "pl.Trainer",
        pl_module: "pl.LightningModule",
        outputs: Any,
        batch: Any,
        batch_idx: int,
        dataloader_idx: int = 0,
    ) -> None:
        self.engine.batch_end(trainer, pl_module, "val", outputs, batch, batch_idx, dataloader_idx)

    @override
    def on_test_batch_end(
        self,
        trainer: "pl.Trainer",
        pl_module: "pl.LightningModule",
        outputs: Any,
        batch: Any,
        batch_idx: int,
        dataloader_idx: int = 0,
    ) -> None:
        self.engine.batch_end(trainer, pl_module, "test", outputs, batch, batch_idx, dataloader_idx)

    @override
    def on_train_epoch_end(self, trainer: "pl.Trainer", pl_module: "pl.LightningModule") -> None:
        self.engine.epoch_end(trainer, pl_module, "train")

    @override
    def on_validation_epoch_end(self, trainer: "pl.Trainer", pl_module: "pl.LightningModule") -> None:
        self.engine.epoch_end(trainer, pl_module, "val")

    @override
    def on_test_epoch_end(self, trainer: "pl.Trainer", pl_module: "pl.LightningModule") -> None:
        self.engine.epoch_end(trainer, pl_module, "test")

    # -------------------------------------------------------------- checkpoint
    @override
    def state_dict(self) -> dict[str, Any]:
        # every rank calls this when a checkpoint is saved, so the cross-rank merge is safe here
        if self._trainer is None:
            return {}
        return self.engine.state_dict(self._trainer)

    @override
    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.engine.load_state_dict(state_dict)

    @override
    def on_load_checkpoint(self, trainer: "pl.Trainer", pl_module: "pl.LightningModule", checkpoint: dict[str, Any]) -> None:
        """Find this callback's states when its key changed (metrics renamed, added or removed, other stages):
        Lightning matches callback states by ``state_key`` only and would drop them with a generic warning.
        The one unclaimed metrics-callback state goes to the one callback without states; the engine then
        says what differs, metric by metric, and starts those metrics empty."""
        states = checkpoint.get("callbacks") or {}
        if self.state_key in states:
            return
        ours = [cb for cb in trainer.callbacks if isinstance(cb, MetricsCallback)]
        claimed = {cb.state_key for cb in ours}
        orphans = [k for k, v in states.items() if k not in claimed and _is_engine_state(v)]
        unmatched = [cb for cb in ours if cb.state_key not in states]
        if not orphans:
            return
        if len(orphans) == 1 and unmatched == [self]:
            self.engine._warn_once(("adopted-state",), (
                f"{type(self).__name__}: the checkpoint's metric states were written by a callback with other metric "
                "names or stages; they are restored where they fit (what differs is said next)."
            ))
            self.engine.load_state_dict(states[orphans[0]])
        else:
            self.engine._warn_once(("orphan-states",), (
                f"{type(self).__name__}: the checkpoint holds metric states of {len(orphans)} callback(s) that match "
                f"none of the {len(ours)} configured now by metric names and stages; they are not restored and the "
                "metrics start empty."
            ))


def _is_engine_state(value: Any) -> bool:
    """Whether a checkpoint's callback state is one a metrics engine wrote."""
    return isinstance(value, dict) and "metrics" in value and "point" in value
