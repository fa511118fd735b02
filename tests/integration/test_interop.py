"""``self.log(name, metric)`` with our metrics: the torchmetrics idiom after an import swap."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import lightning.pytorch as L
import pytest
import torch
import torchmetrics
from torch import nn

import lightning_metrics as lm
from lightning_metrics.integration.interop import callbacks_factory, register_with_torchmetrics
from tests.integration.integration_helpers import NUM_CLASSES, NUM_FEATURES, ROOT, loader, trainer_kwargs

pytestmark = pytest.mark.timeout(120)


def _idiomatic_model(classification_module):
    """The torchmetrics idiom, written once; only the metric module differs."""

    class Model(L.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            torch.manual_seed(0)
            self.layer = nn.Linear(NUM_FEATURES, NUM_CLASSES)
            self.train_acc = classification_module.MulticlassAccuracy(num_classes=NUM_CLASSES)
            self.val_f1 = classification_module.MulticlassF1Score(num_classes=NUM_CLASSES, average="macro")

        def training_step(self, batch, batch_idx):
            x, y = batch
            logits = self.layer(x)
            self.train_acc(logits, y)
            self.log("train_acc", self.train_acc, on_step=True, on_epoch=True)
            return nn.functional.cross_entropy(logits, y)

        def validation_step(self, batch, batch_idx):
            x, y = batch
            self.val_f1.update(self.layer(x), y)
            self.log("val_f1", self.val_f1)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    return Model()


def _logged(tmp_path: Path, classification_module) -> list[dict[str, str]]:
    trainer = L.Trainer(**trainer_kwargs(tmp_path, max_epochs=2, log_every_n_steps=1))
    trainer.fit(_idiomatic_model(classification_module), loader(64, seed=0), loader(37, seed=1))
    with open(Path(trainer.logger.log_dir) / "metrics.csv") as handle:
        return list(csv.DictReader(handle))


def test_self_log_metric_matches_torchmetrics_in_a_real_fit(tmp_path: Path) -> None:
    ours = _logged(tmp_path / "ours", lm.classification)
    theirs = _logged(tmp_path / "torchmetrics", torchmetrics.classification)
    assert len(ours) == len(theirs)
    keys = {"train_acc_step", "train_acc_epoch", "val_f1"}
    assert keys <= set(ours[0])
    seen = {k: 0 for k in keys}
    for mine, reference in zip(ours, theirs):
        for key in keys:
            assert (mine[key] == "") == (reference[key] == ""), key
            if mine[key]:
                seen[key] += 1
                assert float(mine[key]) == pytest.approx(float(reference[key]), rel=1e-6, abs=1e-7), key
    assert seen == {"train_acc_step": 8, "train_acc_epoch": 2, "val_f1": 2}


def test_registration_is_virtual_and_idempotent() -> None:
    assert register_with_torchmetrics() and register_with_torchmetrics()
    assert callbacks_factory() == []
    metric = lm.aggregation.SumMetric()
    assert isinstance(metric, torchmetrics.Metric)
    assert torchmetrics.Metric not in type(metric).__mro__  # no subclassing, no wrapper


def test_the_core_never_imports_torchmetrics_or_lightning() -> None:
    code = (
        "import sys, lightning_metrics, lightning_metrics.classification\n"
        "bad = [m for m in ('torchmetrics', 'lightning', 'lightning.pytorch') if m in sys.modules]\n"
        "assert not bad, bad\n"
        "import lightning_metrics.integration, torchmetrics\n"
        "assert isinstance(lightning_metrics.aggregation.SumMetric(), torchmetrics.Metric)\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=str(ROOT), check=True, timeout=120)


def test_entry_point_registers_for_every_trainer() -> None:
    """With the package's ``lightning.pytorch.callbacks_factory`` entry point installed, a Trainer
    registers our Metric even when nothing imported the integration: the import swap alone works."""
    from importlib.metadata import entry_points

    if not any(ep.value.startswith("lightning_metrics.") for ep in entry_points(group="lightning.pytorch.callbacks_factory")):
        pytest.skip("the lightning.pytorch.callbacks_factory entry point is not installed (pip install -e .)")
    code = (
        "import sys, torchmetrics, lightning.pytorch as L\n"
        "from lightning_metrics.classification import MulticlassAccuracy\n"
        "assert 'lightning_metrics.integration' not in sys.modules\n"
        "L.Trainer(accelerator='cpu', logger=False, enable_progress_bar=False, enable_model_summary=False)\n"
        "assert isinstance(MulticlassAccuracy(3), torchmetrics.Metric)\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=str(ROOT), check=True, timeout=120)


def _log_dict_model(package):
    """``self.log_dict(collection)`` after a forward, under compute groups: the torchmetrics idiom."""

    class Model(L.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            torch.manual_seed(0)
            self.layer = nn.Linear(NUM_FEATURES, NUM_CLASSES)
            c = package.classification
            members = {"acc": c.MulticlassAccuracy(NUM_CLASSES), "f1": c.MulticlassF1Score(NUM_CLASSES),
                       "prec": c.MulticlassPrecision(NUM_CLASSES, average="micro")}
            self.train_metrics = package.MetricCollection(members, prefix="train_", compute_groups=True)
            self.val_metrics = self.train_metrics.clone(prefix="val_")

        def training_step(self, batch, batch_idx):
            x, y = batch
            logits = self.layer(x)
            self.log_dict(self.train_metrics(logits, y), on_step=True, on_epoch=False)
            return nn.functional.cross_entropy(logits, y)

        def validation_step(self, batch, batch_idx):
            x, y = batch
            self.val_metrics.update(self.layer(x), y)
            self.log_dict(self.val_metrics)  # the collection itself: Lightning computes and resets each member

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    return Model()


def test_log_dict_of_a_collection_takes_lightnings_collection_path(tmp_path: Path) -> None:
    """Lightning's ``log_dict`` checks ``isinstance(value, torchmetrics.MetricCollection)``: ours passes that
    check in Lightning's module, so compute groups and prefixes follow its collection path, and every
    logged value equals torchmetrics' in a real 2-epoch fit."""
    from lightning.pytorch.core import module as core_module

    assert isinstance(lm.MetricCollection({"a": lm.aggregation.SumMetric()}), core_module.MetricCollection)
    assert isinstance(torchmetrics.MetricCollection([torchmetrics.SumMetric()]), core_module.MetricCollection)
    assert not isinstance({"a": 1}, core_module.MetricCollection)

    def logged(out: Path, package) -> list[dict[str, str]]:
        trainer = L.Trainer(**trainer_kwargs(out, max_epochs=2, log_every_n_steps=1))
        model = _log_dict_model(package)
        trainer.fit(model, loader(64, seed=0), loader(37, seed=1))
        with open(Path(trainer.logger.log_dir) / "metrics.csv") as handle:
            return list(csv.DictReader(handle)), model

    (ours, model), (theirs, _) = logged(tmp_path / "ours", lm), logged(tmp_path / "tm", torchmetrics)
    assert len(ours) == len(theirs) and {"train_acc", "val_acc", "val_f1", "val_prec"} <= set(ours[0])
    for mine, reference in zip(ours, theirs):
        for key, value in reference.items():
            assert (mine[key] == "") == (value == ""), key
            if value and key not in ("epoch", "step"):
                assert float(mine[key]) == pytest.approx(float(value), rel=1e-6, abs=1e-7), key
    # Lightning reset each member at the epoch end: they share one state again
    assert model.val_metrics.compute_groups == {0: ["acc", "f1", "prec"]}


def test_log_dict_sees_our_collections_whatever_was_imported_first() -> None:
    for first in ("import lightning_metrics, lightning.pytorch", "import lightning.pytorch, lightning_metrics",
                  "import pytorch_lightning, lightning_metrics"):
        package = "pytorch_lightning" if "pytorch_lightning" in first else "lightning.pytorch"
        code = (
            f"{first}\n"
            f"from {package}.core import module\n"
            "assert isinstance(lightning_metrics.MetricCollection([lightning_metrics.aggregation.SumMetric()]), "
            "module.MetricCollection)\n"
        )
        subprocess.run([sys.executable, "-c", code], cwd=str(ROOT), check=True, timeout=120)
