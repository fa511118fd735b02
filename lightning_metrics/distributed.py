"""Fused synchronisation of metric states across processes.

All states of many metrics travel together, so the number of collective calls does not grow
with the number of metrics:

1. one ``all_gather`` of a fingerprint of the state layout, so ranks holding different metrics
   (other keys, another ``num_classes``) fail with a clear error instead of hanging (and a rank
   that stops on an exception can say so instead, see :func:`announce_stopping`); the same
   exchange carries which metrics hold sample-weighted statistics, so that a rank whose metric
   is not weighted while another's is sends its states in the weighted layout (float64 counts);
2. one ``all_reduce`` per (operation, dtype) for ``sum``/``mean``/``max``/``min`` tensor states,
   packed into a flat buffer;
3. for ``cat``/``None``/callable states: one ``all_gather`` of the sizes and shapes of every
   such state, then one ``all_gather`` per dtype of a flat buffer padded to the longest rank and
   trimmed after. A rank without updates contributes nothing, of the right dtype and shape.

The functions return merged copies and never modify local states; :class:`~lightning_metrics.Metric`
keeps the local copy for ``unsync``.
"""

from __future__ import annotations

import datetime
import hashlib
import os
from typing import TYPE_CHECKING, Any, Callable, Hashable, Optional, Sequence

import torch
import torch.distributed as dist
from torch import Tensor

if TYPE_CHECKING:
    from lightning_metrics.metric import Metric

_DTYPES = (
    torch.float32,
    torch.float64,
    torch.float16,
    torch.bfloat16,
    torch.int64,
    torch.int32,
    torch.int16,
    torch.int8,
    torch.uint8,
    torch.bool,
    torch.complex64,
    torch.complex128,
)
_DTYPE_CODE = {dtype: code for code, dtype in enumerate(_DTYPES)}
_MAX_NDIM = 8
_META_WIDTH = 3 + _MAX_NDIM  # present, dtype code, ndim, dims...
_REDUCE_OPS = {"sum": "SUM", "mean": "SUM", "max": "MAX", "min": "MIN"}
# dtypes the backends cannot move (gloo and NCCL have no bool or int16 collectives) travel widened
_WIRE_DTYPE = {torch.bool: torch.uint8, torch.int16: torch.int32}
SYNC_TIMEOUT_ENV = "LIGHTNING_METRICS_SYNC_TIMEOUT"
_sync_timeout: Optional[float] = None
STOPPING = -1  # sent instead of a layout fingerprint (never negative) by a rank that stops on an exception
# the first exchange: the fingerprint, then this many words of "metric i is sample-weighted" bits (62 a word;
# metric i sets bit i % 62 of word (i // 62) % _WEIGHT_WORDS: beyond 992 metrics two may share a bit, which
# then makes both weighted on every rank alike: same layout, exact values, float64 counts)
_WEIGHT_WORDS = 16
_FIRST_WIDTH = 1 + _WEIGHT_WORDS


class PeerStoppedError(RuntimeError):
    """A metric sync met a rank that is stopping on an exception (see :func:`announce_stopping`)."""

# The exchanges a bounded sync stopped waiting for. They are still in flight and stay referenced here:
# on torch 2.4, destroy_process_group holds the GIL while it waits for gloo's worker threads, and a
# worker that frees the last reference to such an exchange needs the GIL, so it never returned.
_abandoned_exchanges: list = []


def set_sync_timeout(seconds: Optional[float]) -> None:
    """Bound how long a sync waits for the other processes (``None``: the backend's own timeout).

    A sync that starts on some ranks only (``compute()`` under ``rank_zero_only`` or
    ``if trainer.is_global_zero``) would wait for the others until the process group times
    out (30 minutes for gloo by default). With a bound, the first exchange of every sync
    raises a ``RuntimeError`` that says so after ``seconds``. Choose it longer than the
    longest legitimate gap between ranks reaching the sync. The environment variable
    ``LIGHTNING_METRICS_SYNC_TIMEOUT`` (seconds) sets it too.

    >>> set_sync_timeout(300); sync_timeout()
    300.0
    >>> set_sync_timeout(None); sync_timeout() is None
    True
    """
    global _sync_timeout
    invalid = isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds <= 0
    if seconds is not None and invalid:
        raise ValueError(f"Argument `seconds` must be None or a positive number, got {seconds!r}")
    _sync_timeout = None if seconds is None else float(seconds)


def sync_timeout() -> Optional[float]:
    """The bound set by :func:`set_sync_timeout` or ``LIGHTNING_METRICS_SYNC_TIMEOUT``, else ``None``."""
    if _sync_timeout is not None:
        return _sync_timeout
    text = os.environ.get(SYNC_TIMEOUT_ENV, "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise ValueError(
            f"Environment variable `{SYNC_TIMEOUT_ENV}` must be a number of seconds, got {text!r}"
        ) from None
    return value if value > 0 else None


def is_available() -> bool:
    """Whether a default process group is initialised (the default ``distributed_available_fn``).

    >>> is_available()
    False
    """
    return dist.is_available() and dist.is_initialized()


def world_size(group: Optional[Any] = None) -> int:
    """Number of processes in ``group`` (1 when not distributed)."""
    return dist.get_world_size(group) if is_available() else 1


def sync_metrics(metrics: Sequence["Metric"], group: Optional[Any] = None, tag: Hashable = None) -> None:
    """Sync the states of ``metrics`` in one fused exchange; each keeps its local copy for ``unsync``.

    ``tag`` (e.g. a collection's keys) must be equal on every rank; it travels in the layout
    fingerprint, so ranks whose tags differ fail clearly.
    """
    if not metrics:
        return
    synced = sync_states(metrics, group=group, tag=tag)
    for metric, states in zip(metrics, synced):
        metric._cache = metric.metric_state
        for name, value in states.items():
            setattr(metric, name, value)
        metric._is_synced = True


def sync_states(
    metrics: Sequence["Metric"], group: Optional[Any] = None, tag: Hashable = None
) -> list[dict[str, Any]]:
    """Return, for each metric, its states reduced over all processes of ``group``.

    Works on any number of metrics with a bounded number of collective calls
    (see the module docstring). Local states are not modified.
    """
    entries = [(i, name, m._reduction_kinds[name], m._reductions[name], getattr(m, name))
               for i, m in enumerate(metrics) for name in m._defaults]
    results: list[dict[str, Any]] = [{} for _ in metrics]
    if world_size(group) == 1:
        for i, name, _, _, value in entries:
            results[i][name] = _to_single_rank(value)
        return results

    device = _pick_device(metrics)
    packed = [e for e in entries if e[2] in _REDUCE_OPS and isinstance(e[4], Tensor)]
    gathered = [e for e in entries if not (e[2] in _REDUCE_OPS and isinstance(e[4], Tensor))]

    weighted = _check_same_layout(metrics, packed, gathered, device, group, tag)
    if any(weighted[i] and not m._is_sample_weighted for i, m in enumerate(metrics)):
        entries = _in_weighted_layout(metrics, entries, weighted)
        packed = [e for e in entries if e[2] in _REDUCE_OPS and isinstance(e[4], Tensor)]
        gathered = [e for e in entries if not (e[2] in _REDUCE_OPS and isinstance(e[4], Tensor))]
    _all_reduce_packed(packed, results, group)
    _all_gather_uneven(metrics, gathered, results, device, group)
    return results


def sync_states_with(metric: "Metric", dist_sync_fn: Callable, group: Optional[Any] = None) -> dict[str, Any]:
    """Sync one metric with a user ``dist_sync_fn(tensor, group) -> list of per-rank tensors``.

    This is the torchmetrics protocol, one call per state; the fused path is used otherwise.
    """
    out: dict[str, Any] = {}
    for name in metric._defaults:
        kind, fx, value = metric._reduction_kinds[name], metric._reductions[name], getattr(metric, name)
        if isinstance(value, list):
            if not value:
                local = torch.empty(0, device=metric.device, dtype=metric.dtype)
            else:
                local = torch.cat([v.reshape(1) if v.ndim == 0 else v for v in value])
            parts = [p for p in dist_sync_fn(local, group=group) if p.numel() or kind != "cat"]
            out[name] = _combine_gathered(kind, fx, parts, was_list=True)
        else:
            out[name] = _combine_gathered(kind, fx, list(dist_sync_fn(value, group=group)), was_list=False)
    return out


def gather_all_tensors(result: Tensor, group: Optional[Any] = None) -> list[Tensor]:
    """Gather a tensor from every process; shapes may differ in every dimension.

    Usable as ``dist_sync_fn``. Two collectives: the shapes, then the padded data.

    >>> gather_all_tensors(torch.tensor([1, 2]))  # a single process: its own tensor
    [tensor([1, 2])]
    """
    if world_size(group) == 1:
        return [result]
    shape = torch.tensor(list(result.shape) + [0] * (_MAX_NDIM - result.ndim), device=result.device)
    shapes = _all_gather(shape, group)
    sizes = [int(torch.prod(s[: result.ndim])) if result.ndim else 1 for s in shapes]
    buffer = torch.zeros(max(sizes), dtype=result.dtype, device=result.device)
    buffer[: result.numel()] = result.reshape(-1)
    datas = _all_gather(buffer, group)
    return [d[:n].reshape(tuple(int(x) for x in s[: result.ndim])) for d, n, s in zip(datas, sizes, shapes)]


# ----------------------------------------------------------------- internals
def _to_single_rank(value: Any) -> Any:
    if isinstance(value, list):
        return [v for v in value]
    return value


def _pick_device(metrics: Sequence["Metric"]) -> torch.device:
    for metric in metrics:
        for name in metric._defaults:
            value = getattr(metric, name)
            if isinstance(value, Tensor):
                return value.device
            if value:
                return value[0].device
    return metrics[0].device


def check_same_point(point: int, names: Sequence[str], device: Any = None, group: Optional[Any] = None) -> None:
    """Check that every rank is at the same point of a run (``names[point]``: an epoch end of one stage) before
    a collective that merges that point's states: one small ``all_gather``, so that a rank elsewhere (one
    that had no batch of a stage, and so never reached its end) fails every rank with an error that says
    so, instead of meeting a collective of another stage. A no-op on one process."""
    if not is_available() or world_size(group) <= 1:
        return
    # as wide as a sync's first exchange, so that a rank announcing its stop (one message) meets either
    mine = torch.zeros(_FIRST_WIDTH, dtype=torch.int64, device=device)
    mine[0] = point
    points = [int(t[0]) for t in _all_gather(mine, group)]
    _raise_if_peer_stopped(points, group)  # a rank stopping on an exception announces it in this exchange
    if len(set(points)) > 1:
        where = ", ".join(f"rank {rank}: {names[p] if 0 <= p < len(names) else p}" for rank, p in enumerate(points))
        raise RuntimeError(
            f"The processes are at different points of the run ({where}): their metric states cannot be merged. "
            "A rank that had no batch of a stage (an empty dataloader on that rank, which Lightning allows with "
            "`allow_zero_length_dataloader_with_multiple_devices`) never reaches that stage's end; give every "
            "rank at least one batch of each stage (a DistributedSampler does)."
        )


def _all_gather(tensor: Tensor, group: Optional[Any]) -> list[Tensor]:
    out = [torch.empty_like(tensor) for _ in range(dist.get_world_size(group))]
    dist.all_gather(out, tensor.contiguous(), group=group)
    return out


def _first_all_gather(tensor: Tensor, group: Optional[Any], metrics: Sequence["Metric"]) -> list[Tensor]:
    """The first collective of a sync, bounded by :func:`sync_timeout` when one is set."""
    seconds = sync_timeout()
    if seconds is None:
        return _all_gather(tensor, group)
    out = [torch.empty_like(tensor) for _ in range(dist.get_world_size(group))]
    work = dist.all_gather(out, tensor.contiguous(), group=group, async_op=True)
    try:
        work.wait(timeout=datetime.timedelta(seconds=seconds))
    except RuntimeError as err:
        _abandoned_exchanges.append(work)
        names = ", ".join(sorted({type(m).__name__ for m in metrics}))
        raise RuntimeError(
            f"Metric sync on rank {dist.get_rank(group)}: the other processes did not join within "
            f"{seconds:g}s (metrics: {names}). Every rank must call compute()/sync() at the same point: not under "
            "rank_zero_only or `if trainer.is_global_zero`, and with the same `sync_on_compute`."
        ) from err
    return out


def _spec_text(metric: "Metric") -> str:
    """The statistic spec (num_classes, thresholds, ...), unless its text is not stable across processes."""
    text = repr(metric.statistic_spec)
    return "?" if " at 0x" in text else text


def _fingerprint(metrics: Sequence["Metric"], packed: list, gathered: list, tag: Hashable = None) -> int:
    # the spec catches what shapes cannot: another num_classes in a cat state, another threshold
    layout: list = [repr(tag)] + [(type(m).__qualname__, _spec_text(m)) for m in metrics]
    weight_states = [set(m._sample_weight_states()) for m in metrics]  # their dtype follows the weights
    layout += [(i, n, k, "counts" if n in weight_states[i] else str(v.dtype), tuple(v.shape))
               for i, n, k, _, v in packed]
    layout += [(i, n, k, type(v).__name__) for i, n, k, _, v in gathered]
    digest = hashlib.blake2b(repr(layout).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") & ((1 << 62) - 1)


def announce_stopping(device: Any = None, group: Optional[Any] = None, timeout: float = 60.0) -> bool:
    """From a rank that stops on an exception (e.g. while it writes an exception checkpoint): take part
    in the other ranks' next metric sync with :data:`STOPPING` instead of a layout fingerprint, so
    that they raise :class:`PeerStoppedError` saying so, instead of waiting for this rank or blaming
    the metrics. Returns whether they joined within ``timeout`` seconds.
    """
    if world_size(group) == 1:
        return True
    out = [torch.empty(_FIRST_WIDTH, dtype=torch.int64, device=device) for _ in range(dist.get_world_size(group))]
    stopping = torch.full((_FIRST_WIDTH,), STOPPING, dtype=torch.int64, device=device)
    work = dist.all_gather(out, stopping, group=group, async_op=True)
    try:
        work.wait(timeout=datetime.timedelta(seconds=timeout))
    except RuntimeError:
        return False
    return True


def _raise_if_peer_stopped(values: Sequence[int], group: Optional[Any]) -> None:
    """Raise :class:`PeerStoppedError` when a rank sent :data:`STOPPING` (:func:`announce_stopping`)
    to this rank's first exchange of a sync."""
    stopped = [rank for rank, value in enumerate(values) if value == STOPPING]
    if stopped:
        raise PeerStoppedError(
            f"Metric sync on rank {dist.get_rank(group)}: rank {', '.join(map(str, stopped))} stopped on an "
            "exception (its traceback is the first error of the job), so the metric states cannot be merged; "
            "nothing is wrong with the metrics."
        )


def _check_same_layout(metrics: Sequence["Metric"], packed: list, gathered: list, device: torch.device,
                       group: Optional[Any], tag: Hashable = None) -> list[bool]:
    """Raise unless every rank holds the same layout; return, per metric, whether any rank is weighted."""
    first = torch.zeros(_FIRST_WIDTH, dtype=torch.int64)
    first[0] = _fingerprint(metrics, packed, gathered, tag)
    for i, metric in enumerate(metrics):
        if metric._is_sample_weighted:
            first[1 + (i // 62) % _WEIGHT_WORDS] |= 1 << (i % 62)
    rows = torch.stack(_first_all_gather(first.to(device), group, metrics)).cpu()  # one host sync
    values = rows[:, 0].tolist()
    _raise_if_peer_stopped(values, group)
    if len(set(values)) > 1:
        names = ", ".join(sorted({type(m).__name__ for m in metrics}))
        raise RuntimeError(
            "Metric states differ across processes (layout fingerprints per rank: "
            f"{values}); every rank must hold the same metrics with the same arguments "
            f"(keys, num_classes, ...). Metrics on this rank: {names}."
        )
    words = rows[:, 1:]
    anywhere = words[0].clone()
    for row in words[1:]:
        anywhere |= row
    return [bool(int(anywhere[(i // 62) % _WEIGHT_WORDS]) >> (i % 62) & 1) for i in range(len(metrics))]


def _in_weighted_layout(metrics: Sequence["Metric"], entries: list, weighted: list[bool]) -> list:
    """``entries`` with the states of every metric that another rank holds weighted (and this one does not)
    in the weighted layout (see :meth:`~lightning_metrics.Metric._weighted_states_for_sync`)."""
    converted: dict[int, dict[str, Any]] = {}
    for i, metric in enumerate(metrics):
        if weighted[i] and not metric._is_sample_weighted:
            converted[i] = metric._weighted_states_for_sync({e[1]: e[4] for e in entries if e[0] == i})
    return [e if e[0] not in converted else (*e[:4], converted[e[0]][e[1]]) for e in entries]


def _all_reduce_packed(packed: list, results: list[dict[str, Any]], group: Optional[Any]) -> None:
    groups: dict[tuple[str, torch.dtype], list] = {}
    for entry in packed:
        groups.setdefault((_REDUCE_OPS[entry[2]], entry[4].dtype), []).append(entry)
    world = dist.get_world_size(group)
    for (op_name, dtype), members in sorted(groups.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        wire_dtype = _WIRE_DTYPE.get(dtype, dtype)
        flat = torch.cat([v.detach().reshape(-1).to(wire_dtype) for *_, v in members])
        dist.all_reduce(flat, op=getattr(dist.ReduceOp, op_name), group=group)
        offset = 0
        for i, name, kind, _, value in members:
            part = flat[offset : offset + value.numel()].reshape(value.shape).to(dtype)
            offset += value.numel()
            results[i][name] = part / world if kind == "mean" else part


def _local_tensor(value: Any) -> Optional[Tensor]:
    if isinstance(value, Tensor):
        return value.detach()
    if not value:
        return None
    return torch.cat([v.detach().reshape(1) if v.ndim == 0 else v.detach() for v in value])


def _all_gather_uneven(metrics: Sequence["Metric"], gathered: list, results: list[dict[str, Any]],
                       device: torch.device, group: Optional[Any]) -> None:
    if not gathered:
        return
    locals_ = [_local_tensor(e[4]) for e in gathered]
    meta = torch.zeros(len(gathered), _META_WIDTH, dtype=torch.int64)
    for row, tensor in enumerate(locals_):
        if tensor is None:
            continue
        if tensor.ndim > _MAX_NDIM:
            raise ValueError(f"States of more than {_MAX_NDIM} dimensions cannot be synced, got {tensor.shape}")
        flag = _AT_DEFAULT if _is_default(metrics, gathered[row]) else _PRESENT
        meta[row, :3] = torch.tensor([flag, _DTYPE_CODE[tensor.dtype], tensor.ndim])
        meta[row, 3 : 3 + tensor.ndim] = torch.tensor(tensor.shape)
    metas = [m.cpu() for m in _all_gather(meta.to(device), group)]  # one host sync for all shapes
    skipped = _check_gathered_shapes(gathered, metas)  # every rank sees the same metas: all raise, or none

    per_rank: list[list[Optional[Tensor]]] = [[None] * len(metas) for _ in gathered]
    codes = sorted({int(c) for m in metas for c in m[m[:, 0] >= _PRESENT, 1].tolist()})
    for code in codes:
        dtype = _DTYPES[code]
        wire_dtype = _WIRE_DTYPE.get(dtype, dtype)
        rows = [r for r in range(len(gathered))]
        sizes = [[_numel(m[r]) if m[r, 0] >= _PRESENT and m[r, 1] == code else 0 for r in rows]
                 for m in metas]
        longest = max(sum(s) for s in sizes)
        local = [locals_[r].reshape(-1).to(wire_dtype) for r in rows
                 if locals_[r] is not None and locals_[r].dtype == dtype]
        buffer = torch.zeros(longest, dtype=wire_dtype, device=device)
        if local:
            flat = torch.cat(local)
            buffer[: flat.numel()] = flat
        for rank, data in enumerate(_all_gather(buffer, group)):
            offset = 0
            for r in rows:
                n = sizes[rank][r]
                if metas[rank][r, 0] >= _PRESENT and metas[rank][r, 1] == code:
                    shape = tuple(int(x) for x in metas[rank][r, 3 : 3 + int(metas[rank][r, 2])])
                    per_rank[r][rank] = data[offset : offset + n].reshape(shape).to(dtype)
                offset += n

    for row, ((i, name, kind, fx, value), parts) in enumerate(zip(gathered, per_rank)):
        present = [p for rank, p in enumerate(parts) if p is not None and rank not in skipped[row]]
        results[i][name] = _combine_gathered(
            kind, fx, present, was_list=isinstance(value, list)
        )


_PRESENT, _AT_DEFAULT = 1, 2  # meta flags of a rank's state (0: absent, an empty list)


def _is_default(metrics: Sequence["Metric"], entry: tuple) -> bool:
    """A custom-reduction tensor state still equal to its default (a rank without updates)."""
    i, name, kind, _, value = entry
    default = metrics[i]._defaults[name]
    if kind != "custom" or not isinstance(value, Tensor) or not isinstance(default, Tensor):
        return False
    return value.shape == default.shape and bool(torch.equal(value.detach(), default.to(value.device)))


def _check_gathered_shapes(gathered: list, metas: list[Tensor]) -> list[set[int]]:
    """Cat states must agree on trailing dims across ranks, stacked tensor states on the whole shape.

    A custom-reduction state may grow on its first update (regression moments gain output
    columns); ranks still at the default then cannot be stacked with the others and, since
    merging a default changes nothing, are left out. Returns the ranks left out, per row.
    """
    skipped: list[set[int]] = []
    for row, (i, name, kind, _, value) in enumerate(gathered):
        skipped.append(set())
        if kind != "cat" and isinstance(value, list):
            continue  # kept as one item per rank: any shapes
        shapes, at_default = {}, set()
        for rank, meta in enumerate(metas):
            if meta[row, 0] >= _PRESENT:
                dims = tuple(int(d) for d in meta[row, 3 : 3 + int(meta[row, 2])])
                shapes[rank] = dims[1:] if kind == "cat" else dims
                if meta[row, 0] == _AT_DEFAULT:
                    at_default.add(rank)
        if len(set(shapes.values())) > 1 and at_default:
            skipped[-1] = at_default
            shapes = {r: s for r, s in shapes.items() if r not in at_default}
        if len(set(shapes.values())) > 1:
            what = "trailing shapes (after dim 0)" if kind == "cat" else "shapes"
            raise RuntimeError(
                f"Metric state {name!r} has different {what} across processes: "
                f"{', '.join(f'rank {r}: {s}' for r, s in shapes.items())}; every rank must hold the same "
                "metrics with the same arguments (num_classes, num_outputs, ...)."
            )
    return skipped


def _numel(meta_row: Tensor) -> int:
    n = 1
    for d in meta_row[3 : 3 + int(meta_row[2])].tolist():
        n *= int(d)
    return n


def _combine_gathered(kind: str, fx: Any, parts: list[Tensor], was_list: bool) -> Any:
    """Merge the per-rank values of one state (ranks without data already left out).

    A ``cat`` state that no rank added to stays what it is on one process, an empty list, so that
    ``compute`` gives N processes the value (or the error) it gives one process. (torchmetrics makes it
    ``tensor([])``, which many metrics then read as one sample of a wrong shape.)
    """
    if kind == "cat":
        if not parts:
            return []
        return torch.cat([p.reshape(1) if p.ndim == 0 else p for p in parts])
    if was_list:  # list states with another reduction: keep one item per rank, as torchmetrics does
        return parts
    stacked = torch.stack(parts)
    if kind == "none":
        return stacked
    return fx(stacked)
