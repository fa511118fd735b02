"""The one engine behind ``MetricsCallback`` and ``MetricsMixin``: update, compute, log, reset.

Both doors forward Lightning's hooks here. Per stage (``train``, ``val``, ``test``) and per
dataloader the engine keeps a clone of the user's metrics and:

- on each batch end, reads ``(preds, target)`` from the step output (or ``extract``), drops the
  ``DistributedSampler`` padding (see :mod:`.sampler`) and calls ``update`` once (``forward``
  instead when step values are logged, which gives the batch value from the same update);
  when every metric of the stage is additive, up to ``coalesce_batches`` small batches are
  buffered and updated together instead (see :mod:`.coalesce`);
- on each epoch end, computes every dataloader's metrics once (one fused sync per collection),
  routes the results (:mod:`.routing`: scalars to ``pl_module.log``, the rest to sinks) and
  resets them.

Sanity-check batches are ignored and nothing is logged for them. Scalars are logged on every
rank with ``sync_dist=False``: they are computed from synced states, so they are already equal
on all ranks, and ``ModelCheckpoint``/``EarlyStopping`` see the same value everywhere.
"""

from __future__ import annotations

import re
import warnings
from copy import deepcopy
from typing import Any, Callable, Iterable, Mapping, MutableMapping, Optional, Sequence, Union

import torch
from torch import Tensor

from lightning_metrics.integration.coalesce import DEFAULT_MAX_BATCHES, DEFAULT_MAX_BYTES
from lightning_metrics.integration.compat import log_keyed
from lightning_metrics.integration.routing import ResultKind, RouteContext, Router, classify
from lightning_metrics.integration.sampler import ShardPadding, leading_len, plan_padding, trim_batch
from lightning_metrics.integration.stage_metrics import StageMetrics
from lightning_metrics.integration.tracking import Names, Tracking, find_metric
from lightning_metrics.utilities.checks import check_choice, check_type

STAGES = ("train", "val", "test")
# the Lightning hook prefix of each stage: on_{hook}_batch_end, on_{hook}_epoch_end
HOOK_OF_STAGE = {"train": "train", "val": "validation", "test": "test"}
STEP_OF_STAGE = {"train": "training_step", "val": "validation_step", "test": "test_step"}

Extract = Callable[[Any, Any], Sequence[Any]]


def _is_per_stage(metrics: Any) -> bool:
    return isinstance(metrics, dict) and bool(metrics) and set(metrics) <= set(STAGES)


def _describe_output(outputs: Any) -> str:
    if outputs is None:
        return "None (the step returned nothing)"
    if isinstance(outputs, Mapping):
        return f"a dict with keys {sorted(map(str, outputs))}"
    return f"a {type(outputs).__name__}"


class MetricsEngine:
    """Update/compute/log/reset per stage and dataloader; see the module docstring.

    Args:
        metrics: a metric, a collection, a dict or list of metrics (each stage gets a clone), or
            a dict from stage name to such metrics.
        stages: the stages to track; defaults to all three (or to the keys of a per-stage dict).
        preds_key / target_key: where to find predictions and targets in a step's output dict.
        extract: ``callable(outputs, batch) -> (preds, target)``; replaces the key lookup.
        separator: between stage and name in logged keys (``"val/f1"``).
        prog_bar: show every scalar in the progress bar, or only the listed names.
        log_on_step: also log the batch values (``"train/acc_step"``) for these stages
            (``True`` means ``("train",)``).
        class_names: labels of per-class values (``"val/f1/<class>"``); indices otherwise.
        sinks: writers of non-scalar results (see :mod:`.routing`).
        store: where the per-stage clones live (the mixin passes an ``nn.ModuleDict``).
        owner: the name used in messages.
        track_best: log ``"{stage}/{name}_best"`` and ``"{stage}/{name}_best_epoch"`` for these
            result names (``True``: all; a dict gives ``"max"``/``"min"`` per name), by the
            metric's ``higher_is_better``; see :mod:`.tracking`.
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
        if not isinstance(prog_bar, bool) and (
            isinstance(prog_bar, str) or not all(isinstance(p, str) for p in prog_bar)
        ):
            raise TypeError(f"Argument `prog_bar` must be a bool or a list of metric names, got {prog_bar!r}")
        step_stages = ("train",) if log_on_step is True else () if log_on_step is False else tuple(log_on_step)
        for stage in step_stages:
            check_choice("log_on_step", stage, STAGES)
        if class_names is not None and (isinstance(class_names, str) or not isinstance(class_names, Sequence)):
            raise TypeError(f"Argument `class_names` must be a sequence of names or None, got {class_names!r}")
        for name, value in (("coalesce_batches", coalesce_batches), ("coalesce_bytes", coalesce_bytes)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"Argument `{name}` must be a positive int, got {value!r}")

        self.stages = tuple(dict.fromkeys(stages))
        self.tracking = Tracking(
            track_best, confidence_intervals, ci_level, ci_bootstraps, ci_seed, ci_stages, separator
        )
        self.templates: dict[str, StageMetrics] = {}
        shared: dict[tuple[int, bool], StageMetrics] = {}
        for stage in self.stages:
            if per_stage and stage not in metrics:
                continue
            source = metrics[stage] if per_stage else metrics
            # Pristine templates, never updated: per-dataloader clones are copied from them. Stages
            # given the same metrics share one, unless only some of them get bootstrap replicates.
            key = (id(source), self.tracking.resamples(stage))
            if key not in shared:
                shared[key] = deepcopy(StageMetrics.build(source))
                self.tracking.prepare(shared[key].native, owner, stage)  # multitask names, bootstrap replicates
            else:
                self.tracking.prepare(None, owner, stage)  # (its template is prepared already)
            self.templates[stage] = shared[key]
        self.tracking.check_found(owner, [n for t in self.templates.values() for n in t.names()])
        self.preds_key, self.target_key, self.extract_fn = preds_key, target_key, extract
        self.step_stages = frozenset(step_stages)
        self.coalesce_batches, self.coalesce_bytes = coalesce_batches, coalesce_bytes
        self.owner = owner
        self.router = Router(
            separator=separator,
            class_names=list(class_names) if class_names is not None else None,
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
        self._warned: set = set()
        self._quiet_keys: set[str] = set()
        for stage in self.templates:  # the first dataloader's metrics now, not in the first batch of a run
            self.metrics_for(stage, 0)

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
            self.store[key] = metrics
            # step values need forward at every batch: nothing to coalesce there
            metrics.coalesce(1 if stage in self.step_stages else self.coalesce_batches, self.coalesce_bytes)
        if device is not None and metrics.device != device:
            metrics.to_device(device)
        if key in self._pending_load:
            state = self._pending_load.pop(key)
            if trainer is None or trainer.global_rank == 0:  # the merged state lives on rank zero only
                metrics.load_merged_state(state)
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

    def defer_update(self, stage: str, args: tuple) -> None:
        """Record ``args`` for ``update`` at this batch's end (where ``batch_idx`` is known)."""
        check_choice("stage", stage, STAGES)
        if stage not in self.templates:
            raise ValueError(f"Argument `stage`: no metrics are configured for {stage!r}; tracked: {list(self.templates)}")
        self._deferred.setdefault(stage, []).append(args)

    def batch_end(
        self, trainer: Any, pl_module: Any, stage: str, outputs: Any, batch: Any, batch_idx: int, dataloader_idx: int = 0
    ) -> None:
        """Update the stage's metrics with one batch (nothing during the sanity check)."""
        deferred = self._deferred.pop(stage, None) if self._deferred else None
        active = self._active.get((stage, dataloader_idx))
        if active is None:
            # resolved once per epoch, never during the sanity check (so an entry means "not sanity
            # checking"); setup and epoch_end drop the entries
            if stage not in self.templates or trainer.sanity_checking:
                return
            metrics = self.metrics_for(stage, dataloader_idx, trainer, pl_module.device)
            active = self._active[(stage, dataloader_idx)] = (metrics, self._plan(trainer, stage, dataloader_idx))
        metrics, plan = active
        if deferred is None and plan is None and stage not in self.step_stages:
            # the common case, kept lean: it runs at every batch
            preds, target = self.preds_key, self.target_key
            if self.extract_fn is None and type(outputs) is dict and preds in outputs and target in outputs:
                metrics.push((outputs[preds], outputs[target]), batch_idx)
            else:
                metrics.push(self._extract(stage, outputs, batch), batch_idx)
            return
        batches = deferred if deferred is not None else (self._extract(stage, outputs, batch),)
        step_values = stage in self.step_stages
        for args in batches:
            if plan is not None:
                args = self._drop_padding(plan, stage, dataloader_idx, batch_idx, args)
                if args is None:
                    continue
            if step_values:
                # forward computes the batch value with gradients on: never keep the step's graph
                args = tuple(a.detach() if isinstance(a, Tensor) else a for a in args)
                self._log_step_values(pl_module, stage, dataloader_idx, trainer, metrics.forward(*args))
            else:
                metrics.push(args, batch_idx)  # update now or buffer (coalescing); never records a graph

    def epoch_end(self, trainer: Any, pl_module: Any, stage: str) -> None:
        """Compute, route (log) and reset every dataloader's metrics of ``stage``."""
        if self._deferred.get(stage):
            self._deferred.pop(stage)
            raise RuntimeError(
                f"{self.owner}: `update_metrics({stage!r}, ...)` was called but the batch-end hook never "
                f"consumed it; if you override `on_{HOOK_OF_STAGE[stage]}_batch_end`, call `super()` in it."
            )
        if stage not in self.templates or trainer.sanity_checking:
            return
        indices = self._dataloader_indices(trainer, stage)
        several = self._num_dataloaders(trainer, stage) > 1
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
            with metrics.synced():
                values, intervals = self.tracking.split_intervals(metrics.native, metrics.compute())
                suffix_idx = idx if several else None
                for name, value in values.items():
                    value = _detach(value)
                    self.results[self.router.key(stage, name) + ("" if suffix_idx is None else f"/dataloader_idx_{idx}")] = value
                    self.router.route_value(
                        stage, name, value, context, suffix_idx, metrics.num_classes(name), metric=metrics.metric(name)
                    )
                    if name in intervals:
                        self._log_interval(trainer, pl_module, stage, name, suffix_idx, intervals[name])
            metrics.reset()
        charts = self.tracking.pending_charts() if trainer.is_global_zero else None
        if charts:
            from lightning_metrics.integration.loggers import write_margin_charts

            write_margin_charts(trainer.loggers, charts)
        # loaders may be reloaded and the module moved before the next epoch: resolve again
        self._plans = {k: v for k, v in self._plans.items() if k[0] != stage}
        self._active = {k: v for k, v in self._active.items() if k[0] != stage}

    # -------------------------------------------------------------- checkpoint
    def state_dict(self, trainer: Any) -> dict[str, Any]:
        """Accumulated states merged across ranks (a collective: every rank calls it)."""
        out: dict[str, Any] = {}
        for stage in self.templates:
            for idx in range(self._num_dataloaders(trainer, stage)):
                metrics = self.metrics_for(stage, idx, trainer)
                out[self.store_key(stage, idx)] = metrics.merged_state()
        return {"metrics": out, "best": self.tracking.state_dict()}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Keep the merged states; rank zero applies them when the metrics are next used."""
        self.tracking.load_state_dict(state.get("best", {}))  # equal on every rank: all keep them
        self._pending_load = dict(state.get("metrics", {}))
        self._active.clear()  # the next batch resolves its metrics through metrics_for, which applies them
        for key in list(self._pending_load):
            if key in self.store:
                self.store[key].reset()

    # ----------------------------------------------------------------- helpers
    def _extract(self, stage: str, outputs: Any, batch: Any) -> tuple:
        if self.extract_fn is None and type(outputs) is dict and self.preds_key in outputs and self.target_key in outputs:
            return outputs[self.preds_key], outputs[self.target_key]
        if self.extract_fn is not None:
            args = self.extract_fn(outputs, batch)
            if not isinstance(args, (tuple, list)):
                raise TypeError(
                    f"{self.owner}: `extract` must return a tuple such as (preds, target), got {type(args).__name__}"
                )
            return tuple(args)
        if isinstance(outputs, Mapping) and self.preds_key in outputs and self.target_key in outputs:
            return outputs[self.preds_key], outputs[self.target_key]
        raise ValueError(
            f"{self.owner}: the {stage!r} metrics look for the keys {self.preds_key!r} and {self.target_key!r} "
            f"in what `{STEP_OF_STAGE[stage]}` returns, but it returned {_describe_output(outputs)}. Return "
            f"{{{self.preds_key!r}: ..., {self.target_key!r}: ...}} from the step, set `preds_key`/`target_key`, "
            "or pass `extract=callable(outputs, batch) -> (preds, target)`."
        )

    def _plan(self, trainer: Any, stage: str, dataloader_idx: int) -> Optional[ShardPadding]:
        if trainer.world_size <= 1 or not self.correct_padding:
            return None
        key = (stage, dataloader_idx)
        if key not in self._plans:
            loader = _stage_loader(trainer, stage, dataloader_idx)
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

    def _log_step_values(self, pl_module: Any, stage: str, dataloader_idx: int, trainer: Any, values: dict) -> None:
        several = self._num_dataloaders(trainer, stage) > 1
        suffix = f"/dataloader_idx_{dataloader_idx}" if several else ""
        for name, value in _scalar_items(values, self.router.separator):  # a task's metrics: "task/acc"
            if classify(value) is not ResultKind.SCALAR:
                continue  # batch values are scalars only; the epoch value routes the rest
            value = torch.as_tensor(value).detach().reshape(())
            if not value.is_floating_point():
                value = value.float()
            log_keyed(
                pl_module, f"{self.router.key(stage, name)}_step{suffix}", value, on_step=True, on_epoch=False,
                prog_bar=self.router._on_prog_bar_name(name), logger=None, sync_dist=False, batch_size=1,
            )

    def _log_interval(self, trainer: Any, pl_module: Any, stage: str, name: str, dataloader_idx: Optional[int],
                      bounds: tuple[Tensor, Tensor]) -> None:
        key = self.router.key(stage, name) + ("" if dataloader_idx is None else f"/dataloader_idx_{dataloader_idx}")
        if bounds[0].numel() != 1:
            self._warn_once(("interval", key), f"{self.owner}: no interval is logged for {key!r}: it is not a scalar.")
            return
        for bound_key, bound in zip(self.tracking.interval_keys(key), bounds):
            self.results[bound_key] = bound.detach()
            self._log_epoch(trainer, pl_module, bound_key, bound.detach().reshape(()).float(), False, track=False)

    def _log_epoch(self, trainer: Any, pl_module: Any, key: str, value: Tensor, prog_bar: bool,
                   track: bool = True) -> None:
        if trainer.world_size > 1 and key not in self._quiet_keys:
            # The value is computed from synced states, equal on every rank: Lightning's advice to
            # pass sync_dist=True would only add one all_reduce per key. Silence it for our keys.
            from lightning.pytorch.utilities.warnings import PossibleUserWarning

            warnings.filterwarnings(
                "ignore", message=re.escape(f"It is recommended to use `self.log({key!r}"), category=PossibleUserWarning
            )
            self._quiet_keys.add(key)
        # Logged once per epoch: the "sum" of that one value is the value, and spares Lightning the
        # batch-size weights it keeps for "mean" (one state less to create, update and divide by).
        log_keyed(
            pl_module, key, value, prog_bar=prog_bar, logger=None, on_step=False, on_epoch=True, reduce_fx="sum",
            sync_dist=False, batch_size=1,
        )
        if track:  # the best so far of the metrics that track it (same value on every rank)
            for best_key, best in self.tracking.best_logs(key, value, trainer.current_epoch, self._metric_of):
                self.results[best_key] = best
                self._log_epoch(trainer, pl_module, best_key, best, False, track=False)

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
            from lightning.pytorch.utilities.rank_zero import rank_zero_warn

            rank_zero_warn(message, category=UserWarning)


def _scalar_items(values: Mapping[str, Any], separator: str, prefix: str = "") -> Iterable[tuple[str, Any]]:
    """(name, value) of ``values``, with nested mappings (multitask results) flattened by ``separator``."""
    for name, value in values.items():
        if isinstance(value, Mapping):
            yield from _scalar_items(value, separator, f"{prefix}{name}{separator}")
        else:
            yield f"{prefix}{name}", value


def _detach(value: Any) -> Any:
    if isinstance(value, Tensor):
        return value.detach()
    if isinstance(value, dict):
        return {k: _detach(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_detach(v) for v in value)
    return value


def _stage_loader(trainer: Any, stage: str, dataloader_idx: int) -> Any:
    """The (Lightning-processed, sampler-injected) dataloader of ``stage`` and ``dataloader_idx``."""
    if stage == "train":
        combined = trainer.fit_loop._combined_loader
    else:
        loop = trainer._evaluation_loop if stage == "val" else trainer.test_loop
        combined = getattr(loop, "_combined_loader", None)
    if combined is None:
        return None
    loaders = combined.flattened
    if stage == "train" and len(loaders) != 1:
        return combined  # several train loaders: not a single DataLoader, reported as unknown
    return loaders[dataloader_idx] if dataloader_idx < len(loaders) else None
