"""``MetricCollection``: many metrics behind one update, one fused sync and one result dict.

Compute groups are explicit: metrics whose :attr:`~lightning_metrics.Metric.statistic_spec`
are equal share one state and one ``update`` per batch. Nothing is inferred from state values,
so two metrics that differ only in, say, their threshold never share.

Sharing never shows: a member used on its own (``collection["acc"].update(...)``, its ``forward``,
``reset`` or ``merge_state``) takes its own copy of the shared states and leaves its group, so its value
always equals that metric alone fed what it was given; the collection regroups on its next call, and
the members share again once all of them are reset (the collection's ``reset``, or each member's, as
Lightning's ``log_dict`` idiom does at every epoch end).
"""

from __future__ import annotations

from contextlib import contextmanager, nullcontext
from copy import deepcopy
from typing import Any, Hashable, Iterable, Iterator, Optional, Sequence, Union

import torch
from torch import nn

from lightning_metrics import distributed
from lightning_metrics._prepared import ComputeGroupToken
from lightning_metrics._states import rollback_on_error
from lightning_metrics._wrapping import raise_device_error
from lightning_metrics.metric import Metric
from lightning_metrics.utilities.memo import shared_derivations

MetricsInput = Union[Metric, "MetricCollection", Sequence[Union[Metric, "MetricCollection"]], dict]


class MetricCollection(nn.ModuleDict):
    """A dict of metrics updated, computed and reset together.

    Args:
        metrics: a metric, a sequence of metrics (keyed by class name), a dict (keys sorted)
            or nested collections.
        prefix / postfix: added to every key of the result.
        compute_groups: ``True`` to share state between metrics with equal ``statistic_spec``,
            ``False`` for none, or an explicit list of lists of metric names.

    >>> import torch
    >>> from lightning_metrics import MetricCollection
    >>> from lightning_metrics.aggregation import MaxMetric, MeanMetric
    >>> metrics = MetricCollection({"mean": MeanMetric(), "max": MaxMetric()}, prefix="val/")
    >>> metrics.update(torch.tensor([1.0, 2.0, 6.0]))
    >>> metrics.compute()
    {'val/max': tensor(6.), 'val/mean': tensor(3.)}
    """

    # TorchScript must not compile these (they run Python-only code); ``forward`` is unused too.
    __jit_unused_properties__ = ["compute_groups", "metric_state"]

    def __init__(
        self,
        metrics: MetricsInput,
        *additional_metrics: Metric,
        prefix: Optional[str] = None,
        postfix: Optional[str] = None,
        compute_groups: Union[bool, list[list[str]]] = True,
    ) -> None:
        super().__init__()
        self.prefix = _check_str(prefix, "prefix")
        self.postfix = _check_str(postfix, "postfix")
        if not isinstance(compute_groups, (bool, list)):
            raise ValueError(
                f"Argument `compute_groups` must be a bool or a list of lists of names, got {compute_groups!r}"
            )
        self._enable_compute_groups = compute_groups
        self._groups = {}  # index -> metric names (no annotation: TorchScript warns about it)
        # shared by the members of its groups: the collection drives them inside ``with self._token``; a
        # member changed on its own outside it leaves its group (``departed``)
        self._token = ComputeGroupToken()
        self._spec_groups = []  # list[list[str]]: the groups as built, before members left them
        self._split = False  # whether members have left their groups since then
        self._groups_version = 0  # counts the changes of ``_groups`` (the engine's plans follow it)
        # torchmetrics' flag: groups given by the user, or formed by the first update
        self._groups_checked = isinstance(compute_groups, list)
        self.add_metrics(metrics, *additional_metrics)

    # ------------------------------------------------------------ building
    def add_metrics(self, metrics: MetricsInput, *additional_metrics: Metric) -> None:
        """Add metrics (same forms as the constructor) and rebuild the compute groups."""
        if isinstance(metrics, Metric):
            metrics = [metrics]
        if isinstance(metrics, Sequence) and not isinstance(metrics, str):
            metrics = list(metrics)
            for extra in additional_metrics:
                if not isinstance(extra, (Metric, MetricCollection)):
                    raise ValueError(f"Argument `additional_metrics` must hold metrics, got {extra!r}")
                metrics.append(extra)
        elif additional_metrics:
            raise ValueError(
                f"Argument `additional_metrics` is only allowed with a metric or a sequence, got {additional_metrics!r}"
            )

        if isinstance(metrics, dict):
            for name in sorted(metrics):
                self._add_one(name, metrics[name], nested_prefix=f"{name}_")
        elif isinstance(metrics, list):
            for metric in metrics:
                name = type(metric).__name__ if isinstance(metric, Metric) else None
                self._add_one(name, metric, nested_prefix="")
        elif isinstance(metrics, MetricCollection):
            for name, metric in metrics.items(keep_base=False):
                self._add_one(name, metric, nested_prefix="")
        else:
            raise ValueError(
                "Argument `metrics` must be a Metric, a MetricCollection, or a sequence or dict of them, "
                f"got {type(metrics).__name__}"
            )
        self._build_groups()

    def _add_one(self, name: Optional[str], metric: Any, nested_prefix: str) -> None:
        if isinstance(metric, MetricCollection):
            for key, inner in metric.items(keep_base=False):
                inner._collection_prefix, inner._collection_postfix = metric.prefix, metric.postfix
                self._insert(f"{nested_prefix}{key}", inner)
            return
        if not isinstance(metric, Metric):
            raise ValueError(
                f"Argument `metrics`: {name or 'item'} must be a lightning_metrics Metric or MetricCollection, "
                f"got {type(metric).__name__}"
            )
        self._insert(str(name), metric)

    def _insert(self, name: str, metric: Metric) -> None:
        if name in self._modules:
            raise ValueError(f"Argument `metrics`: two metrics are both named {name!r}")
        self[name] = metric

    def _build_groups(self) -> None:
        names = list(self._modules)
        if self._enable_compute_groups is False:
            self._groups = {i: [n] for i, n in enumerate(names)}
            self._groups_version += 1
            return
        if isinstance(self._enable_compute_groups, list):
            groups = [list(g) for g in self._enable_compute_groups]
            for group in groups:
                for n in group:
                    if n not in self._modules:
                        raise ValueError(
                            f"Argument `compute_groups`: {n!r} is not a metric of the collection {names}"
                        )
                _widen_to_cover([self._modules[n] for n in group])  # type: ignore[misc]
                _check_compatible(group, [self._modules[n]._state_owner for n in group])  # type: ignore[union-attr]
            listed = {n for g in groups for n in g}
            groups += [[n] for n in names if n not in listed]
        else:
            _widen_to_cover([self._modules[n] for n in names])  # type: ignore[misc]
            by_spec: dict[Hashable, list[str]] = {}
            groups = []
            for n in names:
                spec = self._modules[n].statistic_spec  # type: ignore[union-attr]
                if spec is None:
                    groups.append([n])
                    continue
                key = (spec,)
                if key not in by_spec:
                    by_spec[key] = []
                    groups.append(by_spec[key])
                by_spec[key].append(n)
        self._groups = dict(enumerate(groups))
        self._groups_version += 1
        self._spec_groups, self._split = [list(g) for g in groups], False
        self._share_group_states()

    @property
    def compute_groups(self) -> dict[int, list[str]]:
        """The groups of metric names that share one state and one update (``{}`` when grouping is off,
        as torchmetrics reports). Groups follow the declared statistics, so they are known (and
        reported) from construction on; torchmetrics reports each metric alone until its first update.
        A member used on its own has left its group until it and the rest of the group are reset."""
        self._group_metrics()
        return {} if self._enable_compute_groups is False else self._groups

    def _group_metrics(self) -> list[list[Metric]]:
        if self._token.departed:
            self._split_departed()
        if self._split:
            self._rejoin_fresh()
        return [[self._modules[n] for n in g] for g in self._groups.values()]  # type: ignore[misc]

    def _split_departed(self) -> None:
        """Regroup after members left their groups (used on their own): each one that left is a group of
        its own from now on, until it and the rest of its group are fresh again (:meth:`_rejoin_fresh`)."""
        token = self._token
        token.departed = False
        groups: list[list[str]] = []
        for names in self._groups.values():
            stay = [n for n in names if len(names) > 1 and self._owner(n).__dict__.get("_compute_group") is token]
            groups += [stay] if stay else []
            groups += [[n] for n in names if n not in stay]
        self._groups = dict(enumerate(groups))
        self._groups_version += 1
        self._split = True
        self._share_group_states()

    def _rejoin_fresh(self) -> None:
        """Members of one built group that left it share again once every one of them is fresh (no update
        since a reset: default states), as after Lightning's ``log_dict`` idiom resets each member."""
        fresh = {name for name, metric in self._modules.items() if metric._update_count == 0}  # type: ignore[union-attr]
        groups: list[list[str]] = []
        placed: set[str] = set()
        rejoined = split = False
        for names in self._groups.values():
            if names[0] in placed:
                continue
            built = next(g for g in self._spec_groups if names[0] in g)
            if len(names) < len(built) and fresh.issuperset(built):
                names, rejoined = list(built), True
            split = split or len(names) < len(built)
            groups.append(names)
            placed.update(names)
        self._split = split
        if rejoined:
            self._groups = dict(enumerate(groups))
            self._groups_version += 1
            self._share_group_states()

    def _owner(self, name: str) -> Metric:
        return self._modules[name]._state_owner  # type: ignore[union-attr]

    def _share_group_states(self) -> None:
        token = self._token
        for group in self._group_metrics():
            owner = group[0]._state_owner
            owner.__dict__["_borrows_states"] = False  # the owner of its group's states
            owner.__dict__["_compute_group"] = token if len(group) > 1 else None
            for member in group[1:]:
                member._state_owner._share_states_of(owner)
                member._state_owner.__dict__["_compute_group"] = token

    # ------------------------------------------------------------ contract
    def update(self, *args: Any, **kwargs: Any) -> None:
        """Update every compute group once (the first metric of a group updates for all).

        All or nothing, without copying a state: every group first checks the batch and computes what it
        adds (``_prepared_update``), and only when all of them accepted it do they commit. Groups whose
        leader cannot split its update so update after those checks; they are restored if a later one
        of them rejects the batch (a single such group copies nothing).
        """
        with self._token:
            self._update_groups(self._group_metrics(), args, kwargs)
        if self._enable_compute_groups is not False:
            self._groups_checked = True

    def _update_groups(self, groups: list[list[Metric]], args: tuple, kwargs: dict) -> None:
        commits, plain = [], []
        for group in groups:
            leader = group[0]
            try:
                commit = leader._prepared_update(*args, **leader._filter_kwargs(**kwargs))
            except RuntimeError as err:
                raise_device_error(leader, err)
                raise
            if commit is None:
                plain.append(leader)
            else:
                commits.append(commit)
        with self._rollback_on_error(plain[:-1]):
            for leader in plain:
                leader.update(*args, **leader._filter_kwargs(**kwargs))
        for commit in commits:
            commit()
        for group in groups:
            owner = group[0]._state_owner
            for member in group[1:]:
                member._state_owner._share_states_of(owner)

    @torch.jit.unused
    def forward(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """Accumulate the batch and return every metric's value on this batch alone.

        A compute group updates its shared state once: members that reduce states get their batch
        values from one update on a fresh state merged back in; members that need the full state
        (``full_state_update``) from one more update on a fresh state. Keys come in the order of the
        metrics, as in torchmetrics.
        """
        values: dict[str, Any] = {}
        groups = self._group_metrics()
        # every member of all but the last group: a member forwarded alone may change its own states
        # (one group rolls itself back); members of a group read the same batch statistic: what they derive
        # from it alike is shared
        earlier = [m for g in groups[:-1] for m in g]
        with self._token, self._rollback_on_error(earlier) if earlier else nullcontext(), shared_derivations():
            for names, group in zip(self._groups.values(), groups):
                values.update(zip(names, _forward_group(group, args, kwargs)))
        return self._flatten({name: values[name] for name in self._modules})

    @contextmanager
    def _rollback_on_error(self, metrics: list[Metric]) -> Iterator[None]:
        """Restore ``metrics`` (and what is nested in them) if the block raises.

        Tensor states are cloned, since updates may work in place (state size, not batch size);
        list states are restored by truncation. A single metric rolls itself back, so a
        collection of one compute group copies nothing.
        """
        nested = list(_unique(m for root in metrics for m in root.modules() if isinstance(m, Metric)))
        forward_caches = [metric._forward_cache for metric in nested]
        try:
            with rollback_on_error(nested):
                yield
        except BaseException:
            for metric, forward_cache in zip(nested, forward_caches):
                metric._forward_cache = forward_cache
            self._share_group_states()
            raise

    def compute(self) -> dict[str, Any]:
        """Compute every metric after ONE fused sync of all their states."""
        # members of a compute group hold the same states: what they derive from them alike is shared
        with self._synced(), shared_derivations():
            values = {name: metric.compute() for name, metric in self.items(keep_base=True)}
        return self._flatten(values)

    def reset(self) -> None:
        """Reset every metric (a compute group's states once: its members share them again, those that
        left their group by being used on their own included)."""
        with self._token:
            for leader, *members in self._group_metrics():
                leader.reset()
                owner = leader._state_owner
                for member in members:
                    if type(member).reset is Metric.reset:
                        member._forget_updates()  # its states are the leader's, fresh
                    else:
                        member.reset()
                    member._state_owner._share_states_of(owner)
        if self._split:  # every state is fresh again: the members that left share again
            self._rejoin_fresh()

    def plot(self, val: Any = None, ax: Any = None, together: bool = False) -> Any:
        """Draw every metric's value (default: ``compute()``): a list of ``(fig, ax)``, one per
        metric, or with ``together=True`` one ``(fig, ax)`` with all scalar values (needs matplotlib)."""
        from lightning_metrics import plotting

        return plotting.plot_collection(self, val=val, ax=ax, together=together)

    def _synced(self) -> Any:
        return _CollectionSync(self)

    # ---------------------------------------------------------------- access
    def _set_name(self, base: str) -> str:
        name = base if self.prefix is None else self.prefix + base
        return name if self.postfix is None else name + self.postfix

    def _renamed(self) -> dict[str, Metric]:
        # the container type of ``_modules`` (an OrderedDict before torch 2.5), whose views torchmetrics returns
        return type(self._modules)((self._set_name(k), m) for k, m in self._modules.items())  # type: ignore[misc]

    def keys(self, keep_base: bool = False) -> Iterable[str]:  # type: ignore[override]
        """Metric names, with prefix/postfix unless ``keep_base`` (a dict view either way, as in torchmetrics)."""
        return self._modules.keys() if keep_base else self._renamed().keys()

    def items(self, keep_base: bool = False, copy_state: bool = True) -> Iterable[tuple[str, Metric]]:  # type: ignore[override]
        """(name, metric) pairs, with prefix/postfix unless ``keep_base`` (a dict view either way)."""
        return self._modules.items() if keep_base else self._renamed().items()  # type: ignore[return-value]

    def values(self, copy_state: bool = True) -> Iterable[Metric]:  # type: ignore[override]
        """The metrics (a dict view, as in torchmetrics)."""
        return self._modules.values()  # type: ignore[return-value]

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __getitem__(self, key: str, copy_state: bool = True) -> Metric:  # type: ignore[override]
        if key not in self._modules:
            if self.prefix and key.startswith(self.prefix):
                key = key[len(self.prefix) :]
            if self.postfix and key.endswith(self.postfix):
                key = key[: -len(self.postfix)]
        return self._modules[key]  # type: ignore[return-value]

    def clone(self, prefix: Optional[str] = None, postfix: Optional[str] = None) -> "MetricCollection":
        """A deep copy (group sharing included), optionally with a new prefix/postfix."""
        copy = deepcopy(self)
        if prefix:
            copy.prefix = _check_str(prefix, "prefix")
        if postfix:
            copy.postfix = _check_str(postfix, "postfix")
        return copy

    def persistent(self, mode: bool = True) -> None:
        """Choose whether every metric's states are saved in ``state_dict``."""
        for metric in self.values():
            metric.persistent(mode)

    def set_dtype(self, dst_type: Union[str, torch.dtype]) -> "MetricCollection":
        """Cast the floating states of every metric."""
        self._group_metrics()  # members that left their group keep their own states
        with self._token:
            for metric in self.values():
                metric.set_dtype(dst_type)
        self._share_group_states()
        return self

    def _apply(self, fn: Any, recurse: bool = True) -> "MetricCollection":  # type: ignore[override]
        self._group_metrics()  # members that left their group keep their own states
        with self._token:
            out = super()._apply(fn)
        self._share_group_states()  # device moves copy tensors: point members at the leader again
        return out

    @property
    def metric_state(self) -> dict[str, dict[str, Any]]:
        """Every metric's states, by metric name."""
        return {k: m.metric_state for k, m in self.items(keep_base=False)}

    def _flatten(self, values: dict[str, Any]) -> dict[str, Any]:
        if self.prefix is None and self.postfix is None and not any(isinstance(v, dict) for v in values.values()):
            return values  # plain names, nothing nested
        nested_keys = [k for v in values.values() if isinstance(v, dict) for k in v]
        clash = len(nested_keys) != len(set(nested_keys)) or bool(set(nested_keys) & set(values))
        flat: dict[str, Any] = {}
        for name, value in values.items():
            if not isinstance(value, dict):
                flat[name] = value
                continue
            metric = self._modules[name]
            inner_prefix = getattr(metric, "_collection_prefix", None) or ""
            inner_postfix = getattr(metric, "_collection_postfix", None) or ""
            # the member's name without the nested collection's prefix/postfix, which come back around
            base = name[len(inner_prefix) :] if inner_prefix and name.startswith(inner_prefix) else name
            base = base[: -len(inner_postfix)] if inner_postfix and base.endswith(inner_postfix) else base
            for key, item in value.items():
                if clash:
                    key = f"{base}_{key}"
                flat[f"{inner_prefix}{key}{inner_postfix}"] = item
        return {self._set_name(k): v for k, v in flat.items()}

    def __repr__(self) -> str:
        text = super().__repr__()[:-2]
        if self.prefix:
            text += f",\n  prefix={self.prefix}"
        if self.postfix:
            text += f",\n  postfix={self.postfix}"
        return text + "\n)"


class _CollectionSync:
    """Context: sync every metric of a collection in one fused exchange, then restore."""

    def __init__(self, collection: MetricCollection) -> None:
        self.collection = collection
        self.synced: list[Metric] = []

    def __enter__(self) -> None:
        groups = self.collection._group_metrics()
        leaders = [g[0] for g in groups if _needs_sync(g)]
        if not leaders or not leaders[0].distributed_available_fn():
            return
        by_group: dict[int, tuple[Any, list[Metric]]] = {}
        for leader in leaders:
            by_group.setdefault(id(leader.process_group), (leader.process_group, []))[1].append(leader)
        keys = {id(m): name for name, m in self.collection.items(keep_base=True)}
        for process_group, members in by_group.values():
            tree = _unique(m for leader in members for m in leader._sync_tree())
            # the keys travel in the layout fingerprint: ranks with other keys fail instead of mixing
            distributed.sync_metrics(tree, group=process_group, tag=tuple(keys[id(m)] for m in members))
            self.synced += members
        synced_ids = {id(m) for m in self.synced}
        for group in groups:
            if id(group[0]) in synced_ids:
                owner = group[0]._state_owner
                for member in group[1:]:
                    # the member and the metric holding its states (the same, but for a relabelling
                    # wrapper) keep their local states and read the synced ones
                    holders = _unique([member._state_owner, member])
                    for holder in holders:
                        holder._cache = holder.metric_state
                    member._state_owner._share_states_of(owner)
                    for holder in holders:
                        holder._is_synced = True
                        self.synced.append(holder)

    def __exit__(self, *exc: Any) -> None:
        for metric in self.synced:
            if metric._is_synced:
                metric.unsync()


def _needs_sync(group: list[Metric]) -> bool:
    leader = group[0]
    return (
        leader.sync_on_compute
        and leader.dist_sync_fn is None
        and not leader._is_synced
        and any(m._computed is None for m in group)
    )


def _unique(metrics: Iterable[Metric]) -> list[Metric]:
    seen: dict[int, Metric] = {}
    for m in metrics:
        seen.setdefault(id(m), m)
    return list(seen.values())


def _reducible(metric: Metric) -> bool:
    return metric.full_state_update is False and not metric.dist_sync_on_step


def _forward_group(group: list[Metric], args: tuple, kwargs: dict) -> list[Any]:
    """The batch values of one compute group's members; its shared state takes the batch once."""
    leader = group[0]
    filtered = leader._filter_kwargs(**kwargs)
    if len(group) == 1:
        return [leader(*args, **filtered)]
    owners = [m._state_owner for m in group]
    if all(_reducible(o) for o in owners):
        raw = owners[0]._forward_shared(owners, *args, **filtered)
    else:
        raw = owners[0]._forward_full_shared(owners, *args, **filtered)
    values = []
    for member, owner, value in zip(group, owners, raw):
        if member is not owner:  # a relabelling wrapper: its value from its owner's
            value = member._batch_value_from(value)
            member._forward_cache, member._computed = value, None
        values.append(value)
    return values


def _widen_to_cover(metrics: list[Metric]) -> None:
    """Widen the statistic of metrics of one family (``_statistic_lattice``) to the largest level among
    them, so that they share one state: the statistics form a lattice in which a wider one covers the
    narrower ones (e.g. the regression moments cover the sum of squared errors). A metric that was
    updated already keeps its statistic (its accumulated state cannot be widened) and stays apart."""
    families: dict[Hashable, list[tuple[Metric, int]]] = {}
    for metric in metrics:
        owner = metric._state_owner
        lattice = getattr(owner, "_statistic_lattice", None)
        if lattice is not None:
            families.setdefault(lattice[0], []).append((owner, lattice[1]))
    for members in families.values():
        top = max(level for _, level in members)
        for owner, level in members:
            if level < top:
                owner._widen_statistic(top)  # type: ignore[attr-defined]


def _check_compatible(names: list[str], metrics: list[Metric]) -> None:
    def layout(m: Metric) -> list:
        return [
            (n, m._reduction_kinds[n], type(d).__name__, getattr(d, "dtype", None), tuple(getattr(d, "shape", ())))
            for n, d in m._defaults.items()
        ]

    first = layout(metrics[0])
    for name, metric in zip(names[1:], metrics[1:]):
        if layout(metric) != first or not first:
            raise ValueError(
                f"Argument `compute_groups`: {names[0]!r} and {name!r} cannot share state, their states differ"
            )


def _check_str(value: Optional[str], name: str) -> Optional[str]:
    if value is None or isinstance(value, str):
        return value
    raise ValueError(f"Argument `{name}` must be a string, got {value!r}")


__all__ = ["MetricCollection"]
