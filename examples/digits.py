"""The main job: train a small classifier on scikit-learn's digits, with every metric logged for you.

    .venv/bin/python examples/digits.py         # ~10 epochs, well under a minute on 2 CPU cores
    .venv/bin/python examples/digits.py --fast  # one tiny epoch (also: LM_EXAMPLE_FAST=1), used by the tests
    .venv/bin/tensorboard --logdir lightning_logs  # then open the Time Series, Scalars, Images and Text tabs

(``make demo`` runs the first; in an activated environment, ``source .venv/bin/activate``, drop
the ``.venv/bin/``.) The run ends by printing the TensorBoard command that works as printed.

The LightningModule below has no metric code at all: its steps return ``preds`` and ``target``
and ``MetricsCallback`` does the rest, per stage: update at every batch end, compute once per
epoch, log every scalar as ``"{stage}/{name}"``, send the per-class recall as one scalar per
digit (``val/recall/0_zero`` ... ``val/recall/9_nine``, in digit order), and draw the confusion
matrix, the ROC and precision-recall curves (one line per digit, AUC and average precision in
the legends), the per-digit recall bars and the reliability diagram into TensorBoard's Images
tab, each titled with its epoch and written at the step of that epoch's scalars. The data
(1,797 8x8 images) ships inside scikit-learn: nothing is downloaded.

TensorBoard's own PR Curves tab stays empty here: it takes binary curves only (a
``BinaryPrecisionRecallCurve`` would appear there as ``{stage}/{name}/pr_curve``); this run's
ten one-vs-rest curves are the ``val/pr_curve`` image.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import lightning.pytorch as L
import torch
from lightning.pytorch.loggers import TensorBoardLogger
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import lightning_metrics as lm
from lightning_metrics.classification import (
    MulticlassAccuracy,
    MulticlassAUROC,
    MulticlassCalibrationError,
    MulticlassConfusionMatrix,
    MulticlassF1Score,
    MulticlassPrecisionRecallCurve,
    MulticlassRecall,
    MulticlassROC,
)

DIGIT_NAMES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


class DigitsDataModule(L.LightningDataModule):
    """scikit-learn's bundled digits, split once with a fixed seed into train / val / test.

    Args:
        batch_size: samples per batch.
        val_size: samples held out for validation (and as many again for test).
        seed: the seed of the split.
    """

    def __init__(self, batch_size: int = 64, val_size: int = 300, seed: int = 0) -> None:
        super().__init__()
        self.batch_size, self.val_size, self.seed = batch_size, val_size, seed

    def setup(self, stage: str | None = None) -> None:
        from sklearn.datasets import load_digits  # bundled with scikit-learn, no download

        x, y = load_digits(return_X_y=True)
        x = torch.tensor(x, dtype=torch.float32) / 16.0  # pixels are 0..16
        y = torch.tensor(y, dtype=torch.long)
        order = torch.randperm(len(y), generator=torch.Generator().manual_seed(self.seed))
        val, test, train = (
            order[: self.val_size],
            order[self.val_size : 2 * self.val_size],
            order[2 * self.val_size :],
        )
        self.train_set, self.val_set, self.test_set = (TensorDataset(x[i], y[i]) for i in (train, val, test))

    def train_dataloader(self) -> DataLoader:
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True)

    def val_dataloader(self) -> DataLoader:
        return DataLoader(self.val_set, batch_size=self.batch_size)

    def test_dataloader(self) -> DataLoader:
        return DataLoader(self.test_set, batch_size=self.batch_size)


class DigitsClassifier(L.LightningModule):
    """A two-layer MLP on the 64 pixels. Note: no metric code, only ``preds`` and ``target`` out.

    Args:
        hidden: width of the hidden layer.
        lr: Adam's learning rate.
    """

    def __init__(self, hidden: int = 64, lr: float = 1e-2) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, 10))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)

    def _step(self, batch: Any) -> dict[str, torch.Tensor]:
        x, y = batch
        logits = self(x)
        loss = nn.functional.cross_entropy(logits, y)
        # softmax probabilities: the curves and the calibration error read them as they are
        return {"loss": loss, "preds": logits.softmax(-1), "target": y}

    def training_step(self, batch: Any, batch_idx: int) -> dict[str, torch.Tensor]:
        out = self._step(batch)
        self.log("train/loss", out["loss"], prog_bar=True)
        return out

    def validation_step(self, batch: Any, batch_idx: int) -> dict[str, torch.Tensor]:
        return self._step(batch)

    def test_step(self, batch: Any, batch_idx: int) -> dict[str, torch.Tensor]:
        return self._step(batch)

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.Adam(self.parameters(), lr=self.hparams.lr)


def evaluation_metrics() -> lm.MetricCollection:
    """What val and test track. The count-based metrics share one confusion-matrix update per
    batch, and the curves share one store of scores: the collection groups them by statistic."""
    return lm.MetricCollection(
        {
            "acc": MulticlassAccuracy(10, average="micro"),
            "f1": MulticlassF1Score(10, average="macro"),
            "recall": MulticlassRecall(10, average=None),  # a vector: one scalar per digit
            "confmat": MulticlassConfusionMatrix(10),  # a matrix: image + markdown table
            "auroc": MulticlassAUROC(10),
            "roc": MulticlassROC(10),  # curves: one figure, one line per digit
            "pr_curve": MulticlassPrecisionRecallCurve(10),
            "calibration": MulticlassCalibrationError(10, n_bins=10),  # scalar + reliability diagram
        }
    )


def make_callback() -> lm.MetricsCallback:
    return lm.MetricsCallback(
        {
            "train": lm.MetricCollection(
                {"acc": MulticlassAccuracy(10, average="micro"), "f1": MulticlassF1Score(10, average="macro")}
            ),
            "val": evaluation_metrics(),
            "test": evaluation_metrics(),
        },
        class_names=DIGIT_NAMES,
        prog_bar=["acc", "f1"],
    )


def tensorboard_command(logdir: str) -> str:
    """The command that opens ``logdir``, to paste into the shell that ran this script: the
    TensorBoard installed beside this Python (``.venv/bin/tensorboard`` after ``make demo``), or
    plain ``tensorboard`` when that is the one on PATH (an activated environment).

    >>> tensorboard_command("lightning_logs").endswith("tensorboard --logdir lightning_logs")
    True
    """
    beside = Path(sys.executable).with_name("tensorboard")
    on_path = shutil.which("tensorboard")
    if not beside.exists():
        program = "tensorboard" if on_path else f"{shlex.quote(sys.executable)} -m tensorboard.main"
    elif on_path and Path(on_path).resolve() == beside.resolve():
        program = "tensorboard"
    else:
        absolute = Path(os.path.abspath(beside))
        try:
            program = str(absolute.relative_to(Path.cwd()))  # .venv/bin/tensorboard from the clone
        except ValueError:
            program = str(absolute)
        program = shlex.quote(program)
    return f"{program} --logdir {shlex.quote(logdir)}"


def print_table(results: dict[str, dict[str, Any]]) -> None:
    """Scalars as rows, stages as columns; matrices and curves are pointed to TensorBoard."""
    stages = list(results)
    rows: dict[str, dict[str, str]] = {}
    for stage, values in results.items():
        for name, value in values.items():
            value = torch.as_tensor(value) if not isinstance(value, (tuple, list)) else value
            if isinstance(value, torch.Tensor) and value.numel() == 1:
                rows.setdefault(name, {})[stage] = f"{value.item():.4f}"
            elif name == "recall":  # the per-class vector, as it is logged: recall/<index>_<digit>
                for index, (digit, item) in enumerate(zip(DIGIT_NAMES, value.tolist())):
                    rows.setdefault(f"recall/{index}_{digit}", {})[stage] = f"{item:.4f}"
    width = max(map(len, rows)) + 2
    print("\n" + "metric".ljust(width) + "".join(s.rjust(10) for s in stages))
    print("-" * (width + 10 * len(stages)))
    for name, by_stage in rows.items():
        print(name.ljust(width) + "".join(by_stage.get(s, "-").rjust(10) for s in stages))


def main(argv: list[str] | None = None) -> dict[str, dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="one tiny epoch (for tests)")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--logdir", default="lightning_logs", help="TensorBoard's log directory")
    args = parser.parse_args(argv)
    fast = args.fast or os.environ.get("LM_EXAMPLE_FAST") == "1"

    L.seed_everything(0, verbose=False)
    callback = make_callback()
    # no "hp_metric" card of -1: this run logs no hyperparameter metric
    logger = TensorBoardLogger(args.logdir, name="digits", default_hp_metric=False)
    trainer = L.Trainer(
        max_epochs=1 if fast else args.epochs,
        limit_train_batches=3 if fast else None,
        limit_val_batches=2 if fast else None,
        limit_test_batches=2 if fast else None,
        callbacks=[callback],
        logger=logger,
        accelerator="cpu",
        devices=1,
        enable_checkpointing=False,
        enable_model_summary=False,
        enable_progress_bar=not fast,
        log_every_n_steps=5,
    )
    model, data = DigitsClassifier(), DigitsDataModule()
    trainer.fit(model, datamodule=data)
    # callback.results holds the latest computed value of every key (scalars, vectors, matrices,
    # curves); copy the val values before test starts a new run
    val = {key.split("/", 1)[1]: value for key, value in callback.results.items() if key.startswith("val/")}
    trainer.test(model, datamodule=data, verbose=False)
    test = {key.split("/", 1)[1]: value for key, value in callback.results.items() if key.startswith("test/")}

    results = {"val": val, "test": test}
    print(f"\nFinal metrics after {trainer.current_epoch} epoch(s) on scikit-learn's digits:")
    print_table(results)
    print("\nTest confusion matrix (rows: true digit, columns: predicted):")
    for digit, row in zip(range(10), test["confmat"].tolist()):
        print(f"  {digit}: " + " ".join(f"{int(v):3d}" for v in row))
    print(f"\nTensorBoard logs: {logger.log_dir}")
    print(f"  {tensorboard_command(args.logdir)}")
    print("  Scalars: val/acc, val/f1, val/auroc, val/calibration, val/recall/0_zero ... val/recall/9_nine,")
    print("           train/acc, train/f1")
    print("  Images:  val/confmat, val/roc, val/pr_curve, val/recall (bars), val/calibration/reliability")
    print("  Text:    val/confmat/text_summary (the matrix as a table); the same under test/")
    return results


if __name__ == "__main__":
    main(sys.argv[1:])
