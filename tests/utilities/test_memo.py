"""utilities.memo: derived values shared inside one scope, never stale, never outside it."""

from __future__ import annotations

import torch

from lightning_metrics.utilities.memo import derived, shared_derivations


def _counting(calls: list):
    def total(t: torch.Tensor) -> torch.Tensor:
        calls.append(1)
        return t.sum()

    return total


def test_outside_a_scope_every_call_computes():
    calls: list = []
    state = torch.tensor([1, 2])
    derived("total", state, _counting(calls)), derived("total", state, _counting(calls))
    assert len(calls) == 2


def test_an_in_place_change_inside_the_scope_is_recomputed():
    calls: list = []
    state = torch.tensor([1, 2])
    with shared_derivations():
        assert derived("total", state, _counting(calls)) == 3
        state.add_(1)
        assert derived("total", state, _counting(calls)) == 5
        assert derived("total", state, _counting(calls)) == 5
    assert len(calls) == 2


def test_tags_states_and_scopes_are_kept_apart():
    calls: list = []
    a, b = torch.tensor([1]), torch.tensor([1])
    with shared_derivations():
        derived("total", a, _counting(calls))
        derived("total", b, _counting(calls))  # an equal tensor is another state
        derived("other", a, _counting(calls))
        with shared_derivations():  # nested: the outer scope is reused
            derived("total", a, _counting(calls))
    with shared_derivations():  # a new scope starts empty
        derived("total", a, _counting(calls))
    assert len(calls) == 4


def test_inference_tensors_are_shared_by_identity():
    calls: list = []
    with torch.inference_mode():
        state = torch.tensor([1, 2])
        with shared_derivations():
            derived("total", state, _counting(calls)), derived("total", state, _counting(calls))
    assert len(calls) == 1


def test_list_states_are_keyed_by_their_items():
    """A ``cat`` state still a list: an appended item (or another list) is never served a stale value."""
    calls: list = []

    def total(items: list) -> torch.Tensor:
        calls.append(1)
        return torch.cat(items).sum()

    state = [torch.tensor([1, 2])]
    with shared_derivations():
        assert derived("total", state, total) == 3
        assert derived("total", state, total) == 3
        state.append(torch.tensor([4]))
        assert derived("total", state, total) == 7
        assert derived("total", list(state), total) == 7  # an equal list is another state
    assert len(calls) == 3
