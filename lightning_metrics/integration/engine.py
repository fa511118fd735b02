"""The one engine behind ``MetricsCallback`` and ``MetricsMixin``: update, compute, log, reset.

Both doors forward Lightning's hooks here. Per stage (``train``, ``val``, ``test``) and per
dataloader the engine keeps a clone of the user's metrics and:

- on each batch end, reads the metric inputs from the step output (the keys of ``inputs``,
  ``extract``, or ``update_metrics``; each metric gets what its ``update`` takes, see
  :mod:`.inputs`), drops the ``DistributedSampler`` padding from every kind of input (see
  :mod:`.sampler`) and calls ``update`` once (``forward`` instead when step values are logged,
  which gives the batch value from the same update); when every metric of the stage is
  additive, up to ``coalesce_batches`` small batches are buffered and updated together instead
  (see :mod:`.coalesce`); with ``track_loss`` the step's loss joins as the metric ``loss``
  (see :mod:`.loss`);
- on each epoch end, computes every dataloader's metrics once (one fused sync per collection),
  routes the results (:mod:`.routing`: scalars to ``pl_module.log``, the rest to sinks) and
  resets them.

Sanity-check batches are ignored and nothing is logged for them. Scalars are logged on every
rank with ``sync_dist=False``: they are computed from synced states, so they are already equal
on all ranks, and ``ModelCheckpoint``/``EarlyStopping`` see the same value everywhere.
Checkpoints hold the states merged across ranks; a resumed fit restores exactly what Lightning
does not replay (see :mod:`.resume`).
"""

from __future__ import annotations

import contextlib
from copy import deepcopy
from typing import Any, Callable, Iterable, Iterator, Mapping, MutableMapping, Optional, Sequence, Union

from torch import Tensor

from lightning_metrics import distributed
from lightning_metrics.integration import loss as step_loss
from lightning_metrics.integration import resume
from lightning_metrics.integration.by_name import TaskArguments
from lightning_metrics.integration import sample_weights as weights
from lightning_metrics.integration.coalesce import DEFAULT_MAX_BATCHES, DEFAULT_MAX_BYTES
from lightning_metrics.integration.epoch_log import EngineLogging
from lightning_metrics.integration.inputs import (
    STAGES, bind_keys, extracted_record, missing_keys_error, parse_inputs,
)
from lightning_metrics.integration.routing import RouteContext, Router, detach_values
from lightning_metrics.integration.sampler import ShardPadding, leading_len, plan_padding, stage_loader, trim_batch
from lightning_metrics.integration.stage_metrics import StageMetrics
from lightning_metrics.integration.task_inference import EngineTaskInference
from lightning_metrics.integration.tracking import Names, Tracking, find_metric
from lightning_metrics.metric import MetricUserError
from lightning_metrics.utilities.checks import check_choice, check_type

# the Lightning hook prefix of each stage: on_{hook}_batch_end, on_{hook}_epoch_end
HOOK_OF_STAGE = {"train": "train", "val": "validation", "test": "test"}
STEP_OF_STAGE = {"train": "training_step", "val": "validation_step", "test": "test_step"}

Extract = Callable[[Any, Any], Union[Sequence[Any], Mapping[str, Any]]]


def _is_per_stage(metrics: Any) -> bool:
    return isinstance(metrics, dict) and bool(metrics) and set(metrics) <= set(STAGES)


class MetricsEngine(resume.EngineCheckpoints, EngineTaskInference, EngineLogging):
    """Update/compute/log/reset per stage and dataloader; see the module docstring.

    Args:
        metrics: a metric, a collection, a dict or list of metrics (each stage gets a clone), or
            a dict from stage name to such metrics. A metric may be given by name (``"accuracy"``,
            ``"f1"``, ``"mse"``, see :mod:`.by_name`): it is built for the task the stage's first
            batch shows (see :mod:`.task_inference`).
        task / num_classes / num_labels / average / threshold: fix what the metrics given by name
            would otherwise infer or default to (``None``: infer, or torchmetrics' default).
        stages: the stages to track; defaults to all three (or to the keys of a per-stage dict).
        preds_key / target_key: where to find predictions and targets in a step's output dict.
        sample_weight_key: the step output key of per-sample weights, passed as ``sample_weight=`` to
            the metrics that take it and to ``track_loss`` (see :mod:`.sample_weights`); ``None``: off.
        inputs: the keys of the metric inputs in a step's output dict, for metrics that take
            other inputs than ``(preds, target)``: a sequence of keys passed positionally
            (``("preds", "target", "indexes")``), a mapping from ``update`` parameter names to keys
            (keyword arguments), or a dict of those per stage or per metric name. Each metric
            gets what its ``update`` takes (see :mod:`.inputs`). Default ``(preds_key, target_key)``.
        extract: ``callable(outputs, batch)`` returning the metric inputs as a tuple (positional)
            or a dict (keyword arguments); replaces the key lookup.
        separator: between stage and name in logged keys (``"val/f1"``).
        prog_bar: show every scalar in the progress bar, or only the listed names.
        log_on_step: also log the batch values (``"train/acc_step"``) for these stages
            (``True`` means ``("train",)``).
        class_names: labels of per-class values (``"val/f1/<index>_<class>"``): a list indexed by class
            id or a dict ``{class id: name}``; indices alone otherwise. Detection's per-class results
            are keyed by the class ids the metric reports (``classes``).
        sinks: writers of non-scalar results (see :mod:`.routing`).
        store: where the per-stage clones live (the mixin passes an ``nn.ModuleDict``).
        owner: the name used in messages.
        track_best: log ``"{stage}/{name}_best"`` and ``"{stage}/{name}_best_epoch"`` for these
            result names, by the metric's ``higher_is_better``: ``"val/f1"``, ``"test/acc"``, or a
            bare name for the val stage (``True``: every val scalar; a dict gives ``"max"``/``"min"``
            per name); see :mod:`.tracking`.
        track_loss: log the step's ``loss`` per stage as ``"{stage}/loss"``: ``"sample"`` (or
            ``True``), the mean per sample, each batch weighted by its size (exact under DDP);
            ``"batch"``, the mean of the batch losses; or a dict per stage. See :mod:`.loss`.
        checkpoint_mismatch: what a checkpoint whose states were written by other metrics does
            (``"warn"``: warn once and start those metrics empty; ``"raise"``); see :mod:`.resume`.
        confidence_intervals: log ``"{stage}/{name}_ci_low"``/``"_ci_high"`` for these metrics
            (``True``: all of ours), a bootstrap over the pooled statistic at ``ci_level`` with
            ``ci_bootstraps`` replicates, resampled from seed ``ci_seed`` (plus the rank), for the
            ``ci_stages`` (by default ``("val", "test")``: each batch updates every replicate).
        coalesce_batches: buffer up to this many batches (at most ``coalesce_bytes`` of inputs)
            and update once with their concatenation, for stages whose metrics all declare
            ``additive_update`` and log no step values; the values are those of one update per
            batch, and an error names its batch but surfaces at the flush (see
            :mod:`.coalesce`). ``1`` updates at every batch.

    The TensorBoard routing plugs in through ``sinks`` (or ``engine.router.sinks``), see
    :class:`~lightning_metrics.integration.routing.Router`.

    >>> from lightning_metrics.aggregation import MeanMetric
    >>> engine = MetricsEngine({"train": {"loss": MeanMetric()}, "val": [MeanMetric()]})
    >>> engine.stages, engine.names()
    (('train', 'val'), {'train': ['loss'], 'val': ['MeanMetric']})
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
        class_names: Optional[Sequence[str]] = None,
        sinks: Iterable[Any] = (),
        store: Optional[MutableMapping[str, StageMetrics]] = None,
        owner: str = "MetricsCallback",
        track_best: Names = False,
        confidence_intervals: Union[bool, Sequence[str]] = False,
        ci_level: float = 0.95,
        ci_bootstraps: int = 100,
        ci_seed: int = 0,
        ci_stages: Sequence[str] = ("val", "test"),
        coalesce_batches: int = DEFAULT_MAX_BATCHES,
        coalesce_bytes: int = DEFAULT_MAX_BYTES,
        track_loss: Any = False,
        checkpoint_mismatch: str = "warn",
        task: Optional[str] = None,
        num_classes: Optional[int] = None,
        num_labels: Optional[int] = None,
        average: Optional[str] = None,
        threshold: Optional[float] = None,
    ) -> None:
        per_stage = _is_per_stage(metrics)
        if stages is None:
            stages = tuple(metrics) if per_stage else STAGES
        if isinstance(stages, str) or not isinstance(stages, Sequence) or not stages:
            raise ValueError(f"Argument `stages` must be a non-empty sequence of stage names, got {stages!r}")
        for stage in stages:
            check_choice("stages", stage, STAGES)
        check_type("preds_key", preds_key, str)
        check_type("target_key", target_key, str)
        check_type("separator", separator, str)
        if not separator:
            raise ValueError(f"Argument `separator` must be a non-empty string, got {separator!r}")
        if extract is not None and not callable(extract):
            raise TypeError(f"Argument `extract` must be callable(outputs, batch) or None, got {extract!r}")
        if extract is not None and inputs is not None:
            raise ValueError("Arguments `inputs` and `extract` both say where the metric inputs are: pass one of them")
        check_choice("checkpoint_mismatch", checkpoint_mismatch, resume.MISMATCH_MODES)
        if not isinstance(prog_bar, bool) and (
            isinstance(prog_bar, str) or not all(isinstance(p, str) for p in prog_bar)
        ):
            raise TypeError(f"Argument `prog_bar` must be a bool or a list of metric names, got {prog_bar!r}")
        step_stages = ("train",) if log_on_step is True else () if log_on_step is False else tuple(log_on_step)
        for stage in step_stages:
            check_choice("log_on_step", stage, STAGES)
        if class_names is not None and (isinstance(class_names, str) or not isinstance(class_names, (Sequence, Mapping))):
            raise TypeError(
                f"Argument `class_names` must be a sequence of names (indexed by class id), a dict {{class id: name}} "
                f"or None, got {class_names!r}"
            )
        for name, value in (("coalesce_batches", coalesce_batches), ("coalesce_bytes", coalesce_bytes)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"Argument `{name}` must be a positive int, got {value!r}")

        self.stages = tuple(dict.fromkeys(stages))
        self.tracking = Tracking(
            track_best, confidence_intervals, ci_level, ci_bootstraps, ci_seed, ci_stages, separator
        )
        tracked = tuple(s for s in self.stages if not per_stage or s in metrics)
        self.loss_modes = step_loss.parse_track_loss(track_loss, tracked)
        self.owner = owner
        self._init_task_inference(TaskArguments(task, num_classes, num_labels, average, threshold))
        self.templates: dict[str, StageMetrics] = {}
        shared: dict[tuple[int, bool, bool], StageMetrics] = {}
        for stage in tracked:
            source = self._named_source(stage, metrics[stage] if per_stage else metrics)
            if source is None:
                continue  # metrics given by name, built at the stage's first batch (a placeholder till then)
            # Pristine templates, never updated: per-dataloader clones are copied from them. Stages
            # given the same metrics share one, unless only some of them get bootstrap replicates
            # or the loss.
            key = (id(source), self.tracking.resamples(stage), stage in self.loss_modes)
            if key not in shared:
                shared[key] = self._new_template(stage, source)
            else:
                self.tracking.prepare(None, owner, stage)  # (its template is prepared already)
            self.templates[stage] = shared[key]
        self._check_task_arguments()
        if not self._pending:  # (the names of metrics built later are not known yet)
            self.tracking.check_found(owner, [n for t in self.templates.values() for n in t.names()])
        self.preds_key, self.target_key, self.extract_fn = preds_key, target_key, extract
        if sample_weight_key is not None:
            check_type("sample_weight_key", sample_weight_key, str)
        self.sample_weight_key = sample_weight_key
        self._weighted_layouts: dict[str, Optional[tuple]] = {}  # per stage: records with the weight appended
        self.checkpoint_mismatch = checkpoint_mismatch
        # the keys read from the step output per stage, and the layout of the records they make
        self._keys: dict[str, tuple[str, ...]] = {}
        self._layouts: dict[str, tuple] = {}
        self._uses_keys = extract is None
        self._key_errors: dict[str, ValueError] = {}  # default keys that do not fit: raised at their first use
        self._inputs_given = inputs is not None
        if self._uses_keys:
            self._input_specs = parse_inputs(inputs, preds_key, target_key, tracked)
            self._check_inputs_named()
            for stage, template in self.templates.items():
                self._rebind(stage, template)
        self.step_stages = frozenset(step_stages)
        self.coalesce_batches, self.coalesce_bytes = coalesce_batches, coalesce_bytes
        self.router = Router(
            separator=separator,
            class_names=(dict(class_names) if isinstance(class_names, Mapping) else list(class_names))
            if class_names is not None else None,
            prog_bar=prog_bar if isinstance(prog_bar, bool) else list(prog_bar),
            sinks=list(sinks),
        )
        self.store: MutableMapping[str, StageMetrics] = store if store is not None else {}
        # drop the DistributedSampler padding before update; False only to measure its effect
        self.correct_padding = True
        self.results: dict[str, Any] = {}  # latest computed value of every logged key
        self._plans: dict[tuple[str, int], Optional[ShardPadding]] = {}
        # (stage, dataloader) -> (metrics, padding plan), resolved once per epoch: the per-batch path
        # is then one dict lookup (the device is checked when an entry is resolved)
        self._active: dict[tuple[str, int], tuple[StageMetrics, Optional[ShardPadding]]] = {}
        self._deferred: dict[str, list[tuple]] = {}
        self._pending_load: dict[str, Any] = {}
        self._pending_skip: dict[str, frozenset] = {}  # metrics whose checkpoint states are not theirs
        self._save_point: Optional[dict[str, Any]] = None  # of the loaded checkpoint
        self._train_batch: Optional[int] = None  # the last train batch the metrics took
        self._capture: Optional[tuple] = None  # (batch_idx, outputs, batch) of a train batch not taken yet
        self._early: Optional[int] = None  # a train batch taken early (for a checkpoint in its end hooks)
        self._report: Optional[tuple] = None  # (collected values, epoch) while reporting a finished epoch
        self._peer_stopped = False  # a sync met a rank that stopped on an exception
        self._warned: set = set()
        self._quiet_keys: set[str] = set()
        for stage in self.templates:  # the first dataloader's metrics now, not in the first batch of a run
            self.metrics_for(stage, 0)

    def _new_template(self, stage: str, source: Any) -> StageMetrics:
        """A stage's pristine metrics (never updated; the per-dataloader clones are copied from it)."""
        template = deepcopy(StageMetrics.build(source))
        self.tracking.prepare(template.native, self.owner, stage)  # multitask names, bootstrap replicates
        if stage in self.loss_modes:
            step_loss.add_loss_metric(template, self.owner, stage)
        return template

    def _bind_keys(self, stage: str, template: StageMetrics, spec: Any) -> None:
        """The keys the stage reads from a step's output, and its metrics' bindings (errors now)."""
        self._keys[stage], self._layouts[stage] = bind_keys(template, stage, spec, stage in self.loss_modes)
        key = self.sample_weight_key
        self._weighted_layouts[stage] = None if key is None else weights.register(template, self._layouts[stage], key)

    def _check_inputs_named(self) -> None:
        """A per-metric ``inputs`` given for every stage names metrics that some stage has."""
        named = {n for spec in self._input_specs.values() if spec.every_stage for n, _ in spec.per_metric}
        if self._pending or not named:
            return
        known = {n for t in self.templates.values() for n in t.names()}
        unknown = sorted(named - known)
        if unknown:
            raise ValueError(f"Argument `inputs` names metrics {unknown} that no stage has: {sorted(known)}")

    def _rebind(self, stage: str, template: StageMetrics) -> None:
        if not self._uses_keys:
            return
        self._key_errors.pop(stage, None)
        try:
            self._bind_keys(stage, template, self._input_specs[stage])
        except ValueError as err:
            if self._inputs_given:
                raise
            self._key_errors[stage] = err  # (metrics fed through `update_metrics` need no keys)

    # ------------------------------------------------------------------ access
    @staticmethod
    def store_key(stage: str, dataloader_idx: int) -> str:
        """The key of a stage's (and dataloader's) metrics in :attr:`store`.

        (Not the bare stage: ``"train"`` is a method of ``nn.ModuleDict``, so it cannot be a key.)

        >>> MetricsEngine.store_key("train", 0), MetricsEngine.store_key("val", 1)
        ('train_metrics', 'val_metrics_dataloader_idx_1')
        """
        key = f"{stage}_metrics"
        return key if not dataloader_idx else f"{key}_dataloader_idx_{dataloader_idx}"

    def metrics_for(self, stage: str, dataloader_idx: int = 0, trainer: Any = None, device: Any = None) -> StageMetrics:
        """The metrics of ``stage`` and ``dataloader_idx``, created from the template on first use."""
        key = self.store_key(stage, dataloader_idx)
        metrics = self.store[key] if key in self.store else None
        if metrics is None:
            metrics = deepcopy(self.templates[stage])
            metrics.where = f"{stage!r} metrics (dataloader {dataloader_idx})"
            self.store[key] = metrics
            # step values need forward at every batch: nothing to coalesce there
            metrics.coalesce(1 if stage in self.step_stages else self.coalesce_batches, self.coalesce_bytes)
        if device is not None and metrics.device != device:
            metrics.to_device(device)
        if key in self._pending_load:
            if trainer is None:  # restored by hand (no run): take the states as they are
                metrics.load_merged_state(self._pending_load.pop(key), self._pending_skip.get(key, frozenset()))
            elif stage != "train":
                del self._pending_load[key]  # an evaluation is never resumed: its partial states are not applied
            else:
                self.resume(trainer)
        return metrics

    def names(self) -> dict[str, list[str]]:
        """The metric names tracked per stage (used for the callback's ``state_key``)."""
        return {stage: template.names() for stage, template in self.templates.items()}

    # ------------------------------------------------------------------- hooks
    def setup(self) -> None:
        """Start a run: forget states, padding plans and deferred updates of a previous run."""
        for metrics in self.store.values():
            metrics.reset()
        self._plans.clear()
        self._active.clear()
        self._deferred.clear()
        self.results.clear()
        self._pending_load.clear()
        self._train_batch = self._capture = self._early = None

    def capture(self, outputs: Any, batch: Any, batch_idx: int) -> None:
        """Keep a train batch's output until the batch-end hook takes it (the mixin: a checkpoint
        written by a callback in that batch's ``on_train_batch_end`` then includes it)."""
        self._capture = (batch_idx, outputs, batch)

    def defer_update(self, stage: str, args: tuple, kwargs: Optional[dict] = None) -> None:
        """Record ``args`` (and ``kwargs``) for ``update`` at this batch's end (where ``batch_idx`` is known)."""
        check_choice("stage", stage, STAGES)
        if stage not in self.templates:
            raise ValueError(f"Argument `stage`: no metrics are configured for {stage!r}; tracked: {list(self.templates)}")
        kwargs = kwargs or {}
        layout = ("call", len(args) + len(kwargs), tuple(kwargs), "`update_metrics`", stage in self.loss_modes)
        self._deferred.setdefault(stage, []).append(((*args, *kwargs.values()), layout))

    def batch_end(
        self, trainer: Any, pl_module: Any, stage: str, outputs: Any, batch: Any, batch_idx: int, dataloader_idx: int = 0
    ) -> None:
        """Update the stage's metrics with one batch (nothing during the sanity check)."""
        deferred = self._deferred.pop(stage, None) if self._deferred else None
        if stage == "train" and self._early is not None:
            self._capture = None
            if self._early == batch_idx:  # taken already, for a checkpoint written in this batch's end hooks
                self._early = None
                return
            self._early = None
        active = self._active.get((stage, dataloader_idx))
        if active is None:
            # resolved once per epoch, never during the sanity check (so an entry means "not sanity
            # checking"); setup and epoch_end drop the entries
            if stage not in self.templates or trainer.sanity_checking or self._replayed(trainer, stage):
                return
            if stage in self._pending:  # metrics given by name: built now, for this first batch
                deferred = self._resolve_from_batch(trainer, stage, outputs, batch, deferred)
            metrics = self.metrics_for(stage, dataloader_idx, trainer, pl_module.device)
            active = self._active[(stage, dataloader_idx)] = (metrics, self._plan(trainer, stage, dataloader_idx))
        metrics, plan = active
        if stage == "train":
            self._train_batch, self._capture = batch_idx, None
        if deferred is None and plan is None and stage not in self.step_stages and stage not in self.loss_modes:
            # the common case, kept lean: it runs at every batch
            if type(outputs) is dict and self._uses_keys and stage not in self._key_errors:
                try:
                    record = tuple([outputs[key] for key in self._keys[stage]])
                except KeyError:
                    raise self._missing_keys(stage, outputs) from None
                if self.sample_weight_key in outputs:
                    record, layout = self._weighted(stage, record, outputs)
                    metrics.push(record, batch_idx, layout)
                    return
                metrics.push(record, batch_idx, self._layouts[stage])
            else:
                record, layout = self._extract(stage, outputs, batch)
                metrics.push(record, batch_idx, layout)
            return
        batches = deferred if deferred is not None else (self._extract(stage, outputs, batch),)
        step_values = stage in self.step_stages
        for record, layout in batches:
            if plan is not None:
                record = self._drop_padding(plan, stage, dataloader_idx, batch_idx, record)
                if record is None:
                    continue
            if stage in self.loss_modes:
                if plan is not None:
                    size, keep = plan.batch_len(batch_idx), plan.keep(batch_idx, plan.batch_len(batch_idx))
                else:
                    size, keep = leading_len(record) or step_loss.batch_size(batch), None
                where = f"{self.owner} ({STEP_OF_STAGE[stage]}, batch_idx={batch_idx})"
                loss_weight = weights.loss_weights(outputs, self.sample_weight_key, keep)
                record += step_loss.batch_loss_inputs(
                    outputs, batch, self.loss_modes[stage], size, keep, where, loss_weight
                )
            if step_values:
                # forward computes the batch value with gradients on: never keep the step's graph
                record = tuple(a.detach() if isinstance(a, Tensor) else a for a in record)
                values = metrics.forward_record(record, layout, batch_idx)
                self._log_step_values(pl_module, stage, dataloader_idx, trainer, values)
            else:
                metrics.push(record, batch_idx, layout)  # update now or buffer (coalescing); never records a graph

    def epoch_end(self, trainer: Any, pl_module: Any, stage: str) -> None:
        """Compute, route (log) and reset every dataloader's metrics of ``stage``."""
        if self._deferred.get(stage):
            self._deferred.pop(stage)
            raise RuntimeError(
                f"{self.owner}: `update_metrics({stage!r}, ...)` was called but the batch-end hook never "
                f"consumed it; if you override `on_{HOOK_OF_STAGE[stage]}_batch_end`, call `super()` in it."
            )
        if stage not in self.templates or trainer.sanity_checking or self._replay_ended(stage):
            return
        if stage == "train":
            self._train_batch = None
        self._compute_and_route(
            trainer, pl_module, stage, self._dataloader_indices(trainer, stage), self._num_dataloaders(trainer, stage) > 1
        )
        # loaders may be reloaded and the module moved before the next epoch: resolve again
        self._plans = {k: v for k, v in self._plans.items() if k[0] != stage}
        self._active = {k: v for k, v in self._active.items() if k[0] != stage}

    def _compute_and_route(self, trainer: Any, pl_module: Any, stage: str, indices: list[int], several: bool) -> None:
        if trainer.world_size > 1:  # every rank here: one at another stage's end (no batch of this one) fails all
            with self._explained_sync_errors(trainer, f"{stage!r} metrics (dataloader {indices[0] if indices else 0})"):
                distributed.check_same_point(STAGES.index(stage), [f"the end of {s!r}" for s in STAGES], pl_module.device)
        self._agree_on_tasks(trainer, (stage,))  # before the stage's first sync: every rank builds the same
        context = RouteContext(
            log_scalar=lambda key, value, bar: self._log_epoch(trainer, pl_module, key, value, bar),
            trainer=trainer,
            pl_module=pl_module,
            is_global_zero=trainer.is_global_zero,
        )
        for idx in indices:
            metrics = self.metrics_for(stage, idx, trainer, pl_module.device)
            # every rank: the sync is a collective; the states stay merged while the sinks read them
            # (PR-curve counts, calibration bins), so rank zero draws from all ranks' data
            with self._explained_sync_errors(trainer, metrics.where), metrics.synced():
                values, intervals = self.tracking.split_intervals(metrics.native, metrics.compute(skip_empty=True))
                if metrics.empty:
                    self._warn_once(("no-samples", stage, idx, tuple(metrics.empty)), (
                        f"{self.owner}: no batch reached {', '.join(repr(n) for n in metrics.empty)} of the "
                        f"{metrics.where} in epoch {self._report[1] if self._report else trainer.current_epoch} "
                        "(on any process); nothing is logged for them this epoch."
                    ))
                suffix_idx = idx if several else None
                for name, value in values.items():
                    value = detach_values(value)
                    self.results[self.router.key(stage, name) + ("" if suffix_idx is None else f"/dataloader_idx_{idx}")] = value
                    self.router.route_value(
                        stage, name, value, context, suffix_idx, metrics.num_classes(name), metric=metrics.metric(name),
                        class_ids=metrics.class_ids(name),
                    )
                    if name in intervals:
                        self._log_interval(trainer, pl_module, stage, name, suffix_idx, intervals[name])
            metrics.reset()
        self.router.finish(stage, context)  # sinks that need every result of the stage (a summary table)
        charts = self.tracking.pending_charts() if trainer.is_global_zero else None
        if charts:
            from lightning_metrics.integration.loggers import write_margin_charts

            write_margin_charts(trainer.loggers, charts)

    @contextlib.contextmanager
    def _explained_sync_errors(self, trainer: Any, where: str) -> Iterator[None]:
        """Say what happened when the epoch-end sync fails because another process is gone."""
        try:
            yield
        except distributed.PeerStoppedError:
            self._peer_stopped = True  # this rank's exception checkpoint must not try to merge either
            raise
        except RuntimeError as err:
            if isinstance(err, MetricUserError) or not any(m in str(err) for m in _PEER_GONE):
                raise
            self._peer_stopped = True
            raise RuntimeError(
                f"{self.owner}: the {where} could not be merged across processes at the epoch end on "
                f"rank {trainer.global_rank}: another process stopped taking part (it most likely raised an "
                "exception; its traceback is the first error of the job, look for it above)."
            ) from err

    # ----------------------------------------------------------------- helpers
    def _extract(self, stage: str, outputs: Any, batch: Any) -> tuple[tuple, tuple]:
        """The record of a batch's metric inputs and its layout (see :mod:`.inputs`)."""
        if self.extract_fn is not None:
            return extracted_record(self.extract_fn(outputs, batch), stage in self.loss_modes, self.owner)
        if stage in self._key_errors:
            raise self._key_errors[stage]
        if isinstance(outputs, Mapping) and all(key in outputs for key in self._keys[stage]):
            record = tuple(outputs[key] for key in self._keys[stage])
            if self.sample_weight_key in outputs:
                return self._weighted(stage, record, outputs)
            return record, self._layouts[stage]
        raise self._missing_keys(stage, outputs)

    def _weighted(self, stage: str, record: tuple, outputs: Mapping) -> tuple[tuple, tuple]:
        """``record`` with the step's sample weights, for the metrics that take them (see :mod:`.sample_weights`)."""
        layout = self._weighted_layouts.get(stage)
        if layout is None:  # the stage's inputs name the weights already
            return record, self._layouts[stage]
        token = ("unweighted", stage)
        if token not in self._warned:  # the signatures are read at the stage's first weighted batch only
            skipped = weights.unweighted_names(self.templates[stage])
            if skipped:
                self._warn_once(
                    token,
                    f"{self.owner}: the step output's {self.sample_weight_key!r} weights the {stage!r} metrics that "
                    f"take `sample_weight`; {skipped} do not and are computed unweighted.",
                )
            else:
                self._warned.add(token)
        return (*record, outputs[self.sample_weight_key]), layout

    def _missing_keys(self, stage: str, outputs: Any) -> ValueError:
        return missing_keys_error(self.owner, stage, STEP_OF_STAGE[stage], self._keys[stage], outputs)

    def _plan(self, trainer: Any, stage: str, dataloader_idx: int) -> Optional[ShardPadding]:
        if trainer.world_size <= 1 or not self.correct_padding:
            return None
        key = (stage, dataloader_idx)
        if key not in self._plans:
            loader = stage_loader(trainer, stage, dataloader_idx)
            plan = plan_padding(loader) if loader is not None else "its dataloader could not be found"
            if isinstance(plan, str):
                self._warn_once(
                    ("padding", stage, dataloader_idx),
                    f"{self.owner}: the {stage!r} metrics (dataloader {dataloader_idx}) may differ from a single "
                    f"device run, because {plan}.",
                )
                plan = None
            self._plans[key] = plan
        return self._plans[key]

    def _drop_padding(
        self, plan: ShardPadding, stage: str, dataloader_idx: int, batch_idx: int, args: tuple
    ) -> Optional[tuple]:
        size = leading_len(args)
        expected = plan.batch_len(batch_idx)
        if size != expected:
            if plan.keep(batch_idx, expected) < expected:  # only matters where padding sits
                self._warn_once(
                    ("padding-shape", stage, dataloader_idx),
                    f"{self.owner}: cannot drop the DistributedSampler padding of the {stage!r} metrics: the "
                    f"batch holds {expected} samples but the metric inputs have leading sizes that differ "
                    f"({size if size is not None else 'mixed'}); the padded samples are counted.",
                )
            return args
        keep = plan.keep(batch_idx, size)
        if keep == 0:
            return None
        return trim_batch(args, keep) if keep < size else args

    def _metric_of(self, stage: str, name: str) -> Any:
        """The metric behind result ``name`` of ``stage`` (its template), or None."""
        template = self.templates.get(stage)
        if template is None:
            return None
        metric = template.metric(name)
        return metric if metric is not None else find_metric(template.native, name, self.router.separator)

    def _dataloader_indices(self, trainer: Any, stage: str) -> list[int]:
        if stage == "train":
            return [0] if trainer.num_training_batches else []
        counts = trainer.num_val_batches if stage == "val" else trainer.num_test_batches
        return [i for i, n in enumerate(counts) if n]

    def _num_dataloaders(self, trainer: Any, stage: str) -> int:
        if stage == "train" or trainer is None:
            return 1
        counts = trainer.num_val_batches if stage == "val" else trainer.num_test_batches
        return max(1, len(counts))

    def _warn_once(self, token: tuple, message: str) -> None:
        if token not in self._warned:
            self._warned.add(token)
            from lightning_utilities.core.rank_zero import rank_zero_warn  # both Lightning packages' own

            rank_zero_warn(message, category=UserWarning)


# what gloo and NCCL say when a peer process has gone (raised, exited, killed)
_PEER_GONE = ("Connection closed by peer", "Connection reset by peer", "remote worker crashing", "Broken pipe",
              "NCCL communicator was aborted", "Socket Timeout")
