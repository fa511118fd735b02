"""Regression metrics on scikit-learn's diabetes data, logged by ``MetricsCallback`` to TensorBoard and CSV.

    python examples/regression.py          # a few seconds on 2 CPU cores
    python examples/regression.py --fast   # one tiny epoch (also: LM_EXAMPLE_FAST=1)
    .venv/bin/tensorboard --logdir lightning_logs    # val/* per epoch, test/* once (scalars only: no images)

MSE, R2, Pearson and explained variance are all functions of the same running moments (count,
means, co-moments in float64, merged with Chan's parallel formula), so the collection updates
them once per batch, and they stay accurate on data far from zero, such as this target
(disease progression, 25..346). MAE keeps its own sum of absolute errors.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import lightning.pytorch as L
import torch
from lightning.pytorch.loggers import CSVLogger, TensorBoardLogger
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from digits import tensorboard_command  # noqa: E402  (the command that works in the shell that ran this)

import lightning_metrics as lm
from lightning_metrics.regression import (
    ExplainedVariance,
    MeanAbsoluteError,
    MeanSquaredError,
    PearsonCorrCoef,
    R2Score,
)


class DiabetesDataModule(L.LightningDataModule):
    """The 442 patients of ``sklearn.datasets.load_diabetes``, split 300 / 71 / 71 with a fixed seed.

    Args:
        batch_size: samples per batch.
        seed: the seed of the split.
    """

    def __init__(self, batch_size: int = 32, seed: int = 0) -> None:
        super().__init__()
        self.batch_size, self.seed = batch_size, seed

    def setup(self, stage: str | None = None) -> None:
        from sklearn.datasets import load_diabetes  # bundled with scikit-learn, no download

        x, y = load_diabetes(return_X_y=True)
        x = torch.tensor(x, dtype=torch.float32)
        x = (x - x.mean(0)) / x.std(0)
        y = torch.tensor(y, dtype=torch.float32)
        order = torch.randperm(len(y), generator=torch.Generator().manual_seed(self.seed))
        train, val, test = order[:300], order[300:371], order[371:]
        self.target_mean, self.target_std = float(y[train].mean()), float(y[train].std())
        self.train_set, self.val_set, self.test_set = (TensorDataset(x[i], y[i]) for i in (train, val, test))

    def train_dataloader(self) -> DataLoader:
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True)

    def val_dataloader(self) -> DataLoader:
        return DataLoader(self.val_set, batch_size=self.batch_size)

    def test_dataloader(self) -> DataLoader:
        return DataLoader(self.test_set, batch_size=self.batch_size)


class DiabetesRegressor(L.LightningModule):
    """A small MLP trained on the standardized target; the steps return predictions on the
    original scale, so the metrics read in the units of the data.

    Args:
        hidden: width of the hidden layer.
        lr: Adam's learning rate.
        target_mean / target_std: the scale of the target (taken from the data module's
            training split when it is passed to the trainer).
    """

    def __init__(
        self, hidden: int = 32, lr: float = 1e-2, target_mean: float = 152.0, target_std: float = 77.0
    ) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(nn.Linear(10, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def setup(self, stage: str) -> None:
        data = getattr(self.trainer, "datamodule", None)
        if data is not None and hasattr(data, "target_mean"):
            self.hparams.target_mean, self.hparams.target_std = data.target_mean, data.target_std

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x).squeeze(-1) * self.hparams.target_std + self.hparams.target_mean

    def _step(self, batch: Any) -> dict[str, torch.Tensor]:
        x, y = batch
        preds = self(x)
        loss = nn.functional.mse_loss(preds / self.hparams.target_std, y / self.hparams.target_std)
        return {"loss": loss, "preds": preds, "target": y}

    def training_step(self, batch: Any, batch_idx: int) -> dict[str, torch.Tensor]:
        return self._step(batch)

    def validation_step(self, batch: Any, batch_idx: int) -> dict[str, torch.Tensor]:
        return self._step(batch)

    def test_step(self, batch: Any, batch_idx: int) -> dict[str, torch.Tensor]:
        return self._step(batch)

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.Adam(self.parameters(), lr=self.hparams.lr)


def regression_metrics() -> lm.MetricCollection:
    return lm.MetricCollection(
        {
            "mse": MeanSquaredError(),
            "mae": MeanAbsoluteError(),
            "r2": R2Score(),
            "pearson": PearsonCorrCoef(),
            "explained_variance": ExplainedVariance(),
        }
    )


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="one tiny epoch (for tests)")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--logdir", default="lightning_logs")
    args = parser.parse_args(argv)
    fast = args.fast or os.environ.get("LM_EXAMPLE_FAST") == "1"

    L.seed_everything(0, verbose=False)
    callback = lm.MetricsCallback(regression_metrics(), stages=("val", "test"), prog_bar=["r2"])
    board = TensorBoardLogger(args.logdir, name="diabetes", default_hp_metric=False)
    logger = CSVLogger(args.logdir, name="diabetes", version=board.version)  # the same run directory
    trainer = L.Trainer(
        max_epochs=1 if fast else args.epochs,
        limit_train_batches=3 if fast else None,
        callbacks=[callback],
        logger=[board, logger],
        accelerator="cpu",
        devices=1,
        enable_checkpointing=False,
        enable_model_summary=False,
        enable_progress_bar=False,
        log_every_n_steps=5,
    )
    model, data = DiabetesRegressor(), DiabetesDataModule()
    trainer.fit(model, datamodule=data)
    val = {key: float(v) for key, v in callback.results.items() if key.startswith("val/")}
    trainer.test(model, datamodule=data, verbose=False)
    test = {key: float(v) for key, v in callback.results.items() if key.startswith("test/")}

    print(
        f"\nDiabetes progression after {trainer.current_epoch} epoch(s) ({len(data.val_set)} val, "
        f"{len(data.test_set)} test patients):\n"
    )
    print(f"{'metric':<20}{'val':>10}{'test':>10}")
    print("-" * 40)
    for name in regression_metrics():
        print(f"{name:<20}{val[f'val/{name}']:>10.4f}{test[f'test/{name}']:>10.4f}")
    print(f"\nEvery epoch's values are in {os.path.join(logger.log_dir, 'metrics.csv')}")
    print(f"and in TensorBoard: {tensorboard_command(args.logdir)}")
    return {"val": val, "test": test}


if __name__ == "__main__":
    main(sys.argv[1:])
