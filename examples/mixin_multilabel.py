"""The same engine through ``MetricsMixin``: multilabel averaging side by side, and why pooling wins.

    python examples/mixin_multilabel.py          # a few seconds of training on 2 CPU cores
    python examples/mixin_multilabel.py --fast   # one tiny epoch (also: LM_EXAMPLE_FAST=1)
    tensorboard --logdir lightning_logs          # the twelve averages and the batch mean, per epoch

Every value is logged to TensorBoard (Scalars, Time Series) and to a CSV file
(``metrics.csv``) in the same run directory; they are all scalars, so there are no images.

A model inherits ``MetricsMixin`` and returns its metrics from ``configure_metrics()``; the
mixin updates, logs and resets them, exactly as ``MetricsCallback`` would. The data is
scikit-learn's ``make_multilabel_classification`` (generated, nothing downloaded).

It prints two things:

1. precision, recall and F1 under the four multilabel averages (micro, macro, weighted,
   samples). All twelve are formulas over per-label counts, so the collection updates the
   per-label counts once per batch for the first three averages and the per-sample counts
   once for ``samples``.
2. the macro F1 of the validation set computed from the pooled counts (what this package
   logs) against the mean of per-batch macro F1 values (what ``self.log("val_f1",
   f1(preds, y))`` gives you in Lightning). They differ: F1 is not a mean over samples, so
   the mean of batch values is not the value on the whole set.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import lightning.pytorch as L
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import lightning_metrics as lm
from lightning_metrics.classification import MultilabelF1Score, MultilabelPrecision, MultilabelRecall
from lightning_metrics.functional.classification import multilabel_f1_score

NUM_LABELS = 5
AVERAGES = ("micro", "macro", "weighted", "samples")


def make_loaders(n_samples: int, batch_size: int) -> tuple[DataLoader, DataLoader]:
    from sklearn.datasets import make_multilabel_classification

    x, y = make_multilabel_classification(
        n_samples=n_samples, n_features=20, n_classes=NUM_LABELS, n_labels=2, random_state=0
    )
    x = torch.tensor(x, dtype=torch.float32)
    x = (x - x.mean(0)) / x.std(0)
    y = torch.tensor(y, dtype=torch.long)
    split = n_samples * 3 // 4
    train = TensorDataset(x[:split], y[:split])
    val = TensorDataset(x[split:], y[split:])
    return DataLoader(train, batch_size=batch_size, shuffle=True), DataLoader(val, batch_size=batch_size)


class MultilabelModel(lm.MetricsMixin, L.LightningModule):
    """An MLP with one sigmoid output per label; the mixin owns the metrics."""

    metrics_stages = ("train", "val")
    metrics_prog_bar = ("f1_macro",)

    def __init__(self, hidden: int = 32, lr: float = 1e-2) -> None:
        super().__init__()
        self.lr = lr
        self.net = nn.Sequential(nn.Linear(20, hidden), nn.ReLU(), nn.Linear(hidden, NUM_LABELS))

    def configure_metrics(self) -> dict[str, Any]:
        # {"train": ..., "val": ...} would give each stage its own set; one set is cloned per stage
        metrics = {}
        for average in AVERAGES:
            metrics[f"precision_{average}"] = MultilabelPrecision(NUM_LABELS, average=average)
            metrics[f"recall_{average}"] = MultilabelRecall(NUM_LABELS, average=average)
            metrics[f"f1_{average}"] = MultilabelF1Score(NUM_LABELS, average=average)
        return lm.MetricCollection(metrics)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)

    def training_step(self, batch: Any, batch_idx: int) -> dict[str, torch.Tensor]:
        x, y = batch
        logits = self(x)
        loss = nn.functional.binary_cross_entropy_with_logits(logits, y.float())
        return {"loss": loss, "preds": logits.sigmoid(), "target": y}  # door 1: return the keys

    def validation_step(self, batch: Any, batch_idx: int) -> None:
        x, y = batch
        probs = self(x).sigmoid()
        self.update_metrics("val", probs, y)  # door 2: hand the inputs over explicitly
        # The usual hand-written alternative, for comparison: one macro F1 per batch, which
        # Lightning then averages over the batches of the epoch (weighted by batch size).
        batch_f1 = multilabel_f1_score(probs, y, NUM_LABELS, average="macro")
        self.log("val/f1_macro_mean_of_batches", batch_f1, on_epoch=True, batch_size=len(y))

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.Adam(self.parameters(), lr=self.lr)


def loggers(logdir: str, name: str) -> list:
    """TensorBoard and a CSV file, side by side in one run directory."""
    board = L.loggers.TensorBoardLogger(logdir, name=name, default_hp_metric=False)
    return [board, L.loggers.CSVLogger(logdir, name=name, version=board.version)]


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="one tiny epoch (for tests)")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--logdir", default="lightning_logs")
    args = parser.parse_args(argv)
    fast = args.fast or os.environ.get("LM_EXAMPLE_FAST") == "1"

    L.seed_everything(0, verbose=False)
    # small validation batches make the per-batch values noisy, as they are in real evaluations
    train, val = make_loaders(n_samples=400 if fast else 2000, batch_size=16)
    model = MultilabelModel()
    trainer = L.Trainer(
        max_epochs=1 if fast else args.epochs,
        limit_train_batches=4 if fast else None,
        accelerator="cpu",
        devices=1,
        logger=loggers(args.logdir, "multilabel"),
        enable_checkpointing=False,
        enable_model_summary=False,
        enable_progress_bar=not fast,
        log_every_n_steps=5,
    )
    trainer.fit(model, train, val)
    logged = {key: float(value) for key, value in trainer.callback_metrics.items()}

    print(
        f"\nValidation metrics after {trainer.current_epoch} epoch(s), {len(val.dataset)} samples, "
        f"{NUM_LABELS} labels:\n"
    )
    print(f"{'average':<10}{'precision':>11}{'recall':>9}{'f1':>9}")
    print("-" * 39)
    for average in AVERAGES:
        row = [logged[f"val/{measure}_{average}"] for measure in ("precision", "recall", "f1")]
        print(f"{average:<10}" + "".join(f"{v:>{w}.4f}" for v, w in zip(row, (11, 9, 9))))

    pooled, batch_mean = logged["val/f1_macro"], logged["val/f1_macro_mean_of_batches"]
    print("\nMacro F1 on the validation set:")
    print(f"  pooled over the epoch (MetricsMixin):       {pooled:.4f}")
    print(f"  mean of per-batch values (self.log(f1(..))): {batch_mean:.4f}")
    print(f"  difference:                                  {batch_mean - pooled:+.4f}")
    print("F1 of a set is not the mean of F1 over its parts; the pooled value is the one on the whole set.")
    return logged


if __name__ == "__main__":
    main(sys.argv[1:])
