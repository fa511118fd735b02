"""Through a real Lightning fit: MetricsCallback logs a clustering and a nominal metric computed from the
labels the steps return, equal to scikit-learn's and torchmetrics' values over the same labels."""

from __future__ import annotations

import itertools
from pathlib import Path

import lightning.pytorch as L
import pytest
import sklearn.metrics.cluster as skc
import torch
import torchmetrics

import lightning_metrics as lm
from lightning_metrics.clustering import AdjustedRandScore, ClusterAccuracy
from lightning_metrics.nominal import CramersV
from tests.integration.integration_helpers import NUM_CLASSES, RecordingModel, loader, trainer_kwargs

pytestmark = [pytest.mark.timeout(120), pytest.mark.filterwarnings("ignore")]


class LabelModel(RecordingModel):
    """Returns predicted labels (argmax), recording them, as a clustering head would."""

    def _step(self, stage, batch, dataloader_idx=0):
        out = super()._step(stage, batch, dataloader_idx)
        return {"loss": out["loss"], "preds": out["preds"].argmax(-1), "target": out["target"]}


def test_fit_logs_clustering_and_nominal_metrics_equal_to_the_oracles(tmp_path: Path) -> None:
    metrics = {
        "ari": AdjustedRandScore(),
        "cluster_acc": ClusterAccuracy(num_classes=NUM_CLASSES),
        "cramers_v": CramersV(num_classes=NUM_CLASSES, bias_correction=False),
    }
    callback = lm.MetricsCallback(metrics, stages=("train", "val"))
    model = LabelModel()
    trainer = L.Trainer(callbacks=[callback], **trainer_kwargs(tmp_path))
    trainer.fit(model, loader(64, seed=0), loader(37, seed=1, batch_size=8))
    logits, target = model.recorded("val")
    preds = logits.argmax(-1)
    logged = trainer.callback_metrics
    assert logged["val/ari"].item() == pytest.approx(
        skc.adjusted_rand_score(target.numpy(), preds.numpy()), abs=1e-6
    )
    oracle = torchmetrics.nominal.CramersV(num_classes=NUM_CLASSES, bias_correction=False)
    oracle.update(preds, target)
    assert logged["val/cramers_v"].item() == pytest.approx(oracle.compute().item(), abs=1e-6)
    best = max(
        (preds == torch.tensor(perm)[target]).float().mean().item()
        for perm in itertools.permutations(range(NUM_CLASSES))
    )
    assert logged["val/cluster_acc"].item() == pytest.approx(best, abs=1e-6)
    assert "train/ari" in logged
