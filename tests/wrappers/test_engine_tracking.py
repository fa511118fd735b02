"""The engine's best-so-far values, bootstrap confidence intervals and multitask naming, in real
``Trainer`` runs: ``trainer.callback_metrics``, the callback's checkpoint state and TensorBoard's
event files (scalars and the custom-scalars margin layout)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import lightning.pytorch as L
import pytest
import torch
import torchmetrics
from lightning.pytorch.callbacks import ModelCheckpoint
from lightning.pytorch.loggers import TensorBoardLogger
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.plugins.custom_scalar import layout_pb2

import lightning_metrics as lm
from lightning_metrics.classification import MulticlassAccuracy, MulticlassF1Score
from lightning_metrics.wrappers import MultitaskWrapper
from lightning_metrics.wrappers.pooled_bootstrap import PooledBootstrap
from tests.integration.integration_helpers import (
    NUM_CLASSES,
    RecordingModel,
    loader,
    run_script,
    trainer_kwargs,
)

pytestmark = [pytest.mark.timeout(240), pytest.mark.filterwarnings("ignore::UserWarning"),
              pytest.mark.filterwarnings("ignore::lightning.fabric.utilities.warnings.PossibleUserWarning")]


class ErrorRate(lm.Metric):
    """1 - accuracy from logits: a metric where lower is better."""

    full_state_update = False
    higher_is_better = False

    def __init__(self) -> None:
        super().__init__()
        self.add_state("wrong", torch.tensor(0), dist_reduce_fx="sum")
        self.add_state("total", torch.tensor(0), dist_reduce_fx="sum")

    def update(self, preds: torch.Tensor, target: torch.Tensor) -> None:
        self.wrong += (preds.argmax(-1) != target).sum()
        self.total += target.numel()

    def compute(self) -> torch.Tensor:
        return self.wrong.float() / self.total


def _metrics():
    return {"acc": MulticlassAccuracy(NUM_CLASSES, average="micro"), "f1": MulticlassF1Score(NUM_CLASSES),
            "error": ErrorRate()}


def _events(log_dir: str) -> EventAccumulator:
    events = EventAccumulator(log_dir, size_guidance={"scalars": 0, "tensors": 0})
    events.Reload()
    return events


def _series(events: EventAccumulator, tag: str) -> list[float]:
    return [e.value for e in events.Scalars(tag)]


def test_best_and_intervals_in_callback_metrics_and_tensorboard(tmp_path: Path):
    callback = lm.MetricsCallback(_metrics(), stages=("train", "val"),
                                  track_best=["train/acc", "acc", "train/error", "val/error"],
                                  confidence_intervals=["acc", "f1"], ci_bootstraps=60, ci_stages=("train", "val"))
    logger = TensorBoardLogger(str(tmp_path), name="tb")
    trainer = L.Trainer(callbacks=[callback], **trainer_kwargs(tmp_path, max_epochs=4, logger=logger))
    trainer.fit(RecordingModel(lr=0.8), loader(64, seed=0), loader(240, seed=1, batch_size=40))

    # acc and f1 share one confusion matrix: one set of bootstrap replicates serves both
    native = callback.engine.templates["val"].native
    assert [type(m) for m in native.values()].count(PooledBootstrap) == 1

    found = trainer.callback_metrics
    for stage in ("train", "val"):
        for name in ("acc", "f1"):
            low, value, high = (float(found[f"{stage}/{name}{s}"]) for s in ("_ci_low", "", "_ci_high"))
            assert low <= value <= high, (stage, name, low, value, high)
        assert {f"{stage}/acc_best", f"{stage}/acc_best_epoch", f"{stage}/error_best"} <= set(found)
        assert f"{stage}/f1_best" not in found  # tracking is switched on per metric

    events = _events(logger.log_dir)
    values, best, best_epoch = (_series(events, f"val/acc{s}") for s in ("", "_best", "_best_epoch"))
    assert len(values) == 4
    for epoch in range(4):  # the running maximum, and the epoch it came from
        assert best[epoch] == max(values[: epoch + 1])
        assert best_epoch[epoch] == values.index(max(values[: epoch + 1]))
    errors, lowest = _series(events, "val/error"), _series(events, "val/error_best")
    assert lowest == [min(errors[: e + 1]) for e in range(4)]  # higher_is_better=False: the minimum
    assert float(found["val/error_best"]) == pytest.approx(min(errors))

    # the interval is a bootstrap over the epoch's pooled predictions: as wide as the binomial one
    low, high = _series(events, "val/acc_ci_low")[-1], _series(events, "val/acc_ci_high")[-1]
    p = values[-1]
    assert 0.6 < (high - low) / (2 * 1.96 * math.sqrt(p * (1 - p) / 240)) < 1.5

    layout = layout_pb2.Layout()
    layout.ParseFromString(events.Tensors("custom_scalars__config__")[-1].tensor_proto.string_val[0])
    charts = {c.title: c.margin.series[0] for cat in layout.category for c in cat.chart}
    assert set(charts) == {f"{s}/{n}" for s in ("train", "val") for n in ("acc", "f1")}
    series = charts["val/f1"]
    assert (series.value, series.lower, series.upper) == ("val/f1", "val/f1_ci_low", "val/f1_ci_high")
    assert {"val/f1_ci_low", "val/f1_ci_high"} <= set(events.Tags()["scalars"])


def test_best_values_live_in_the_checkpoint_and_survive_resume(tmp_path: Path):
    def fit(max_epochs, ckpt_path=None):
        callback = lm.MetricsCallback(_metrics(), stages=("val",), track_best=True)
        checkpoint = ModelCheckpoint(dirpath=tmp_path / "ckpt", save_last=True, save_top_k=0)
        trainer = L.Trainer(callbacks=[callback, checkpoint],
                            **trainer_kwargs(tmp_path, max_epochs=max_epochs, enable_checkpointing=True))
        trainer.fit(RecordingModel(lr=0.8), loader(64, seed=0), loader(120, seed=1, batch_size=30), ckpt_path=ckpt_path)
        return callback, trainer

    first, _ = fit(2)
    saved = torch.load(tmp_path / "ckpt" / "last.ckpt", weights_only=False)["callbacks"][first.state_key]
    assert saved["best"] == first.engine.tracking.best
    assert set(saved["best"]) == {"val/acc", "val/f1", "val/error"}  # track_best=True: all with a direction

    second, trainer = fit(3, ckpt_path=str(tmp_path / "ckpt" / "last.ckpt"))
    last = float(trainer.callback_metrics["val/acc"])
    before = first.engine.tracking.best["val/acc"]
    expected = max(before["value"], last)
    assert second.engine.tracking.best["val/acc"]["value"] == pytest.approx(expected)
    assert float(trainer.callback_metrics["val/acc_best"]) == pytest.approx(expected)
    expected_epoch = before["epoch"] if before["value"] >= last else 2
    assert float(trainer.callback_metrics["val/acc_best_epoch"]) == expected_epoch


def _multitask(package, collection, wrapper):
    cls, reg = package.classification, package.regression
    return wrapper({
        "cls": collection({"acc": cls.MulticlassAccuracy(NUM_CLASSES), "f1": cls.MulticlassF1Score(NUM_CLASSES)}),
        "conf": reg.MeanSquaredError(),
    })


def _extract(outputs, batch):
    logits, target = outputs["preds"], outputs["target"]
    confidence = logits.softmax(-1).max(-1).values
    correct = (logits.argmax(-1) == target).float()
    return {"cls": logits, "conf": confidence}, {"cls": target, "conf": correct}


@pytest.mark.parametrize("as_dict", [False, True], ids=["alone", "in_dict"])
def test_multitask_logs_every_task_under_stage_task_name(tmp_path: Path, as_dict: bool):
    ours = _multitask(lm, lm.MetricCollection, MultitaskWrapper)
    callback = lm.MetricsCallback({"mse": ours} if as_dict else ours, stages=("val",), extract=_extract,
                                  track_best=["cls/acc"], log_on_step=["val"], confidence_intervals=True)
    model = RecordingModel()
    trainer = L.Trainer(callbacks=[callback], **trainer_kwargs(tmp_path))
    trainer.validate(model, loader(90, seed=3, batch_size=32), verbose=False)
    assert "val/cls/f1_step" in trainer.logged_metrics  # batch values of the tasks too
    assert not any("_ci_" in key for key in trainer.callback_metrics)  # a wrapper has no interval

    single = "mse" if as_dict else "MeanSquaredError"  # the user's key, else the metric's class name
    theirs = _multitask(torchmetrics, torchmetrics.MetricCollection, torchmetrics.wrappers.MultitaskWrapper)
    preds, target = model.recorded("val")
    theirs.update(*_extract({"preds": preds, "target": target}, None))
    expected = theirs.compute()
    found = trainer.callback_metrics
    assert {"val/cls/acc", "val/cls/f1", f"val/conf/{single}", "val/cls/acc_best"} <= set(found)
    torch.testing.assert_close(found["val/cls/acc"], expected["cls"]["acc"])
    torch.testing.assert_close(found["val/cls/f1"], expected["cls"]["f1"])
    torch.testing.assert_close(found[f"val/conf/{single}"], expected["conf"])
    assert float(found["val/cls/acc_best"]) == float(found["val/cls/acc"])


def test_mixin_and_argument_errors(tmp_path: Path):
    class Model(lm.MetricsMixin, RecordingModel):
        metrics_stages = ("val",)
        metrics_track_best = ("acc",)
        metrics_confidence_intervals = ("acc",)
        metrics_ci_bootstraps = 20

        def configure_metrics(self):
            return _metrics()

    trainer = L.Trainer(**trainer_kwargs(tmp_path))
    trainer.validate(Model(), loader(60, seed=4, batch_size=20), verbose=False)
    found = trainer.callback_metrics
    assert float(found["val/acc_ci_low"]) <= float(found["val/acc"]) <= float(found["val/acc_ci_high"])
    assert float(found["val/acc_best"]) == float(found["val/acc"])

    default = lm.MetricsCallback(_metrics(), confidence_intervals=["acc"])  # train batches stay cheap
    assert [any(isinstance(m, PooledBootstrap) for m in default.engine.templates[s].native.values())
            for s in ("train", "val", "test")] == [False, True, True]
    with pytest.raises(ValueError, match="`ci_stages`"):
        lm.MetricsCallback(_metrics(), confidence_intervals=True, ci_stages=("fit",))
    with pytest.raises(ValueError, match="`confidence_intervals`.*'nope'"):
        lm.MetricsCallback(_metrics(), confidence_intervals=["acc", "nope"])
    with pytest.raises(ValueError, match="`confidence_intervals`.*MinMaxMetric"):
        lm.MetricsCallback({"mm": lm.wrappers.MinMaxMetric(ErrorRate())}, confidence_intervals=["mm"])
    with pytest.raises(ValueError, match="`ci_level`"):
        lm.MetricsCallback(_metrics(), confidence_intervals=True, ci_level=95)
    with pytest.raises(TypeError, match="`track_best`"):
        lm.MetricsCallback(_metrics(), track_best="acc")
    undirected = lm.MetricsCallback({"mean": lm.aggregation.MeanMetric()}, stages=("val",), track_best=["mean"],
                                    extract=lambda out, batch: (out["preds"].max(-1).values,))
    with pytest.raises(ValueError, match="higher_is_better"):
        L.Trainer(callbacks=[undirected], **trainer_kwargs(tmp_path)).validate(
            RecordingModel(), loader(20, seed=5), verbose=False
        )


_DDP_SCRIPT = """
import json, sys
import lightning.pytorch as L
from lightning.pytorch.callbacks import Callback
import lightning_metrics as lm
from lightning_metrics.classification import MulticlassAccuracy, MulticlassF1Score
from tests.integration.integration_helpers import RecordingModel, loader


class Dump(Callback):
    def on_fit_end(self, trainer, pl_module):
        values = {k: float(v) for k, v in trainer.callback_metrics.items()}
        json.dump(values, open(f"rank{trainer.global_rank}.json", "w"))


callback = lm.MetricsCallback({"acc": MulticlassAccuracy(3, average="micro"), "f1": MulticlassF1Score(3)},
                              stages=("val",), track_best=True, confidence_intervals=True, ci_bootstraps=40)
trainer = L.Trainer(accelerator="cpu", devices=2, strategy="ddp", callbacks=[callback, Dump()], max_epochs=2,
                    logger=False, enable_progress_bar=False, enable_model_summary=False, enable_checkpointing=False,
                    num_sanity_val_steps=0)
trainer.fit(RecordingModel(lr=0.8), loader(64, seed=0), loader(101, seed=1, batch_size=20))
"""


def test_ddp_ranks_log_the_same_best_values_and_intervals(tmp_path: Path):
    """Two processes: the replicates are resampled per rank (own seeds) and pooled in the stage's fused
    sync, so every rank logs the same interval and the same best value (ModelCheckpoint agrees)."""
    run_script(_DDP_SCRIPT, tmp_path, timeout=200)
    rank0, rank1 = (json.loads((tmp_path / f"rank{r}.json").read_text()) for r in (0, 1))
    assert rank0 == rank1
    for name in ("acc", "f1"):
        assert rank0[f"val/{name}_ci_low"] <= rank0[f"val/{name}"] <= rank0[f"val/{name}_ci_high"]
        assert rank0[f"val/{name}_best"] >= rank0[f"val/{name}"]
    assert abs(rank0["val/acc"] * 101 - round(rank0["val/acc"] * 101)) < 1e-4  # 101 samples: padding dropped
