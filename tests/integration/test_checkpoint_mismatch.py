"""A checkpoint written by other metrics than the ones configured now: never applied, never dropped
silently. Each stage's fingerprint (names, classes, statistic specs, state layouts) is stored with
its states; on a mismatch the engine warns once with what differs and starts those metrics empty
(``checkpoint_mismatch="raise"`` raises), while the metrics that match are restored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import lightning.pytorch as L
import pytest
import torch

import lightning_metrics as lm
from lightning_metrics.classification import MulticlassAccuracy
from tests.integration.integration_helpers import (
    Confusion,
    MaxLogit,
    PerClassRecall,
    RecordingModel,
    SaveCheckpointAt,
    TargetsSeen,
    assert_close,
    loader,
    trainer_kwargs,
)

pytestmark = [pytest.mark.timeout(180),
              pytest.mark.filterwarnings("ignore::lightning.fabric.utilities.warnings.PossibleUserWarning")]


def _fit(tmp_path: Path, metrics: Any, ckpt: Any = None, save: bool = False, **options: Any):
    callback = lm.MetricsCallback(metrics, stages=("train",), **options)
    model = RecordingModel(lr=0.0)
    callbacks = [callback, SaveCheckpointAt(tmp_path / "mid.ckpt", batch_idx=1)] if save else [callback]
    trainer = L.Trainer(callbacks=callbacks, **trainer_kwargs(tmp_path, max_epochs=1, logger=False))
    trainer.fit(model, loader(64, batch_size=8), ckpt_path=ckpt)
    return trainer, model


def test_other_num_classes_warn_once_and_start_those_metrics_empty(tmp_path: Path) -> None:
    _fit(tmp_path, {"recall": PerClassRecall(3), "cm": Confusion(3), "sq": TargetsSeen()}, save=True)
    saved = torch.load(tmp_path / "mid.ckpt", weights_only=False)
    (state,) = [v for k, v in saved["callbacks"].items() if k.startswith("MetricsCallback")]
    held = state["metrics"]["train_metrics"]["native"]["sq"]["states"]["targets"]
    assert held.numel() == 16  # batches 0 and 1

    with pytest.warns(UserWarning) as caught:
        trainer, model = _fit(tmp_path, {"recall": PerClassRecall(4), "cm": Confusion(4), "sq": TargetsSeen()},
                              ckpt=str(tmp_path / "mid.ckpt"))
    messages = [str(w.message) for w in caught if "written by other metrics" in str(w.message)]
    assert len(messages) == 1, messages  # once
    (message,) = messages
    assert "'train_metrics'" in message and "'cm': Confusion" in message and "'recall': PerClassRecall" in message
    assert "hits=sum float32[3]" in message and "hits=sum float32[4]" in message  # what differs: the state shapes
    assert "'sq'" not in message and "start empty" in message
    preds, target = model.recorded("train")  # the batches after the resume
    found = trainer.callback_metrics
    hard = preds.argmax(-1)
    for c in range(3):  # started empty: only the batches after the resume
        assert_close(found[f"train/recall/{c}"], (hard[target == c] == c).float().mean(), f"recall/{c}")
    assert torch.isnan(found["train/recall/3"])  # the new class has no samples
    # the matching metric is restored: the checkpoint's samples plus the ones after the resume
    assert_close(found["train/sq"], (held ** 2).sum() + (target.float() ** 2).sum())


def test_swapped_classes_under_the_same_names_are_not_applied(tmp_path: Path) -> None:
    _fit(tmp_path, {"a": MaxLogit(), "b": TargetsSeen()}, save=True)
    with pytest.warns(UserWarning, match=r"'a': MaxLogit.* in the checkpoint, TargetsSeen.* now; 'b': TargetsSeen"):
        trainer, model = _fit(tmp_path, {"a": TargetsSeen(), "b": MaxLogit()}, ckpt=str(tmp_path / "mid.ckpt"))
    preds, target = model.recorded("train")
    assert_close(trainer.callback_metrics["train/a"], (target.float() ** 2).sum())
    assert_close(trainer.callback_metrics["train/b"], preds.max())


def test_a_mismatch_raises_on_request(tmp_path: Path) -> None:
    _fit(tmp_path, {"recall": PerClassRecall(3), "acc": MulticlassAccuracy(3)}, save=True)
    # average="micro" reads the same statistic as the default macro: its states are valid, and restored
    with pytest.raises(ValueError, match=r"'recall': PerClassRecall.*in the checkpoint, PerClassRecall.* now\)\.$"):
        _fit(tmp_path, {"recall": PerClassRecall(4), "acc": MulticlassAccuracy(3, average="micro")},
             ckpt=str(tmp_path / "mid.ckpt"), checkpoint_mismatch="raise")
    with pytest.raises(ValueError, match="Argument `checkpoint_mismatch` must be one of"):
        lm.MetricsCallback({"acc": MulticlassAccuracy(3)}, checkpoint_mismatch="ignore")


class _Mixin(lm.MetricsMixin, RecordingModel):
    metrics_stages = ("train",)
    names = ("a", "b")

    def configure_metrics(self) -> Any:
        return {name: metric for name, metric in zip(self.names, (MaxLogit(), TargetsSeen()))}


def test_added_and_removed_metrics_are_named(tmp_path: Path) -> None:
    """(The mixin's states live under one checkpoint key; the callback's ``state_key`` holds a digest
    of the metric names, so for other names Lightning itself does not hand it the states, and warns.)"""
    options = dict(**trainer_kwargs(tmp_path, max_epochs=1, logger=False))
    L.Trainer(callbacks=[SaveCheckpointAt(tmp_path / "mid.ckpt", batch_idx=1)], **options).fit(
        _Mixin(lr=0.0), loader(64, batch_size=8))
    model = _Mixin(lr=0.0)
    model.names = ("a", "c")
    trainer = L.Trainer(**options)
    with pytest.warns(UserWarning, match=r"'b': in the checkpoint only; 'c': not in the checkpoint"):
        trainer.fit(model, loader(64, batch_size=8), ckpt_path=str(tmp_path / "mid.ckpt"))
    _, target = model.recorded("train")
    assert_close(trainer.callback_metrics["train/c"], (target.float() ** 2).sum())  # new: empty at the resume


def test_a_renamed_metric_is_named_by_the_callback_and_starts_empty(tmp_path: Path) -> None:
    """The callback's ``state_key`` changes with its metric names: it still finds its states (the one
    unclaimed metrics-callback state), says what was renamed, and restores the metrics that match."""
    _fit(tmp_path, {"a": MaxLogit(), "sq": TargetsSeen()}, save=True)
    with pytest.warns(UserWarning) as caught:
        trainer, model = _fit(tmp_path, {"b": MaxLogit(), "sq": TargetsSeen()}, ckpt=str(tmp_path / "mid.ckpt"))
    messages = [str(w.message) for w in caught]
    assert any("'a': in the checkpoint only; 'b': not in the checkpoint (renamed from 'a'?)" in m for m in messages), messages
    saved = torch.load(tmp_path / "mid.ckpt", weights_only=False)
    (state,) = [v for k, v in saved["callbacks"].items() if k.startswith("MetricsCallback")]
    held = state["metrics"]["train_metrics"]["native"]["sq"]["states"]["targets"]
    preds, target = model.recorded("train")
    assert_close(trainer.callback_metrics["train/sq"], (held ** 2).sum() + (target.float() ** 2).sum())  # restored
    assert_close(trainer.callback_metrics["train/b"], preds.max())  # renamed: from the resume on


@pytest.mark.parametrize("door", ["callback", "mixin"])
def test_resume_from_the_default_epoch_end_checkpoint_with_a_curve_metric(tmp_path: Path, door: str) -> None:
    """``ModelCheckpoint(dirpath=...)`` saves in ``on_train_epoch_end`` after the train values were logged and
    reset: the resume neither crashes on the empty ``cat`` states nor logs a second epoch-0 row."""
    from lightning.pytorch.callbacks import ModelCheckpoint
    from lightning.pytorch.loggers import CSVLogger

    from lightning_metrics.classification import MulticlassAUROC

    def metrics() -> dict:
        return {"acc": MulticlassAccuracy(3), "auroc": MulticlassAUROC(3)}

    class Mixin(lm.MetricsMixin, RecordingModel):
        metrics_stages = ("train",)

        def configure_metrics(self) -> Any:
            return metrics()

    def fit(epochs: int, ckpt: Any = None, name: str = "run"):
        model = Mixin(lr=0.0) if door == "mixin" else RecordingModel(lr=0.0)
        callbacks = [ModelCheckpoint(dirpath=tmp_path / "ckpt", save_top_k=-1)]
        if door == "callback":
            callbacks.insert(0, lm.MetricsCallback(metrics(), stages=("train",)))
        options = trainer_kwargs(tmp_path, max_epochs=epochs, enable_checkpointing=True,
                                 logger=CSVLogger(str(tmp_path), name=name))
        trainer = L.Trainer(callbacks=callbacks, **options)
        trainer.fit(model, loader(64, batch_size=8), ckpt_path=ckpt)
        return trainer, model

    full, _ = fit(2, name="full")
    (ckpt,) = (tmp_path / "ckpt").glob("epoch=0*.ckpt")
    resumed, model = fit(2, ckpt=str(ckpt), name="resumed")
    import csv

    def rows(trainer):
        with open(Path(trainer.logger.log_dir) / "metrics.csv") as handle:
            return [(r["epoch"], k, float(v)) for r in csv.DictReader(handle) for k, v in r.items()
                    if v and k.startswith("train")]

    logged = rows(resumed)
    assert sorted(k for e, k, _ in logged) == ["train/acc", "train/auroc"]  # epoch 1 only: epoch 0 was reported
    expected = {k: v for e, k, v in rows(full) if e == "1"}
    for _, key, value in logged:
        assert value == pytest.approx(expected[key], rel=1e-6), key
