"""How ``forward`` and a collection's ``update`` get a batch's contribution: the batch values of a metric and
of a compute group, and updates split in two (check and compute a batch's contribution first, change the
states after).

:class:`PreparedUpdates` is a base of ``Metric``. A metric that can (the count-based classification
metrics, the regression moment metrics) returns from :meth:`~PreparedUpdates._prepared_update` the commit
of a checked batch without having changed anything, so that a ``MetricCollection`` prepares every compute
group before any commits (all or nothing, without copying states), and from
:meth:`~PreparedUpdates._prepared_batch` the states of the batch alone too, from which ``forward`` computes
the batch values before adding the batch in place.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Generator, Optional

import torch
from torch import Tensor

from lightning_metrics._states import State

if TYPE_CHECKING:
    from lightning_metrics.metric import Metric


class ComputeGroupToken:
    """What the state owners of a collection's compute groups share: whether the collection is driving them
    now, and whether one of them has left its group since the collection last looked.

    A member that changes its states on its own (``collection["acc"].update(...)``, ``forward``, ``reset``,
    ``merge_state``) while the collection is not driving it first takes its own copy of the shared states
    and leaves its group (:meth:`PreparedUpdates._own_states`): its value then equals that metric alone fed
    what it was given, and the collection regroups before its next call. The token is its own context
    manager (``with token:``), entered by the collection around every call that drives its members.
    """

    __slots__ = ("driving", "departed")

    def __init__(self) -> None:
        self.driving = 0
        self.departed = False

    def __enter__(self) -> None:
        self.driving += 1

    def __exit__(self, *exc: Any) -> None:
        self.driving -= 1

    def __getstate__(self) -> tuple:
        return (0, self.departed)  # a copy or a pickle is never inside a call

    def __setstate__(self, state: tuple) -> None:
        self.driving, self.departed = state


class PreparedUpdates:
    """A base of ``Metric``: ``forward``'s batch values (alone, or for the members of a compute group), and
    the prepare/commit protocol (the default: not supported, ``None``)."""

    # True where the commit of :meth:`_prepared_batch` only adds the batch's own states to the accumulated
    # ones (sums): then the batch's preparation is the update's too
    _commits_batch_states = False

    def _prepared_update(self, *args: Any, **kwargs: Any) -> Optional[Callable[[], None]]:
        """Check a batch and compute what it adds WITHOUT changing any state; return the commit (which
        cannot fail), or ``None`` when this metric does not split its update so (the default, unless
        ``_commits_batch_states``: the commit of :meth:`_prepared_batch`).

        A collection prepares every compute group before committing any, so a batch that one group
        rejects leaves all of them as they were, without copying a state.
        """
        if not self._commits_batch_states:
            return None
        with torch.set_grad_enabled(self.__dict__["_enable_grad"]):  # the mode ``update`` runs in
            prepared = self._prepared_batch(*args, **kwargs)
        return None if prepared is None else prepared[1]

    def _prepared_batch(self, *args: Any, **kwargs: Any) -> Optional[tuple[dict[str, State], Callable[[], None]]]:
        """Like :meth:`_prepared_update`, and also the states a fresh metric would hold after this batch
        alone (what ``forward`` computes the batch value from); ``None`` when not supported (the default)."""
        return None

    def _forward_full_state_update(self, *args: Any, **kwargs: Any) -> Any:
        # two updates: one into the accumulated state, one into a fresh state for the batch value
        self.update(*args, **kwargs)
        count, accumulated = self._update_count, self.metric_state
        try:
            with self._batch_context():
                self._reset_states_only()
                self._update_count = 0
                self.update(*args, **kwargs)
                return self.compute()
        finally:
            for name, value in accumulated.items():
                setattr(self, name, value)
            self._update_count = count

    def _forward_reduce_state_update(self, *args: Any, **kwargs: Any) -> Any:
        return self._forward_shared([self], *args, **kwargs)[0]

    def _forward_shared(self, members: list["Metric"], *args: Any, **kwargs: Any) -> list[Any]:
        """One update on a fresh state gives the batch value of every member sharing this
        metric's statistic; the accumulated state is then merged back in by the reductions."""
        prepared = self._prepared_batch(*args, **kwargs)
        if prepared is not None:
            return self._forward_from_batch(members, *prepared)
        count, accumulated = self._update_count, self.metric_state
        try:
            values = self._members_batch_values(members, *args, **kwargs)
            self._update_count = count + 1
            with torch.no_grad():
                self._merge_states(accumulated)
        except BaseException:  # a failure at any step leaves every member as it was
            self._restore_shared(members, accumulated, count)
            raise
        for member, value in zip(members, values):
            member._share_states_of(self)
            member._forward_cache = value
        return values

    def _forward_full_shared(self, members: list["Metric"], *args: Any, **kwargs: Any) -> list[Any]:
        """``forward`` of a compute group whose members need the full state (``full_state_update``):
        ONE update of the accumulated state, then every member's batch value from one update on a
        fresh state, which this metric's states return to afterwards (as ``_forward_full_state_update``)."""
        self.update(*args, **kwargs)
        count, accumulated = self._update_count, self.metric_state
        try:
            values = self._members_batch_values(members, *args, **kwargs)
        finally:
            self._restore_shared(members, accumulated, count)
        for member, value in zip(members, values):
            member._forward_cache = value
        return values

    def _members_batch_values(self, members: list["Metric"], *args: Any, **kwargs: Any) -> list[Any]:
        """Every member's value on this batch alone: one update on a fresh state of this metric,
        which the members then share. The accumulated states are the caller's to put back."""
        with self._batch_context():
            self._reset_states_only()
            self._update_count = 0
            self.update(*args, **kwargs)
        values = []
        for member in members:
            member._share_states_of(self)
            with member._batch_context():
                values.append(member.compute())
        return values

    def _restore_shared(self, members: list["Metric"], accumulated: dict[str, Any], count: int) -> None:
        """Put back this metric's accumulated states and update count, and point every member at them."""
        for name, value in accumulated.items():
            setattr(self, name, value)
        self._update_count = count
        for member in members:
            member._share_states_of(self)

    @property
    def _state_owner(self) -> "Metric":
        """The metric whose states hold this one's statistic in a compute group: itself, or for a
        wrapper that only relabels a metric's value (``ClasswiseWrapper``) the wrapped metric's owner."""
        return self

    def _own_states(self) -> None:
        """Before this metric changes its states itself: a compute-group member that its collection is not
        driving now takes its own copy of the shared states and leaves the group (see
        :class:`ComputeGroupToken`), so that a statistic shared for speed never adds a batch twice."""
        attrs = self.__dict__
        token = attrs.get("_compute_group")
        if token is None or token.driving:
            return
        for name in attrs["_defaults"]:
            value = attrs[name]
            # list items are never changed in place, only appended: a new list is the metric's own
            attrs[name] = list(value) if isinstance(value, list) else value.clone()
        attrs["_compute_group"] = None
        attrs["_borrows_states"] = False
        token.departed = True

    def _batch_value_from(self, owner_value: Any) -> Any:
        """This metric's batch value given its state owner's (the identity, unless a relabelling wrapper)."""
        return owner_value

    def _share_states_of(self, leader: "Metric") -> None:
        """Point this metric's states at ``leader``'s (metrics with equal ``statistic_spec``)."""
        mine, theirs = self.__dict__, leader.__dict__
        if leader is not self:
            for name in theirs["_defaults"]:
                mine[name] = theirs[name]  # states are plain attributes, never buffers or modules
            mine["_update_count"] = theirs["_update_count"]
            mine["_borrows_states"] = True
        mine["_computed"] = None

    @contextmanager
    def _batch_context(self) -> Generator[None, None, None]:
        """Settings for computing a batch value inside ``forward``: grads on, sync per step only."""
        saved = (self.compute_on_cpu, self._to_sync, self._should_unsync, self._enable_grad)
        self.compute_on_cpu = False
        self._to_sync = self.dist_sync_on_step
        self._should_unsync = False
        # a metric that is not differentiable builds no autograd graph for its batch value
        self._enable_grad = self.is_differentiable is not False
        try:
            yield
        finally:
            self.compute_on_cpu, self._to_sync, self._should_unsync, self._enable_grad = saved
            self._is_synced = False
            self._cache = None
            self._computed = None
            if self.compute_on_cpu:
                self._move_list_states_to_cpu()

    def _forward_from_batch(
        self: "Metric", members: list["Metric"], batch: dict[str, State], commit: Callable[[], None]
    ) -> list[Any]:
        """``forward`` of a prepared batch: every member's value from the batch's states, then the commit
        adds the batch to the accumulated states (no fresh default states, no merge copies)."""
        values = self._batch_values(members, batch)
        if values is not None:
            # every member read its value straight off the batch's states: nothing to swap in and out
            commit()
            for member, value in zip(members, values):
                member._share_states_of(self)
                member.__dict__["_forward_cache"] = value  # a plain attribute: no Module.__setattr__ walk
            return values
        attrs = self.__dict__
        count, accumulated = attrs["_update_count"], self.metric_state
        values = []
        try:
            attrs.update(batch)
            attrs["_update_count"] = 1
            for member in members:
                member._share_states_of(self)
                with member._batch_context():
                    values.append(member.compute())
        finally:
            attrs.update(accumulated)
            attrs["_update_count"] = count
            for member in members:
                member._share_states_of(self)
        commit()
        for member, value in zip(members, values):
            member._share_states_of(self)
            member._forward_cache = value
        return values

    def _batch_values(self, members: list["Metric"], batch: dict[str, State]) -> Optional[list[Any]]:
        """The members' values on a batch's states, each read by its :meth:`_batch_value_fn`; ``None`` when one
        has none. A statistic whose members' values are better computed together overrides this."""
        direct = [member._batch_value_fn() for member in members]
        if any(fn is None for fn in direct):
            return None
        return [fn(batch) for fn in direct]

    def _batch_value_fn(self) -> Optional[Callable[[dict[str, State]], Any]]:
        """A function of a batch's states (as :meth:`_prepared_batch` gives them) to this metric's batch value,
        the same as ``compute`` would return in ``forward`` on those states; ``None`` when this metric has
        none (the default: ``forward`` swaps the batch's states in and calls ``compute``)."""
        return None

    def _computes_like(self: "Metric", base: type) -> bool:
        """Whether this metric's batch value may be read off a batch's states as ``base`` reads it: its
        ``compute`` is ``base.compute`` (no subclass of its own), and the value needs no sync."""
        attrs = self.__dict__
        return type(self).compute is base.compute and not attrs["_is_synced"] and not attrs["dist_sync_on_step"]

    def _committer(self: "Metric", assign: Callable[[], None]) -> Callable[[], None]:
        """The commit of a prepared update: ``assign`` the states, and count the update as ``update`` does."""

        def commit() -> None:
            attrs = self.__dict__
            self._own_states()  # (a member committing on its own leaves its group first)
            assign()
            attrs["_update_count"] += 1
            attrs["_computed"] = None
            if attrs["compute_on_cpu"]:
                self._move_list_states_to_cpu()

        return commit


def adds_batch_sums(update: Callable) -> Callable:
    """Mark an ``update`` of a :class:`BatchSums` metric that only adds :meth:`~BatchSums._batch_sums`: then
    ``forward`` and a collection may add them themselves. A subclass that overrides ``update`` without the
    mark (to transform its inputs, say) is updated through its ``update``, as any metric."""
    update._adds_batch_sums = True  # type: ignore[attr-defined]
    return update


class BatchSums:
    """A base (before ``Metric``) for a metric whose ``update`` adds the batch's own sums to its states.

    It states them once, :meth:`_batch_sums`; ``update`` (marked :func:`adds_batch_sums`) adds them
    (:meth:`_add_sums`), and so do ``forward``, which reads them as the batch's states (no fresh default
    states to make and merge back), and a collection's all-or-nothing update.
    """

    _commits_batch_states = True

    def _batch_sums(self, *args: Any, **kwargs: Any) -> dict[str, Tensor | int]:
        """The checked batch's sums by state name (tensors; a count may be an int): what ``update`` adds."""
        raise NotImplementedError

    def _add_sums(self, sums: dict[str, Tensor | int]) -> None:
        for name, value in sums.items():
            setattr(self, name, getattr(self, name) + value)

    def _prepared_batch(self: "Metric", *args: Any, **kwargs: Any) -> Any:
        if self.__dict__["_is_synced"] or not getattr(type(self).update, "_adds_batch_sums", False):
            return None  # synced, or a subclass with an update of its own
        sums = self._batch_sums(*args, **kwargs)  # type: ignore[attr-defined]
        attrs = self.__dict__
        batch = {  # a count as a tensor like its state
            name: value if isinstance(value, Tensor) else attrs[name].new_tensor(value)
            for name, value in sums.items()
        }
        detached = {name: value.detach() if isinstance(value, Tensor) else value for name, value in sums.items()}
        return batch, self._committer(lambda: self._add_sums(detached))  # type: ignore[attr-defined]
