"""Coalesced updates: small batches wait in a buffer and reach the metrics in one update.

A metric's update costs a fixed amount of Python and kernel-launch work (plus the host syncs of
input validation) whatever the batch size, so with small batches that fixed cost is most of
the time the metrics take in a fit. When every metric of a stage declares
:attr:`~lightning_metrics.Metric.additive_update` (one update over batches concatenated along
dim 0 equals one update per batch), the engine keeps up to ``max_batches`` batches (at most
``max_bytes`` of tensors) and updates once with their concatenation.

What stays exactly as without the buffer:

- the values: counts, histograms and concatenations are the same; float sums differ only in
  the order of the additions;
- the order of the samples in concatenated (``cat``) states;
- the update counts (``update_count``): a joined update of ``k`` batches counts ``k`` updates;
- errors: if the joined update fails, nothing was applied (updates are all-or-nothing) and the
  batches are replayed one by one, so the state holds exactly the batches before the bad one and
  the error raised is that batch's own, with a note naming its ``batch_idx``. Only the moment
  differs: the error surfaces when the buffer is flushed, up to ``max_batches - 1`` batches later.

Batches that cannot join the buffer (non-tensor or 0-d arguments, or dtypes or numbers of dims
that differ from the buffered ones) flush it and are updated alone, in order. Batches that join
it but cannot be concatenated or updated together (other trailing shapes or devices) are found
at the flush, which replays them one by one and turns coalescing off for those metrics.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import torch
from torch import Tensor

DEFAULT_MAX_BATCHES = 256
DEFAULT_MAX_BYTES = 8 * 2**20


class BatchBuffer:
    """Batches of tensor arguments waiting for one update over their concatenation.

    >>> import torch
    >>> buffer = BatchBuffer(max_batches=3)
    >>> buffer.add((torch.tensor([0.1, 0.9]), torch.tensor([0, 1])), label=0)
    True
    >>> buffer.add((torch.tensor([0.4]), torch.tensor([1])), label=1)
    True
    >>> buffer.add((torch.tensor([[0.4]]), torch.tensor([1])), label=2)  # 2-d preds now
    False
    >>> seen = []
    >>> buffer.flush(lambda args, batches: seen.append((args, batches)))  # True: the joined update passed
    True
    >>> seen
    [((tensor([0.1000, 0.9000, 0.4000]), tensor([0, 1, 1])), 2)]
    """

    def __init__(self, max_batches: int = DEFAULT_MAX_BATCHES, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.max_batches = max_batches
        self.max_bytes = max_bytes
        self.batches: list[list[Tensor]] = []
        self.labels: list[Any] = []
        self._layout: tuple = ()  # (dtype, ndim) of each argument of the buffered batches
        self._row_bytes = 0  # bytes of one sample over all arguments
        self.nbytes = 0

    def __len__(self) -> int:
        return len(self.batches)

    @property
    def full(self) -> bool:
        return len(self.batches) >= self.max_batches or self.nbytes >= self.max_bytes

    def add(self, args: tuple, label: Any = None) -> bool:
        """Keep ``args`` (detached) for the next flush; False, keeping nothing, when they cannot join.

        Only what makes a concatenation meaningful is checked here, cheaply: tensors of at least
        one dim, with the dtypes (no type promotion in ``torch.cat``) and dims of the buffered
        ones. Anything else that ``torch.cat`` or the joined update rejects (trailing shapes,
        devices, lengths that differ between arguments) is caught at the flush, which then
        replays the batches one by one.
        """
        batches = self.batches
        if batches:
            layout = self._layout
            if len(args) != len(layout):
                return False
            kept = []
            for arg, (dtype, ndim) in zip(args, layout):
                if not isinstance(arg, Tensor) or arg.dtype != dtype or arg.ndim != ndim:
                    return False
                kept.append(arg.detach() if arg.requires_grad else arg)
        else:
            if not args or not all(isinstance(arg, Tensor) and arg.ndim for arg in args):
                return False
            self._layout = tuple((arg.dtype, arg.ndim) for arg in args)
            self._row_bytes = sum(arg.numel() * arg.element_size() for arg in args) // max(
                args[0].shape[0], 1
            )
            kept = [arg.detach() if arg.requires_grad else arg for arg in args]
        batches.append(kept)
        self.labels.append(label)
        self.nbytes += self._row_bytes * args[0].shape[0]
        return True

    def clear(self) -> None:
        self.batches, self.labels, self._layout, self.nbytes = [], [], (), 0

    def flush(
        self,
        update: Callable[[tuple, int], Any],
        on_error: Optional[Callable[[BaseException, Any], None]] = None,
    ) -> bool:
        """``update(args, batches)`` once with the concatenated batches; on failure replay them one by one.

        ``batches`` says how many batches ``args`` holds (for update counts).

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
            joined = tuple(torch.cat(parts) for parts in zip(*batches))
            update(joined, len(batches))
            return True
        except Exception:
            pass  # updates are all-or-nothing: nothing was applied; find the batch that fails
        for args, label in zip(batches, labels):
            _call(update, tuple(args), label, on_error)
        return False


def _call(update: Callable[[tuple, int], Any], args: tuple, label: Any, on_error: Optional[Callable]) -> None:
    try:
        update(args, 1)
    except Exception as err:
        if on_error is not None:
            on_error(err, label)
        raise
