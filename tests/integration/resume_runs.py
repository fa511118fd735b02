"""The fits of the resume matrix: one save run per checkpoint point and the runs resumed from it.

Every fit trains ``KindsMixinModel`` (lr=0: the same weights on any number of processes) with a
``MetricsCallback`` beside the mixin, over 2 epochs, and writes what it logged (rank 0, from the
CSV logger) and which samples each rank fed (``{name}.rank{r}.json``). Importable by name: the
2-process script imports it.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from typing import Any, Optional

import lightning.pytorch as L
from lightning.pytorch.callbacks import Checkpoint
from lightning.pytorch.loggers import CSVLogger

import lightning_metrics as lm
from tests.integration.input_kinds import KINDS_INPUTS, KindsMixinModel, kinds_metrics, loader

POINTS = ("mid", "last", "midval", "end")
TRAIN_SIZE, VAL_SIZE, BATCH = 24, 13, 4  # 13: the DistributedSampler pads the val set on 2 ranks


class SaveAt(Checkpoint):
    """Writes one checkpoint in epoch 0 at ``point`` (a ``Checkpoint``: Lightning runs it after the
    other callbacks, as it does ``ModelCheckpoint``):

    - ``mid``: the end of train batch 1 (``every_n_train_steps``);
    - ``last``: the end of the last train batch (``every_n_train_steps`` falling on it);
    - ``midval``: the end of val batch 1 (an exception or a signal during validation);
    - ``end``: the end of validation (``ModelCheckpoint``'s default point).
    """

    def __init__(self, point: str, path: str) -> None:
        self.point, self.path = point, path
        self.seen: Optional[dict[str, list]] = None  # what the model had fed when the checkpoint was written

    def _save(self, trainer: Any, pl_module: Any) -> None:
        trainer.save_checkpoint(self.path)
        self.seen = {stage: list(items) for stage, items in pl_module.seen.items()}

    def on_train_batch_end(self, trainer: Any, pl_module: Any, outputs: Any, batch: Any, batch_idx: int) -> None:
        if trainer.current_epoch == 0 and (
            (self.point == "mid" and batch_idx == 1)
            or (self.point == "last" and batch_idx == trainer.num_training_batches - 1)
        ):
            self._save(trainer, pl_module)

    def on_validation_batch_end(self, trainer: Any, pl_module: Any, outputs: Any, batch: Any, batch_idx: int,
                                dataloader_idx: int = 0) -> None:
        if self.point == "midval" and trainer.current_epoch == 0 and batch_idx == 1:
            self._save(trainer, pl_module)

    def on_validation_end(self, trainer: Any, pl_module: Any) -> None:
        if self.point == "end" and trainer.current_epoch == 0:
            self._save(trainer, pl_module)


def run_fit(out: Path, name: str, point: Optional[str] = None, ckpt: Optional[str] = None,
            **trainer_options: Any) -> None:
    """One fit: save at ``point`` (into ``out/{name}.ckpt``) or resume from ``ckpt``."""
    saver = SaveAt(point or "none", str(out / f"{name}.ckpt"))
    callback = lm.MetricsCallback(kinds_metrics(), inputs=KINDS_INPUTS, track_loss="sample", track_best=["acc"])
    model = KindsMixinModel()
    options: dict[str, Any] = dict(
        accelerator="cpu", devices=1, max_epochs=2, logger=CSVLogger(str(out), name=name),
        enable_progress_bar=False, enable_model_summary=False, num_sanity_val_steps=0, log_every_n_steps=1,
        callbacks=[callback, saver],
    )
    options.update(trainer_options)
    trainer = L.Trainer(**options)
    trainer.fit(model, loader(TRAIN_SIZE, seed=0, batch_size=BATCH), loader(VAL_SIZE, seed=1, batch_size=BATCH),
                ckpt_path=ckpt)
    rank = trainer.global_rank
    if rank == 0:
        with open(os.path.join(trainer.logger.log_dir, "metrics.csv")) as handle:
            rows = [
                [key, int(float(row["epoch"])), float(value), int(row["step"])]
                for row in csv.DictReader(handle) for key, value in row.items()
                if value and key not in ("epoch", "step")
            ]
        (out / f"{name}.rows.json").write_text(json.dumps(rows))
    (out / f"{name}.rank{rank}.json").write_text(json.dumps({"seen": dict(model.seen), "saved": saver.seen}))


def two_process_runs(out: Path) -> None:
    """What the 2-process script runs: a save run per point, then each resumed 2->2 and from the
    1-process checkpoints (1->2)."""
    options: dict[str, Any] = dict(strategy="ddp", num_nodes=2, devices=1)
    for point in POINTS:
        run_fit(out, f"save2_{point}", point=point, **options)
    for point in POINTS:
        run_fit(out, f"resume2from2_{point}", ckpt=str(out / f"save2_{point}.ckpt"), **options)
        run_fit(out, f"resume2from1_{point}", ckpt=str(out / f"save1_{point}.ckpt"), **options)
