"""Exact metrics under DDP: find and drop the padding of a ``DistributedSampler``.

With ``drop_last=False``, :class:`torch.utils.data.DistributedSampler` pads the index list to
``ceil(N / W) * W`` by repeating its head, and rank ``r`` reads positions ``r, r + W, r + 2W, ...``
of the padded list, shuffled or not. So the samples of rank ``r`` whose position is at least
``N`` are repeats. They always sit at the end of the rank's stream: rank ``r`` owns exactly
``len(range(r, N, W))`` real samples and everything after them is padding.

Given the loader of a stage, :func:`plan_padding` says how many real samples the rank owns and
the batch size, so the engine can trim each batch before ``update`` from ``batch_idx`` alone
(no counters, no host sync). Where the layout cannot be known, it returns the reason, which the
engine turns into a single warning.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Union

from torch import Tensor
from torch.utils.data import BatchSampler, DataLoader, DistributedSampler


@dataclass(frozen=True)
class ShardPadding:
    """One rank's shard of ``shard_len`` samples read in batches of ``batch_size``, of which the
    first ``valid`` are real and the rest repeats.

    >>> padding = ShardPadding(valid=50, batch_size=16, shard_len=51)  # 101 samples, 2 ranks, rank 1
    >>> [padding.batch_len(i) for i in range(4)], [padding.keep(i, padding.batch_len(i)) for i in range(4)]
    ([16, 16, 16, 3], [16, 16, 16, 2])
    """

    valid: int
    batch_size: int
    shard_len: int

    def batch_len(self, batch_idx: int) -> int:
        """The number of samples in batch ``batch_idx`` of the shard."""
        return max(0, min(self.batch_size, self.shard_len - batch_idx * self.batch_size))

    def keep(self, batch_idx: int, batch_len: int) -> int:
        """How many leading samples of batch ``batch_idx`` (of ``batch_len`` samples) are real."""
        return min(batch_len, max(0, self.valid - batch_idx * self.batch_size))


# What plan_padding returns: a plan, None (nothing to correct), or why exactness is unknown.
PaddingPlan = Union[ShardPadding, None, str]


def real_samples_on_rank(dataset_len: int, world_size: int, rank: int) -> int:
    """The number of real (not repeated) samples rank ``rank`` reads from a padded sampler.

    >>> [real_samples_on_rank(101, 2, r) for r in range(2)]
    [51, 50]
    >>> [real_samples_on_rank(5, 4, r) for r in range(4)]
    [2, 1, 1, 1]
    """
    return len(range(rank, dataset_len, world_size))


def plan_padding(loader: Any) -> PaddingPlan:
    """How to trim the padded tail of ``loader``'s stream on this rank.

    Returns a :class:`ShardPadding` when the loader's sampler pads this rank's shard, ``None``
    when nothing needs trimming, and a string (the reason) when the sample layout is unknown.

    >>> import torch
    >>> from torch.utils.data import DataLoader, DistributedSampler, TensorDataset
    >>> data = TensorDataset(torch.arange(101))
    >>> sampler = DistributedSampler(data, num_replicas=2, rank=1, shuffle=True)
    >>> plan_padding(DataLoader(data, batch_size=16, sampler=sampler))
    ShardPadding(valid=50, batch_size=16, shard_len=51)
    >>> plan_padding(DataLoader(data, batch_size=16)) # doctest: +ELLIPSIS
    'its sampler is a SequentialSampler, not a DistributedSampler...'
    """
    if not isinstance(loader, DataLoader):
        return f"it is a {type(loader).__name__}, not a torch DataLoader; its sharding is unknown"
    batch_sampler = loader.batch_sampler
    sampler = getattr(batch_sampler, "sampler", None) if batch_sampler is not None else loader.sampler
    if not isinstance(sampler, DistributedSampler):
        return (
            f"its sampler is a {type(sampler).__name__}, not a DistributedSampler, so padded or "
            "repeated samples (if any) cannot be located"
        )
    if batch_sampler is not None and type(batch_sampler) is not BatchSampler:
        return (
            f"it uses a custom batch sampler ({type(batch_sampler).__name__}), so the position of a "
            "sample in the shard cannot be derived from the batch index"
        )
    world_size, rank = int(sampler.num_replicas), int(sampler.rank)
    dataset_len = len(sampler.dataset)  # type: ignore[arg-type]
    if sampler.drop_last:
        if dataset_len % world_size:
            return (
                f"its DistributedSampler has drop_last=True: {dataset_len % world_size} of "
                f"{dataset_len} samples are never seen"
            )
        return None
    valid = real_samples_on_rank(dataset_len, world_size, rank)
    if valid >= int(sampler.num_samples):  # not padded (even split, or an unrepeated sampler)
        return None
    batch_size = batch_sampler.batch_size if batch_sampler is not None else 1
    return ShardPadding(valid=valid, batch_size=int(batch_size), shard_len=int(sampler.num_samples))


def trim_batch(args: tuple, keep: int) -> tuple:
    """Keep the first ``keep`` samples of every per-sample input in ``args``.

    Tensors are cut along dim 0, lists and tuples (of dicts, of strings, of lists of references)
    by their length, and a dict by cutting each of its values; anything else (a 0-d tensor, a
    string, a number) is not per sample and stays as it is.

    >>> import torch
    >>> trim_batch((torch.arange(4), [{"boxes": 1}, {"boxes": 2}, {"boxes": 3}, {"boxes": 4}], "meta"), 3)
    (tensor([0, 1, 2]), [{'boxes': 1}, {'boxes': 2}, {'boxes': 3}], 'meta')
    >>> trim_batch(({"scores": torch.arange(4), "query": torch.tensor([0, 0, 1, 1])}, ("a", "b", "c", "d")), 2)
    ({'scores': tensor([0, 1]), 'query': tensor([0, 0])}, ('a', 'b'))
    """
    return tuple(_trim(a, keep) for a in args)


def _trim(value: Any, keep: int) -> Any:
    if isinstance(value, Tensor):
        return value[:keep] if value.ndim else value
    if isinstance(value, (list, tuple)):
        return value[:keep]
    if isinstance(value, dict):
        return {k: _trim(v, keep) for k, v in value.items()}
    return value


def leading_len(args: tuple) -> Optional[int]:
    """The number of samples shared by the per-sample inputs in ``args``, or ``None`` if they disagree.

    The leading dimension of a tensor, the length of a list or tuple, the common leading length of
    a dict's values; 0-d tensors, strings and numbers are not per sample and do not count.

    >>> import torch
    >>> leading_len((torch.zeros(4, 3), torch.zeros(4), torch.tensor(0.5)))
    4
    >>> leading_len(([{"labels": torch.zeros(2)}, {"labels": torch.zeros(7)}], [["a ref", "another"], ["x"]]))
    2
    >>> leading_len((torch.zeros(4, 3), torch.zeros(5))) is None
    True
    """
    lengths: set = set()
    for arg in args:
        _collect_lengths(arg, lengths)
    return lengths.pop() if len(lengths) == 1 else None


def _collect_lengths(value: Any, lengths: set) -> None:
    if isinstance(value, Tensor):
        if value.ndim:
            lengths.add(value.shape[0])
    elif isinstance(value, (list, tuple)):
        lengths.add(len(value))
    elif isinstance(value, dict):
        for inner in value.values():
            _collect_lengths(inner, lengths)


def stage_loader(trainer: Any, stage: str, dataloader_idx: int) -> Any:
    """The (Lightning-processed, sampler-injected) dataloader of ``stage`` and ``dataloader_idx``."""
    if stage == "train":
        combined = trainer.fit_loop._combined_loader
    else:
        loop = trainer._evaluation_loop if stage == "val" else trainer.test_loop
        combined = getattr(loop, "_combined_loader", None)
    if combined is None:
        return None
    loaders = combined.flattened
    if stage == "train" and len(loaders) != 1:
        return combined  # several train loaders: not a single DataLoader, reported as unknown
    return loaders[dataloader_idx] if dataloader_idx < len(loaders) else None
