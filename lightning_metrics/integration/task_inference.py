"""The engine's side of metrics given by name: when a stage's metrics are built, and from what.

A stage whose metrics include names (see :mod:`.by_name`) starts with a placeholder that knows
only their names. Its first batch (the first real one: never a sanity-check batch) gives the
shapes and dtypes the task is read from; the metrics are then built on the module's device,
before that batch's update, and the task is said once in an info log line
(``val metrics: multiclass, 10 classes, from preds (64, 10) float32 and target (64,) int64``).
When the callback's arguments settle the task (``task="binary"``, or a ``num_classes``), the
metrics are built at once instead.

Every rank decides from its own first batch; the decisions are compared across ranks before
the first collective of the stage (its first epoch-end sync, or a checkpoint), and differing
ones raise on every rank, saying what each inferred. A rank that saw no batch yet takes what the
others inferred, so its (empty) states still join the fused sync. What was built is part of
the checkpoint: a resumed run builds the same metrics before it applies their states.
"""

from __future__ import annotations

import logging
from typing import Any, Mapping, Optional, Sequence

import torch

from lightning_metrics.integration.by_name import Inferred, NamedMetrics, TaskArguments
from lightning_metrics.integration.stage_metrics import StageMetrics


def _logger(trainer: Any) -> logging.Logger:
    # a child of the Lightning package's logger, which prints INFO to the console as Lightning's
    # own lines; a logger of our own would stay silent without the user configuring logging
    package = "pytorch_lightning" if type(trainer).__module__.startswith("pytorch_lightning") else "lightning.pytorch"
    return logging.getLogger(f"{package}.lightning_metrics")


def _is_rank_zero(trainer: Any) -> bool:
    if trainer is not None:
        return bool(getattr(trainer, "is_global_zero", True))
    from lightning_utilities.core.rank_zero import rank_zero_only

    return getattr(rank_zero_only, "rank", 0) == 0


def _preds_and_target(record: tuple, layout: tuple) -> tuple[Any, Any]:
    """``preds`` and ``target`` of a ``("call", n, keywords, ...)`` record (positional, else by keyword)."""
    _, size, keywords, *_ = layout
    positional = size - len(keywords)
    named = dict(zip(keywords, record[positional:size]))
    preds = record[0] if positional >= 1 else named.get("preds")
    target = record[1] if positional >= 2 else named.get("target")
    return preds, target


class EngineTaskInference:
    """Named metrics in :class:`~.engine.MetricsEngine` (a base class; it uses the engine's attributes)."""

    owner: str
    templates: dict
    store: Any
    extract_fn: Any

    def _init_task_inference(self, arguments: TaskArguments) -> None:
        self.task_arguments = arguments
        self._pending: dict[str, NamedMetrics] = {}  # stages still waiting for their first batch
        self._stage_arguments: dict[str, TaskArguments] = {}
        self._inferred: dict[str, Inferred] = {}  # what each named stage was built for
        self._named_stages: list[str] = []
        self._agreed: set[str] = set()  # named stages whose decision every rank shares

    def _named_source(self, stage: str, source: Any) -> Any:
        """``source`` with its names built when the arguments settle the task; None when the stage
        waits for its first batch (its template is then a placeholder)."""
        named = NamedMetrics.find(source)
        if named is None:
            return source
        self._named_stages.append(stage)
        arguments = self._stage_arguments[stage] = self.task_arguments.for_names(named.names, self.owner)
        preset = arguments.preset(named.names)
        if preset is None:
            self._pending[stage] = named
            placeholder = StageMetrics(None, [])
            placeholder.pending = tuple(named.keys())
            self.templates[stage] = placeholder
            return None
        self._inferred[stage] = preset
        self._agreed.add(stage)  # from the arguments alone: the same on every rank
        return named.resolve(preset, arguments)

    def _check_task_arguments(self) -> None:
        if self.task_arguments.given and not self._named_stages:
            raise ValueError(
                f"{self.owner}: the arguments task, num_classes, num_labels, average and threshold set up metrics "
                "given by name (e.g. metrics=['accuracy', 'f1']), and no metric is given by name; pass them to "
                "the metric objects instead"
            )

    # ------------------------------------------------------------ building
    def _resolve_from_batch(self, trainer: Any, stage: str, outputs: Any, batch: Any,
                            deferred: Optional[list]) -> Optional[list]:
        """Build ``stage``'s named metrics for its first batch; returns the batch's records when
        reading them here took them (``extract`` is called once per batch), else ``deferred``."""
        named = self._pending[stage]
        if deferred:
            preds, target = _preds_and_target(*deferred[0])
        elif self.extract_fn is not None:
            found = self._extract(stage, outputs, batch)  # type: ignore[attr-defined]
            deferred = [found]
            preds, target = _preds_and_target(*found)
        else:
            keys = self._inference_keys(stage, named)
            if not isinstance(outputs, Mapping) or any(key not in outputs for key in keys):
                raise self._missing_keys(stage, outputs)  # type: ignore[attr-defined]
            preds, target = outputs[keys[0]], outputs[keys[1]]
        inferred = self._stage_arguments[stage].infer(preds, target, named.names, f"{self.owner}: the {stage!r} metrics")
        self._resolve(stage, inferred, trainer)
        return deferred

    def _inference_keys(self, stage: str, named: NamedMetrics) -> tuple[str, str]:
        key = next(k for k, v in named.entries if isinstance(v, str))
        spec = self._input_specs[stage].spec_of(key)  # type: ignore[attr-defined]
        if len(spec.positional) >= 2:
            return spec.positional[0], spec.positional[1]
        keywords = dict(spec.keywords)
        if "preds" in keywords and "target" in keywords:
            return keywords["preds"], keywords["target"]
        raise ValueError(
            f"{self.owner}: metrics given by name read the task from `preds` and `target`, but `inputs` gives "
            f"{key!r} {spec.describe()}"
        )

    def _resolve(self, stage: str, inferred: Inferred, trainer: Any) -> None:
        """Build the stage's metrics for ``inferred`` and put them where the placeholder was."""
        named = self._pending.pop(stage)
        template = self._new_template(stage, named.resolve(inferred, self._stage_arguments[stage]))  # type: ignore[attr-defined]
        self.templates[stage] = template
        self._inferred[stage] = inferred
        self._rebind(stage, template)  # type: ignore[attr-defined]
        prefix = self.store_key(stage, 0)  # type: ignore[attr-defined]
        for key in [k for k in list(self.store) if k == prefix or k.startswith(f"{prefix}_dataloader_idx_")]:
            device = self.store[key].device
            del self.store[key]
            index = int(key[len(f"{prefix}_dataloader_idx_"):]) if key != prefix else 0
            self.metrics_for(stage, index, trainer, device)  # type: ignore[attr-defined]
        self._active = {k: v for k, v in self._active.items() if k[0] != stage}  # type: ignore[has-type]
        if _is_rank_zero(trainer):
            _logger(trainer).info(f"{stage} metrics: {inferred.describe()}")

    # ------------------------------------------------------------- ranks
    def _agree_on_tasks(self, trainer: Any, stages: Sequence[str]) -> None:
        """Compare the ranks' decisions for ``stages`` (a collective, on every rank alike: before the
        stage's first sync or checkpoint); a rank without a batch yet takes the others' decision."""
        stages = [s for s in stages if s in self._named_stages and s not in self._agreed]
        dist = torch.distributed
        if not stages or trainer.world_size <= 1 or not dist.is_available() or not dist.is_initialized():
            return
        mine = {s: self._inferred[s].as_dict() if s in self._inferred else None for s in stages}
        gathered: list[Any] = [None] * dist.get_world_size()
        dist.all_gather_object(gathered, mine)
        for stage in stages:
            configs = [g[stage] for g in gathered]
            distinct = [c for i, c in enumerate(configs) if c is not None and c not in configs[:i]]
            if len(distinct) > 1:
                said = "; ".join(
                    f"rank {rank}: {Inferred.from_dict(c).describe() if c else 'no batch yet'}"
                    for rank, c in enumerate(configs)
                )
                raise RuntimeError(
                    f"{self.owner}: the processes built different {stage!r} metrics from their first batches ({said}); "
                    "pass task= and num_classes= (or num_labels=) so that every process builds the same"
                )
            if distinct:
                if stage in self._pending:
                    self._resolve(stage, Inferred.from_dict(distinct[0], "as the other processes inferred"), trainer)
                self._agreed.add(stage)

    # -------------------------------------------------------- checkpoints
    def inferred_state(self) -> dict[str, dict[str, Any]]:
        """What each named stage was built for (a checkpoint keeps it)."""
        return {stage: inferred.as_dict() for stage, inferred in self._inferred.items()}

    def _restore_inferred(self, saved: Mapping[str, Mapping[str, Any]]) -> None:
        """Build the stages that a checkpoint says were built (before their states are applied)."""
        for stage, config in saved.items():
            if stage in self._pending:
                self._resolve(stage, Inferred.from_dict(config, "from the checkpoint"), None)
                self._agreed.add(stage)  # every rank loads the same checkpoint
