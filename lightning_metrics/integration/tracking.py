"""Best-so-far values and bootstrap confidence intervals, for the engine.

**Best so far.** For the metrics named in ``track_best`` the engine logs, next to each epoch
value ``"{stage}/{name}"``, the best value so far ``"{stage}/{name}_best"`` and the epoch it came
from ``"{stage}/{name}_best_epoch"``, in the direction of the metric's ``higher_is_better``.
Names may say their stage (``"val/f1"``, ``"test/acc"``, ``"train/loss"``); a bare name
(``"f1"``, ``"task/acc"``) and ``True`` mean the val stage. The best values are part of the
callback's checkpoint state.

**Confidence intervals.** For the metrics named in ``confidence_intervals`` the engine logs
``"{stage}/{name}_ci_low"`` and ``"{stage}/{name}_ci_high"``, a percentile bootstrap interval
over the pooled statistic: a :class:`PooledBootstrap` keeps ``num_bootstraps`` replicates of the
metric's statistic, and every batch adds to each replicate its rows repeated ``Poisson(1)``
times (the streaming bootstrap: no data is kept). At epoch end the replicates, pooled over all
batches and all processes (they sync in the stage's one fused exchange), each give one value of
the metric; the interval is their ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles. Metrics
that share a statistic (``statistic_spec``) share the replicates, so intervals for accuracy,
F1 and recall of one confusion matrix cost one set of replicate updates.

**Multitask.** A task of a ``MultitaskWrapper`` that holds a single metric is logged as a
one-metric collection, so every task logs under ``"{stage}/{task}/{name}"``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Union

import torch
from torch import Tensor

from lightning_metrics.collection import MetricCollection
from lightning_metrics.metric import Metric
from lightning_metrics.utilities.checks import check_type
from lightning_metrics.wrappers.multitask import MultitaskWrapper
from lightning_metrics.wrappers.pooled_bootstrap import CI_MARK, PooledBootstrap, check_interval_args

_SUFFIX = re.compile(r"(/dataloader_idx_\d+)$")
_STAGES = ("train", "val", "test")
DEFAULT_STAGE = "val"  # the stage of a bare name in `track_best`
Names = Union[bool, Sequence[str], Mapping[str, str]]


class Tracking:
    """The engine's best-so-far and confidence-interval bookkeeping (see the module docstring).

    Args:
        track_best: ``True`` for every val scalar, a list of result names (``"val/f1"``,
            ``"test/acc"``; bare names such as ``"f1"``, ``"f1/cat"`` or ``"task/acc"`` are val
            results), or a dict from name to ``"max"``/``"min"`` to override ``higher_is_better``.
        confidence_intervals: ``True`` for every scalar metric of ours, or a list of metric names.
        ci_level: the coverage of the intervals.
        ci_bootstraps: the number of bootstrap replicates.
        ci_seed: the seed of the resampling (plus the process rank).
        ci_stages: the stages that get intervals; by default the evaluation stages, since each
            batch updates ``ci_bootstraps`` replicates (about ``ci_bootstraps`` times the cost of
            the metric's own update).
        separator: the engine's separator.

    >>> import torch
    >>> tracking = Tracking(track_best={"loss": "min", "test/acc": "max"})
    >>> tracking.best_logs("val/loss", torch.tensor(0.5), epoch=0, lookup=lambda stage, name: None)
    [('val/loss_best', tensor(0.5000)), ('val/loss_best_epoch', tensor(0.))]
    >>> tracking.best_logs("val/loss", torch.tensor(0.7), epoch=1, lookup=lambda stage, name: None)
    [('val/loss_best', tensor(0.5000)), ('val/loss_best_epoch', tensor(0.))]
    >>> tracking.best_logs("train/loss", torch.tensor(0.1), epoch=1, lookup=lambda stage, name: None)
    []
    >>> [key for key, _ in tracking.best_logs("test/acc", torch.tensor(0.9), epoch=1, lookup=lambda s, n: None)]
    ['test/acc_best', 'test/acc_best_epoch']
    """

    def __init__(self, track_best: Names = False, confidence_intervals: bool | Sequence[str] = False,
                 ci_level: float = 0.95, ci_bootstraps: int = 100, ci_seed: int = 0,
                 ci_stages: Sequence[str] = ("val", "test"), separator: str = "/") -> None:
        self.best_modes = _parse_best(track_best, separator)  # (stage, name) -> "max", "min" or None
        self.track_all = track_best is True  # every scalar of the val stage
        if confidence_intervals is True or confidence_intervals is False:
            self.ci_names: bool | tuple[str, ...] = confidence_intervals
        elif isinstance(confidence_intervals, str) or not all(isinstance(n, str) for n in confidence_intervals):
            raise TypeError(
                f"Argument `confidence_intervals` must be a bool or a list of metric names, got {confidence_intervals!r}"
            )
        else:
            self.ci_names = tuple(confidence_intervals)
        check_interval_args(ci_bootstraps, ci_level, ("ci_bootstraps", "ci_level"))
        check_type("ci_seed", ci_seed, int)
        if isinstance(ci_stages, str) or not all(s in ("train", "val", "test") for s in ci_stages):
            raise ValueError(f"Argument `ci_stages` must be a sequence of 'train', 'val', 'test', got {ci_stages!r}")
        self.ci_stages = tuple(ci_stages)
        self.ci_level, self.ci_bootstraps, self.ci_seed = ci_level, ci_bootstraps, ci_seed
        self.separator = separator
        self.best: dict[str, dict[str, Any]] = {}  # logged key -> {"value": float, "epoch": int}
        self.margin_charts: dict[str, tuple[str, str, str]] = {}  # value key -> (value, low, high) keys
        self._written_charts: set = set()
        self._ci_found: set = set()
        self._prepared: set = set()

    @property
    def active(self) -> bool:
        return bool(self.best_modes or self.track_all or self.ci_names)

    # ------------------------------------------------------------ templates
    def resamples(self, stage: str) -> bool:
        """Whether ``stage``'s template gets bootstrap replicates (:meth:`prepare`)."""
        return bool(self.ci_names) and stage in self.ci_stages

    def prepare(self, native: MetricCollection | None, owner: str, stage: str = "val") -> None:
        """Adapt one stage's template: multitask naming, then the bootstrap replicates."""
        self._prepared.add(stage)
        if native is not None:
            _name_single_tasks(native)
            if self.resamples(stage):
                self._attach_bootstraps(native, owner)

    def check_found(self, owner: str, available: Sequence[str]) -> None:
        """After :meth:`prepare` of every stage: each name in ``confidence_intervals`` was found."""
        if self.ci_names is True or not self.ci_names or not set(self.ci_stages) & self._prepared:
            return
        missing = [n for n in self.ci_names if n not in self._ci_found]
        if missing:
            raise ValueError(
                f"{owner}: argument `confidence_intervals` names {missing}, which are not among our metrics "
                f"{sorted(set(available))} (intervals need lightning_metrics metrics)"
            )

    def _attach_bootstraps(self, native: MetricCollection, owner: str) -> None:
        names = list(native.keys(keep_base=True))
        if self.ci_names is True:
            wanted = [n for n in names if _interval_capable(native[n])]
        else:
            wanted = []
            for requested in self.ci_names:
                match = [n for n in names if requested in (n, native._set_name(n))]
                if not match:
                    continue  # maybe in another stage; check_found reports names found nowhere
                self._ci_found.add(requested)
                if not _interval_capable(native[match[0]]):
                    raise ValueError(
                        f"{owner}: argument `confidence_intervals`: {requested!r} is a "
                        f"{type(native[match[0]]).__name__}, whose value is not one statistic of the batch rows "
                        "(wrappers and collections of metrics have no interval)"
                    )
                wanted.append(match[0])
        shadows = {}
        # the groups as the collection updates them (``compute_groups`` reports {} when they are off)
        for index, group in enumerate(native._groups.values()):
            members = [n for n in group if n in wanted]
            if members:
                shadows[f"{CI_MARK}{index}"] = PooledBootstrap(
                    native[group[0]]._state_owner, {n: native[n] for n in members}, self.ci_bootstraps, self.ci_level,
                    self.ci_seed + 1000003 * index,
                )
        if shadows:
            native.add_metrics(shadows)

    # -------------------------------------------------------------- results
    def split_intervals(self, native: MetricCollection | None, values: dict[str, Any]) -> tuple[dict, dict]:
        """Remove the bootstrap entries from ``values``; return them as result name -> (low, high)."""
        intervals: dict[str, tuple[Tensor, Tensor]] = {}
        if native is None or not self.ci_names:
            return values, intervals
        for metric in native.values():
            if isinstance(metric, PooledBootstrap):
                for key, bounds in metric.compute().items():  # cached: computed with the collection
                    intervals[native._set_name(key[: -len(CI_MARK)])] = (bounds[0], bounds[1])
        return {k: v for k, v in values.items() if CI_MARK not in k}, intervals

    def interval_keys(self, key: str) -> tuple[str, str]:
        """The logged keys of the interval of ``key`` (before any dataloader suffix)."""
        base, suffix = _split_suffix(key)
        self.margin_charts.setdefault(key, (key, f"{base}_ci_low{suffix}", f"{base}_ci_high{suffix}"))
        return f"{base}_ci_low{suffix}", f"{base}_ci_high{suffix}"

    # ------------------------------------------------------------ best so far
    def best_logs(self, key: str, value: Tensor, epoch: int, lookup: Callable[[str, str], Any]) -> list[tuple[str, Tensor]]:
        """Record the epoch value of ``key`` (``"{stage}/{name}"`` plus any dataloader suffix);
        return the keys and values to log: the best so far and its epoch (or nothing).

        ``lookup(stage, name)`` gives the metric behind a result, for its ``higher_is_better``.
        A NaN value never becomes the best.
        """
        stage, _, rest = key.partition(self.separator)
        name, suffix = _split_suffix(rest)
        if not ((self.track_all and stage == DEFAULT_STAGE) or (stage, name) in self.best_modes):
            return []
        mode = self.best_modes.get((stage, name))
        maximize = mode == "max" if mode is not None else getattr(lookup(stage, name), "higher_is_better", None)
        if not isinstance(maximize, bool):
            if self.track_all:
                return []  # no direction: nothing to track, and nobody asked for this one by name
            raise ValueError(
                f"Argument `track_best`: {stage}{self.separator}{name!r} has no `higher_is_better`; give its "
                f"direction as track_best={{{stage + self.separator + name!r}: 'max'}} or 'min'"
            )
        current = float(value)
        entry = self.best.get(key)
        improves = entry is None or (current > entry["value"] if maximize else current < entry["value"])
        if not math.isnan(current) and improves:  # NaN is never the best
            entry = self.best[key] = {"value": current, "epoch": int(epoch)}
        if entry is None:
            return []
        dtype = value.dtype if value.is_floating_point() else torch.float32
        head = f"{stage}{self.separator}{name}"
        return [
            (f"{head}_best{suffix}", torch.tensor(entry["value"], dtype=dtype, device=value.device)),
            (f"{head}_best_epoch{suffix}", torch.tensor(float(entry["epoch"]), device=value.device)),
        ]

    # --------------------------------------------------------------- state
    def state_dict(self) -> dict[str, Any]:
        return {key: dict(entry) for key, entry in self.best.items()}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.best = {str(k): {"value": float(v["value"]), "epoch": int(v["epoch"])} for k, v in state.items()}

    # ----------------------------------------------------------- TensorBoard
    def pending_charts(self) -> dict[str, tuple[str, str, str]] | None:
        """Every margin chart so far, when some are new since the last call (else ``None``)."""
        if set(self.margin_charts) <= self._written_charts:
            return None
        self._written_charts = set(self.margin_charts)
        return dict(self.margin_charts)


def _parse_best(track_best: Names, separator: str = "/") -> dict[tuple[str, str], str | None]:
    """``{(stage, name): mode}``: ``"val/f1"`` names its stage, a bare ``"f1"`` is a val result.

    >>> _parse_best(["f1", "test/acc", "task/acc"])
    {('val', 'f1'): None, ('test', 'acc'): None, ('val', 'task/acc'): None}
    """
    if track_best is True or track_best is False or track_best is None:
        return {}
    if isinstance(track_best, Mapping):
        for name, mode in track_best.items():
            if mode not in ("max", "min", None):
                raise ValueError(f"Argument `track_best`: the mode of {name!r} must be 'max', 'min' or None, got {mode!r}")
        items = list(track_best.items())
    elif isinstance(track_best, str) or not all(isinstance(n, str) for n in track_best):
        raise TypeError(f"Argument `track_best` must be a bool, a list of names or a dict of modes, got {track_best!r}")
    else:
        items = [(name, None) for name in track_best]
    out: dict[tuple[str, str], str | None] = {}
    for name, mode in items:
        head, sep, rest = str(name).partition(separator)
        out[(head, rest) if sep and rest and head in _STAGES else (DEFAULT_STAGE, str(name))] = mode
    return out


def _split_suffix(key: str) -> tuple[str, str]:
    match = _SUFFIX.search(key)
    return (key[: match.start()], match.group(1)) if match else (key, "")


def _interval_capable(metric: Any) -> bool:
    # a wrapper's value is not a function of one statistic of the rows (or is a dict)
    from lightning_metrics.wrappers._base import WrapperMetric

    return isinstance(metric, Metric) and not isinstance(metric, WrapperMetric) and not metric._modules


def _name_single_tasks(native: MetricCollection) -> None:
    """Give each single-metric task of a ``MultitaskWrapper`` a name: its result becomes
    ``{name: value}``, so it logs as ``"{stage}/{task}/{name}"`` like a collection's metrics.

    The name is the wrapper's key in the user's metrics, or the metric's class name when the
    wrapper was passed alone (keyed by its own class name).
    """
    for key, metric in native.items(keep_base=True):
        if not isinstance(metric, MultitaskWrapper):
            continue
        for task, task_metric in list(metric.task_metrics.items()):
            if isinstance(task_metric, Metric):
                name = type(task_metric).__name__ if key == type(metric).__name__ else key
                metric.task_metrics[task] = MetricCollection({name: task_metric})


def find_metric(native: MetricCollection | None, name: str, separator: str) -> Any:
    """The metric behind result ``name`` (``"f1"``, ``"f1/cat"``, ``"task/acc"``), or ``None``."""
    if native is None:
        return None
    parts = name.split(separator)
    for cut in range(len(parts), 0, -1):
        head = separator.join(parts[:cut])
        try:
            return native[head]
        except KeyError:
            pass
    for metric in native.values():  # results of a multitask wrapper: "{task}/{name}"
        if isinstance(metric, MultitaskWrapper) and len(parts) >= 2:
            for task, task_metric in metric.task_metrics.items():
                if metric._name(task) == parts[0]:
                    inner = task_metric
                    if isinstance(inner, MetricCollection):
                        try:
                            inner = inner[parts[1]]
                        except KeyError:
                            continue
                    return inner
    return None
