"""Metrics given by name take sample weights as Keras' ``compile(weighted_metrics=[...])`` metrics do.

Each case is a Keras metric's documented ``update_state(y_true, y_pred, sample_weight=...)`` example,
with the value that Keras' definition gives (a weighted mean over samples of the per-sample value; for
precision, recall and AUC weighted confusion counts). ``categorical_accuracy`` takes class indices here
(torchmetrics' multiclass input, see ``lightning_metrics.integration.by_name``), so its one-hot targets
are written as indices. A fit then checks that a step's ``sample_weight`` reaches names through the
callback, against scikit-learn.
"""

from __future__ import annotations

import lightning.pytorch as L
import pytest
import torch
from sklearn.metrics import accuracy_score, f1_score, roc_auc_score
from torch.utils.data import DataLoader, TensorDataset

import lightning_metrics as lm
from lightning_metrics.integration.by_name import TaskArguments, build_metric

KERAS_CASES = [
    # name, y_true, y_pred, sample_weight, value from Keras' definition
    ("binary_accuracy", [1, 1, 0, 0], [0.98, 1.0, 0.0, 0.6], [1, 0, 0, 1], 0.5),
    ("categorical_accuracy", [2, 1], [[0.1, 0.9, 0.8], [0.05, 0.95, 0.0]], [0.7, 0.3], 0.3),
    ("sparse_categorical_accuracy", [2, 1], [[0.1, 0.6, 0.3], [0.05, 0.95, 0.0]], [0.7, 0.3], 0.3),
    ("precision", [0, 1, 1, 1], [1.0, 0.0, 1.0, 1.0], [0, 0, 1, 0], 1.0),
    ("recall", [0, 1, 1, 1], [1.0, 0.0, 1.0, 1.0], [0, 0, 1, 0], 1.0),
    ("auc", [0, 0, 1, 1], [0.0, 0.5, 0.3, 0.9], [1, 0, 0, 1], 1.0),
    # per-sample mean over outputs, then the weighted mean: sample 0's 0.5 with weight 1, sample 1's 0 with 0
    ("mse", [[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [0.0, 0.0]], [1, 0], 0.5),
    ("mae", [[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [0.0, 0.0]], [1, 0], 0.5),
]


@pytest.mark.parametrize(("name", "y_true", "y_pred", "weight", "value"), KERAS_CASES, ids=[c[0] for c in KERAS_CASES])
def test_names_weigh_samples_as_keras_documents(name, y_true, y_pred, weight, value):
    preds, target = torch.tensor(y_pred), torch.tensor(y_true)
    given = TaskArguments().for_names([name], "test")
    metric = build_metric(name, given.infer(preds, target, [name]), given)
    metric.update(preds, target, sample_weight=torch.tensor(weight, dtype=torch.float64))
    result = metric.compute()
    result = result.mean() if name in ("mse", "mae") else result  # per-output values, averaged as Keras does
    assert float(result) == pytest.approx(value, abs=1e-6)


class NamedModel(L.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(4, 3)

    def training_step(self, batch, batch_idx):
        x, y, _ = batch
        return torch.nn.functional.cross_entropy(self.layer(x), y)

    def validation_step(self, batch, batch_idx):
        x, y, w = batch
        return {"preds": self.layer(x), "target": y, "sample_weight": w}

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.0)


def test_a_fit_weighs_metrics_given_by_name(tmp_path):
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(150, 4, generator=g), torch.randint(0, 3, (150,), generator=g)
    w = torch.tensor([0.0, 1.0, 2.5, 3.0])[torch.arange(150) % 4]
    data = DataLoader(TensorDataset(x, y, w), batch_size=32)
    callback = lm.MetricsCallback(["accuracy", "f1", "auroc"], stages=["val"])
    trainer = L.Trainer(accelerator="cpu", devices=1, max_epochs=1, callbacks=[callback], logger=False,
                        enable_progress_bar=False, enable_model_summary=False, enable_checkpointing=False,
                        num_sanity_val_steps=0, limit_train_batches=1)
    model = NamedModel()
    trainer.fit(model, data, data)
    with torch.no_grad():
        scores = model.layer(x).softmax(-1)
    labels = scores.argmax(-1)
    logged = trainer.callback_metrics
    # the task wrappers' defaults: micro accuracy and F1, macro one-vs-rest AUROC
    assert float(logged["val/accuracy"]) == pytest.approx(accuracy_score(y, labels, sample_weight=w), abs=1e-6)
    assert float(logged["val/f1"]) == pytest.approx(f1_score(y, labels, average="micro", sample_weight=w), abs=1e-6)
    expected_auc = roc_auc_score(y, scores, multi_class="ovr", average="macro", sample_weight=w)
    assert float(logged["val/auroc"]) == pytest.approx(expected_auc, abs=1e-6)
