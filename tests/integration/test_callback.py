"""MetricsCallback in real single-process Trainer runs on CPU, checked against an oracle."""

from __future__ import annotations

import csv
import warnings
from pathlib import Path
from typing import Any

import lightning.pytorch as L
import pytest
import torch
from lightning.pytorch.callbacks import Callback, EarlyStopping, ModelCheckpoint

import lightning_metrics as lm
from lightning_metrics.integration.routing import ResultKind
from tests.integration.integration_helpers import (
    Confusion,
    CountAccuracy,
    MaxLogit,
    PerClassRecall,
    RecordingModel,
    SaveCheckpointAt,
    TargetsSeen,
    assert_close,
    assert_oracle_logged,
    loader,
    oracle,
    standard_metrics,
    trainer_kwargs,
)

pytestmark = pytest.mark.timeout(120)


def _fit(tmp_path: Path, callback: Any, model: Any = None, val: Any = None, **overrides: Any):
    model = model or RecordingModel()
    trainer = L.Trainer(callbacks=[callback], **trainer_kwargs(tmp_path, **overrides))
    trainer.fit(model, loader(64, seed=0), val if val is not None else loader(37, seed=1))
    return trainer, model


def _check_stage(metrics: dict, model: RecordingModel, stage: str, dataloader_idx: int = 0, suffix: str = "") -> None:
    assert_oracle_logged(metrics, oracle(*model.recorded(stage, dataloader_idx)), stage, suffix=suffix)


def _csv_rows(trainer: L.Trainer) -> list[dict[str, str]]:
    with open(Path(trainer.logger.log_dir) / "metrics.csv") as handle:
        return list(csv.DictReader(handle))


def test_logged_values_equal_the_oracle(tmp_path: Path) -> None:
    callback = lm.MetricsCallback(standard_metrics())
    trainer, model = _fit(tmp_path, callback)
    _check_stage(trainer.callback_metrics, model, "val")
    _check_stage(trainer.callback_metrics, model, "train")
    rows = _csv_rows(trainer)  # every logger gets them, once per epoch
    assert sum(1 for r in rows if r.get("val/acc")) == 2 and sum(1 for r in rows if r.get("train/acc")) == 2
    assert not any(key.startswith("test/") for key in trainer.callback_metrics)


def test_mixin_gives_identical_numbers(tmp_path: Path) -> None:
    class MixinModel(lm.MetricsMixin, RecordingModel):
        def configure_metrics(self):
            return standard_metrics()

    callback_trainer, _ = _fit(tmp_path / "cb", lm.MetricsCallback(standard_metrics()))
    mixin_model = MixinModel()
    trainer = L.Trainer(**trainer_kwargs(tmp_path / "mixin"))
    trainer.fit(mixin_model, loader(64, seed=0), loader(37, seed=1))
    assert set(trainer.callback_metrics) == set(callback_trainer.callback_metrics)
    for key, value in callback_trainer.callback_metrics.items():
        assert torch.equal(trainer.callback_metrics[key], value), key
    assert isinstance(mixin_model.stage_metrics["val_metrics"], torch.nn.Module)
    assert "stage_metrics.val_metrics" in dict(mixin_model.named_modules())


class StepUpdatingModel(lm.MetricsMixin, RecordingModel):
    """Validation only; the step updates the accuracy itself with ``update_metrics``."""

    metrics_stages = ("val",)

    def configure_metrics(self):
        return {"acc": CountAccuracy()}

    def validation_step(self, batch, batch_idx):
        out = super().validation_step(batch, batch_idx)
        self.update_metrics("val", out["preds"], out["target"])
        return out["loss"]


def test_mixin_update_metrics_from_the_step(tmp_path: Path) -> None:
    model = StepUpdatingModel()
    trainer = L.Trainer(**trainer_kwargs(tmp_path, max_epochs=1))
    trainer.fit(model, loader(32), loader(37, seed=1))
    preds, target = model.recorded("val")
    assert_close(trainer.callback_metrics["val/acc"], (preds.argmax(-1) == target).float().mean())


def test_validate_and_test_standalone(tmp_path: Path) -> None:
    callback = lm.MetricsCallback({"acc": CountAccuracy(), "sq": TargetsSeen()}, stages=("val", "test"))
    model = RecordingModel()
    trainer = L.Trainer(callbacks=[callback], **trainer_kwargs(tmp_path))
    (val_out,) = trainer.validate(model, loader(29, seed=2), verbose=False)
    preds, target = model.recorded("val")
    assert_close(val_out["val/acc"], (preds.argmax(-1) == target).float().mean())
    assert_close(val_out["val/sq"], (target.float() ** 2).sum())
    (test_out,) = trainer.test(model, loader(23, seed=3), verbose=False)
    preds, target = model.recorded("test")
    assert_close(test_out["test/sq"], (target.float() ** 2).sum())
    assert set(test_out) == {"test/acc", "test/sq"}


class _SanityProbe(Callback):
    def __init__(self, metrics_callback: lm.MetricsCallback) -> None:
        self.metrics_callback = metrics_callback
        self.seen: dict[str, Any] = {}

    def on_sanity_check_end(self, trainer, pl_module):
        self.seen["callback_metrics"] = dict(trainer.callback_metrics)
        self.seen["logged"] = dict(trainer.logged_metrics)
        store = self.metrics_callback.engine.store
        self.seen["updates"] = sum(x.update_count for m in store.values() for x in m.native.values())


def test_sanity_check_leaves_nothing(tmp_path: Path) -> None:
    callback = lm.MetricsCallback(standard_metrics(), stages=("val",))
    probe = _SanityProbe(callback)
    model = RecordingModel()
    trainer = L.Trainer(callbacks=[callback, probe], **trainer_kwargs(tmp_path, num_sanity_val_steps=2, max_epochs=1))
    trainer.fit(model, loader(64), loader(37, seed=1, batch_size=8))
    assert probe.seen == {"callback_metrics": {}, "logged": {}, "updates": 0}
    _check_stage(trainer.callback_metrics, model, "val")  # the first epoch's values hold no sanity batch


def test_two_val_dataloaders_are_kept_apart(tmp_path: Path) -> None:
    callback = lm.MetricsCallback(standard_metrics(), stages=("val",))
    trainer, model = _fit(tmp_path, callback, val=[loader(37, seed=1), loader(21, seed=5, batch_size=5)], max_epochs=1)
    for idx in (0, 1):
        _check_stage(trainer.callback_metrics, model, "val", idx, suffix=f"/dataloader_idx_{idx}")
    assert "val/acc" not in trainer.callback_metrics
    assert set(callback.engine.store) == {"val_metrics", "val_metrics_dataloader_idx_1"}
    # trainer.validate returns one dict per dataloader, each with its own keys
    outputs = trainer.validate(model, [loader(37, seed=1), loader(21, seed=5)], verbose=False)
    assert all(any(key.endswith(f"dataloader_idx_{i}") for key in out) for i, out in enumerate(outputs))


def test_model_checkpoint_and_early_stopping(tmp_path: Path) -> None:
    checkpoint = ModelCheckpoint(dirpath=tmp_path / "ckpt", monitor="val/acc", mode="max", save_top_k=1)
    # the sum of squared targets never changes between epochs: no improvement, stop after patience
    stopping = EarlyStopping(monitor="val/sq", mode="max", patience=1)
    callback = lm.MetricsCallback(standard_metrics())
    history: list[float] = []

    class History(Callback):
        def on_validation_end(self, trainer, pl_module):
            history.append(float(trainer.callback_metrics["val/acc"]))

    trainer = L.Trainer(
        callbacks=[callback, checkpoint, stopping, History()],
        **trainer_kwargs(tmp_path, max_epochs=6, enable_checkpointing=True),
    )
    trainer.fit(RecordingModel(), loader(64), loader(37, seed=1))
    assert trainer.current_epoch == 2 and stopping.stopped_epoch == 1
    assert_close(checkpoint.best_model_score, max(history))
    assert Path(checkpoint.best_model_path).exists()


def test_foreign_torchmetrics_metric_is_accepted(tmp_path: Path) -> None:
    from torchmetrics import MetricCollection as TMCollection
    from torchmetrics.classification import MulticlassAccuracy, MulticlassRecall

    callback = lm.MetricsCallback(
        {"tm_acc": MulticlassAccuracy(num_classes=3, average="micro"), "acc": CountAccuracy()}, stages=("val",)
    )
    collection = lm.MetricsCallback(TMCollection({"tm_recall": MulticlassRecall(3, average=None)}), stages=("val",),
                                    separator=".")
    model = RecordingModel()
    trainer = L.Trainer(callbacks=[callback, collection], **trainer_kwargs(tmp_path, max_epochs=1))
    trainer.fit(model, loader(64), loader(37, seed=1))
    metrics = trainer.callback_metrics
    assert_close(metrics["val/tm_acc"], metrics["val/acc"])
    recall = oracle(*model.recorded("val"))["recall"]
    for c in range(3):  # the foreign per-class vector is split by its num_classes
        assert_close(metrics[f"val.tm_recall.{c}"], recall[c])


def test_missing_keys_raise_one_clear_error(tmp_path: Path) -> None:
    class LossOnly(RecordingModel):
        def validation_step(self, batch, batch_idx):
            return super().validation_step(batch, batch_idx)["loss"]

    callback = lm.MetricsCallback({"acc": CountAccuracy()}, stages=("val",))
    with pytest.raises(ValueError, match=r"look for the keys 'preds' and 'target' in what `validation_step` returns, "
                                         r"but it returned a Tensor"):
        _fit(tmp_path, callback, model=LossOnly(), max_epochs=1)


def test_custom_keys_and_extract(tmp_path: Path) -> None:
    class Renamed(RecordingModel):
        def validation_step(self, batch, batch_idx):
            out = super().validation_step(batch, batch_idx)
            return {"logits": out["preds"], "y": out["target"]}

    keyed = lm.MetricsCallback({"acc": CountAccuracy()}, stages=("val",), preds_key="logits", target_key="y")
    extracted = lm.MetricsCallback(
        {"acc": CountAccuracy()}, stages=("val",), separator="-", extract=lambda out, batch: (out["logits"], batch[1])
    )
    model = Renamed()
    trainer = L.Trainer(callbacks=[keyed, extracted], **trainer_kwargs(tmp_path, max_epochs=1))
    trainer.fit(model, loader(64), loader(37, seed=1))
    preds, target = model.recorded("val")
    assert_close(trainer.callback_metrics["val/acc"], (preds.argmax(-1) == target).float().mean())
    assert_close(trainer.callback_metrics["val-acc"], trainer.callback_metrics["val/acc"])


class _MatrixSink:
    def __init__(self) -> None:
        self.written: list = []

    def accepts(self, result, context):
        return result.kind is ResultKind.MATRIX

    def write(self, result, context):
        self.written.append((result.key, context.trainer.current_epoch, result.value.clone()))


def test_non_scalars_never_reach_self_log(tmp_path: Path) -> None:
    sink = _MatrixSink()
    callback = lm.MetricsCallback(
        {"cm": Confusion(), "recall": PerClassRecall(), "acc": CountAccuracy()}, stages=("val",),
        class_names=["ant", "bee", "cow"], sinks=[sink],
    )
    trainer, model = _fit(tmp_path, callback, max_epochs=2)
    metrics = trainer.callback_metrics
    assert "val/cm" not in metrics and {"val/recall/0_ant", "val/recall/1_bee", "val/recall/2_cow"} <= set(metrics)
    preds, target = model.recorded("val")
    expected = torch.zeros(3, 3, dtype=torch.long)
    for t, p in zip(target, preds.argmax(-1)):
        expected[t, p] += 1
    assert [(key, epoch) for key, epoch, _ in sink.written] == [("val/cm", 0), ("val/cm", 1)]
    assert torch.equal(sink.written[-1][2], expected) and torch.equal(callback.results["val/cm"], expected)


def test_log_on_step_uses_the_batch_value_without_a_second_update(tmp_path: Path) -> None:
    callback = lm.MetricsCallback({"acc": CountAccuracy(), "sq": TargetsSeen()}, stages=("train",), log_on_step=True,
                                  prog_bar=["acc"])
    steps: list[float] = []

    class StepProbe(Callback):
        def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
            steps.append(float(trainer.callback_metrics["train/acc_step"]))

    model = RecordingModel()
    trainer = L.Trainer(callbacks=[callback, StepProbe()], **trainer_kwargs(tmp_path, max_epochs=1, log_every_n_steps=1))
    trainer.fit(model, loader(64, batch_size=16), loader(16))
    batches = model.records[("train", 0)]
    assert steps == pytest.approx([float((p.argmax(-1) == t).float().mean()) for p, t in batches])
    _, target = model.recorded("train")
    assert_close(trainer.callback_metrics["train/sq"], (target.float() ** 2).sum())  # one update per batch
    assert "train/acc_step" in trainer.progress_bar_metrics and "train/acc" in trainer.progress_bar_metrics
    assert "train/sq" not in trainer.progress_bar_metrics
    assert sum(1 for r in _csv_rows(trainer) if r.get("train/acc_step")) == 4


def test_metrics_follow_the_module_device_and_dtype_casts_keep_counts(tmp_path: Path) -> None:
    callback = lm.MetricsCallback({"acc": CountAccuracy()}, stages=("val",))
    trainer, model = _fit(tmp_path, callback, max_epochs=1)
    metrics = callback.engine.store["val_metrics"]
    assert metrics.device == model.device
    assert metrics.native["acc"].correct.dtype == torch.int64


def test_state_key_tells_instances_apart_and_checkpoint_roundtrip(tmp_path: Path) -> None:
    a = lm.MetricsCallback({"acc": CountAccuracy()}, stages=("val",))
    b = lm.MetricsCallback({"peak": MaxLogit()}, stages=("val",))
    assert a.state_key != b.state_key
    assert a.state_key == lm.MetricsCallback({"acc": CountAccuracy()}, stages=("val",)).state_key
    # Lightning formats the key into a name around every hook call: it must not grow with the metrics
    many = lm.MetricsCallback({f"acc_{i:02d}": CountAccuracy() for i in range(40)}, stages=("train", "val"))
    assert len(many.state_key) < 100 and many.state_key != a.state_key

    saved: dict[str, Any] = {}

    class SaveMidEpoch(Callback):
        def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
            if batch_idx == 1:
                trainer.save_checkpoint(tmp_path / "mid.ckpt")
                saved["state"] = callback.state_dict()

    callback = lm.MetricsCallback({"sq": TargetsSeen(), "peak": MaxLogit(), "acc": CountAccuracy()}, stages=("train",))
    model = RecordingModel()
    trainer = L.Trainer(callbacks=[callback, SaveMidEpoch()], **trainer_kwargs(tmp_path, max_epochs=1))
    trainer.fit(model, loader(64, batch_size=16), loader(16))
    first_two = model.records[("train", 0)][:2]
    preds = torch.cat([p for p, _ in first_two])
    target = torch.cat([t for _, t in first_two])
    state = torch.load(tmp_path / "mid.ckpt", weights_only=False)["callbacks"][callback.state_key]
    native = state["metrics"]["train_metrics"]["native"]
    assert native["sq"]["states"]["targets"].tolist() == target.float().tolist()
    assert_close(native["peak"]["states"]["peak"], preds.max())
    assert native["acc"]["count"] == 2

    fresh = lm.MetricsCallback({"sq": TargetsSeen(), "peak": MaxLogit(), "acc": CountAccuracy()}, stages=("train",))
    fresh.load_state_dict(state)
    restored = fresh.engine.metrics_for("train", 0).native
    assert_close(restored["sq"].compute(), (target.float() ** 2).sum())
    assert_close(restored["acc"].compute(), (preds.argmax(-1) == target).float().mean())


class _MixinCheckpointed(lm.MetricsMixin, RecordingModel):
    metrics_stages = ("train",)

    def configure_metrics(self) -> Any:
        return {"sq": TargetsSeen(), "peak": MaxLogit(), "acc": CountAccuracy()}


def test_mixin_checkpoint_carries_the_states_and_a_fresh_model_restores_them(tmp_path: Path) -> None:
    # Lightning runs the module's batch-end hook after the callbacks': at the end of batch 2 the
    # mixin holds batches 0 and 1
    model = _MixinCheckpointed()
    saver = SaveCheckpointAt(tmp_path / "mid.ckpt", batch_idx=2)
    trainer = L.Trainer(callbacks=[saver], **trainer_kwargs(tmp_path, max_epochs=1))
    trainer.fit(model, loader(64, batch_size=16), loader(16))
    first_two = model.records[("train", 0)][:2]
    preds = torch.cat([p for p, _ in first_two])
    target = torch.cat([t for _, t in first_two])
    checkpoint = torch.load(tmp_path / "mid.ckpt", weights_only=False)
    native = checkpoint["lightning_metrics"]["metrics"]["train_metrics"]["native"]
    assert native["sq"]["states"]["targets"].tolist() == target.float().tolist()
    assert native["acc"]["count"] == 2

    fresh = _MixinCheckpointed()
    fresh.on_load_checkpoint(checkpoint)  # what Trainer(ckpt_path=...) and load_from_checkpoint call
    restored = fresh.metrics_engine.metrics_for("train", 0).native
    assert_close(restored["sq"].compute(), (target.float() ** 2).sum())
    assert_close(restored["peak"].compute(), preds.max())
    assert_close(restored["acc"].compute(), (preds.argmax(-1) == target).float().mean())


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"stages": ("train", "valid")}, ValueError, r"Argument `stages` must be one of .* got 'valid'"),
        ({"stages": "val"}, ValueError, "Argument `stages` must be a non-empty sequence"),
        ({"prog_bar": "acc"}, TypeError, "Argument `prog_bar` must be a bool or a list"),
        ({"log_on_step": ("training",)}, ValueError, "Argument `log_on_step` must be one of"),
        ({"separator": ""}, ValueError, "Argument `separator` must be a non-empty string"),
        ({"extract": "preds"}, TypeError, "Argument `extract` must be callable"),
        ({"class_names": "abc"}, TypeError, "Argument `class_names` must be a sequence"),
    ],
)
def test_bad_arguments_are_named(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        lm.MetricsCallback({"acc": CountAccuracy()}, **kwargs)


@pytest.mark.parametrize(
    ("metrics", "match"),
    [
        ({"acc": object()}, r"Argument `metrics`: 'acc' must be a lightning_metrics Metric or an object"),
        (42, "Argument `metrics` must be a Metric, a MetricCollection"),
        ({}, "Argument `metrics` must hold at least one metric"),
    ],
)
def test_bad_metrics_are_named(metrics: Any, match: str) -> None:
    with pytest.raises((TypeError, ValueError), match=match):
        lm.MetricsCallback(metrics)


def test_per_stage_metrics_dict(tmp_path: Path) -> None:
    callback = lm.MetricsCallback({"train": {"sq": TargetsSeen()}, "val": [CountAccuracy()]})
    trainer, model = _fit(tmp_path, callback, max_epochs=1)
    assert set(trainer.callback_metrics) == {"train/sq", "val/CountAccuracy"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert callback.engine.stages == ("train", "val")


def test_mixin_hook_override_without_super_is_reported(tmp_path: Path) -> None:
    class Forgetful(StepUpdatingModel):
        def on_validation_batch_end(self, outputs, batch, batch_idx, dataloader_idx=0):
            pass  # forgot super()

    trainer = L.Trainer(**trainer_kwargs(tmp_path, max_epochs=1))
    with pytest.raises(RuntimeError, match=r"call `super\(\)` in it"):
        trainer.fit(Forgetful(), loader(32), loader(16))
    with pytest.raises(ValueError, match="no metrics are configured for 'train'"):
        Forgetful().update_metrics("train", torch.zeros(1), torch.zeros(1))


class _PlainCounter:
    """A foreign metric that is not even an nn.Module: update/compute/reset only."""

    def __init__(self) -> None:
        self.n = 0

    def update(self, preds, target) -> None:
        self.n += int(target.numel())

    def compute(self) -> torch.Tensor:
        return torch.tensor(float(self.n))

    def reset(self) -> None:
        self.n = 0


def test_plain_foreign_object_is_accepted(tmp_path: Path) -> None:
    callback = lm.MetricsCallback([_PlainCounter()], stages=("val",))
    trainer, _ = _fit(tmp_path, callback, max_epochs=2)
    assert float(trainer.callback_metrics["val/_PlainCounter"]) == 37.0


def test_classwise_wrapper_in_a_compute_group_warns_nothing_and_is_exact(tmp_path: Path) -> None:
    """A ``ClasswiseWrapper`` whose metric shares a compute group with another member: no
    "compute called before update" warning at any epoch end, and the per-class values are the
    wrapped metric's own on the stage's outputs (issue 36, point 5)."""
    from lightning_metrics.classification import MulticlassPrecision, MulticlassRecall
    from lightning_metrics.wrappers import ClasswiseWrapper

    callback = lm.MetricsCallback({
        "prec": MulticlassPrecision(3, average=None),
        "rec": ClasswiseWrapper(MulticlassRecall(3, average=None), labels=["a", "b", "c"]),
    })
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer, model = _fit(tmp_path, callback)
    assert not [w for w in caught if "before the ``update``" in str(w.message)], [str(w.message) for w in caught]
    preds, target = model.recorded("val")
    expected = MulticlassRecall(3, average=None)(preds, target)
    logged = [float(trainer.callback_metrics[f"val/rec/{label}"]) for label in ("0_a", "1_b", "2_c")]
    assert torch.allclose(torch.tensor(logged), expected, atol=1e-6)


def test_classwise_wrapper_is_logged_per_class_under_its_own_key(tmp_path: Path) -> None:
    """``{"f1_cls": ClasswiseWrapper(...)}`` logs ``val/f1_cls/<index>_<label>`` (the user's key, the
    index prefix that keeps the classes in order) and its bar chart, as any per-class result
    (issue 36, point 3); without labels the keys are the indices."""
    from lightning_metrics.classification import MulticlassF1Score
    from lightning_metrics.wrappers import ClasswiseWrapper

    names = ["zebra", "ant", "moth"]
    sink = _PerClassSink()
    callback = lm.MetricsCallback(
        {"f1_cls": ClasswiseWrapper(MulticlassF1Score(3, average=None), labels=names),
         "f1_idx": ClasswiseWrapper(MulticlassF1Score(3, average=None))},
        sinks=[sink],
    )
    trainer, model = _fit(tmp_path, callback)
    expected = MulticlassF1Score(3, average=None)(*model.recorded("val"))
    keys = [k for k in trainer.callback_metrics if k.startswith("val/f1_cls/")]
    assert sorted(keys) == ["val/f1_cls/0_zebra", "val/f1_cls/1_ant", "val/f1_cls/2_moth"]
    assert sorted(k for k in trainer.callback_metrics if k.startswith("val/f1_idx/")) == [
        "val/f1_idx/0", "val/f1_idx/1", "val/f1_idx/2"]
    for i, label in enumerate(["0_zebra", "1_ant", "2_moth"]):
        assert float(trainer.callback_metrics[f"val/f1_cls/{label}"]) == pytest.approx(float(expected[i]), abs=1e-6)
    assert not any("multiclassf1score" in k for k in trainer.callback_metrics)
    bars = [r for r in sink.seen if r.key == "val/f1_cls"]
    assert bars and bars[-1].class_names == tuple(names) and torch.allclose(bars[-1].value, expected, atol=1e-6)


class _PerClassSink:
    def __init__(self) -> None:
        self.seen: list = []

    def accepts(self, result: Any, context: Any) -> bool:
        return result.kind is ResultKind.PER_CLASS

    def write(self, result: Any, context: Any) -> None:
        self.seen.append(result)


class _DetectionModel(L.LightningModule):
    """Validation steps return one image of small boxes each; the classes seen change with the
    epoch (3, 5, 7 in the first, 5 and 7 in the second), class 7 has detections and no ground truth."""

    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(1, 1)

    def training_step(self, batch: Any, batch_idx: int) -> Any:
        return self.layer(batch[0]).sum()

    def validation_step(self, batch: Any, batch_idx: int) -> dict[str, Any]:
        labels = [3, 5, 7] if self.current_epoch == 0 else [5, 7]
        g = torch.Generator().manual_seed(batch_idx)
        n = len(labels)
        boxes = torch.rand(n, 2, generator=g) * 50
        boxes = torch.cat([boxes, boxes + 10], dim=1)
        lab = torch.tensor(labels)
        keep = lab != 7
        return {
            "preds": [{"boxes": boxes + torch.rand(n, 4, generator=g), "scores": torch.rand(n, generator=g), "labels": lab}],
            "target": [{"boxes": boxes[keep], "labels": lab[keep]}],
        }

    def configure_optimizers(self) -> Any:
        return torch.optim.SGD(self.parameters(), lr=0.0)


@pytest.mark.parametrize("beside", [False, True], ids=["alone", "beside another mAP"])
def test_detection_results_reach_the_loggers_by_class_id_and_without_sentinels(tmp_path: Path, beside: bool) -> None:
    """issue 36, points 1 and 2, in a real fit with a CSVLogger: no -1 in any logged value, the
    per-class keys are the class ids (named by `class_names` as a dict), stable across epochs; also
    when another member's dict shares the keys, so the collection prefixes them (``det_map_per_class``)."""
    from lightning_metrics.detection import MeanAveragePrecision

    metrics = {"det": MeanAveragePrecision(class_metrics=True)}
    if beside:
        metrics["det50"] = MeanAveragePrecision(iou_thresholds=[0.5], class_metrics=True)
    callback = lm.MetricsCallback(metrics, stages=("val",), class_names={3: "cat", 5: "dog", 7: "emu"})
    data = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.ones(4, 1)), batch_size=1)
    trainer = L.Trainer(callbacks=[callback], **trainer_kwargs(tmp_path))
    with pytest.warns(UserWarning, match=r"are -1 \(no ground truth in that area range or class this epoch\)"):
        trainer.fit(_DetectionModel(), data, data)
    rows = _csv_rows(trainer)
    logged = {k for row in rows for k, v in row.items() if v not in ("", None)}
    assert not [k for row in rows for k, v in row.items() if v not in ("", None) and float(v) == -1.0]
    key = "val/det_map_per_class" if beside else "val/map_per_class"
    per_class = sorted(k for k in logged if k.startswith(f"{key}/"))
    assert per_class == [f"{key}/3_cat", f"{key}/5_dog"], sorted(logged)
    first, second = [r for r in rows if r.get("val/det_map" if beside else "val/map")]
    assert first[f"{key}/3_cat"] and not second[f"{key}/3_cat"]  # class 3 gone in epoch 2
    assert first[f"{key}/5_dog"] and second[f"{key}/5_dog"]  # class 5 keeps its key
