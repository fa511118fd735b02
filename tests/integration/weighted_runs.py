"""A weighted validation run for the sample-weight tests: data whose batches carry per-sample weights.

Importable by name (the DDP test runs this module as a script in two processes).
Run as ``python -m tests.integration.weighted_runs OUT STRATEGY``: a 2-process fit whose ranks write
what they logged to ``OUT/rank{r}.json``.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import lightning.pytorch as L
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import lightning_metrics as lm
from lightning_metrics.utilities.sample_weight import as_sample_weight
from tests.integration.integration_helpers import NUM_CLASSES, NUM_FEATURES

VAL_SIZE = 101  # odd: a DistributedSampler on 2 ranks pads one sample (sample 0 again)


def weighted_dataset(n: int = VAL_SIZE, seed: int = 3) -> TensorDataset:
    """Features, labels and weights: integers, fractions and zeros; sample 0 (the padding) weighs 5."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(n, NUM_FEATURES, generator=generator)
    y = torch.randint(0, NUM_CLASSES, (n,), generator=generator)
    w = torch.tensor([0.0, 1.0, 2.0, 0.5, 3.0, 1.25])[torch.arange(n) % 6]
    w[0] = 5.0
    return TensorDataset(x, y, w)


class WeightedCountAccuracy(lm.Metric):
    """Accuracy from logits with integer counts that become float64 under weights (the count pattern)."""

    full_state_update = False
    additive_update = True

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_state("correct", torch.tensor(0), dist_reduce_fx="sum")
        self.add_state("total", torch.tensor(0), dist_reduce_fx="sum")

    def _sample_weight_states(self) -> tuple[str, ...]:
        return ("correct", "total")

    def update(self, preds: torch.Tensor, target: torch.Tensor, *, sample_weight: Any = None) -> None:
        right = preds.argmax(-1) == target
        weight = as_sample_weight(sample_weight, target.shape, device=target.device)
        if weight is None:
            self.correct += right.sum()
            self.total += target.numel()
            return
        self._use_sample_weights()
        self.correct += (right * weight).sum()
        self.total += weight.sum()

    def compute(self) -> torch.Tensor:
        return self.correct / self.total


class UnweightedCount(lm.Metric):
    """Takes no ``sample_weight``: the engine updates it unweighted (and warns)."""

    full_state_update = False

    def __init__(self) -> None:
        super().__init__()
        self.add_state("n", torch.tensor(0), dist_reduce_fx="sum")

    def update(self, preds: torch.Tensor, target: torch.Tensor) -> None:
        self.n += target.numel()

    def compute(self) -> torch.Tensor:
        return self.n


class WeightedModel(L.LightningModule):
    """A fixed linear classifier (lr 0: equal on any number of devices); validation returns weights and
    per-sample losses."""

    def __init__(self) -> None:
        super().__init__()
        self.layer = nn.Linear(NUM_FEATURES, NUM_CLASSES)
        with torch.no_grad():
            generator = torch.Generator().manual_seed(0)
            self.layer.weight.copy_(torch.randn(NUM_CLASSES, NUM_FEATURES, generator=generator))
            self.layer.bias.zero_()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layer(x)

    def training_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
        x, y, _ = batch
        return nn.functional.cross_entropy(self(x), y)

    def validation_step(self, batch: Any, batch_idx: int) -> dict[str, torch.Tensor]:
        x, y, w = batch
        logits = self(x)
        loss = nn.functional.cross_entropy(logits, y, reduction="none")
        return {"preds": logits, "target": y, "sample_weight": w, "loss": loss}

    def configure_optimizers(self) -> Any:
        return torch.optim.SGD(self.parameters(), lr=0.0)


def oracle() -> dict[str, float]:
    """The weighted values over the whole validation set in one process."""
    x, y, w = weighted_dataset().tensors
    model = WeightedModel()
    with torch.no_grad():
        logits = model(x)
        loss = nn.functional.cross_entropy(logits, y, reduction="none").double()
    right = (logits.argmax(-1) == y).double()
    w = w.double()
    return {
        "val/acc": float((right * w).sum() / w.sum()),
        "val/loss": float((loss * w).sum() / w.sum()),
        "val/n": float(len(y)),
    }


def callback(**kwargs: Any) -> lm.MetricsCallback:
    metrics = {"acc": WeightedCountAccuracy(), "n": UnweightedCount()}
    return lm.MetricsCallback(metrics, stages=["val"], track_loss={"val": "sample"}, **kwargs)


def loaders(batch_size: int = 16) -> tuple[DataLoader, DataLoader]:
    data = weighted_dataset()
    return DataLoader(data, batch_size=batch_size), DataLoader(data, batch_size=batch_size)


def _main(out: str, strategy: str) -> None:
    import warnings

    warnings.filterwarnings("ignore")
    trainer = L.Trainer(
        accelerator="cpu", devices=2, strategy=strategy, callbacks=[callback(coalesce_batches=3)], max_epochs=1,
        logger=False, enable_progress_bar=False, enable_model_summary=False, enable_checkpointing=False,
        num_sanity_val_steps=0, limit_train_batches=1,
    )
    train, val = loaders(batch_size=16)
    trainer.fit(WeightedModel(), train, val)
    payload = {k: float(v) for k, v in trainer.callback_metrics.items()}
    with open(os.path.join(out, f"rank{trainer.global_rank}.json"), "w") as handle:
        json.dump(payload, handle)


if __name__ == "__main__":
    _main(sys.argv[1], sys.argv[2])
