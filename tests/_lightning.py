"""Shared pieces of the domains' Lightning tests (detection, image, segmentation, retrieval).

A domain's ``_lightning_model.py`` (importable by the DDP subprocess) exports ``VAL_SIZE``,
``loader(n, seed)``, ``trainer(**overrides)`` and its model class. Its tests fit the model once in
this process (:func:`fit_logged`) and once under 2-process DDP (:func:`two_process_logged`, which
runs the same :func:`fit_logged` on each rank) and compare both with an oracle
(:func:`assert_logged`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import lightning.pytorch as L
import torch
from torch.utils.data import DataLoader

from tests.integration.integration_helpers import assert_close, run_script

QUIET: dict[str, Any] = {
    "accelerator": "cpu",
    "devices": 1,
    "max_epochs": 1,
    "logger": False,
    "enable_progress_bar": False,
    "enable_model_summary": False,
    "enable_checkpointing": False,
    "num_sanity_val_steps": 0,
}


def quiet_trainer(**overrides: Any) -> L.Trainer:
    """A one-epoch CPU ``Trainer`` without logger, progress bar, summary, checkpoints or sanity
    check; ``overrides`` replace or add ``Trainer`` arguments."""
    return L.Trainer(**{**QUIET, **overrides})


class StepModel(L.LightningModule):
    """Every step maps a batch ``(inputs, target)`` to ``{"loss", "preds": self(inputs), "target"}``,
    the outputs the callback and the mixin read. A subclass defines ``forward`` and ``loss``."""

    def loss(self, preds: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def _step(self, batch: Any) -> dict[str, torch.Tensor]:
        inputs, target = batch
        preds = self(inputs)
        return {"loss": self.loss(preds, target), "preds": preds, "target": target}

    def training_step(self, batch: Any, batch_idx: int) -> dict[str, torch.Tensor]:
        return self._step(batch)

    def validation_step(self, batch: Any, batch_idx: int) -> dict[str, torch.Tensor]:
        return self._step(batch)

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=0.0)  # the same weights on any number of devices


def fit_logged(
    trainer: L.Trainer, model: L.LightningModule, loader: Callable[[int, int], DataLoader], val_size: int
) -> dict[str, float]:
    """Fit ``model`` on ``loader(8, 0)``, validating on ``loader(val_size, 1)``; the logged values."""
    trainer.fit(model, loader(8, 0), loader(val_size, 1))
    return {k: float(v) for k, v in trainer.callback_metrics.items()}


_DDP_SCRIPT = """
import json
import torch
from tests._lightning import fit_logged
from {module} import VAL_SIZE, {model}, loader, trainer

torch.set_num_threads(1)
fit = trainer(devices=2, strategy="ddp")
logged = fit_logged(fit, {model}(), loader, VAL_SIZE)
with open(f"rank{{fit.global_rank}}.json", "w") as handle:
    json.dump(logged, handle)
"""


def two_process_logged(module: str, model: str, tmp_path: Path) -> dict[str, float]:
    """:func:`fit_logged` of ``module``'s ``model`` class under 2-process DDP (``module``: the import
    path of a ``_lightning_model``); the values logged, which both ranks must agree on."""
    run_script(_DDP_SCRIPT.format(module=module, model=model), tmp_path, timeout=240)
    ranks = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in (0, 1)]
    assert ranks[0] == ranks[1]
    return ranks[0]


def assert_logged(logged: dict[str, float], expected: dict[str, float]) -> None:
    """Every expected key was logged, with the expected value."""
    assert set(expected) <= set(logged), sorted(logged)
    for key, value in expected.items():
        assert_close(logged[key], value, key)
