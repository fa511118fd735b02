"""TensorBoard as a reader meets it: figures beside their epoch's scalars, per-class tags in class
order, one summary table for a standalone test run (real ``Trainer`` runs, events read back)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import lightning.pytorch as L
import pytest
from lightning.pytorch.callbacks import Callback
from lightning.pytorch.loggers import TensorBoardLogger

import lightning_metrics as lm
from lightning_metrics.classification import MulticlassAccuracy, MulticlassConfusionMatrix, MulticlassRecall
from lightning_metrics.integration.loggers import LoggerSink, logged_step
from lightning_metrics.integration.routing import RouteContext
from tests.integration.integration_helpers import RecordingModel, loader, trainer_kwargs
from tests.integration.test_tensorboard import read_events, text_of

pytestmark = [pytest.mark.timeout(240)]

# names whose alphabetical order is not the class order
CLASSES = ["zebra", "ant", "moth"]


class FinishStages(Callback):
    """Stands in for the engine's ``router.finish(stage, context)`` at the end of each stage (the
    seam the summary table is written through; see the issue-23 report for the engine line)."""

    def __init__(self, metrics_callback: Any) -> None:
        self.router = metrics_callback.engine.router

    def _finish(self, trainer: L.Trainer, stage: str) -> None:
        context = RouteContext(
            log_scalar=lambda *_: None, trainer=trainer, is_global_zero=trainer.is_global_zero
        )
        self.router.finish(stage, context)

    def on_validation_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._finish(trainer, "val")

    def on_test_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._finish(trainer, "test")


def _metrics() -> dict:
    return {
        "acc": MulticlassAccuracy(3),
        "recall": MulticlassRecall(3, average=None),
        "confmat": MulticlassConfusionMatrix(3),
    }


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Two epochs of fit with train and val figures, then a standalone test."""
    root = tmp_path_factory.mktemp("figures")
    callback = lm.MetricsCallback(
        {"train": _metrics(), "val": _metrics(), "test": _metrics()},
        class_names=CLASSES,
        plots=LoggerSink(color_scale="log"),
    )
    logger = TensorBoardLogger(str(root), name="tb", default_hp_metric=False)
    trainer = L.Trainer(
        **trainer_kwargs(root, logger=logger, callbacks=[callback, FinishStages(callback)], max_epochs=2)
    )
    model = RecordingModel()
    trainer.fit(model, loader(64), loader(48, seed=1))
    trainer.test(model, loader(32, seed=2))
    return {"events": read_events(Path(logger.log_dir)), "callback": callback}


@pytest.mark.parametrize("stage", ["train", "val", "test"])
def test_figures_are_written_at_the_step_of_the_same_epochs_scalars(run: dict, stage: str) -> None:
    events = run["events"]
    scalar_steps = [e.step for e in events.Scalars(f"{stage}/acc")]
    assert len(scalar_steps) == (1 if stage == "test" else 2)
    assert [e.step for e in events.Images(f"{stage}/confmat")] == scalar_steps
    assert [e.step for e in events.Images(f"{stage}/recall")] == scalar_steps
    assert [e.step for e in events.Tensors(f"{stage}/confmat/text_summary")] == scalar_steps
    # Lightning's own "epoch" scalar sits at the same steps: the titles' epoch is that one
    epochs = {e.step: int(e.value) for e in events.Scalars("epoch")}
    assert [epochs[s] for s in scalar_steps] == ([0, 1] if stage != "test" else [2])


def test_per_class_tags_sort_in_class_order(run: dict) -> None:
    scalars = run["events"].Tags()["scalars"]
    for stage in ("train", "val", "test"):
        per_class = sorted(t for t in scalars if t.startswith(f"{stage}/recall/"))
        assert per_class == [f"{stage}/recall/{i}_{name}" for i, name in enumerate(CLASSES)]
    assert "hp_metric" not in scalars


def test_a_standalone_test_writes_one_summary_table(run: dict) -> None:
    events = run["events"]
    (summary,) = events.Tensors("test/summary/text_summary")
    assert summary.step == events.Scalars("test/acc")[0].step
    rows = [line.strip("|").split("|") for line in text_of(summary).splitlines()[2:]]
    table = {key.strip(): float(value) for key, value in rows}
    assert set(table) == {"test/acc", *(f"test/recall/{i}_{name}" for i, name in enumerate(CLASSES))}
    assert table["test/acc"] == pytest.approx(events.Scalars("test/acc")[0].value, abs=5e-5)  # 4 decimals
    assert "val/summary/text_summary" not in events.Tags()["tensors"]  # fit epochs have their charts


def test_the_logged_step_follows_lightning_not_global_step() -> None:
    class Stand:
        global_step, training = 20, True

        class fit_loop:  # noqa: N801
            class epoch_loop:  # noqa: N801
                _batches_that_stepped = 20

    assert logged_step(Stand(), "train") == 19 and logged_step(Stand(), "val") == 20
    assert logged_step(type("Bare", (), {"global_step": 7})(), "val") == 7


@pytest.mark.parametrize("option", [{"color_scale": "sqrt"}, {"summary": "yes"}])
def test_bad_sink_options_are_named(option: dict) -> None:
    with pytest.raises(ValueError, match=next(iter(option))):
        LoggerSink(**option)


def test_routing_finish_runs_on_rank_zero_only() -> None:
    calls = []

    class Sink:
        def accepts(self, result, context):
            return False

        def write(self, result, context):
            pass

        def finish(self, stage, context):
            calls.append(stage)

    router = lm.integration.Router(sinks=[Sink(), object()])
    router.finish("val", RouteContext(log_scalar=lambda *_: None, is_global_zero=False))
    router.finish("test", RouteContext(log_scalar=lambda *_: None))
    assert calls == ["test"]
