"""Exact resumes: where a checkpoint was written, what a resumed fit replays, and whose states they are.

A checkpoint carries the metric states merged across ranks and, beside them, its *save point*,
read from the fit loop's progress counters when it is written: the epoch, and whether a train
batch was inside its ``on_train_batch_end`` hooks (``ModelCheckpoint(every_n_train_steps=...)``
saves there). When a fit resumes, Lightning's restored counters say what it replays, and the
engine restores exactly what makes the resumed run log what the uninterrupted one logged:

- **train, mid-epoch** (a batch's end, a validation inside the epoch): Lightning carries on with
  the next batch of the same epoch, so the train states are restored and the epoch ends as usual;
- **train, the epoch is finished** (a save at the last batch's end or in the epoch-end hooks):
  Lightning starts the next epoch and never runs that epoch's end. Its states are *reported*
  when the fit starts: computed, logged to the trainer's loggers at that epoch and step (and in
  ``results``, and in the best-so-far tracking), then reset; they never reach the next epoch;
- **val and test**: an evaluation is never resumed (Lightning re-runs or skips it), so a partly
  accumulated evaluation state is dropped; at any other point those states are empty anyway.

The states are also tied to the metrics that wrote them: each stage's :func:`fingerprint`
(names, classes, statistic specs, state layouts) is stored with them. On a mismatch the engine
warns once with what differs and starts those metrics empty (``checkpoint_mismatch="raise"``
raises instead); states are never applied to other metrics, nor dropped silently.

Lightning 2.4 (a fit loop without restart stages, see :func:`resumes_after_save_point`) resumes
differently: it redoes the train batch whose ``on_train_batch_end`` wrote the checkpoint (that
resume cannot be exact, and the engine says so), and it re-enters an evaluation that was running or
had just ended with the val loader started afresh; the engine leaves that replayed evaluation out, as
newer Lightning skips it.

A checkpoint written while the fit is stopping on an exception (``OnExceptionCheckpoint``) on a
run of several processes holds no metric states: merging them needs every process, and the
others are elsewhere (or gone); a resume from it starts the interrupted epoch's metrics empty,
and says so.
"""

from __future__ import annotations

import sys
from typing import Any, Mapping, Optional

from lightning_metrics import distributed

MISMATCH_MODES = ("warn", "raise")


def _device_of(store: Any) -> Any:
    for metrics in store.values():
        return metrics.device
    return None


def _counter(trainer: Any, *path: str) -> Optional[Any]:
    value = trainer
    for name in path:
        value = getattr(value, name, None)
        if value is None:
            return None
    return value


def save_point(trainer: Any) -> dict[str, Any]:
    """Where in the run a checkpoint is being written, from the fit loop's progress counters.

    ``train_batch`` is the index of the train batch whose ``on_train_batch_end`` hooks are
    running (``None`` elsewhere); ``step`` the logging step of this epoch's end values.
    """
    fn = getattr(getattr(trainer, "state", None), "fn", None)
    fitting = str(getattr(fn, "value", fn)) == "fit"
    batches = _counter(trainer, "fit_loop", "epoch_loop", "batch_progress", "current")
    in_batch_end = bool(
        fitting and getattr(trainer, "training", False) and batches is not None
        and batches.processed == batches.completed + 1
    )
    stepped = _counter(trainer, "fit_loop", "epoch_loop", "_batches_that_stepped")
    if not isinstance(stepped, int):
        stepped = int(getattr(trainer, "global_step", 0))
    return {
        "fitting": fitting,
        "epoch": int(getattr(trainer, "current_epoch", 0)),
        "train_batch": int(batches.ready - 1) if in_batch_end else None,
        # Lightning logs an epoch's values at (batches stepped - 1); inside a batch's end hooks
        # that batch is not counted yet
        "step": max(stepped - (0 if in_batch_end else 1), 0),
    }


def epoch_finished(trainer: Any, point: Mapping[str, Any]) -> bool:
    """Whether the resumed fit treats the epoch of ``point`` as finished (its end hooks never run)."""
    processed = _counter(trainer, "fit_loop", "epoch_progress", "current", "processed")
    return isinstance(processed, int) and processed > int(point.get("epoch", 0))


def _lightning_version(trainer: Any) -> str:
    package = sys.modules.get(type(trainer).__module__.split(".")[0])
    return str(getattr(package, "__version__", "?"))


def resumes_after_save_point(trainer: Any) -> bool:
    """Whether the fit loop tells where in an epoch its checkpoint was written and resumes after that
    point (Lightning 2.5 and newer: ``update_restart_stage``). Older loops (2.4) set every counter back
    to its last *completed* value and redo what was running: the train batch whose ``on_train_batch_end``
    wrote the checkpoint (with the next batch the loader yields), and an evaluation that was running or
    had just ended, which they re-enter at the restored batch count with the val loader started afresh."""
    return hasattr(getattr(trainer, "fit_loop", None), "update_restart_stage")


def replays_evaluation(trainer: Any, stage: str) -> bool:
    """Whether this validation is one that a loop without restart stages re-enters after a resume (see
    :func:`resumes_after_save_point`): its batches are the loader's first ones under the indexes of the
    rest, so it is left out, as Lightning 2.5 and newer leave it (they skip it, or finish it properly)."""
    if stage != "val" or resumes_after_save_point(trainer):
        return False
    val_loop = _counter(trainer, "fit_loop", "epoch_loop", "val_loop")
    return bool(getattr(val_loop, "restarting", False)) and bool(getattr(trainer, "validating", False))


def _holds_updates(state: Mapping[str, Any]) -> bool:
    """Whether a stage's checkpoint states (``StageMetrics.merged_state``) hold any update (on any rank: the
    counts were merged). The same answer on every rank, since every rank loads the same checkpoint.

    >>> _holds_updates({"native": {"acc": {"states": {}, "count": 0}}, "foreign": {}})
    False
    """
    native = state.get("native", {})
    # the metrics that wrap none (a wrapper's own count may stay 1 from construction on: ClasswiseWrapper)
    leaves = [entry for name, entry in native.items() if not any(other.startswith(f"{name}.") for other in native)]
    entries = [*leaves, *state.get("foreign", {}).values()]
    return any(int(entry.get("count", 0)) > 0 for entry in entries)


def differences(saved: Mapping[str, str], current: Mapping[str, str]) -> dict[str, str]:
    """What differs between two fingerprints, by metric name (``name -> explanation``).

    >>> differences({"acc": "MulticlassAccuracy(3)", "f1": "F1"}, {"acc": "MulticlassAccuracy(4)", "ap": "AP"})
    {'acc': 'MulticlassAccuracy(3) in the checkpoint, MulticlassAccuracy(4) now', 'ap': 'not in the checkpoint', 'f1': 'in the checkpoint only'}
    >>> differences({"acc": "MulticlassAccuracy(3)"}, {"accuracy": "MulticlassAccuracy(3)"})
    {'acc': 'in the checkpoint only', 'accuracy': "not in the checkpoint (renamed from 'acc'?)"}
    """
    out = {}
    gone = {saved[n]: n for n in sorted(set(saved) - set(current))}
    for name in sorted(set(saved) | set(current)):
        if name not in saved:
            old = gone.get(current[name])
            out[name] = "not in the checkpoint" if old is None else f"not in the checkpoint (renamed from {old!r}?)"
        elif name not in current:
            out[name] = "in the checkpoint only"
        elif saved[name] != current[name]:
            out[name] = f"{saved[name]} in the checkpoint, {current[name]} now"
    return out


def mismatch_message(owner: str, key: str, diffs: Mapping[str, str], raising: bool) -> str:
    lines = "; ".join(f"{name!r}: {text}" for name, text in diffs.items())
    then = (
        "" if raising else
        " Those metrics start empty (their states are not applied); pass checkpoint_mismatch='raise' to stop instead."
    )
    return (
        f"{owner}: the checkpoint's {key!r} states were written by other metrics than the ones configured now "
        f"({lines}).{then}"
    )


class EngineCheckpoints:
    """The engine's checkpoint side (a base class of :class:`~.engine.MetricsEngine`, whose attributes
    it uses): what goes into a checkpoint, and what a resumed fit takes back."""

    owner: str
    templates: dict
    store: Any
    tracking: Any
    checkpoint_mismatch: str
    _replaying: frozenset = frozenset()  # the stages whose evaluation Lightning replays (left out)

    def _replayed(self, trainer: Any, stage: str) -> bool:
        """Whether the batches of ``stage`` are those of an evaluation that Lightning replays after a resume
        (see :func:`replays_evaluation`): decided at the evaluation's first batch, kept until its end."""
        if stage in self._replaying:
            return True
        if not replays_evaluation(trainer, stage):
            return False
        self._replaying = self._replaying | {stage}
        self._warn_once(("replayed-eval", stage), (
            f"{self.owner}: Lightning {_lightning_version(trainer)} re-enters the validation of epoch "
            f"{trainer.current_epoch} that was running (or had just ended) when the checkpoint was written, feeding "
            "the val loader from its start as if it were its remaining batches; that validation is left out of the "
            "val metrics (Lightning 2.5 and newer skip it, or finish it properly)."
        ))
        return True

    def _replay_ended(self, stage: str) -> bool:
        """At a stage's epoch end: whether it was a replayed evaluation (then nothing is computed)."""
        if stage not in self._replaying:
            return False
        self._replaying = self._replaying - {stage}
        return True

    def resume(self, trainer: Any) -> None:
        """Apply the loaded train states that the resumed fit needs (see the module docstring): those of an
        epoch that goes on; an epoch that Lightning considers finished is reported, then forgotten.
        Runs once, when the fit starts (or at the first use of the train metrics)."""
        keys = [k for k in self._pending_load if k.startswith(self.store_key("train", 0))]
        if not keys:
            return
        pending = {k: self._pending_load.pop(k) for k in keys}
        point = self._save_point or {}
        for key, state in pending.items():
            metrics = self.store[key] if key in self.store else self.metrics_for("train", 0, trainer)
            if trainer.global_rank == 0:  # the merged state lives on rank zero only
                metrics.load_merged_state(state, self._pending_skip.get(key, frozenset()))
        if point.get("train_batch") is not None and not resumes_after_save_point(trainer):
            self._warn_once(("redone-batch",), (
                f"{self.owner}: the checkpoint was written in `on_train_batch_end` of batch {point['train_batch']} "
                f"(epoch {point.get('epoch')}); Lightning {_lightning_version(trainer)} runs that batch again with the "
                "batch its loader yields next (and, at the epoch's last batch, that epoch's validation again), so the "
                "resumed epoch's train values count those samples too. An exact resume from a checkpoint written "
                "there needs Lightning 2.5 or newer."
            ))
        missing = point.get("missing_train_batch")
        if missing is not None:
            self._warn_once(("missing-batch",), (
                f"{self.owner}: the checkpoint was written in `on_train_batch_end` of batch {missing} (epoch "
                f"{point.get('epoch')}) by a callback that runs before {self.owner}; that batch is not in its "
                "train metrics, and Lightning does not replay it. Put the saving callback after it."
            ))
        if point.get("fitting") and epoch_finished(trainer, point):
            if any(_holds_updates(state) for state in pending.values()):
                self._report_finished_epoch(trainer, point)
            else:  # written after the epoch's end had logged and reset them: reported already, nothing to add
                for key in pending:
                    if key in self.store:
                        self.store[key].reset()

    def _report_finished_epoch(self, trainer: Any, point: dict[str, Any]) -> None:
        """Log the restored train values of an epoch whose end Lightning will not run, then reset them."""
        collected: dict[str, Any] = {}
        self._report = (collected, int(point.get("epoch", 0)))
        try:
            self._compute_and_route(trainer, trainer.lightning_module, "train", [0], False)
        finally:
            self._report = None
        scalars = {k: float(v) for k, v in collected.items()}
        if scalars and trainer.is_global_zero:
            scalars["epoch"] = float(point.get("epoch", 0))
            for logger in trainer.loggers:
                logger.log_metrics(scalars, step=int(point.get("step", 0)))


    def state_dict(self, trainer: Any) -> dict[str, Any]:
        """Accumulated states merged across ranks (a collective: every rank calls it), with the save
        point and the metrics' fingerprints (see the module docstring)."""
        point = save_point(trainer)
        fingerprints = {}
        if trainer.world_size > 1 and getattr(trainer, "interrupted", False):
            # Stopping on an exception (OnExceptionCheckpoint): the other ranks are elsewhere, so there is
            # no merge. A rank that raised first meets the others' next metric sync and tells them it stops
            # (they fail saying so, then reach Lightning's barrier as it does); a rank failing because
            # of that must not try again.
            if not self._peer_stopped:
                distributed.announce_stopping(_device_of(self.store), timeout=60.0)
            self._warn_once(("interrupted",), (
                f"{self.owner}: the checkpoint written while the run stops on an exception holds no metric states "
                "(merging them needs every process); a resume from it starts the interrupted epoch's metrics empty."
            ))
            return {"metrics": {}, "best": self.tracking.state_dict(), "point": point, "interrupted": True}
        self._agree_on_tasks(trainer, tuple(self.templates))  # named metrics: the same on every rank first
        self._take_batch_in_flight(trainer, point)
        out: dict[str, Any] = {}
        for stage in self.templates:
            for idx in range(self._num_dataloaders(trainer, stage)):
                metrics = self.metrics_for(stage, idx, trainer)
                key = self.store_key(stage, idx)
                out[key] = metrics.merged_state()
                fingerprints[key] = metrics.fingerprint()
        return {
            "metrics": out, "best": self.tracking.state_dict(), "point": point, "fingerprints": fingerprints,
            "inferred": self.inferred_state(),
        }

    def _take_batch_in_flight(self, trainer: Any, point: dict[str, Any]) -> None:
        """A checkpoint written in a train batch's ``on_train_batch_end``: Lightning will not replay that
        batch, so it must be in the states (taken now from the mixin's capture, or reported missing)."""
        batch_idx = point.get("train_batch")
        if batch_idx is None or "train" not in self.templates or self._train_batch == batch_idx:
            return
        if self._capture is not None and self._capture[0] == batch_idx:
            _, outputs, batch = self._capture
            self.batch_end(trainer, trainer.lightning_module, "train", outputs, batch, batch_idx)
            self._early = batch_idx  # the batch-end hook that follows must not take it again
        else:
            point["missing_train_batch"] = batch_idx

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Keep the merged states; rank zero applies them when the metrics are next used (see the module docstring)."""
        self._restore_inferred(state.get("inferred", {}))  # metrics given by name: built as they were
        self.tracking.load_state_dict(state.get("best", {}))  # equal on every rank: all keep them
        self._pending_load = dict(state.get("metrics", {}))
        self._save_point = dict(state["point"]) if "point" in state else None
        self._active.clear()  # the next batch resolves its metrics through metrics_for, which applies them
        self._pending_skip = self._check_fingerprints(state.get("fingerprints"))
        if state.get("interrupted"):
            self._warn_once(("interrupted-load",), (
                f"{self.owner}: the checkpoint was written while a run of several processes stopped on an exception: "
                "it holds no metric states, so the interrupted epoch's metrics cover only the batches after the resume."
            ))
        for key in list(self._pending_load):
            if key in self.store:
                self.store[key].reset()

    def _check_fingerprints(self, saved: Optional[Mapping[str, Any]]) -> dict[str, frozenset]:
        """The metrics (per store key) whose checkpoint states were written by other metrics."""
        if saved is None:  # a checkpoint of an earlier version: nothing to compare with
            return {}
        skip: dict[str, frozenset] = {}
        for key, fingerprint in saved.items():
            stage = key.split("_metrics")[0]
            if stage not in self.templates:
                continue
            metrics = self.store[key] if key in self.store else self.templates[stage]
            diffs = differences(fingerprint, metrics.fingerprint())
            if not diffs:
                continue
            raising = self.checkpoint_mismatch == "raise"
            message = mismatch_message(self.owner, key, diffs, raising)
            if raising:
                raise ValueError(message)
            self._warn_once(("mismatch", key), message)
            names = {n for name in diffs for n in metrics.compute_group_of(name)}
            skip[key] = frozenset(names)
        return skip

