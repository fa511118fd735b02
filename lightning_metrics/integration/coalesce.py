"""Coalesced updates: small batches wait in a buffer and reach the metrics in one update.

A metric's update costs a fixed amount of Python and kernel-launch work (plus the host syncs of
input validation) whatever the batch size, so with small batches that fixed cost is most of
the time the metrics take in a fit. When every metric of a stage declares
:attr:`~lightning_metrics.Metric.additive_update` (one update over batches concatenated along
dim 0 equals one update per batch), the engine keeps up to ``max_batches`` batches (at most
``max_bytes`` of tensors) and updates once with their concatenation. All of the package's metrics
declare it except ``Running*``, ``MinMaxMetric``, ``BootStrapper``, ``MetricTracker``,
``MultitaskWrapper``, ``MultioutputWrapper`` with a negative ``output_dim`` and
``CriticalSuccessIndex`` with ``keep_sequence_dim > 0``; a metric of your own joins in when it
sets the class attribute ``additive_update = True``. ``MetricsCallback(coalesce_batches=256)``
sets ``max_batches`` (``1``: an update per batch; the mixin's attribute is
``metrics_coalesce_batches``).

What stays exactly as without the buffer:

- the values: counts, histograms and concatenations are the same; float sums differ only in
  the order of the additions;
- the order of the samples in concatenated (``cat``) states;
- the update counts (``update_count``): a joined update of ``k`` batches counts ``k`` updates;
- errors: if the joined update fails, nothing was applied (updates are all-or-nothing) and the
  batches are replayed one by one, so the state holds exactly the batches before the bad one and
  the error raised is that batch's own, with a note naming its ``batch_idx``. Only the moment
  differs: the error surfaces when the buffer is flushed, up to ``max_batches - 1`` batches later.

Inputs of every kind join: tensors are concatenated along dim 0, lists (of dicts, of strings,
of lists of references) are extended, tuples are chained, and dicts are joined key by key.
Batches that cannot join the buffer (a 0-d tensor, a string or a number among the arguments, or
kinds, dtypes, numbers of dims or dict keys that differ from the buffered ones) flush it and are
updated alone, in order. Batches that join it but cannot be concatenated or updated together
(other trailing shapes or devices) are found at the flush, which replays them one by one and
turns coalescing off for those metrics.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import torch
from torch import Tensor

DEFAULT_MAX_BATCHES = 256
DEFAULT_MAX_BYTES = 8 * 2**20


class BatchBuffer:
    """Batches of arguments waiting for one update over their concatenation.

    >>> import torch
    >>> buffer = BatchBuffer(max_batches=3)
    >>> buffer.add((torch.tensor([0.1, 0.9]), ["a cat", "a dog"]), label=0)
    True
    >>> buffer.add((torch.tensor([0.4]), ["a cow"]), label=1)
    True
    >>> buffer.add((torch.tensor([[0.4]]), ["an ant"]), label=2)  # 2-d preds now
    False
    >>> seen = []
    >>> buffer.flush(lambda args, batches, label: seen.append((args, batches)))  # True: the joined update passed
    True
    >>> seen
    [((tensor([0.1000, 0.9000, 0.4000]), ['a cat', 'a dog', 'a cow']), 2)]
    """

    def __init__(self, max_batches: int = DEFAULT_MAX_BATCHES, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.max_batches = max_batches
        self.max_bytes = max_bytes
        self.batches: list[list[Any]] = []
        self.labels: list[Any] = []
        self._layout: tuple = ()  # the kind of each argument of the buffered batches (see _kind)
        self.nbytes = 0

    def __len__(self) -> int:
        return len(self.batches)

    @property
    def full(self) -> bool:
        return len(self.batches) >= self.max_batches or self.nbytes >= self.max_bytes

    def add(self, args: tuple, label: Any = None) -> bool:
        """Keep ``args`` (tensors detached) for the next flush; False, keeping nothing, when they cannot join.

        Only what makes a concatenation meaningful is checked here, cheaply: tensors of at least
        one dim with the dtypes (no type promotion in ``torch.cat``) and dims of the buffered
        ones, lists, tuples and dicts (with the same keys) where the buffered batches have them.
        Anything else that the join or the joined update rejects (trailing shapes, devices,
        lengths that differ between arguments) is caught at the flush, which then replays the
        batches one by one. Only tensors count towards ``max_bytes`` (lists hold references:
        joining them copies no data).
        """
        batches = self.batches
        if batches:
            layout = self._layout
            if len(args) != len(layout):
                return False
            kept, nbytes = [], 0
            for arg, kind in zip(args, layout):
                if arg.__class__ is Tensor and kind.__class__ is tuple and len(kind) == 2:  # the common case
                    if arg.dtype != kind[0] or arg.ndim != kind[1]:
                        return False
                    nbytes += arg.numel() * arg.element_size()
                    kept.append(arg.detach() if arg.requires_grad else arg)
                elif _kind(arg) == kind:
                    nbytes += _nbytes(arg)
                    kept.append(_detached(arg))
                else:
                    return False
        else:
            layout = tuple(_kind(arg) for arg in args)
            if not args or any(kind is None for kind in layout):
                return False
            self._layout = layout
            kept = [_detached(arg) for arg in args]
            nbytes = sum(_nbytes(arg) for arg in args)
        batches.append(kept)
        self.labels.append(label)
        self.nbytes += nbytes
        return True

    def clear(self) -> None:
        self.batches, self.labels, self._layout, self.nbytes = [], [], (), 0

    def flush(
        self,
        update: Callable[[tuple, int, Any], Any],
        on_error: Optional[Callable[[BaseException, Any], None]] = None,
    ) -> bool:
        """``update(args, batches, label)`` once with the joined batches; on failure replay them one by one.

        ``batches`` says how many batches ``args`` holds (for update counts); ``label`` is the
        batch's label when ``args`` is one batch, else ``None``.

        Returns False when the joined update failed but every batch passed alone (the batches
        could not be joined, or the metrics are not additive after all: the caller should stop
        coalescing); True otherwise. The error of the first batch that fails alone is raised,
        after ``on_error(error, label)``.
        """
        batches, labels = self.batches, self.labels
        self.clear()
        if not batches:
            return True
        if len(batches) == 1:
            _call(update, tuple(batches[0]), labels[0], on_error)
            return True
        try:
            joined = tuple(_join(parts) for parts in zip(*batches))
            update(joined, len(batches), None)
            return True
        except Exception:
            pass  # updates are all-or-nothing: nothing was applied; find the batch that fails
        for args, label in zip(batches, labels):
            _call(update, tuple(args), label, on_error)
        return False


def _kind(arg: Any) -> Any:
    """What an argument must match to join the buffered ones (None: it cannot join)."""
    if isinstance(arg, Tensor):
        return (arg.dtype, arg.ndim) if arg.ndim else None
    if isinstance(arg, list):
        return list
    if isinstance(arg, tuple):
        return tuple
    if isinstance(arg, dict):
        kinds = tuple((key, _kind(value)) for key, value in arg.items())
        return None if any(kind is None for _, kind in kinds) else (dict, kinds)
    return None


def _join(parts: tuple) -> Any:
    first = parts[0]
    if isinstance(first, Tensor):
        return torch.cat(parts)
    if isinstance(first, list):
        return [item for part in parts for item in part]
    if isinstance(first, tuple):
        return tuple(item for part in parts for item in part)
    return {key: _join(tuple(part[key] for part in parts)) for key in first}


def _detached(arg: Any) -> Any:
    if isinstance(arg, Tensor):
        return arg.detach() if arg.requires_grad else arg
    if isinstance(arg, dict):
        return {key: _detached(value) for key, value in arg.items()}
    return arg  # lists and tuples keep their items: the joined update reads them as they are


def _nbytes(arg: Any) -> int:
    if isinstance(arg, Tensor):
        return arg.numel() * arg.element_size()
    if isinstance(arg, dict):
        return sum(_nbytes(value) for value in arg.values())
    return 0


def _call(update: Callable[[tuple, int, Any], Any], args: tuple, label: Any, on_error: Optional[Callable]) -> None:
    try:
        update(args, 1, label)
    except Exception as err:
        if on_error is not None:
            on_error(err, label)
        raise
