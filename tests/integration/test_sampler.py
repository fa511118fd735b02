"""The DistributedSampler padding plan: the kept samples are the dataset, exactly once."""

from __future__ import annotations

import pytest
import torch
from torch.utils.data import BatchSampler, DataLoader, DistributedSampler, RandomSampler, TensorDataset

from lightning_metrics.integration.sampler import (
    ShardPadding,
    leading_len,
    plan_padding,
    real_samples_on_rank,
    trim_batch,
)

CASES = [(n, w, b, shuffle) for n in (1, 5, 7, 16, 101) for w in (2, 3, 4) for b in (1, 4, 16) for shuffle in (False, True)]


@pytest.mark.parametrize(("n", "world", "batch", "shuffle"), CASES)
def test_kept_samples_are_the_dataset_exactly_once(n: int, world: int, batch: int, shuffle: bool) -> None:
    data = TensorDataset(torch.arange(n))
    kept = []
    for rank in range(world):
        sampler = DistributedSampler(data, num_replicas=world, rank=rank, shuffle=shuffle, seed=3)
        loader = DataLoader(data, batch_size=batch, sampler=sampler)
        plan = plan_padding(loader)
        assert plan is None or isinstance(plan, ShardPadding)
        for batch_idx, (x,) in enumerate(loader):
            if plan is None:
                kept.append(x)
                continue
            assert plan.batch_len(batch_idx) == len(x)
            keep = plan.keep(batch_idx, len(x))
            kept.append(trim_batch((x,), keep)[0])
    assert sorted(torch.cat(kept).tolist()) == list(range(n))


def test_real_samples_per_rank_sum_to_the_dataset() -> None:
    for n in range(0, 30):
        for world in range(1, 6):
            assert sum(real_samples_on_rank(n, world, r) for r in range(world)) == n


@pytest.mark.parametrize(
    ("make_loader", "reason"),
    [
        (lambda d: DataLoader(d, batch_size=4), "SequentialSampler, not a DistributedSampler"),
        (lambda d: DataLoader(d, batch_size=4, sampler=RandomSampler(d)), "RandomSampler"),
        (
            lambda d: DataLoader(d, batch_sampler=_Custom(DistributedSampler(d, 2, 0), 4, False)),
            "custom batch sampler (_Custom)",
        ),
        (lambda d: [1, 2, 3], "not a torch DataLoader"),
        (
            lambda d: DataLoader(d, batch_size=4, sampler=DistributedSampler(d, 2, 0, drop_last=True)),
            "drop_last=True: 1 of 9 samples are never seen",
        ),
    ],
)
def test_unknown_layouts_give_a_reason(make_loader, reason: str) -> None:
    plan = plan_padding(make_loader(TensorDataset(torch.arange(9))))
    assert isinstance(plan, str) and reason in plan


class _Custom(BatchSampler):
    pass


def test_nothing_to_trim_when_the_split_is_even() -> None:
    data = TensorDataset(torch.arange(8))
    assert plan_padding(DataLoader(data, batch_size=3, sampler=DistributedSampler(data, 2, 1))) is None
    assert plan_padding(DataLoader(data, batch_size=3, sampler=DistributedSampler(data, 4, 3, drop_last=True))) is None


def test_leading_len_and_trim() -> None:
    assert leading_len((torch.zeros(3, 2), [0, 1, 2])) == 3
    assert leading_len((torch.zeros(3), torch.tensor(1.0))) == 3  # a 0-d tensor is not per sample
    assert leading_len((torch.zeros(3), torch.zeros(4))) is None
    preds, target = trim_batch((torch.arange(6).reshape(3, 2), torch.arange(3)), 2)
    assert preds.shape == (2, 2) and target.tolist() == [0, 1]
