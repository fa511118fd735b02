"""TensorBoard output in fresh interpreters: under DDP on 2 CPUs."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import torch
from sklearn.metrics import confusion_matrix as sk_confusion_matrix
from tensorboard.util import tensor_util

from tests.integration.integration_helpers import RecordingModel, make_dataset, run_script
from tests.integration.test_tensorboard import parse_markdown_matrix, read_events, text_of

pytestmark = [pytest.mark.timeout(300)]

# --------------------------------------------------------------------- DDP
TRAIN_SIZE, VAL_SIZE = 75, 101  # odd: the DistributedSampler pads one sample on 2 ranks

_DDP = """
import json, sys
import lightning.pytorch as L
from lightning.pytorch.loggers import CSVLogger, TensorBoardLogger
import lightning_metrics as lm
from lightning_metrics.classification import (
    MulticlassCalibrationError, MulticlassConfusionMatrix, MulticlassF1Score,
)
from tests.integration.integration_helpers import RecordingModel, loader
from tests.integration.test_tensorboard import ClassZeroPR

callback = lm.MetricsCallback(
    {"confmat": MulticlassConfusionMatrix(3), "pr": ClassZeroPR(),
     "calib": MulticlassCalibrationError(3, n_bins=5), "f1": MulticlassF1Score(3, average=None)},
    stages=("val",), class_names=["ant", "bee", "cow"],
)
loggers = [TensorBoardLogger("logs", name="tb", version=0), CSVLogger("logs", name="csv", version=0)]
trainer = L.Trainer(accelerator="cpu", devices=2, strategy="ddp", max_epochs=2, logger=loggers,
                    callbacks=[callback], enable_progress_bar=False, enable_model_summary=False,
                    enable_checkpointing=False, num_sanity_val_steps=0)
trainer.fit(RecordingModel(lr=0.0), loader(TRAIN_SIZE), loader(VAL_SIZE, seed=1))
with open(f"rank{trainer.global_rank}.json", "w") as f:
    json.dump({"rank": trainer.global_rank, "confmat": callback.results["val/confmat"].tolist()}, f)
""".replace("TRAIN_SIZE", str(TRAIN_SIZE)).replace("VAL_SIZE", str(VAL_SIZE))


def _single_device_confmat() -> torch.Tensor:
    model = RecordingModel(lr=0.0)  # lr=0: the same weights on any number of devices
    x, y = make_dataset(VAL_SIZE, seed=1).tensors
    with torch.no_grad():
        preds = model(x).argmax(-1)
    return torch.as_tensor(sk_confusion_matrix(y, preds, labels=[0, 1, 2]))


def test_ddp_writes_one_set_of_images_from_all_ranks_data(tmp_path: Path) -> None:
    run_script(_DDP, tmp_path, timeout=240)
    ranks = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in (0, 1)]  # both finished
    expected = _single_device_confmat()
    assert all(torch.equal(torch.tensor(r["confmat"]), expected) for r in ranks)
    event_files = sorted((tmp_path / "logs").rglob("events.out.tfevents.*"))
    with_images = [f for f in event_files if read_events(f).Tags()["images"]]
    assert len(with_images) == 1  # rank zero only
    events = read_events(tmp_path / "logs" / "tb" / "version_0")
    images = {"val/confmat", "val/pr", "val/calib/reliability", "val/f1"}
    assert set(events.Tags()["images"]) == images
    assert all(len(events.Images(tag)) == 2 for tag in images)  # exactly one image per epoch
    texts = events.Tensors("val/confmat/text_summary")
    assert len(texts) == 2 and torch.equal(parse_markdown_matrix(text_of(texts[-1]))[2], expected)
    # drawn from the states merged across ranks, without the sampler's padding
    pr = tensor_util.make_ndarray(events.Tensors("val/pr/pr_curve")[-1].tensor_proto)
    target = make_dataset(VAL_SIZE, seed=1).tensors[1]
    assert pr[0, 0] == (target == 0).sum().item() and pr[0, 0] + pr[1, 0] == VAL_SIZE
    csv_dir = tmp_path / "logs" / "csv" / "version_0"
    calib = list(csv.reader((csv_dir / "val_calib_epoch1.csv").open()))
    assert sum(float(row[3]) for row in calib[1:]) == VAL_SIZE
    assert sorted(p.name for p in csv_dir.glob("val_confmat_epoch*.png")) == [
        "val_confmat_epoch0.png",
        "val_confmat_epoch1.png",
    ]
    assert [p.name for p in (tmp_path / "logs" / "csv").iterdir()] == ["version_0"]
