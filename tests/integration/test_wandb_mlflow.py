"""Non-scalar results reach Weights & Biases and MLflow in the form their UIs show best.

One real ``Trainer`` fit (2 epochs, train and val metrics) and a test run, with Lightning's own
``WandbLogger`` (offline) and ``MLFlowLogger`` (a file store) side by side; what they wrote is
read back from disk: W&B's transaction log (``run-*.wandb``, its history rows and config) and
media files, MLflow's runs, metric histories and artifacts.
"""

from __future__ import annotations

import csv
import io
import json
import re
import struct
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import lightning.pytorch as L
import pytest
import torch
from lightning.pytorch.callbacks import Callback
from PIL import Image

import lightning_metrics as lm
from lightning_metrics.integration import logger_services
from lightning_metrics.integration.loggers import LoggerSink, log_result, logged_step
from lightning_metrics.integration.routing import ResultKind, RouteContext, RoutedResult
from tests.integration.integration_helpers import RecordingModel, loader, trainer_kwargs
from tests.integration.test_tensorboard import CLASSES, IMAGE_TAGS, TEST, TRAIN, VAL, image_metrics

wandb = pytest.importorskip("wandb")
mlflow = pytest.importorskip("mlflow")

pytestmark = [pytest.mark.timeout(240)]

STAGES = ("train", "val", "test")


# ----------------------------------------------------------------- reading W&B
def wandb_records(path: Path) -> list[Any]:
    """The records of a W&B transaction log: a header, then 32 KiB blocks of chunks, each with a
    7-byte head (CRC, length, type: 1 whole, 2 first, 3 middle, 4 last) and a ``Record`` proto."""
    from wandb.proto import wandb_internal_pb2

    data, block = path.read_bytes(), 32768
    assert data[:4] == b":W&B"
    records, position, pending = [], 7, b""
    while position + 7 <= len(data):
        left = block - position % block
        _, length, kind = struct.unpack("<IHB", data[position:position + 7])
        if left < 7 or (kind == 0 and length == 0):  # a block's zero padding
            position += left
            continue
        chunk, position = data[position + 7:position + 7 + length], position + 7 + length
        pending = chunk if kind in (1, 2) else pending + chunk
        if kind in (1, 4):
            record = wandb_internal_pb2.Record()
            record.ParseFromString(pending)
            records.append(record)
    return records


def wandb_history(records: list[Any]) -> list[dict[str, Any]]:
    """The history rows, each ``{key: value}`` (a media entry as its dict of fields)."""
    rows = []
    for record in records:
        if record.WhichOneof("record_type") == "history":
            row: dict[str, Any] = {}
            for item in record.history.item:
                key = item.key or "/".join(item.nested_key)
                row[key] = json.loads(item.value_json)
            rows.append(_nest_media(row))
    return rows


def _nest_media(row: dict[str, Any]) -> dict[str, Any]:
    """W&B stores a media entry as flat keys ("val/confmat/_type", ".../path"): one dict per entry."""
    out: dict[str, Any] = {}
    for key, value in row.items():
        base, _, field = key.rpartition("/")
        if f"{base}/_type" in row:
            out.setdefault(base, {})[field] = value
        else:
            out[key] = value
    return out


def wandb_charts(records: list[Any]) -> dict[str, dict]:
    """The custom charts declared in the run's config (key -> panel config), the last of each."""
    charts = {}
    for record in records:
        if record.WhichOneof("record_type") == "config":
            for update in record.config.update:
                path = list(update.nested_key) or [update.key]
                if path[:2] == ["_wandb", "visualize"]:
                    charts[path[2]] = json.loads(update.value_json)["panel_config"]
    return charts


# ----------------------------------------------------------------- the run
class StageRecorder(Callback):
    """Placed after the MetricsCallback: what it computed at each stage end, and at which step."""

    def __init__(self, metrics_callback: Any) -> None:
        self.metrics_callback, self.seen = metrics_callback, []

    def _keep(self, trainer: L.Trainer, stage: str) -> None:
        results = {k: v for k, v in self.metrics_callback.results.items() if k.startswith(f"{stage}/")}
        self.seen.append((stage, logged_step(trainer, stage), results))

    def on_train_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._keep(trainer, "train")

    def on_validation_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._keep(trainer, "val")

    def on_test_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._keep(trainer, "test")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A 2-epoch fit and a test with an offline WandbLogger and a file-store MLFlowLogger."""
    from lightning.pytorch.loggers import MLFlowLogger, WandbLogger

    root = tmp_path_factory.mktemp("wandb_mlflow")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WANDB_MODE", "offline")
        patch.setenv("WANDB_SILENT", "true")
        for variable in ("WANDB_DIR", "WANDB_DATA_DIR", "WANDB_CACHE_DIR", "WANDB_CONFIG_DIR"):
            patch.setenv(variable, str(root))  # the run, and its tables staged as artifacts: none in ~
        patch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # mlflow 3 asks for a database otherwise
        callback = lm.MetricsCallback(image_metrics(), stages=STAGES, class_names=CLASSES)
        recorder = StageRecorder(callback)
        wandb_logger = WandbLogger(offline=True, save_dir=str(root), project="lightning-metrics")
        mlflow_logger = MLFlowLogger(tracking_uri=f"file:{root}/mlruns")
        trainer = L.Trainer(
            **trainer_kwargs(root, logger=[wandb_logger, mlflow_logger], callbacks=[callback, recorder])
        )
        model = RecordingModel()
        trainer.fit(model, loader(TRAIN), loader(VAL, seed=1))
        trainer.test(model, loader(TEST, seed=2))
        run_dir = Path(wandb_logger.experiment.dir).parent
        wandb_logger.experiment.finish()  # Lightning leaves the run open for more stages
    records = wandb_records(next(run_dir.glob("run-*.wandb")))
    return {
        "seen": recorder.seen,
        "history": wandb_history(records),
        "charts": wandb_charts(records),
        "files": run_dir / "files",
        "mlflow": mlflow.MlflowClient(tracking_uri=f"file:{root}/mlruns"),
        "run_id": mlflow_logger.run_id,
    }


def _ours(row: dict[str, Any]) -> bool:
    return any(isinstance(v, dict) for v in row.values())  # a row with media: the sink's


def _stage_of(row: dict[str, Any]) -> str:
    (stage,) = {key.split("/")[0] for key in row if key.split("/")[0] in STAGES}
    return stage


def _type(entry: Any) -> Any:
    return entry.get("_type") if isinstance(entry, dict) else None


def _table(run: dict, entry: dict) -> dict:
    return json.loads((run["files"] / entry["path"]).read_text())


# ----------------------------------------------------------------- W&B
def test_wandb_gets_one_history_row_per_stage_and_step(run: dict) -> None:
    """Before, every figure and text had a row of its own: 46 rows for this run (51 with the
    scalars'), now one per stage end: 5 (10)."""
    ours = [row for row in run["history"] if _ours(row)]
    written = [(stage, step) for stage, step, _ in run["seen"]]
    assert [(_stage_of(row), row["trainer/global_step"]) for row in ours] == written
    assert len(written) == 5  # (val, train) per epoch, then test
    scalar_rows = [row for row in run["history"] if not _ours(row)]
    assert len(scalar_rows) == len(written)  # Lightning's row of the stage's scalars beside ours
    for stage in STAGES:  # each row sits at the step of its stage's scalars of the same epoch
        scalar_steps = [row["trainer/global_step"] for row in scalar_rows if f"{stage}/acc" in row]
        assert scalar_steps == [step for s, step, _ in run["seen"] if s == stage]
    # a fit's training epoch ends after its validation, at no later step: W&B must not drop it
    assert [stage for stage, _ in written[:2]] == ["val", "train"] and written[1][1] <= written[0][1]


def test_wandb_rows_hold_the_images_charts_and_tables(run: dict) -> None:
    for row in (row for row in run["history"] if _ours(row)):
        stage = _stage_of(row)
        images = {f"{stage}/{tag}" for tag in IMAGE_TAGS}
        assert {k for k, v in row.items() if _type(v) == "image-file"} == images
        charts = {f"{stage}/{name}/chart_table" for name in ("confmat", "f1", "roc", "pr")}
        tables = {f"{stage}/{name}/table" for name in ("calib", "multilabel", "quantiles")}
        tables |= {f"{stage}/summary/table"} if stage == "test" else set()  # a standalone run's summary
        assert {k for k, v in row.items() if _type(v) == "table-file"} == charts | tables
        assert row[f"{stage}/quantiles/histogram"]["_type"] == "histogram"
        for key in images:
            png = Image.open(run["files"] / row[key]["path"])
            assert png.format == "PNG" and min(png.size) > 100


def test_wandb_charts_are_its_own(run: dict) -> None:
    charts = run["charts"]
    assert charts["val/confmat/chart"]["panelDefId"] == "wandb/confusion_matrix/v1"
    assert charts["val/confmat/chart"]["fieldSettings"] == {
        "Actual": "Actual", "Predicted": "Predicted", "nPredictions": "nPredictions"
    }
    assert charts["val/roc/chart"]["panelDefId"] == "wandb/area-under-curve/v0"
    assert charts["val/roc/chart"]["fieldSettings"] == {"x": "fpr", "y": "tpr", "class": "class"}
    assert charts["val/pr/chart"]["fieldSettings"] == {"x": "recall", "y": "precision", "class": "class"}
    assert charts["train/f1/chart"]["panelDefId"] == "wandb/bar/v0"
    assert set(charts) == {f"{s}/{n}/chart" for s in STAGES for n in ("confmat", "f1", "roc", "pr")}


def test_wandb_tables_hold_what_the_metrics_computed(run: dict) -> None:
    rows = [row for row in run["history"] if _ours(row)]
    assert len(rows) == len(run["seen"])
    for row, (stage, _, results) in zip(rows, run["seen"]):
        confusion = _table(run, row[f"{stage}/confmat/chart_table"])
        assert confusion["columns"] == ["Actual", "Predicted", "nPredictions"]
        expected = [[a, p, n] for a, counts in zip(CLASSES, results[f"{stage}/confmat"].tolist())
                    for p, n in zip(CLASSES, counts)]
        assert confusion["data"] == expected
        roc = _table(run, row[f"{stage}/roc/chart_table"])
        assert roc["columns"] == ["class", "fpr", "tpr", "threshold"]
        fpr, tpr, thresholds = results[f"{stage}/roc"]
        for i, name in enumerate(CLASSES):
            points = [r[1:] for r in roc["data"] if r[0] == name]
            # exact curves: one threshold list per class
            curve = torch.stack([fpr[i], tpr[i], thresholds[i]]).T.double()
            assert torch.equal(torch.tensor(points, dtype=torch.double), curve)
        bars = _table(run, row[f"{stage}/f1/chart_table"])
        assert [r[0] for r in bars["data"]] == CLASSES
        torch.testing.assert_close(torch.tensor([r[1] for r in bars["data"]]), results[f"{stage}/f1"],
                                   rtol=1e-5, atol=0)
    summary = _table(run, rows[-1]["test/summary/table"])
    assert ["test/acc", pytest.approx(float(run["seen"][-1][2]["test/acc"]), abs=5e-5)] in summary["data"]


# ----------------------------------------------------------------- MLflow
def _mlflow_images(run: dict) -> dict[str, list[int]]:
    """Image key -> the steps it was logged at (mlflow names the files "key+step+N+..." with "/"
    written as "~", or "key%step%N%..." with "#" before mlflow 3)."""
    steps: dict[str, list[int]] = {}
    for item in run["mlflow"].list_artifacts(run["run_id"], "images"):
        name = item.path.rsplit("/", 1)[-1]
        found = re.match(r"(.+?)[+%]step[+%](\d+)[+%]timestamp[+%]\d+[+%][0-9a-f-]+\.png$", name)
        if found:
            key = found.group(1).replace("~", "/").replace("#", "/")
            steps.setdefault(key, []).append(int(found.group(2)))
    return {key: sorted(values) for key, values in steps.items()}


def test_mlflow_images_step_through_the_epochs_at_their_metrics_steps(run: dict) -> None:
    client, run_id = run["mlflow"], run["run_id"]
    images = _mlflow_images(run)
    assert set(images) == {f"{stage}/{tag}" for stage in STAGES for tag in IMAGE_TAGS}
    for stage in STAGES:
        metric_steps = sorted(m.step for m in client.get_metric_history(run_id, f"{stage}/acc"))
        assert metric_steps == sorted(step for s, step, _ in run["seen"] if s == stage)
        for tag in IMAGE_TAGS:
            assert images[f"{stage}/{tag}"] == metric_steps, (stage, tag)


def test_mlflow_tables_are_csv_artifacts_by_stage_name_and_epoch(run: dict, tmp_path: Path) -> None:
    client, run_id = run["mlflow"], run["run_id"]
    names = {item.path for item in client.list_artifacts(run_id, "plots")}
    for stage, epochs in (("train", (0, 1)), ("val", (0, 1)), ("test", (1,))):
        for epoch in epochs:
            assert {f"plots/{stage}_{name}_epoch{epoch}.csv" for name in ("confmat", "roc", "f1")} <= names
    assert not any(name.endswith(".png") for name in names)  # the images are stepped, under images/
    last_val = [results for stage, _, results in run["seen"] if stage == "val"][-1]
    path = client.download_artifacts(run_id, "plots/val_confmat_epoch1.csv", str(tmp_path))
    rows = list(csv.reader(io.StringIO(Path(path).read_text())))
    assert rows[0] == ["true\\predicted", *CLASSES]
    assert torch.equal(torch.tensor([[int(v) for v in r[1:]] for r in rows[1:]]), last_val["val/confmat"])


# ----------------------------------------------------------- the writers directly
class _WandbLogger:  # stand-ins, found by class name
    def __init__(self) -> None:
        self.calls: list = []

    def log_metrics(self, metrics: dict, step: Any = None) -> None:
        self.calls.append((metrics, step))


class _Client:
    def __init__(self, calls: list) -> None:
        self.calls = calls

    def log_image(self, run_id: str, image: Any, artifact_file: Any = None, key: Any = None,
                  step: Any = None) -> None:
        self.calls.append(("image", artifact_file, key, step))

    def log_text(self, run_id: str, text: str, artifact_file: str) -> None:
        self.calls.append(("text", artifact_file))


class _OldClient(_Client):  # mlflow < 2.16: images by file name only
    def log_image(self, run_id: str, image: Any, artifact_file: str) -> None:  # type: ignore[override]
        self.calls.append(("image", artifact_file, None, None))


def _mlflow_logger(client: _Client) -> Any:
    return type("MLFlowLogger", (), {"experiment": client, "run_id": "run-1"})()


def test_log_result_writes_a_dict_in_one_wandb_row_and_mlflow_with_or_without_steps() -> None:
    wandb_logger = type("WandbLogger", (_WandbLogger,), {})()
    new, old = _Client([]), _OldClient([])
    line = torch.tensor([0.0, 1.0])
    value = {"cm": torch.tensor([[3, 1], [0, 4]]), "roc": (line, line)}
    written = log_result([wandb_logger, _mlflow_logger(new), _mlflow_logger(old)], "val", "parts", value,
                         step=5, epoch=2)
    assert written == ["wandb", "mlflow", "mlflow"] * 2
    ((metrics, step),) = wandb_logger.calls  # one row for the whole dict
    assert step == 5
    assert set(metrics) == {"val/parts/cm", "val/parts/cm/chart", "val/parts/roc", "val/parts/roc/chart"}
    cells = [["0", "0", 3], ["0", "1", 1], ["1", "0", 0], ["1", "1", 4]]
    assert metrics["val/parts/cm/chart"].table.data == cells
    assert ("image", None, "val/parts/cm", 5) in new.calls
    assert ("text", "plots/val_parts_cm_epoch2.csv") in new.calls
    assert ("image", "plots/val_parts_cm_epoch2.png", None, None) in old.calls


def test_the_sink_writes_a_stage_once_at_its_finish_or_when_another_arrives() -> None:
    logger = type("WandbLogger", (_WandbLogger,), {})()
    trainer = SimpleNamespace(loggers=[logger], current_epoch=0, global_step=4, world_size=1,
                              state=SimpleNamespace(fn="fit"))
    context = RouteContext(log_scalar=lambda *a: None, trainer=trainer, is_global_zero=True)
    sink = LoggerSink()

    def result(stage: str, name: str) -> RoutedResult:
        return RoutedResult(stage, name, f"{stage}/{name}", torch.eye(2), ResultKind.MATRIX)

    sink.write(result("val", "a"), context)
    sink.write(result("val", "b"), context)
    assert logger.calls == []  # held until the stage is done
    sink.finish("val", context)
    assert [sorted(k for k in m if "chart" not in k) for m, _ in logger.calls] == [["val/a", "val/b"]]
    sink.finish("val", context)  # nothing twice
    sink.write(result("train", "a"), context)
    sink.write(result("val", "c"), context)  # no finish for train (a caller other than the engine)
    assert [sorted(k for k in m if "chart" not in k) for m, _ in logger.calls[1:]] == [["train/a"]]
    sink.finish("val", context)
    assert len(logger.calls) == 3
    sink.write(result("val", "d"), context)  # then the run fails before the stage's finish
    context.trainer = SimpleNamespace(**{**vars(trainer), "global_step": 0})
    context.trainer.loggers = [type("WandbLogger", (_WandbLogger,), {})()]
    sink.write(result("val", "a"), context)
    sink.finish("val", context)
    assert len(logger.calls) == 3  # what the failed run left is dropped, not written to its loggers
    ((metrics, _),) = context.trainer.loggers[0].calls
    assert sorted(k for k in metrics if "chart" not in k) == ["val/a"]


def test_long_curves_are_thinned_for_wandb_keeping_each_class_ends() -> None:
    rows = [["a", i, i, ""] for i in range(25_000)] + [["b", i, i, ""] for i in range(3)]
    kept = logger_services._thinned(rows)
    assert len(kept) <= logger_services.MAX_CHART_ROWS + 2
    ends = [rows[0], ["a", 24_999, 24_999, ""], ["b", 0, 0, ""], ["b", 2, 2, ""]]
    assert all(row in kept for row in ends) and kept == sorted(kept, key=rows.index)
