"""Moving a LightningModule from torchmetrics to lightning_metrics: the import, then the callback.

    python examples/torchmetrics_migration.py          # three short fits on the digits data
    python examples/torchmetrics_migration.py --fast   # tiny fits (also: LM_EXAMPLE_FAST=1)

Step 1 swaps the import and nothing else: ``self.log("val/acc", self.val_acc)`` works with our
metric objects exactly as it does with torchmetrics' (same names, arguments and values).
Step 2 goes further: the metric code leaves the module, which now only returns ``preds`` and
``target``, and a ``MetricsCallback`` owns the metrics. The script prints the diff of step 1 and
the values of the three versions, which agree.
"""

from __future__ import annotations

import argparse
import difflib
import inspect
import os
import sys
from typing import Any

import lightning.pytorch as L
import torch
from digits import DigitsClassifier, DigitsDataModule  # examples/digits.py, next to this file
from lightning.pytorch.loggers import CSVLogger


# ------------------------------------------------------------------------------ before
class TorchmetricsModel(DigitsClassifier):
    def __init__(self) -> None:
        super().__init__()
        from torchmetrics.classification import MulticlassAccuracy, MulticlassF1Score

        self.val_acc = MulticlassAccuracy(num_classes=10, average="micro")
        self.val_f1 = MulticlassF1Score(num_classes=10, average="macro")

    def validation_step(self, batch: Any, batch_idx: int) -> None:
        x, y = batch
        logits = self(x)
        self.val_acc(logits, y)
        self.val_f1(logits, y)
        self.log("val/acc", self.val_acc)
        self.log("val/f1", self.val_f1)


# ------------------------------------------------------------- after step 1: the import
class LightningMetricsModel(DigitsClassifier):
    def __init__(self) -> None:
        super().__init__()
        from lightning_metrics.classification import MulticlassAccuracy, MulticlassF1Score

        self.val_acc = MulticlassAccuracy(num_classes=10, average="micro")
        self.val_f1 = MulticlassF1Score(num_classes=10, average="macro")

    def validation_step(self, batch: Any, batch_idx: int) -> None:
        x, y = batch
        logits = self(x)
        self.val_acc(logits, y)
        self.val_f1(logits, y)
        self.log("val/acc", self.val_acc)
        self.log("val/f1", self.val_f1)


# ----------------------------------------------------------- after step 2: the callback
# DigitsClassifier itself: its validation_step returns {"loss", "preds", "target"} and has no
# metric code. The metrics are declared once, next to the Trainer:
def metrics_callback() -> Any:
    import lightning_metrics as lm
    from lightning_metrics.classification import MulticlassAccuracy, MulticlassF1Score

    return lm.MetricsCallback(
        {"acc": MulticlassAccuracy(num_classes=10, average="micro"), "f1": MulticlassF1Score(num_classes=10)},
        stages=("val",),
    )


def fit(model: L.LightningModule, fast: bool, epochs: int, callbacks: list, logdir: str) -> dict[str, float]:
    trainer = L.Trainer(
        max_epochs=1 if fast else epochs,
        limit_train_batches=3 if fast else None,
        limit_val_batches=2 if fast else None,
        callbacks=callbacks,
        logger=CSVLogger(logdir, name="migration"),
        accelerator="cpu",
        devices=1,
        enable_checkpointing=False,
        enable_model_summary=False,
        enable_progress_bar=False,
        num_sanity_val_steps=0,
    )
    trainer.fit(model, datamodule=DigitsDataModule())
    return {key: float(trainer.callback_metrics[key]) for key in ("val/acc", "val/f1")}


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="tiny fits (for tests)")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--logdir", default="lightning_logs")
    args = parser.parse_args(argv)
    fast = args.fast or os.environ.get("LM_EXAMPLE_FAST") == "1"

    before = inspect.getsource(TorchmetricsModel).splitlines()
    after = inspect.getsource(LightningMetricsModel).splitlines()
    print("Step 1, the whole diff:")
    for line in difflib.unified_diff(before, after, "torchmetrics", "lightning_metrics", n=0, lineterm=""):
        if not line.startswith("@@"):
            print("  " + line)

    results = {}
    # the same seed before each model: identical weights and batches, so identical values
    for name, make, callbacks in (
        ("torchmetrics, self.log(metric)", TorchmetricsModel, []),
        ("lightning_metrics, self.log(metric)", LightningMetricsModel, []),
        ("lightning_metrics, MetricsCallback", DigitsClassifier, [metrics_callback()]),
    ):
        L.seed_everything(0, verbose=False)
        results[name] = fit(make(), fast, args.epochs, callbacks, args.logdir)

    print(f"\n{'version':<40}{'val/acc':>10}{'val/f1':>10}")
    print("-" * 60)
    for name, values in results.items():
        print(f"{name:<40}{values['val/acc']:>10.4f}{values['val/f1']:>10.4f}")
    reference = torch.tensor(list(results["torchmetrics, self.log(metric)"].values()))
    agree = all(
        torch.allclose(torch.tensor(list(v.values())), reference, atol=1e-6) for v in results.values()
    )
    print("\nAll three agree." if agree else "\nThe versions disagree!")
    return results


if __name__ == "__main__":
    main(sys.argv[1:])
