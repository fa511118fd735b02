"""``PooledBootstrap``: streaming Poisson-bootstrap replicates of one statistic, read by several metrics.

The engine's confidence intervals (:mod:`lightning_metrics.integration.tracking`) put one of these
in a stage's collection per shared statistic; it syncs in the collection's one fused exchange.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from copy import deepcopy
from typing import Any

import torch
from torch import Tensor, nn

from lightning_metrics._states import _apply_tensors
from lightning_metrics.metric import Metric
from lightning_metrics.wrappers._base import WrapperMetric, first_tensor, rollback_on_error

CI_MARK = "@ci"  # in the collection keys of the bootstrap replicates and of their results


def check_interval_args(num_bootstraps: Any, level: Any, names: tuple[str, str] = ("num_bootstraps", "level")) -> None:
    """Raise ``ValueError`` unless ``num_bootstraps >= 2`` is an integer and ``0 < level < 1``.

    >>> check_interval_args(100, 1.5, ("ci_bootstraps", "ci_level"))
    Traceback (most recent call last):
    ...
    ValueError: Argument `ci_level` must be a number in (0, 1), got 1.5
    """
    if isinstance(num_bootstraps, bool) or not isinstance(num_bootstraps, int) or num_bootstraps < 2:
        raise ValueError(f"Argument `{names[0]}` must be an integer >= 2, got {num_bootstraps!r}")
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < level < 1:
        raise ValueError(f"Argument `{names[1]}` must be a number in (0, 1), got {level!r}")


def _fresh(metric: Metric) -> Metric:
    copy = deepcopy(metric)
    copy.reset()
    return copy


class PooledBootstrap(WrapperMetric):
    """Poisson-bootstrap replicates of one statistic, read by one or more metrics.

    Args:
        leader: the metric whose ``update`` builds the statistic (a template; it is copied).
        evaluators: name -> metric computing a value from that statistic (equal
            ``statistic_spec``, or the leader itself).
        num_bootstraps: the number of replicates.
        level: the coverage of the intervals, in (0, 1).
        seed: the seed of the resampling; each process adds its rank, so ranks draw
            independently and runs are reproducible.

    ``compute`` returns ``{f"{name}@ci": tensor([low, high])}``.

    >>> import torch
    >>> from lightning_metrics.aggregation import MeanMetric
    >>> boot = PooledBootstrap(MeanMetric(), {"mean": MeanMetric()}, num_bootstraps=50)
    >>> boot.update(torch.arange(1000.0))
    >>> low, high = boot.compute()["mean@ci"]
    >>> bool(460 < low < 499.5 < high < 540)
    True
    """

    full_state_update = False

    def __init__(self, leader: Metric, evaluators: Mapping[str, Metric], num_bootstraps: int = 100,
                 level: float = 0.95, seed: int = 0) -> None:
        super().__init__()
        check_interval_args(num_bootstraps, level)
        self.replicates = nn.ModuleList([_fresh(leader) for _ in range(num_bootstraps)])
        self.evaluators = nn.ModuleDict({name: _fresh(metric) for name, metric in evaluators.items()})
        for evaluator in self.evaluators.values():
            # evaluators read replicates that are already pooled: they never sync themselves
            evaluator.sync_on_compute = False
            evaluator._to_sync = False
        self.level, self.seed = float(level), int(seed)
        self._generator: torch.Generator | None = None

    def _sync_tree(self) -> list[Metric]:
        # the evaluators only borrow a replicate's states in compute: nothing of theirs to sync
        return [m for m in (self, *self.replicates) if not m._is_synced]

    def _rng(self) -> torch.Generator:
        if self._generator is None:
            rank = torch.distributed.get_rank() if self.distributed_available_fn() else 0
            self._generator = torch.Generator().manual_seed(self.seed + 7919 * rank)
        return self._generator

    def update(self, *args: Any, **kwargs: Any) -> None:
        """Add the batch to every replicate, each row repeated ``Poisson(1)`` times."""
        sample = first_tensor(*args, *kwargs.values())
        if sample is None:
            raise ValueError("PooledBootstrap: none of the inputs is a tensor, so there are no rows to resample")
        counts = torch.poisson(torch.ones(len(self.replicates), len(sample)), generator=self._rng()).long()
        with rollback_on_error(self.replicates):
            for replicate, count in zip(self.replicates, counts):
                index = torch.repeat_interleave(count)
                if index.numel() == 0:
                    continue

                def select(t: Tensor, index: Tensor = index) -> Tensor:
                    return t.index_select(0, index.to(t.device))

                replicate.update(*_apply_tensors(args, select), **_apply_tensors(kwargs, select))

    def forward(self, *args: Any, **kwargs: Any) -> None:
        """Accumulate the batch; there is no batch value (intervals are for the epoch)."""
        self.update(*args, **kwargs)

    def compute(self) -> dict[str, Tensor]:
        """The interval of every evaluator over the replicates that received data."""
        used = [r for r in self.replicates if r._update_count > 0]
        out = {}
        for name, evaluator in self.evaluators.items():
            values = []
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # e.g. zero division in a small replicate
                for replicate in used:
                    evaluator._share_states_of(replicate)
                    values.append(torch.as_tensor(evaluator.compute()).detach().float())
            evaluator._reset_states_only()
            if not values:
                out[f"{name}{CI_MARK}"] = torch.full((2,), float("nan"))
                continue
            stacked = torch.stack(values)
            q = torch.tensor([(1 - self.level) / 2, (1 + self.level) / 2], device=stacked.device)
            out[f"{name}{CI_MARK}"] = torch.nanquantile(stacked, q, dim=0)
        return out

    def reset(self) -> None:
        super().reset()
        for metric in (*self.replicates, *self.evaluators.values()):
            metric.reset()
