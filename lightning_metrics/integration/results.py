"""Where each of a stage's results came from, for the router.

A collection flattens its members' dict results into its own keys (``val/map``, ``val/map_50``,
..., or ``val/det_map`` when keys clash). The router needs to know, for such a key, the metric that
produced it (a sentinel such as mAP's -1 means "undefined", not a value) and, for a per-class
vector, which class each entry is when the metric reports the ids in another key (detection's
``map_per_class`` and ``classes``). :func:`flatten_members` flattens as the collection does and
remembers each key's origin; :func:`class_ids` reads the ids back.

>>> import torch
>>> from lightning_metrics import MetricCollection
>>> from lightning_metrics.aggregation import SumMetric
>>> values, origins = flatten_members(MetricCollection({"s": SumMetric()}), {"s": {"a": 1, "b": 2}}, [])
>>> values, origins
({'a': 1, 'b': 2}, {'a': ('s', 'a'), 'b': ('s', 'b')})
"""

from __future__ import annotations

from typing import Any, Optional

from torch import Tensor


class _From:
    """A value out of a member's dict result, tagged with where it came from while the collection
    flattens the dicts (it never looks into the values)."""

    __slots__ = ("value", "member", "key")

    def __init__(self, value: Any, member: str, key: str) -> None:
        self.value, self.member, self.key = value, member, key


def describes_results(metric: Any) -> bool:
    """Whether ``metric`` says more about its dict results than their values (``missing_result``:
    a sentinel meaning "undefined"; ``per_class_ids``: the key that holds its per-class entries' ids)."""
    return getattr(metric, "missing_result", None) is not None or getattr(metric, "per_class_ids", None) is not None


def flatten_members(
    native: Any, members: dict[str, Any], kept: list[str]
) -> tuple[dict[str, Any], dict[str, tuple[str, str]]]:
    """The members' results under the collection's keys, and the origin ``(member, key in its dict)``
    of every key that came out of a dict; the members in ``kept`` (a ``ClasswiseWrapper``, which the
    router logs per class) keep their dict whole under their own name."""
    tagged = {
        name: {key: _From(item, name, key) for key, item in value.items()} if isinstance(value, dict) else value
        for name, value in members.items() if name not in kept
    }
    values: dict[str, Any] = {}
    origins: dict[str, tuple[str, str]] = {}
    for key, value in native._flatten(tagged).items():
        if isinstance(value, _From):
            origins[key] = (value.member, value.key)
            value = value.value
        values[key] = value
    values.update({native._set_name(k): v for k, v in members.items() if k in kept})
    return values, origins


def class_ids(native: Any, origins: dict[str, tuple[str, str]], values: dict[str, Any], name: str) -> Optional[list[int]]:
    """The class ids of the entries of result ``name`` (a vector) when its member reports them in
    the key it names ``per_class_ids``; ``None`` otherwise."""
    origin = origins.get(name)
    if origin is None or native is None:
        return None
    ids_key = getattr(native[origin[0]], "per_class_ids", None)
    if ids_key is None or origin[1] == ids_key:
        return None
    ids = next((values[k] for k, o in origins.items() if o == (origin[0], ids_key)), None)
    value = values.get(name)
    if not isinstance(ids, Tensor) or not isinstance(value, Tensor) or ids.ndim != 1 or value.ndim != 1:
        return None
    return [int(i) for i in ids.tolist()] if len(ids) == len(value) else None
