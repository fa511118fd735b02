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

from lightning_metrics._states import State

if TYPE_CHECKING:
    from lightning_metrics.metric import Metric


class PreparedUpdates:
    """The prepare/commit protocol of ``Metric`` (the default: not supported, ``None``)."""

    def _prepared_update(self, *args: Any, **kwargs: Any) -> Optional[Callable[[], None]]:
        """Check a batch and compute what it adds WITHOUT changing any state; return the commit (which
        cannot fail), or ``None`` when this metric does not split its update so (the default).

        A collection prepares every compute group before committing any, so a batch that one group
        rejects leaves all of them as they were, without copying a state.
        """
        return None

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
