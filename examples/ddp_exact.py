"""Exact validation metrics under DDP: 2 CPU processes on a validation set of odd size (101).

    python examples/ddp_exact.py          # a short single-process fit, then three evaluations
    python examples/ddp_exact.py --fast   # a tinier fit (also: LM_EXAMPLE_FAST=1)

Under DDP, Lightning gives every process a ``DistributedSampler``. To make the shards equal, the
sampler pads the evaluation set by repeating samples: 101 samples on 2 processes become 2 x 51,
and sample 0 is seen twice. Lightning warns about it, but a metric updated with every batch
(``self.log("val/acc", self.val_acc)``, the usual way) counts the duplicate, so the value
differs from a single-process evaluation of the same model.

``MetricsCallback`` knows the dataset length, the rank and the world size, and drops the padded
tail before ``update``: the values on 2 processes equal those on 1, exactly.

The script trains once in this process, then evaluates the same weights three times:

1. on 1 process with ``MetricsCallback`` (the reference);
2. on 2 processes (``strategy="ddp_spawn"``) with ``MetricsCallback``;
3. in the same 2-process run, with the metrics logged the usual way, Lightning's default.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from typing import Any

import lightning.pytorch as L
import torch
from digits import DigitsClassifier, DigitsDataModule  # examples/digits.py, next to this file
from lightning.pytorch.loggers import CSVLogger

import lightning_metrics as lm
from lightning_metrics.classification import MulticlassAccuracy, MulticlassF1Score

VAL_SIZE = 101  # odd: 2 processes need one padded sample


class SampleCount(lm.Metric):
    """How many samples the metric saw (the padding shows up here first)."""

    full_state_update = False

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_state("n", torch.tensor(0), dist_reduce_fx="sum")

    def update(self, preds: torch.Tensor, target: torch.Tensor) -> None:
        self.n += target.numel()

    def compute(self) -> torch.Tensor:
        return self.n.float()


def metrics() -> dict[str, lm.Metric]:
    return {
        "samples": SampleCount(),
        "acc": MulticlassAccuracy(10, average="micro"),
        "f1": MulticlassF1Score(10),
    }


class LoggingTheUsualWay(DigitsClassifier):
    """Also logs metric objects from the step (``self.log(name, metric)``), as most code does."""

    def __init__(self) -> None:
        super().__init__()
        self.usual = torch.nn.ModuleDict(metrics())

    def validation_step(self, batch: Any, batch_idx: int) -> dict[str, torch.Tensor]:
        out = super().validation_step(batch, batch_idx)
        for name, metric in self.usual.items():
            metric(out["preds"], out["target"])
            self.log(f"usual/{name}", metric)
        return out


def evaluate(model: L.LightningModule, devices: int, logdir: str) -> dict[str, float]:
    trainer = L.Trainer(
        accelerator="cpu",
        devices=devices,
        strategy="ddp_spawn" if devices > 1 else "auto",
        callbacks=[lm.MetricsCallback(metrics(), stages=("val",))],
        logger=CSVLogger(logdir, name=f"ddp_exact_{devices}_process"),
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    trainer.validate(model, datamodule=DigitsDataModule(val_size=VAL_SIZE), verbose=False)
    # with ddp_spawn, Lightning copies rank zero's callback_metrics back to this process
    return {key: float(value) for key, value in trainer.callback_metrics.items()}


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="a tinier fit (for tests)")
    parser.add_argument("--logdir", default="lightning_logs")
    args = parser.parse_args(argv)
    fast = args.fast or os.environ.get("LM_EXAMPLE_FAST") == "1"
    # Lightning's warning about the padding is the very point of this script; keep the output short
    warnings.filterwarnings("ignore", message=".*DistributedSampler.*")

    L.seed_everything(0, verbose=False)
    model = LoggingTheUsualWay()
    L.Trainer(
        max_epochs=1,
        limit_train_batches=3 if fast else 10,
        limit_val_batches=0,
        logger=False,
        accelerator="cpu",
        devices=1,
        enable_progress_bar=False,
        enable_model_summary=False,
        enable_checkpointing=False,
    ).fit(model, datamodule=DigitsDataModule(val_size=VAL_SIZE))

    single = evaluate(model, devices=1, logdir=args.logdir)
    double = evaluate(model, devices=2, logdir=args.logdir)
    rows = {
        "1 process (reference)": {k: single[f"val/{k}"] for k in metrics()},
        "2 processes, MetricsCallback": {k: double[f"val/{k}"] for k in metrics()},
        "2 processes, Lightning default": {k: double[f"usual/{k}"] for k in metrics()},
    }
    print(f"\nValidation on {VAL_SIZE} samples, the same weights evaluated three ways:\n")
    print(f"{'':<34}{'samples':>8}{'acc':>9}{'f1':>9}")
    for name, values in rows.items():
        print(f"{name:<34}{values['samples']:>8.0f}{values['acc']:>9.4f}{values['f1']:>9.4f}")
    exact = rows["2 processes, MetricsCallback"] == rows["1 process (reference)"]
    biased = rows["2 processes, Lightning default"] != rows["1 process (reference)"]
    print(f"\nMetricsCallback on 2 processes equals 1 process exactly: {exact}")
    print(f"Lightning's default counts the padded duplicate and differs: {biased}")
    return rows


if __name__ == "__main__":
    main(sys.argv[1:])
