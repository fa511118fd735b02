"""Non-scalar results reach TensorBoard, a CSV logger's files and a real TensorBoard server.

Real ``Trainer`` fits with ``MetricsCallback`` (and once ``MetricsMixin``); the event files are
read back with TensorBoard's ``EventAccumulator``. The metric classes here are also imported by
the subprocess tests in ``test_tensorboard_isolated.py``.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import lightning.pytorch as L
import pytest
import torch
from lightning.pytorch.callbacks import Callback
from lightning.pytorch.loggers import CSVLogger, TensorBoardLogger
from PIL import Image
from sklearn.metrics import confusion_matrix as sk_confusion_matrix
from tensorboard.backend.event_processing import event_accumulator as ea
from tensorboard.util import tensor_util

import lightning_metrics as lm
from lightning_metrics.classification import (
    BinaryPrecisionRecallCurve,
    MulticlassAccuracy,
    MulticlassCalibrationError,
    MulticlassConfusionMatrix,
    MulticlassF1Score,
    MulticlassROC,
    MultilabelConfusionMatrix,
)
from lightning_metrics.integration.loggers import LoggerSink, log_result, render_result
from lightning_metrics.utilities import dim_zero_cat
from tests.integration.integration_helpers import RecordingModel, free_port, loader, trainer_kwargs

pytestmark = [pytest.mark.timeout(240)]

CLASSES = ["ant", "bee", "cow"]
IMAGE_METRICS = ("confmat", "f1", "roc", "pr", "calib", "multilabel")
# TensorBoard's server gives a tag to one plugin: the calibration error is the scalar "val/calib"
IMAGE_TAGS = ("confmat", "f1", "roc", "pr", "calib/reliability", "multilabel")
TRAIN, VAL, TEST = 64, 48, 32


# ----------------------------------------------------------------- metrics
class ClassZeroPR(BinaryPrecisionRecallCurve):
    """Binary precision-recall curve of class 0 against the rest, read from 3-class logits."""

    def update(self, preds: torch.Tensor, target: torch.Tensor) -> None:
        super().update(preds.softmax(-1)[:, 0], (target == 0).long())


class OneHotMultilabelConfusion(MultilabelConfusionMatrix):
    """A (3, 2, 2) multilabel confusion matrix, from 3-class logits and one-hot targets."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(num_labels=3, **kwargs)

    def update(self, preds: torch.Tensor, target: torch.Tensor) -> None:
        super().update(preds.sigmoid(), torch.nn.functional.one_hot(target, 3))


class LogitQuantiles(lm.Metric):
    """Five quantiles of the top logit: a vector that is not per class (a histogram and text)."""

    full_state_update = False

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_state("top", [], dist_reduce_fx="cat")

    def update(self, preds: torch.Tensor, target: torch.Tensor) -> None:
        self.top.append(preds.max(-1).values)

    def compute(self) -> torch.Tensor:
        return torch.quantile(dim_zero_cat(self.top), torch.linspace(0, 1, 5))


class LogitSummary(lm.Metric):
    """A dict of scalars: logged key by key."""

    full_state_update = False

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_state("total", torch.tensor(0.0), dist_reduce_fx="sum")
        self.add_state("count", torch.tensor(0.0), dist_reduce_fx="sum")

    def update(self, preds: torch.Tensor, target: torch.Tensor) -> None:
        self.total += preds.max(-1).values.sum()
        self.count += target.numel()

    def compute(self) -> dict[str, torch.Tensor]:
        return {"top_mean": self.total / self.count, "seen": self.count}


def image_metrics() -> dict[str, lm.Metric]:
    return {
        "confmat": MulticlassConfusionMatrix(3),
        "f1": MulticlassF1Score(3, average=None),
        "roc": MulticlassROC(3),
        "pr": ClassZeroPR(),
        "calib": MulticlassCalibrationError(3, n_bins=5),
        "multilabel": OneHotMultilabelConfusion(),
        "quantiles": LogitQuantiles(),
        "summary": LogitSummary(),
        "acc": MulticlassAccuracy(3),
    }


# ----------------------------------------------------------------- reading
def read_events(log_dir: Path) -> ea.EventAccumulator:
    guidance = {ea.IMAGES: 0, ea.TENSORS: 0, ea.HISTOGRAMS: 0, ea.SCALARS: 0}
    accumulator = ea.EventAccumulator(str(log_dir), size_guidance=guidance)
    accumulator.Reload()
    return accumulator


def text_of(event: Any) -> str:
    return tensor_util.make_ndarray(event.tensor_proto).item().decode()


def parse_markdown_matrix(text: str) -> tuple[list[str], list[str], torch.Tensor]:
    """(column names, row names, values) of the confusion-matrix markdown table."""
    lines = [line.strip().strip("|").split("|") for line in text.strip().splitlines()]
    columns = [c.strip() for c in lines[0][1:]]
    rows = [[c.strip() for c in line] for line in lines[2:]]
    return columns, [r[0].strip("*") for r in rows], torch.tensor([[int(c) for c in r[1:]] for r in rows])


class EpochRecorder(Callback):
    """Placed after the MetricsCallback: keeps what it computed at each epoch end, and the step."""

    def __init__(self, metrics_callback: Any) -> None:
        self.metrics_callback, self.seen = metrics_callback, []

    def _keep(self, trainer: L.Trainer, stage: str) -> None:
        results = {
            k: v.clone() if isinstance(v, torch.Tensor) else v
            for k, v in self.metrics_callback.results.items()
        }
        self.seen.append((stage, trainer.current_epoch, trainer.global_step, results))

    def on_validation_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._keep(trainer, "val")

    def on_test_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._keep(trainer, "test")


# ------------------------------------------------------------ the main run
@pytest.fixture(scope="module")
def tb_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One fit (2 epochs) and one test with a TensorBoardLogger and a CSVLogger side by side."""
    root = tmp_path_factory.mktemp("tensorboard")
    callback = lm.MetricsCallback(image_metrics(), stages=("val", "test"), class_names=CLASSES)
    recorder = EpochRecorder(callback)
    loggers = [TensorBoardLogger(str(root), name="tb"), CSVLogger(str(root), name="csv")]
    trainer = L.Trainer(**trainer_kwargs(root, logger=loggers, callbacks=[callback, recorder]))
    model = RecordingModel()
    trainer.fit(model, loader(TRAIN), loader(VAL, seed=1))
    val_preds, val_target = model.recorded("val")
    trainer.test(model, loader(TEST, seed=2))
    return dict(
        root=root,
        tb_dir=Path(loggers[0].log_dir),
        csv_dir=Path(loggers[1].log_dir),
        callback=callback,
        seen=recorder.seen,
        val=(val_preds, val_target),
        test=model.recorded("test"),
    )


def test_images_sit_at_the_step_of_their_epochs_scalars(tb_run: dict) -> None:
    """In Time Series an image must sit beside the values of its epoch: the same step as the
    epoch-end scalars Lightning logs (one less than ``global_step`` after a training epoch)."""
    events = read_events(tb_run["tb_dir"])
    tags = events.Tags()
    scalar_steps = {stage: [e.step for e in events.Scalars(f"{stage}/acc")] for stage in ("val", "test")}
    global_steps = [step for stage, _, step, _ in tb_run["seen"] if stage == "val"]
    assert len(scalar_steps["val"]) == 2 and len(set(scalar_steps["val"])) == 2
    assert scalar_steps["val"] == [s - 1 for s in global_steps]  # what the old writer got wrong
    expected = {f"{stage}/{name}" for stage in ("val", "test") for name in IMAGE_TAGS}
    assert set(tags["images"]) == expected  # scalars, dicts and plain vectors are no images
    for tag in expected:
        images = events.Images(tag)
        assert [e.step for e in images] == scalar_steps[tag.split("/")[0]], tag
        for image in images:
            decoded = Image.open(io.BytesIO(image.encoded_image_string))
            assert decoded.size == (image.width, image.height) and min(decoded.size) > 100
            assert max(decoded.size) <= 640  # sized for TensorBoard's card, which shrinks it to ~350 px
            assert len(decoded.convert("RGB").getcolors(1 << 24)) > 16  # a drawing, not a blank
    for tag in ("val/confmat/text_summary", "test/confmat/text_summary"):
        assert [e.step for e in events.Tensors(tag)] == scalar_steps[tag.split("/")[0]]
    assert tb_run["callback"].router.unrouted == {}  # every non-scalar found a writer


def test_confusion_matrix_text_equals_the_computed_matrix(tb_run: dict) -> None:
    events = read_events(tb_run["tb_dir"])
    texts = events.Tensors("val/confmat/text_summary")
    computed = [results["val/confmat"] for stage, _, _, results in tb_run["seen"] if stage == "val"]
    assert len(texts) == len(computed) == 2
    for event, matrix in zip(texts, computed):
        columns, rows, values = parse_markdown_matrix(text_of(event))
        assert columns == rows == CLASSES
        assert torch.equal(values, matrix)
    preds, target = tb_run["val"]
    oracle = torch.as_tensor(sk_confusion_matrix(target, preds.argmax(-1), labels=[0, 1, 2]))
    assert torch.equal(parse_markdown_matrix(text_of(texts[-1]))[2], oracle)
    test_text = text_of(events.Tensors("test/confmat/text_summary")[0])
    assert parse_markdown_matrix(test_text)[2].sum() == TEST
    multilabel = text_of(events.Tensors("val/multilabel/text_summary")[-1])
    assert multilabel.splitlines()[0] == "| label | tn | fp | fn | tp |" and "| ant |" in multilabel


def test_binary_pr_curve_in_the_pr_curve_plugin(tb_run: dict) -> None:
    events = read_events(tb_run["tb_dir"])
    assert set(events.PluginTagToContent("pr_curves")) == {"val/pr/pr_curve", "test/pr/pr_curve"}
    data = tensor_util.make_ndarray(
        events.Tensors("val/pr/pr_curve")[-1].tensor_proto
    )  # rows: tp, fp, tn, fn, precision, recall
    _, target = tb_run["val"]
    assert data.shape[0] == 6
    assert data[0, 0] == (target == 0).sum().item()  # at threshold 0 every sample is positive
    assert data[0, 0] + data[1, 0] == VAL
    assert data[5, 0] == pytest.approx(1.0)


def test_scalars_histograms_and_text_for_everything_else(tb_run: dict) -> None:
    tags = read_events(tb_run["tb_dir"]).Tags()
    per_class = {f"val/f1/{i}_{name}" for i, name in enumerate(CLASSES)}
    assert per_class | {"val/acc", "val/calib", "val/top_mean", "val/seen"} <= set(tags["scalars"])
    assert {"val/quantiles", "test/quantiles"} <= set(tags["histograms"])  # a vector that is not per class
    assert {"val/quantiles/text_summary", "val/confmat/text_summary"} <= set(tags["tensors"])


def test_csv_logger_gets_png_and_csv_files(tb_run: dict) -> None:
    directory = tb_run["csv_dir"]
    last_val = [results for stage, _, _, results in tb_run["seen"] if stage == "val"][-1]
    for epoch in (0, 1):
        for name in IMAGE_METRICS:
            png = directory / f"val_{name}_epoch{epoch}.png"
            assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            assert min(Image.open(png).size) > 100
            assert (directory / f"val_{name}_epoch{epoch}.csv").exists()
    for name in IMAGE_METRICS:  # after the fit (trainer epoch 2) the test runs on the weights of epoch 1
        assert (directory / f"test_{name}_epoch1.png").exists()
        assert not (directory / f"test_{name}_epoch2.png").exists()
    rows = list(csv.reader((directory / "val_confmat_epoch1.csv").open()))
    assert rows[0] == ["true\\predicted", *CLASSES] and [r[0] for r in rows[1:]] == CLASSES
    assert torch.equal(torch.tensor([[int(v) for v in r[1:]] for r in rows[1:]]), last_val["val/confmat"])
    roc = list(csv.reader((directory / "val_roc_epoch1.csv").open()))
    assert roc[0] == ["class", "fpr", "tpr", "threshold"] and {r[0] for r in roc[1:]} == set(CLASSES)
    calib = list(csv.reader((directory / "val_calib_epoch1.csv").open()))
    assert (
        calib[0] == ["bin", "confidence", "accuracy", "count"] and sum(float(r[3]) for r in calib[1:]) == VAL
    )
    f1 = list(csv.reader((directory / "val_f1_epoch1.csv").open()))
    assert [r[0] for r in f1[1:]] == CLASSES
    assert (directory / "val_quantiles_epoch1.csv").exists()
    assert not list(directory.glob("val_top_mean*")) and not list(
        directory.glob("val_acc*")
    )  # scalars: metrics.csv


# --------------------------------------------------------------- the server
def _get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


def test_a_tensorboard_server_serves_the_images(tb_run: dict) -> None:
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "tensorboard.main",
        "--logdir",
        str(tb_run["root"] / "tb"),
        "--port",
        str(port),
        "--host",
        "127.0.0.1",
        "--load_fast",
        "false",
        "--reload_interval",
        "1",
    ]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline, tags = time.monotonic() + 90, {}
        while time.monotonic() < deadline:
            assert server.poll() is None, server.stderr.read().decode()[-2000:]
            try:
                tags = _get_json(f"{base}/data/plugin/images/tags")
                if any("val/confmat" in run_tags for run_tags in tags.values()):
                    break
            except (urllib.error.URLError, ConnectionError, json.JSONDecodeError):
                pass
            time.sleep(0.5)
        ((run, run_tags),) = tags.items()
        assert {f"{s}/{n}" for s in ("val", "test") for n in IMAGE_TAGS} == set(run_tags)
        samples = _get_json(f"{base}/data/plugin/images/images?run={run}&tag=val/confmat&sample=0")
        assert len(samples) == 2  # one per validation epoch
        with urllib.request.urlopen(
            f"{base}/data/plugin/images/individualImage?{samples[-1]['query']}", timeout=5
        ) as r:
            assert r.read()[:8] == b"\x89PNG\r\n\x1a\n"
        assert "val/confmat/text_summary" in _get_json(f"{base}/data/plugin/text/tags")[run]
        assert "val/pr/pr_curve" in _get_json(f"{base}/data/plugin/pr_curves/tags")[run]
        scalars = _get_json(f"{base}/data/plugin/scalars/tags")[run]
        assert {"val/calib", "val/acc", "val/f1/0_ant"} <= set(scalars)  # no tag is shadowed by an image
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)


# ---------------------------------------------------------------- options
def _confmat_fit(
    tmp_path: Path, plots: Any, epochs: int, validate: bool = False
) -> tuple[ea.EventAccumulator, list]:
    callback = lm.MetricsCallback(
        {"confmat": MulticlassConfusionMatrix(3), "acc": MulticlassAccuracy(3)}, stages=("val",), plots=plots
    )
    recorder = EpochRecorder(callback)
    logger = TensorBoardLogger(str(tmp_path), name="tb")
    trainer = L.Trainer(
        **trainer_kwargs(tmp_path, logger=logger, callbacks=[callback, recorder], max_epochs=epochs)
    )
    model = RecordingModel()
    trainer.fit(model, loader(32), loader(32, seed=1))
    if validate:
        trainer.validate(model, loader(32, seed=1))
    return read_events(Path(logger.log_dir)), recorder.seen


def test_every_n_epochs_and_standalone_validate(tmp_path: Path) -> None:
    events, seen = _confmat_fit(tmp_path, plots=2, epochs=3, validate=True)
    scalar_steps = [e.step for e in events.Scalars("val/acc")]  # epochs 0, 1, 2, then validate()
    assert len(scalar_steps) == 4 and [epoch for _, epoch, _, _ in seen] == [0, 1, 2, 3]
    assert [e.step for e in events.Images("val/confmat")] == [scalar_steps[1], scalar_steps[3]]
    assert len(events.Tensors("val/confmat/text_summary")) == 2


def test_only_at_the_end_of_validate(tmp_path: Path) -> None:
    events, seen = _confmat_fit(tmp_path, plots="end", epochs=2, validate=True)
    last = events.Scalars("val/acc")[-1].step
    assert [e.step for e in events.Images("val/confmat")] == [last] and len(seen) == 3


def test_normalized_variant_on_request(tmp_path: Path) -> None:
    events, _ = _confmat_fit(tmp_path, plots=LoggerSink(normalize="true"), epochs=1)
    assert set(events.Tags()["images"]) == {"val/confmat", "val/confmat/normalized"}


def test_plots_off_keeps_the_matrix_and_says_so(tmp_path: Path) -> None:
    with pytest.warns(UserWarning, match=r"'val/confmat' is not a scalar \(matrix\)"):
        events, seen = _confmat_fit(tmp_path, plots=False, epochs=1)
    assert events.Tags()["images"] == [] and seen[-1][3]["val/confmat"].sum() == 32


@pytest.mark.parametrize("plots", [0, "sometimes", 1.5])
def test_bad_plots_option_is_named(plots: Any) -> None:
    with pytest.raises(ValueError, match="Argument `plots`"):
        lm.MetricsCallback({"confmat": MulticlassConfusionMatrix(3)}, plots=plots)


def test_the_mixin_writes_the_same_images(tmp_path: Path) -> None:
    class Model(lm.MetricsMixin, RecordingModel):
        metrics_stages = ("val",)
        metrics_class_names = CLASSES

        def configure_metrics(self) -> Any:
            return {"confmat": MulticlassConfusionMatrix(3), "pr": ClassZeroPR()}

    logger = TensorBoardLogger(str(tmp_path), name="tb")
    trainer = L.Trainer(**trainer_kwargs(tmp_path, logger=logger, max_epochs=1))
    trainer.fit(Model(), loader(32), loader(32, seed=1))
    events = read_events(Path(logger.log_dir))
    assert set(events.Tags()["images"]) == {"val/confmat", "val/pr"}
    assert "val/pr/pr_curve" in events.PluginTagToContent("pr_curves")
    assert parse_markdown_matrix(text_of(events.Tensors("val/confmat/text_summary")[0]))[:2] == (
        CLASSES,
        CLASSES,
    )


def test_several_val_dataloaders_get_their_own_tags(tmp_path: Path) -> None:
    callback = lm.MetricsCallback({"confmat": MulticlassConfusionMatrix(3)}, stages=("val",))
    logger = TensorBoardLogger(str(tmp_path), name="tb")
    trainer = L.Trainer(**trainer_kwargs(tmp_path, logger=logger, callbacks=[callback], max_epochs=1))
    trainer.fit(RecordingModel(), loader(32), [loader(16, seed=1), loader(24, seed=2)])
    events = read_events(Path(logger.log_dir))
    assert set(events.Tags()["images"]) == {"val/confmat/dataloader_idx_0", "val/confmat/dataloader_idx_1"}
    totals = [
        parse_markdown_matrix(text_of(events.Tensors(f"val/confmat/dataloader_idx_{i}/text_summary")[0]))[
            2
        ].sum()
        for i in (0, 1)
    ]
    assert totals == [16, 24]


# ------------------------------------------------------- the writers directly
def test_binned_binary_pr_curve_goes_to_add_pr_curve_raw(tmp_path: Path) -> None:
    g = torch.Generator().manual_seed(0)
    scores, target = torch.rand(50, generator=g), torch.randint(0, 2, (50,), generator=g)
    metric = BinaryPrecisionRecallCurve(thresholds=11)
    metric.update(scores, target)
    logger = TensorBoardLogger(str(tmp_path), name="tb")
    written = log_result(logger, "val", "pr", metric.compute(), step=7, metric=metric)
    logger.experiment.flush()
    assert written == ["tensorboard"]
    events = read_events(Path(logger.log_dir))
    data = tensor_util.make_ndarray(events.Tensors("val/pr/pr_curve")[0].tensor_proto)
    assert data.shape == (6, 11) and events.Tensors("val/pr/pr_curve")[0].step == 7
    counts = metric.confmat  # (T, 2, 2): [threshold, target, prediction]
    assert data[0].tolist() == counts[:, 1, 1].tolist() and data[1].tolist() == counts[:, 0, 1].tolist()
    assert data[2].tolist() == counts[:, 0, 0].tolist() and data[3].tolist() == counts[:, 1, 0].tolist()
    assert events.Tags()["images"] == ["val/pr"]


def test_log_result_renders_mappings_key_by_key_and_large_matrices_as_a_note(tmp_path: Path) -> None:
    logger = CSVLogger(str(tmp_path), name="csv")
    written = log_result(
        logger,
        "test",
        "parts",
        {"cm": torch.eye(2), "curve": (torch.rand(4), torch.rand(4))},
        epoch=0,
    )
    assert written == [f"files:{logger.log_dir}"] * 2
    names = sorted(p.name for p in Path(logger.log_dir).iterdir())
    assert names == [
        "test_parts_cm_epoch0.csv",
        "test_parts_cm_epoch0.png",
        "test_parts_curve_epoch0.csv",
        "test_parts_curve_epoch0.png",
    ]
    big = render_result("val", "confmat", torch.ones(80, 80, dtype=torch.long))
    assert big.text.startswith("A 80 x 80 matrix is too large for a table (total 6400, trace 80)")
    assert len(big.table) == 81  # the CSV keeps every cell


def test_operating_point_tuples_are_text_not_curves() -> None:
    rendering = render_result(
        "val", "p_at_r", (torch.tensor(0.75), torch.tensor(0.3)), kind="curve"
    )
    assert (
        rendering.images == []
        and "0.75" in rendering.text
        and rendering.table[1:] == [["0", "0.75"], ["1", "0.3"]]
    )


def test_a_standalone_test_run_writes_one_summary_table(tb_run: dict) -> None:
    """``trainer.test`` ends with one table of its scalars in the Text tab; a fit's epochs do not."""
    events = read_events(tb_run["tb_dir"])
    tensors = events.Tags()["tensors"]
    summaries = [t for t in tensors if t.split("/")[1] == "summary"]
    assert summaries == ["test/summary/text_summary"], tensors
    (event,) = events.Tensors(summaries[0])
    table = text_of(event)
    acc = float(tb_run["callback"].results["test/acc"])
    assert "test/acc" in table and f"{acc:.4f}" in table, table
