"""Updates split in two: check and compute a batch's contribution first, change the states after.

:class:`PreparedUpdates` is a base of ``Metric``. A metric that can (the count-based classification
metrics, the regression moment metrics) returns from :meth:`~PreparedUpdates._prepared_update` the commit
of a checked batch without having changed anything, so that a ``MetricCollection`` prepares every compute
group before any commits (all or nothing, without copying states), and from
:meth:`~PreparedUpdates._prepared_batch` the states of the batch alone too, from which ``forward`` computes
the batch values before adding the batch in place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional

import torch
from torch import Tensor

from lightning_metrics._states import State

if TYPE_CHECKING:
    from lightning_metrics.metric import Metric


class PreparedUpdates:
    """The prepare/commit protocol of ``Metric`` (the default: not supported, ``None``)."""

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

    def _committer(self: "Metric", assign: Callable[[], None]) -> Callable[[], None]:
        """The commit of a prepared update: ``assign`` the states, and count the update as ``update`` does."""

        def commit() -> None:
            assign()
            attrs = self.__dict__
            attrs["_update_count"] += 1
            attrs["_computed"] = None
            if attrs["compute_on_cpu"]:
                self._move_list_states_to_cpu()

        return commit


class BatchSums:
    """A base (before ``Metric``) for a metric whose ``update`` adds the batch's own sums to its states.

    It states them once, :meth:`_batch_sums`; ``update`` adds them (:meth:`_add_sums`), and so do
    ``forward``, which reads them as the batch's states (no fresh default states to make and merge back),
    and a collection's all-or-nothing update.
    """

    _commits_batch_states = True

    def _batch_sums(self, *args: Any, **kwargs: Any) -> dict[str, Tensor | int]:
        """The checked batch's sums by state name (tensors; a count may be an int): what ``update`` adds."""
        raise NotImplementedError

    def _add_sums(self, sums: dict[str, Tensor | int]) -> None:
        for name, value in sums.items():
            setattr(self, name, getattr(self, name) + value)

    def _prepared_batch(self: "Metric", *args: Any, **kwargs: Any) -> Any:
        if self.__dict__["_is_synced"]:
            return None
        sums = self._batch_sums(*args, **kwargs)  # type: ignore[attr-defined]
        attrs = self.__dict__
        batch = {  # a count as a tensor like its state
            name: value if isinstance(value, Tensor) else attrs[name].new_tensor(value)
            for name, value in sums.items()
        }
        detached = {name: value.detach() if isinstance(value, Tensor) else value for name, value in sums.items()}
        return batch, self._committer(lambda: self._add_sums(detached))  # type: ignore[attr-defined]
