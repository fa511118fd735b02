"""The metrics of one stage and dataloader, whatever form the user gave them in.

Our metrics go into one :class:`~lightning_metrics.MetricCollection`, so metrics that share a
statistic update it once per batch and the whole collection syncs in one fused exchange.
Foreign metrics (anything with ``update``/``compute``/``reset``, e.g. a torchmetrics metric)
sit beside it and are driven the same way.

Each batch arrives as a *record* (a tuple of input values) with a *layout* that names a plan:
for every compute group and foreign metric, the :class:`~.inputs.Binding` of its ``update``
arguments. Plans are made once per layout (see :mod:`.inputs`).
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Hashable, Iterator, Mapping, Optional

import torch
from torch import Tensor, nn

from lightning_metrics import distributed
from lightning_metrics.collection import MetricCollection, _forward_group
from lightning_metrics.integration import results
from lightning_metrics.integration.checkpoint_states import foreign_merged_state, joined, set_states, to_cpu
from lightning_metrics.integration.coalesce import BatchBuffer
from lightning_metrics.integration.compat import add_note
from lightning_metrics.integration.inputs import (
    Binding, Supplied, UpdateSignature, bind, check_all_used, supplied_by_call,
)
from lightning_metrics.metric import Metric
from lightning_metrics.utilities.memo import shared_derivations

_CONTRACT = ("update", "compute", "reset")


class _Plan:
    """How one record layout reaches every metric: (group, names, binding) per compute group and
    (name, metric, binding) per foreign metric; ``whole`` marks bindings that take the whole record."""

    def __init__(self, groups: list, foreign: list, size: int) -> None:
        self.groups = [(g, n, b, b.is_identity(size)) for g, n, b in groups]
        self.foreign = [(n, m, b, b.is_identity(size)) for n, m, b in foreign]
        self.roots = [g[0] for g, *_ in self.groups[:-1]]  # rolled back if a later group rejects the batch


def is_metric_like(obj: Any) -> bool:
    """Whether ``obj`` implements the ``update``/``compute``/``reset`` contract.

    >>> from lightning_metrics.aggregation import SumMetric
    >>> is_metric_like(SumMetric()), is_metric_like(object())
    (True, False)
    """
    return all(callable(getattr(obj, name, None)) for name in _CONTRACT)


def _describe(obj: Any) -> str:
    return f"{obj!r}" if isinstance(obj, (str, int, float, type(None))) else f"a {type(obj).__name__}"


def _is_foreign_collection(obj: Any) -> bool:
    # a foreign collection (e.g. torchmetrics.MetricCollection) computes a dict keyed by metric name
    return callable(getattr(obj, "keys", None)) and callable(getattr(obj, "items", None))


class StageMetrics(nn.Module):
    """One stage's (and one dataloader's) metrics: ``native`` (ours) plus foreign ones.

    >>> import torch
    >>> from lightning_metrics.aggregation import MaxMetric, SumMetric
    >>> metrics = StageMetrics.build({"total": SumMetric(), "peak": MaxMetric()})
    >>> metrics.update(torch.tensor([1.0, 5.0]))
    >>> metrics.compute()
    {'peak': tensor(5.), 'total': tensor(6.)}
    """

    def __init__(self, native: Optional[MetricCollection], foreign: list[tuple[str, Any]]) -> None:
        super().__init__()
        self.native = native
        # nn.Modules are registered (device moves, deepcopy); plain objects are kept as they are
        self.foreign_modules = nn.ModuleList([m for _, m in foreign if isinstance(m, nn.Module)])
        self._foreign = foreign
        self._device = torch.device("cpu")
        self._buffer: Optional[BatchBuffer] = None  # see coalesce()
        self._counted: list[Metric] = []  # the metrics whose update counts a joined update scales
        self._plans: dict[Hashable, _Plan] = {}
        self._suppliers: dict[Hashable, Callable[[str], Supplied]] = {}  # layout -> its supplied_of, kept
        self._plans_groups = -1  # the native collection's ``groups_version`` the plans were made for
        self.empty: list[str] = []  # the metrics the last ``compute(skip_empty=True)`` left out
        self._origins: dict[str, tuple[str, str]] = {}  # flattened result key -> (member, its dict key)
        self._last_values: dict[str, Any] = {}
        self.loss_metric: Optional[Metric] = None  # the engine's StepLoss, fed the record's last two values
        self._buffered_layout: Hashable = None  # the layout of the batches in the buffer
        self.where = "metrics"  # how messages name this stage and dataloader ("the 'val' metrics (dataloader 0)")
        self.pending: tuple[str, ...] = ()  # names of metrics given by name, not built yet (see .task_inference)

    @classmethod
    def build(cls, metrics: Any) -> "StageMetrics":
        """Split ``metrics`` (a metric, a collection, a dict or a list) into ours and foreign ones."""
        if isinstance(metrics, MetricCollection):
            return cls(metrics, [])
        if isinstance(metrics, Metric):
            return cls(MetricCollection([metrics]), [])
        if isinstance(metrics, Mapping):
            items = [(str(k), v) for k, v in metrics.items()]
        elif isinstance(metrics, (list, tuple)):
            items = [(type(m).__name__, m) for m in metrics]
        elif is_metric_like(metrics):
            return cls(None, [("" if _is_foreign_collection(metrics) else type(metrics).__name__, metrics)])
        else:
            raise TypeError(
                "Argument `metrics` must be a Metric, a MetricCollection, a dict or list of metrics, or an "
                f"object with update/compute/reset; got {_describe(metrics)}"
            )
        if not items:
            raise ValueError("Argument `metrics` must hold at least one metric, got an empty container")
        _refuse_trackers(items)
        native = {k: v for k, v in items if isinstance(v, (Metric, MetricCollection))}
        foreign = []
        for name, value in items:
            if name in native:
                continue
            if not is_metric_like(value):
                raise TypeError(
                    f"Argument `metrics`: {name!r} must be a lightning_metrics Metric or an object with "
                    f"update/compute/reset, got {_describe(value)}"
                )
            foreign.append((name, value))
        if len({n for n, _ in items}) != len(items):
            raise ValueError(f"Argument `metrics`: names must be unique, got {[n for n, _ in items]}")
        return cls(MetricCollection(native) if native else None, foreign)

    # ---------------------------------------------------------------- contract
    def foreign(self) -> Iterator[tuple[str, Any]]:
        return iter(self._foreign)

    def names(self) -> list[str]:
        """The names of the metrics (collection keys, then foreign names)."""
        native = list(self.native.keys()) if self.native is not None else []
        return native + [n or type(m).__name__ for n, m in self._foreign] + list(self.pending)

    def metric(self, name: str) -> Any:
        """The metric that produced result ``name``, or None when no metric has that name."""
        origin = self._origins.get(name)
        if origin is not None and self.native is not None:
            return self.native[origin[0]]  # a key out of a member's dict result
        metric: Any = None
        if self.native is not None:
            try:
                metric = self.native[name]
            except KeyError:
                metric = None
        for foreign_name, foreign in self._foreign if metric is None else ():
            if foreign_name == name:
                metric = foreign
            elif not foreign_name and name in list(foreign.keys()):  # inside a foreign collection
                metric = foreign[name]
        if metric is None and self.native is not None:
            # a key out of a member's dict result, which the collection flattens (detection's
            # `classes`): its producer, when the member names that key among its unlogged results
            for member_name, member in self.native.items(keep_base=True):
                for key in getattr(member, "unlogged_results", ()):
                    if name in (self.native._set_name(key), self.native._set_name(f"{member_name}_{key}")):
                        return member
        return metric

    def num_classes(self, name: str) -> Optional[int]:
        """The number of classes (or labels) of the metric that produced result ``name``, if any."""
        metric = self.metric(name)
        for attribute in ("num_classes", "num_labels"):
            value = getattr(metric, attribute, None)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
        return None

    def update(self, *args: Any, **kwargs: Any) -> None:
        """Update every metric with what its ``update`` takes of ``args`` and ``kwargs``."""
        if self._buffer is not None and self._buffer.batches:
            self.flush()
        layout = ("call", len(args) + len(kwargs), tuple(kwargs), "the arguments", False)
        self._update((*args, *kwargs.values()), layout)

    # ------------------------------------------------------------------- plans
    def plan(self, layout: Hashable, supplied_of: Optional[Callable[[str], Supplied]] = None) -> _Plan:
        """The plan of ``layout`` (made now from ``supplied_of(metric name)`` if it is new).

        A layout is a tuple ``(kind, n, ..., with_loss)``: the record holds ``n`` input values,
        then, ``with_loss``, the two inputs of the loss metric. A ``("call", n, keywords, source,
        with_loss)`` layout needs no ``supplied_of``: every metric is offered the first
        ``n - len(keywords)`` values positionally and the rest as the named keywords.
        """
        native = self.native
        if native is not None and (native._token.departed or native._groups_version != self._plans_groups):
            native._group_metrics()  # a member used on its own left its group: plans follow the new groups
            self._plans.clear()
            self._plans_groups = native._groups_version
        plan = self._plans.get(layout)
        if plan is None:
            size, with_loss = layout[1], layout[-1]
            if supplied_of is None:  # made before (a plan rebuilt for new groups), or a "call" layout
                supplied_of = self._suppliers.get(layout)
            if supplied_of is not None:
                self._suppliers[layout] = supplied_of
            else:
                _, _, keywords, source, _ = layout
                call = supplied_by_call(size - len(keywords), keywords, source)
                supplied_of = lambda name: call  # noqa: E731
            plan = self._plans[layout] = self._make_plan(supplied_of, size, with_loss)
        return plan

    def _make_plan(self, supplied_of: Callable[[str], Supplied], size: int, with_loss: bool) -> _Plan:
        groups, foreign, offered = [], [], []
        if self.native is not None:
            for names, group in zip(self.native._groups.values(), self.native._group_metrics()):
                leader = group[0]
                if leader is self.loss_metric:
                    groups.append((group, names, Binding((size, size + 1))))
                    continue
                supplied = supplied_of(names[0])
                for other in names[1:]:
                    if supplied_of(other) != supplied:
                        raise ValueError(
                            f"In the {self.where}, {names[0]!r} and {other!r} share one statistic (equal "
                            "statistic_spec, one update) but are given different inputs; give them the same "
                            "inputs, or put them in a MetricCollection(..., compute_groups=False)"
                        )
                binding = bind(UpdateSignature.of(leader), supplied, self._describe(names, leader))
                groups.append((group, names, binding))
                offered.append((binding, supplied))
        for name, metric in self._foreign:
            supplied = supplied_of(name)
            binding = bind(UpdateSignature.of(metric), supplied, self._describe([name], metric))
            foreign.append((name, metric, binding))
            offered.append((binding, supplied))
        if offered and all(supplied == offered[0][1] for _, supplied in offered):
            check_all_used([b for b, _ in offered], offered[0][1], f"In the {self.where}")
        return _Plan(groups, foreign, size + (2 if with_loss else 0))

    def _describe(self, names: list[str], metric: Any) -> str:
        shared = f" (and {', '.join(repr(n) for n in names[1:])}, which share its update)" if len(names) > 1 else ""
        return f"In the {self.where}, {names[0]!r} ({type(metric).__name__}){shared}"

    def _update(self, record: tuple, layout: Hashable, label: Any = None) -> None:
        plan = self.plan(layout)
        if self.native is not None:
            with self.native._token, self.native._rollback_on_error(plan.roots):
                for group, names, binding, whole in plan.groups:
                    leader = group[0]
                    try:
                        if whole:
                            leader.update(*record)
                        else:
                            args, kwargs = binding.arguments(record)
                            leader.update(*args, **kwargs)
                    except Exception as err:
                        self._note_error(err, names[0], leader, label)
                        raise
                    owner = leader._state_owner  # where the states live (a relabelling wrapper's metric)
                    for member in group[1:]:
                        member._state_owner._share_states_of(owner)
        for name, metric, binding, whole in plan.foreign:
            args, kwargs = (record, {}) if whole else binding.arguments(record)
            try:
                metric.update(*args, **kwargs)
            except Exception as err:
                self._note_error(err, name, metric, label)
                raise

    def _note_error(self, err: BaseException, name: str, metric: Any, label: Any) -> None:
        if not getattr(err, "_lm_noted", False):
            batch = "" if label is None else f" at batch_idx={label}"
            add_note(err, f"lightning_metrics: raised by {name!r} ({type(metric).__name__}) of the {self.where}{batch}.")
            try:
                err._lm_noted = True  # type: ignore[attr-defined]
            except AttributeError:
                pass

    # ---------------------------------------------------------------- coalescing
    @property
    def additive(self) -> bool:
        """Whether every metric here declares ``additive_update`` (foreign metrics never do)."""
        return self.native is not None and not self._foreign and all(
            getattr(m, "additive_update", False) for m in self.native.values()
        )

    def coalesce(self, max_batches: int, max_bytes: int) -> bool:
        """Buffer up to ``max_batches`` batches (``max_bytes`` of tensors) between updates, when
        :attr:`additive`; see :mod:`.coalesce`. Returns whether coalescing is on."""
        self.flush()
        self._buffer = BatchBuffer(max_batches, max_bytes) if max_batches > 1 and self.additive else None
        self._counted = [m for _, m in self._native_tree()] if self._buffer is not None else []
        return self._buffer is not None

    def push(self, record: tuple, label: Any = None, layout: Hashable = None) -> None:
        """Update with ``record`` (of ``layout``, see :meth:`plan`), or buffer it when coalescing
        (``label`` names the batch in errors)."""
        if layout is None:
            layout = ("call", len(record), (), "the arguments", False)
        buffer = self._buffer
        if buffer is None:
            self._update(record, layout, label)
            return
        self.plan(layout)  # inputs that do not fit the metrics fail now, not at the flush
        if buffer.batches and layout != self._buffered_layout:
            self.flush()
        if buffer.add(record, label):
            self._buffered_layout = layout
            if buffer.full:
                self.flush()
        else:
            self.flush()
            self._update(record, layout, label)

    def flush(self) -> None:
        """Apply the buffered batches (every read of the states flushes first)."""
        buffer = self._buffer
        if buffer is None or not buffer.batches:
            return
        if not buffer.flush(self._update_joined, self._note_late_error):
            self._buffer = None  # each batch passed alone but not together: update one by one

    def _update_joined(self, record: tuple, batches: int, label: Any) -> None:
        layout = self._buffered_layout
        if batches == 1:
            self._update(record, layout, label)
            return
        before = [m._update_count for m in self._counted]
        self._update(record, layout)
        for metric, count in zip(self._counted, before):  # one joined update counts as ``batches`` updates
            if metric._update_count != count:
                metric._update_count += (metric._update_count - count) * (batches - 1)

    def _note_late_error(self, err: BaseException, label: Any) -> None:
        if self._buffer is not None:
            add_note(
                err,
                f"lightning_metrics: the batch with batch_idx={label} waited in a buffer of up to "
                f"{self._buffer.max_batches} batches updated together, so its error surfaced late; "
                "pass coalesce_batches=1 to update at every batch."
            )

    def forward(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """Accumulate the batch and return the batch values (foreign metrics without ``forward``
        are only updated); each metric gets what its ``update`` takes of ``args`` and ``kwargs``."""
        layout = ("call", len(args) + len(kwargs), tuple(kwargs), "the arguments", False)
        return self.forward_record((*args, *kwargs.values()), layout)

    def forward_record(self, record: tuple, layout: Hashable, label: Any = None) -> dict[str, Any]:
        """:meth:`forward` with a record of ``layout`` (see :meth:`plan`)."""
        self.flush()
        plan = self.plan(layout)
        values: dict[str, Any] = {}
        if self.native is not None:
            native = self.native
            # every member of all but the last group: a member forwarded alone may change its own states
            with native._token, native._rollback_on_error([m for group, *_ in plan.groups[:-1] for m in group]):
                for group, names, binding, _ in plan.groups:
                    args, kwargs = binding.arguments(record)
                    try:
                        results = _forward_group(group, args, kwargs)
                    except Exception as err:
                        self._note_error(err, names[0], group[0], label)
                        raise
                    values.update(zip(names, results))
            values = dict(native._flatten(values))
        for name, metric, binding, _ in plan.foreign:
            args, kwargs = binding.arguments(record)
            try:
                if isinstance(metric, nn.Module) or callable(getattr(metric, "forward", None)):
                    self._put(values, name, metric(*args, **kwargs))
                else:
                    metric.update(*args, **kwargs)
            except Exception as err:
                self._note_error(err, name, metric, label)
                raise
        return values

    @contextlib.contextmanager
    def synced(self) -> Iterator[None]:
        """Context in which our metrics hold their states merged across processes (a collective on
        entry; local states come back on exit), so that sinks can read them after ``compute``.

        The update counts are merged too while it lasts, so a process that saw no batch does not
        warn that ``compute`` ran before ``update`` when the merged state has updates (and code
        that reads the counts, such as the bootstrap's choice of replicates, agrees on all ranks).
        """
        self.flush()
        if self.native is None:
            yield
            return
        with self.native._synced():
            tree = [m for _, m in self._native_tree()]
            local = [m._update_count for m in tree]
            if tree and tree[0].distributed_available_fn() and distributed.world_size(tree[0].process_group) > 1:
                counts = torch.tensor(local, dtype=torch.int64, device=tree[0].device)
                for metric, count in zip(tree, _all_reduce_sum(counts, tree[0].process_group).tolist()):
                    metric.__dict__["_update_count"] = int(count)
            try:
                yield
            finally:
                for metric, count in zip(tree, local):
                    metric.__dict__["_update_count"] = count

    def compute(self, skip_empty: bool = False) -> dict[str, Any]:
        """Every result by name; our metrics sync in one fused exchange (in the collection).

        ``skip_empty``: leave out the metrics that no batch reached (on any process, inside
        :meth:`synced`, whose update counts are merged), naming them in :attr:`empty`: a stage's epoch
        with no sample has no value to log (not a 0, not a crash of a curve metric over no scores).
        """
        self.flush()
        self.empty = []
        native = self.native
        if native is None:
            values: dict[str, Any] = {}
        else:
            if skip_empty:
                self.empty = [name for name, m in native.items(keep_base=True) if not _was_updated(m)]
            kept = [name for name, m in native.items(keep_base=True) if hasattr(m, "per_class_result")]
            described = any(results.describes_results(m) for m in native.values())
            if self.empty or kept or described:
                with native._synced(), shared_derivations():
                    members = {name: m.compute() for name, m in native.items(keep_base=True) if name not in self.empty}
                values, self._origins = results.flatten_members(native, members, kept)
                self._last_values = values
            else:
                values = dict(native.compute())
        for name, metric in self._foreign:
            self._put(values, name, metric.compute())
        return values

    def class_ids(self, name: str) -> Optional[list[int]]:
        """The class id of each entry of result ``name`` when its metric reports them in another key
        of its dict (detection's ``map_per_class`` and ``classes``), else ``None``."""
        return results.class_ids(self.native, self._origins, self._last_values, name)

    def reset(self) -> None:
        if self._buffer is not None:
            self._buffer.clear()  # buffered batches belong to the states being forgotten
        if self.native is not None:
            self.native.reset()
        for _, metric in self._foreign:
            metric.reset()

    @staticmethod
    def _put(values: dict[str, Any], name: str, value: Any) -> None:
        if not name and isinstance(value, Mapping):
            values.update(value)  # a foreign collection: its keys are the metric names
        else:
            values[name] = value

    def state_dict(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        self.flush()  # persistent states include the buffered batches
        return super().state_dict(*args, **kwargs)

    # ------------------------------------------------------------------ device
    @property
    def device(self) -> torch.device:
        return self._device

    def to_device(self, device: torch.device) -> None:
        """Move every metric to ``device`` (plain foreign objects too, when they have ``.to``)."""
        self.flush()
        self.to(device)
        for _, metric in self._foreign:
            if not isinstance(metric, nn.Module) and callable(getattr(metric, "to", None)):
                metric.to(device)
        self._device = device

    def _apply(self, fn: Any, recurse: bool = True) -> "StageMetrics":  # type: ignore[override]
        self.flush()  # buffered batches are on the old device
        probe = fn(torch.zeros((), dtype=torch.float32))
        if probe.dtype != torch.float32:
            # a cast of the whole module (Lightning's "bf16-true"/"16-true" precision, `.half()`): the
            # states keep their dtypes (counts int64, moments float64) and only follow the device
            device = probe.device
            fn = lambda tensor: tensor.to(device)  # noqa: E731
        out = super()._apply(fn, recurse)
        self._device = probe.device
        return out

    # -------------------------------------------------------------- checkpoints
    def _native_tree(self) -> list[tuple[str, Metric]]:
        if self.native is None:
            return []
        seen: set[int] = set()
        tree = []
        for name, module in self.native.named_modules():
            if isinstance(module, Metric) and id(module) not in seen:
                seen.add(id(module))
                tree.append((name, module))
        return tree

    def merged_state(self) -> dict[str, Any]:
        """The states of every metric merged across processes (a collective: call on every rank).

        Our metrics merge in one fused exchange; foreign metrics through their own ``sync``.
        Tensors come back on the CPU; local states are left untouched.
        """
        self.flush()
        out: dict[str, Any] = {"native": {}, "foreign": {}}
        tree = self._native_tree()
        if tree:
            metrics = [m for _, m in tree]
            counts = torch.tensor([m._update_count for m in metrics], dtype=torch.int64)
            if metrics[0].distributed_available_fn():
                merged = distributed.sync_states(metrics, group=metrics[0].process_group)
                counts = _all_reduce_sum(counts.to(metrics[0].device), metrics[0].process_group)
            else:
                merged = [m._copy_states() for m in metrics]
            for (name, _), states, count in zip(tree, merged, counts.tolist()):
                states = {k: joined(v) for k, v in states.items()}
                out["native"][name] = {"states": to_cpu(states), "count": int(count)}
        for name, metric in self._foreign:
            state = foreign_merged_state(metric)
            if state is not None:
                out["foreign"][name] = state
        return out

    def load_merged_state(self, state: Mapping[str, Any], skip: frozenset = frozenset()) -> None:
        """Take states written by :meth:`merged_state` (rank zero takes them, others stay empty),
        except those of the metrics named in ``skip`` (and of what is nested in them)."""
        self.flush()
        modules = dict(self._native_tree())
        for name, entry in state.get("native", {}).items():
            if name in modules and name.split(".")[0] not in skip:
                set_states(modules[name], entry["states"], entry["count"], self._device)
        if self.native is not None:
            self.native._share_group_states()
        foreign = dict(self._foreign)
        for name, entry in state.get("foreign", {}).items():
            if name in foreign and name not in skip:
                set_states(foreign[name], entry["states"], entry["count"], self._device)

    def fingerprint(self) -> dict[str, str]:
        """What each metric is, by name: its class, statistic spec and state layout (for checkpoints:
        states written by other metrics must not be applied)."""
        out: dict[str, str] = {}
        if self.native is not None:
            for name, metric in self.native.items(keep_base=True):
                layout = []
                for path, module in metric.named_modules():
                    if isinstance(module, Metric):
                        for state, default in module._defaults.items():
                            kind = module._reduction_kinds[state]
                            where = f"{path}.{state}" if path else state
                            if isinstance(default, Tensor):
                                layout.append(f"{where}={kind} {str(default.dtype)[6:]}{list(default.shape)}")
                            else:
                                layout.append(f"{where}={kind} list")
                spec = distributed._spec_text(metric)
                out[name] = f"{type(metric).__qualname__}({'' if spec == 'None' else spec}; {', '.join(layout)})"
        for name, metric in self._foreign:
            out[name or type(metric).__name__] = type(metric).__qualname__
        return out

    def compute_group_of(self, name: str) -> list[str]:
        """The names of the metrics that share ``name``'s states (itself included)."""
        if self.native is not None:
            for names in self.native._groups.values():
                if name in names:
                    return list(names)
        return [name]


def _refuse_trackers(items: list[tuple[str, Any]]) -> None:
    """A ``MetricTracker`` is driven by hand (``increment()`` per epoch, as torchmetrics' is): the engine
    computes once per epoch itself and keeps the best with ``track_best``, so it says so up front."""
    from lightning_metrics.wrappers.tracker import MetricTracker

    for name, value in items:
        if isinstance(value, MetricTracker):
            raise TypeError(
                f"Argument `metrics`: {name!r} is a MetricTracker, which needs `increment()` by hand before each "
                "epoch; the callback and the mixin compute every metric once per epoch already. Pass the metric it "
                f"wraps instead, and `track_best=[{name!r}]` for its best value and epoch."
            )


def _was_updated(metric: Metric) -> bool:
    """Whether a batch reached ``metric``: its update count, or for a wrapper (``ClasswiseWrapper`` keeps a count
    of 1 from construction on, as torchmetrics does) that of any metric it wraps."""
    inner = [m for m in metric.modules() if m is not metric and isinstance(m, Metric)]
    return any(m._update_count > 0 for m in inner) if inner else metric._update_count > 0


def _all_reduce_sum(tensor: Tensor, group: Any) -> Tensor:
    torch.distributed.all_reduce(tensor, op=torch.distributed.ReduceOp.SUM, group=group)
    return tensor.cpu()
