"""Write your own metric as you would for torchmetrics, and hand it to ``MetricsCallback``.

    python examples/custom_metric.py          # reuses the digits model of examples/digits.py
    python examples/custom_metric.py --fast   # one tiny epoch (also: LM_EXAMPLE_FAST=1)

``ConfidentMistakes`` answers "when the model is wrong, how sure was it?". It has the two kinds
of state a metric can hold:

- a ``sum`` state (the number of mistakes): a tensor that is added up across batches and ranks;
- a ``cat`` state (the confidence of each mistake): a list of tensors, concatenated across
  batches and gathered from every rank, read with ``dim_zero_cat``.

The code is what you would write for torchmetrics; only the import differs. Its ``compute``
returns a dict; a collection flattens it as torchmetrics does, so the callback logs one scalar
per key (``val/mistakes``, ``val/mistake_confidence_median``, ...).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import torch
from torch import Tensor

import lightning_metrics as lm
from lightning_metrics.utilities import dim_zero_cat


class ConfidentMistakes(lm.Metric):
    """The number of misclassified samples, and the median and maximum confidence on them.

    Args:
        kwargs: the usual ``Metric`` options (``dist_sync_on_step``, ``compute_on_cpu``, ...).
    """

    is_differentiable = False
    higher_is_better = False
    full_state_update = False  # compute does not need the previous state: forward stays one update
    additive_update = True  # per-sample counts and concatenations: the callback may join small batches

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_state("count", default=torch.tensor(0), dist_reduce_fx="sum")
        self.add_state("confidences", default=[], dist_reduce_fx="cat")

    def update(self, probs: Tensor, target: Tensor) -> None:
        confidence, predicted = probs.max(dim=-1)
        wrong = predicted != target
        self.count += wrong.sum()
        self.confidences.append(confidence[wrong])

    def compute(self) -> dict[str, Tensor]:
        confidences = dim_zero_cat(self.confidences) if self.confidences else torch.zeros(0)
        nan = torch.tensor(float("nan"))
        return {
            "mistakes": self.count.float(),
            "mistake_confidence_median": confidences.median() if confidences.numel() else nan,
            "mistake_confidence_max": confidences.max() if confidences.numel() else nan,
        }


def main(argv: list[str] | None = None) -> dict[str, float]:
    import lightning.pytorch as L
    from digits import DigitsClassifier, DigitsDataModule  # examples/digits.py, next to this file
    from lightning.pytorch.loggers import CSVLogger

    from lightning_metrics.classification import MulticlassAccuracy

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="one tiny epoch (for tests)")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--logdir", default="lightning_logs")
    args = parser.parse_args(argv)
    fast = args.fast or os.environ.get("LM_EXAMPLE_FAST") == "1"

    # On its own, the metric behaves like any other: update, compute, reset.
    metric = ConfidentMistakes()
    metric.update(torch.tensor([[0.9, 0.1], [0.4, 0.6], [0.2, 0.8]]), torch.tensor([1, 1, 1]))
    print("standalone:", {k: round(float(v), 3) for k, v in metric.compute().items()})

    # In the callback, next to built-in metrics, for the val and test stages.
    L.seed_everything(0, verbose=False)
    callback = lm.MetricsCallback(
        {"acc": MulticlassAccuracy(10, average="micro"), "confident_mistakes": ConfidentMistakes()},
        stages=("val", "test"),
    )
    trainer = L.Trainer(
        max_epochs=1 if fast else args.epochs,
        limit_train_batches=3 if fast else None,
        limit_val_batches=2 if fast else None,
        callbacks=[callback],
        logger=CSVLogger(args.logdir, name="custom_metric"),
        accelerator="cpu",
        devices=1,
        enable_checkpointing=False,
        enable_model_summary=False,
        enable_progress_bar=False,
    )
    trainer.fit(DigitsClassifier(), datamodule=DigitsDataModule())
    logged = {key: float(value) for key, value in trainer.callback_metrics.items() if key.startswith("val/")}
    print(f"\nValidation after {trainer.current_epoch} epoch(s), as logged by the callback:")
    for key, value in sorted(logged.items()):
        print(f"  {key:<32}{value:.4f}")
    return logged


if __name__ == "__main__":
    main(sys.argv[1:])
