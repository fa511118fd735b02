"""How the engine hands scalars to Lightning's ``self.log``: the batch values of ``log_on_step``, the
epoch values (with the best so far of ``track_best``) and the bounds of ``confidence_intervals``.

A mixin of :class:`~.engine.MetricsEngine`, which owns the state it reads (``router``, ``tracking``,
``results``, ``_report`` while a finished epoch is reported at resume, ``_quiet_keys``).
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Optional

import torch
from torch import Tensor

from lightning_metrics.integration._packages import possible_user_warnings
from lightning_metrics.integration.compat import log_keyed
from lightning_metrics.integration.routing import ResultKind, classify, scalar_items


class EngineLogging:
    """The engine's writers to ``self.log`` (see the module docstring)."""

    def _log_step_values(self, pl_module: Any, stage: str, dataloader_idx: int, trainer: Any, values: dict) -> None:
        several = self._num_dataloaders(trainer, stage) > 1
        suffix = f"/dataloader_idx_{dataloader_idx}" if several else ""
        for name, value in scalar_items(values, self.router.separator):  # a task's metrics: "task/acc"
            if classify(value) is not ResultKind.SCALAR:
                continue  # batch values are scalars only; the epoch value routes the rest
            value = torch.as_tensor(value).detach().reshape(())
            if not value.is_floating_point():
                value = value.float()
            log_keyed(
                pl_module, f"{self.router.key(stage, name)}_step{suffix}", value, on_step=True, on_epoch=False,
                prog_bar=self.router._on_prog_bar_name(name), logger=None, sync_dist=False, batch_size=1,
            )

    def _log_interval(self, trainer: Any, pl_module: Any, stage: str, name: str, dataloader_idx: Optional[int],
                      bounds: tuple[Tensor, Tensor]) -> None:
        key = self.router.key(stage, name) + ("" if dataloader_idx is None else f"/dataloader_idx_{dataloader_idx}")
        if bounds[0].numel() != 1:
            self._warn_once(("interval", key), f"{self.owner}: no interval is logged for {key!r}: it is not a scalar.")
            return
        for bound_key, bound in zip(self.tracking.interval_keys(key), bounds):
            self.results[bound_key] = bound.detach()
            self._log_epoch(trainer, pl_module, bound_key, bound.detach().reshape(()).float(), False, track=False)

    def _log_epoch(self, trainer: Any, pl_module: Any, key: str, value: Tensor, prog_bar: bool,
                   track: bool = True) -> None:
        if trainer.world_size > 1 and key not in self._quiet_keys and self._report is None:
            # The value is computed from synced states, equal on every rank: Lightning's advice to
            # pass sync_dist=True would only add one all_reduce per key. Silence it for our keys.
            for category in possible_user_warnings():
                warnings.filterwarnings(
                    "ignore", message=re.escape(f"It is recommended to use `self.log({key!r}"), category=category
                )
            self._quiet_keys.add(key)
        epoch = trainer.current_epoch
        if self._report is not None:  # a finished epoch's restored values, logged to the loggers directly
            self._report[0][key] = value
            epoch = self._report[1]
        else:
            # Logged once per epoch: the "sum" of that one value is the value, and spares Lightning the
            # batch-size weights it keeps for "mean" (one state less to create, update and divide by).
            log_keyed(
                pl_module, key, value, prog_bar=prog_bar, logger=None, on_step=False, on_epoch=True,
                reduce_fx="sum", sync_dist=False, batch_size=1,
            )
        if track:  # the best so far of the metrics that track it (same value on every rank)
            for best_key, best in self.tracking.best_logs(key, value, epoch, self._metric_of):
                self.results[best_key] = best
                self._log_epoch(trainer, pl_module, best_key, best, False, track=False)
