"""The fits of the lifecycle matrix (issue 35, asserted by ``test_lifecycle``): real metrics of every
kind of state, through the callback and the mixin side by side, across checkpoint points, resumes and
stage layouts.

A matrix fit trains :class:`LifecycleMixinModel` (lr=0: the same weights on any number of processes)
with three callbacks beside the mixin: the representative metrics (:func:`lifecycle_metrics`, keys
``train/...``, coalesced), a metric given by name (``MetricsCallback(["accuracy"])``) and a seeded
``BootStrapper`` (not additive: its stage is updated batch by batch). The mixin (keys ``train....``)
holds all of them. Every fit writes ``{name}.rank{r}.json``: what it logged (rank 0, from the CSV
logger), the warnings our code gave, the error it stopped on (recorded, not raised, so that the other
cells of a batch still run), the batches each rank fed and those fed when each checkpoint was written.
Importable by name: the 2-process script imports it.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import traceback
import warnings
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Optional

import lightning.pytorch as L
import torch
from lightning.pytorch.callbacks import Checkpoint, ModelCheckpoint
from lightning.pytorch.loggers import CSVLogger
from torch import Tensor, nn
from torch.utils.data import DataLoader, Sampler

import lightning_metrics as lm
from lightning_metrics.audio import ScaleInvariantSignalDistortionRatio
from lightning_metrics.classification import (
    BinaryAccuracy, BinaryAUROC, MulticlassAccuracy, MulticlassAUROC, MulticlassF1Score, MulticlassPrecision,
    MulticlassRecall,
)
from lightning_metrics.clustering import AdjustedRandScore
from lightning_metrics.detection import MeanAveragePrecision
from lightning_metrics.retrieval import RetrievalMAP
from lightning_metrics.text import BLEUScore, WordErrorRate
from lightning_metrics.wrappers import BootStrapper, ClasswiseWrapper, MetricTracker
from tests.integration.input_kinds import NUM_CLASSES, KindsModel, make_dataset

TRAIN_SIZE, VAL_SIZE, TEST_SIZE, BATCH = 24, 13, 10, 4  # 13: the DistributedSampler pads the val set on 2 ranks
VAL2_SIZE = 7  # the second val loader
SIGNAL = 64  # samples per SI-SDR signal
BOOT_SEED, BOOT_COPIES = 7, 4
# the checkpoint points of epoch 0 (see SaveAt); "epochend" is a real ModelCheckpoint's file
POINTS = ("mid", "last", "epochend", "midval", "end")


# ------------------------------------------------------------------ metrics
def lifecycle_metrics() -> dict[str, Any]:
    """One representative real metric per kind of state."""
    return {
        "acc": MulticlassAccuracy(NUM_CLASSES, average="micro"),  # a sum tensor
        "auroc": BinaryAUROC(),  # cat tensors
        "map": MeanAveragePrecision(),  # lists of dicts
        "wer": WordErrorRate(),  # strings (a flat reference per hypothesis)
        "bleu": BLEUScore(),  # strings (a list of references per hypothesis)
        "rmap": RetrievalMAP(),  # extra inputs (indexes)
        "sisdr": ScaleInvariantSignalDistortionRatio(),  # a per-sample mean
        "ari": AdjustedRandScore(),  # cluster labels against classes
        "recall": ClasswiseWrapper(MulticlassRecall(NUM_CLASSES, average=None)),  # a wrapper (per-class keys)
        # sample weights (statistics of their own: a metric equal to another but weighted would share its
        # update, which the engine refuses with differing inputs)
        "acc_w": BinaryAccuracy(),  # weighted counts (float64 once weighted)
        "auroc_w": MulticlassAUROC(NUM_CLASSES),  # cat tensors with a cat state of weights
    }


# where each metric finds its inputs in the step output ("acc", "recall", "boot": preds/target)
LIFECYCLE_INPUTS: dict[str, Any] = {
    "auroc": ("probs", "binary"),
    "map": ("boxes_pred", "boxes_true"),
    "wer": {"preds": "text", "target": "ref"},
    "bleu": {"preds": "text", "target": "references"},
    "rmap": {"preds": "scores", "target": "relevant", "indexes": "query"},
    "sisdr": ("signal", "clean"),
    "ari": ("clusters", "target"),
    "acc_w": {"preds": "probs", "target": "binary", "sample_weight": "weight"},
    "auroc_w": {"preds": "preds", "target": "target", "sample_weight": "weight"},
}


def boot_metric() -> BootStrapper:
    """A seeded ``BootStrapper``: its draws depend only on the batch sizes fed since the generator was
    seeded (see :func:`boot_oracle`); it is not additive, so its stage is updated batch by batch."""
    return BootStrapper(MulticlassAccuracy(NUM_CLASSES, average="micro"), num_bootstraps=BOOT_COPIES,
                        sampling_strategy="multinomial", generator=torch.Generator().manual_seed(BOOT_SEED))


def mixin_metrics() -> dict[str, Any]:
    return {**lifecycle_metrics(), "accuracy": "accuracy", "boot": boot_metric()}


def lifecycle_outputs(logits: Tensor, y: Tensor, index: Tensor) -> dict[str, Any]:
    """Every metric input of these samples (a function of each sample alone)."""
    probs = torch.sigmoid(3 * logits[:, 0])
    t = torch.arange(SIGNAL, dtype=torch.float32)
    ids = [int(i) for i in index]
    clean = torch.stack([torch.sin(0.05 * (1 + i % 5) * t) for i in ids])
    noise = torch.stack([torch.cos(0.37 * (1 + i % 7) * t + i) for i in ids])
    words = ["the", "cat", "sat", "on", "a", "mat", "dog"]

    def box(i: int, j: int, shift: float) -> list[float]:
        x, y = 4.0 * (i % 5) + 30.0 * j + shift, 3.0 * (i % 4) + shift
        return [x, y, x + 10.0 + i % 3, y + 8.0 + i % 2]

    return {
        "preds": logits, "target": y,
        "preds_b": logits.roll(1, dims=1), "preds_c": -logits,  # other predictions (the member cells)
        "probs": probs, "binary": (y == 0).long(),
        "scores": probs, "relevant": (y == 0).long(), "query": index // 5,
        "clusters": logits.argmax(-1),
        # zeros, fractions, integers; sample 0 (what a DistributedSampler repeats as padding) weighs 3
        "weight": torch.tensor([3.0, 0.0, 1.0, 2.5, 0.5])[index % 5].double(),
        "signal": clean + (0.1 + 0.05 * (index % 3)).unsqueeze(1) * noise, "clean": clean,
        "boxes_pred": [
            {"boxes": torch.tensor([box(i, j, 0.0) for j in range(1 + i % 2)]),
             "scores": torch.tensor([float(p) * (1.0 - 0.3 * j) for j in range(1 + i % 2)]),
             "labels": torch.tensor([j % 2 for j in range(1 + i % 2)])}
            for i, p in zip(ids, probs)
        ],
        "boxes_true": [
            {"boxes": torch.tensor([box(i, j, 1.0 + i % 3) for j in range(1 + (i % 3 == 0))]),
             "labels": torch.tensor([(j + i % 4 // 3) % 2 for j in range(1 + (i % 3 == 0))])}
            for i in ids
        ],
        "text": [" ".join(words[(i + k) % 7] for k in range(2 + i % 3)) for i in ids],
        "ref": [" ".join(words[(i + k * (i % 2)) % 7] for k in range(3)) for i in ids],
        "references": [
            [" ".join(words[(i + k) % 7] for k in range(3)), " ".join(words[(i * 2 + k) % 7] for k in range(4))]
            for i in ids
        ],
    }


# ------------------------------------------------------------------ models
class LifecycleModel(KindsModel):
    """A linear classifier (lr=0) whose steps return every input of :func:`lifecycle_outputs` and a
    per-sample loss, and record the batches they fed: ``batches[stage]`` holds ``(epoch, dataloader,
    [sample indices])`` in the order fed (padding included)."""

    def __init__(self, lr: float = 0.0, seed: int = 0) -> None:
        super().__init__(lr, seed)
        self.batches: dict[str, list] = defaultdict(list)

    def _lifecycle_step(self, stage: str, batch: Any, dataloader_idx: int = 0) -> dict[str, Any]:
        x, y, index = batch
        logits = self(x)
        losses = nn.functional.cross_entropy(logits, y, reduction="none")
        if not self.trainer.sanity_checking:
            self.batches[stage].append((self.current_epoch, dataloader_idx, index.tolist()))
        out = lifecycle_outputs(logits.detach(), y, index)
        out["loss"] = losses.mean() if stage == "train" else losses
        return out

    def training_step(self, batch: Any, batch_idx: int) -> dict[str, Any]:
        return self._lifecycle_step("train", batch)

    def validation_step(self, batch: Any, batch_idx: int, dataloader_idx: int = 0) -> dict[str, Any]:
        return self._lifecycle_step("val", batch, dataloader_idx)

    def test_step(self, batch: Any, batch_idx: int, dataloader_idx: int = 0) -> dict[str, Any]:
        return self._lifecycle_step("test", batch, dataloader_idx)


class LifecycleMixinModel(lm.MetricsMixin, LifecycleModel):
    metrics_separator = "."
    metrics_inputs = LIFECYCLE_INPUTS
    metrics_track_loss = "sample"

    def configure_metrics(self) -> Any:
        return mixin_metrics()


def lifecycle_callbacks() -> list[Any]:
    """The callback door: the representative metrics (coalesced), one by name, the bootstrapper."""
    return [
        lm.MetricsCallback(lifecycle_metrics(), inputs=LIFECYCLE_INPUTS, track_loss="sample"),
        lm.MetricsCallback(["accuracy"]),
        lm.MetricsCallback({"boot": boot_metric()}),
    ]


# ----------------------------------------------------------------- loaders
def loader(n: int, seed: int, batch_size: int = BATCH, sampler: Optional[Sampler] = None) -> DataLoader:
    return DataLoader(make_dataset(n, seed), batch_size=batch_size, sampler=sampler)


class RankZeroOnly(Sampler):
    """Every sample to global rank 0, none to the others (a stage with zero batches on one rank)."""

    def __init__(self, n: int) -> None:
        self.n = n

    def _rank(self) -> int:
        return torch.distributed.get_rank() if torch.distributed.is_initialized() else 0

    def __iter__(self) -> Any:
        return iter(range(self.n) if self._rank() == 0 else [])

    def __len__(self) -> int:
        return self.n if self._rank() == 0 else 0


# ------------------------------------------------------------- checkpoints
class SaveAt(Checkpoint):
    """Writes a checkpoint at each of ``points`` in epoch 0 (a ``Checkpoint``: Lightning runs it after
    the other callbacks, as it does ``ModelCheckpoint``), into ``{prefix}_{point}.ckpt``:

    - ``mid``: the end of train batch 1 (``every_n_train_steps``);
    - ``last``: the end of the last train batch (``every_n_train_steps`` falling on it);
    - ``midval``: the end of val batch 1 (an exception or a signal during validation);
    - ``end``: ``on_validation_end``, after validation.

    (``epochend``, ModelCheckpoint's default point in ``on_train_epoch_end``, is the real one's file.)
    Records the batches the model had fed at each save."""

    def __init__(self, points: Any, prefix: str) -> None:
        self.points, self.prefix = tuple(points), prefix
        self.saved: dict[str, dict] = {}

    def _save(self, point: str, trainer: Any, pl_module: Any) -> None:
        if point in self.points and trainer.current_epoch == 0 and point not in self.saved:
            trainer.save_checkpoint(f"{self.prefix}_{point}.ckpt")
            self.saved[point] = {stage: list(items) for stage, items in pl_module.batches.items()}

    def on_train_batch_end(self, trainer: Any, pl_module: Any, outputs: Any, batch: Any, batch_idx: int) -> None:
        if batch_idx == 1:
            self._save("mid", trainer, pl_module)
        if batch_idx == trainer.num_training_batches - 1:
            self._save("last", trainer, pl_module)

    def on_validation_batch_end(self, trainer: Any, pl_module: Any, outputs: Any, batch: Any, batch_idx: int,
                                dataloader_idx: int = 0) -> None:
        if batch_idx == 1 and not trainer.sanity_checking:
            self._save("midval", trainer, pl_module)

    def on_validation_end(self, trainer: Any, pl_module: Any) -> None:
        if not trainer.sanity_checking:
            self._save("end", trainer, pl_module)


class RecordEpochEnd(L.Callback):
    """Records the batches fed when ``ModelCheckpoint`` writes its epoch-0 file (it runs in
    ``on_train_epoch_end`` after every other callback and the module; this one runs before it, and
    nothing is fed in between)."""

    def __init__(self) -> None:
        self.saved: Optional[dict] = None

    def on_train_epoch_end(self, trainer: Any, pl_module: Any) -> None:
        if trainer.current_epoch == 0 and self.saved is None:
            self.saved = {stage: list(items) for stage, items in pl_module.batches.items()}


# -------------------------------------------------------------------- fits
def _rows(log_dir: str) -> list[list]:
    with open(os.path.join(log_dir, "metrics.csv")) as handle:
        return [
            [key, int(float(row["epoch"])), float(value), int(row["step"])]
            for row in csv.DictReader(handle) for key, value in row.items()
            if value and key not in ("epoch", "step")
        ]


def run_cell(out: Path, name: str, *, action: str = "fit", point_saves: Any = (), ckpt: Optional[str] = None,
             model: Optional[L.LightningModule] = None, callbacks: Optional[list] = None,
             train: Any = "default", val: Any = "default", test: Any = "default",
             **trainer_options: Any) -> None:
    """One cell's run: ``action`` is ``"fit"``, ``"validate"``, ``"test"`` or ``"fit+test"``; ``point_saves``
    writes checkpoints at those points of epoch 0 (``out/{name}_{point}.ckpt``); ``ckpt`` resumes.
    An exception is recorded (``error``, with its traceback) for the cell to assert, not raised: the
    other cells of the batch still run."""
    model = model if model is not None else LifecycleMixinModel()
    callbacks = list(callbacks) if callbacks is not None else lifecycle_callbacks()
    saver = SaveAt([p for p in point_saves if p != "epochend"], str(out / name))
    epoch_end = RecordEpochEnd()
    extra: list[Any] = [saver, epoch_end]
    if "epochend" in point_saves:
        extra.append(ModelCheckpoint(dirpath=str(out / f"{name}_mc"), save_top_k=-1, filename="{epoch}"))
    options: dict[str, Any] = dict(
        accelerator="cpu", devices=1, max_epochs=2, logger=CSVLogger(str(out), name=name),
        enable_progress_bar=False, enable_model_summary=False, num_sanity_val_steps=0, log_every_n_steps=1,
        callbacks=callbacks + extra,  # (SaveAt is a Checkpoint: Lightning adds no ModelCheckpoint of its own)
    )
    options.update(trainer_options)
    train = loader(TRAIN_SIZE, 0) if isinstance(train, str) else train
    val = loader(VAL_SIZE, 1) if isinstance(val, str) else val
    test = loader(TEST_SIZE, 2) if isinstance(test, str) else test
    allow_zero = options.pop("allow_zero_length", None)
    if allow_zero is not None:  # (a LightningModule attribute: Lightning refuses a rank without batches otherwise)
        model.allow_zero_length_dataloader_with_multiple_devices = allow_zero
    trainer = L.Trainer(**options)
    error: Optional[str] = None
    trace: Optional[str] = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if action in ("fit", "fit+test"):
                trainer.fit(model, train, val, ckpt_path=ckpt)
            if action == "validate":
                trainer.validate(model, val, verbose=False)
            if action in ("test", "fit+test"):
                trainer.test(model, test, verbose=False)
        except Exception as err:  # noqa: BLE001 (recorded for the cell to assert)
            error, trace = f"{type(err).__name__}: {err}", traceback.format_exc()[-4000:]
    rank = trainer.global_rank
    ours = sorted({str(w.message) for w in caught
                   if str(w.message).startswith(("MetricsCallback", "LifecycleMixinModel", "MemberModel"))})
    record: dict[str, Any] = {
        "rank": rank, "batches": dict(model.batches), "warnings": ours, "error": error, "traceback": trace,
        "saved": dict(saver.saved), "rows": None,
    }
    if epoch_end.saved is not None and "epochend" in point_saves:
        record["saved"]["epochend"] = epoch_end.saved
        # the real ModelCheckpoint's epoch-0 file, under the name the resumes use
        if rank == 0:
            (mc_file,) = (out / f"{name}_mc").glob("epoch=0*.ckpt")
            os.replace(mc_file, out / f"{name}_epochend.ckpt")
    if rank == 0 and trainer.logger is not None and os.path.exists(os.path.join(trainer.logger.log_dir, "metrics.csv")):
        record["rows"] = _rows(trainer.logger.log_dir)
    elif rank == 0:
        record["rows"] = []
    (out / f"{name}.rank{rank}.json").write_text(json.dumps(record))


# ------------------------------------------------------------- 2 processes
_SCRIPT = """
import sys, warnings
from pathlib import Path
warnings.simplefilter("ignore")
from tests.integration import lifecycle_runs
getattr(lifecycle_runs, sys.argv[2])(Path(sys.argv[1]))
"""


def launch_two_processes(out: Path, runs: str, timeout: int) -> "list[subprocess.Popen]":
    """Start ``lifecycle_runs.{runs}(out)`` as two nodes of one process each (see
    :func:`~tests.integration.integration_helpers.launch_two_nodes`)."""
    from tests.integration.integration_helpers import launch_two_nodes

    return launch_two_nodes(out, runs, _SCRIPT, (runs,), timeout)


DDP: dict[str, Any] = dict(strategy="ddp", num_nodes=2, devices=1)


# ---------------------------------------------------------------- members
def member_collection(compute_groups: bool = True) -> lm.MetricCollection:
    """Three metrics of one compute group (one shared confusion matrix), unless ``compute_groups=False``."""
    return lm.MetricCollection({
        "acc": MulticlassAccuracy(NUM_CLASSES, average="micro"),
        "prec": MulticlassPrecision(NUM_CLASSES, average="macro"),
        "f1": MulticlassF1Score(NUM_CLASSES, average="weighted"),
    }, compute_groups=compute_groups)


# the callback's members read different predictions: the engine updates them one at a time (in a
# collection without compute groups; in one with them, that is a clear error at the first batch)
MEMBER_INPUTS = {"acc": ("preds", "target"), "prec": ("preds_b", "target"), "f1": ("preds_c", "target")}


class MemberMixinModel(lm.MetricsMixin, LifecycleModel):
    """The mixin feeds the whole group the step's ``preds``; ``validation_step`` also feeds one member
    by hand (``self.stage_metrics["val_metrics"].native["prec"].update(...)``, a member used on its own,
    which leaves its group until the next reset)."""

    metrics_separator = "."

    def configure_metrics(self) -> Any:
        return member_collection()

    def validation_step(self, batch: Any, batch_idx: int, dataloader_idx: int = 0) -> dict[str, Any]:
        out = super().validation_step(batch, batch_idx, dataloader_idx)
        self.stage_metrics["val_metrics"].native["prec"].update(out["preds_b"], out["target"])
        return out


class GroupedMemberMixinModel(lm.MetricsMixin, LifecycleModel):
    metrics_inputs = MEMBER_INPUTS

    def configure_metrics(self) -> Any:
        return member_collection()


class TrackerMixinModel(lm.MetricsMixin, LifecycleModel):
    metrics_separator = "."

    def configure_metrics(self) -> Any:
        return {"track": MetricTracker(MulticlassAccuracy(NUM_CLASSES, average="micro"))}


# ----------------------------------------------------------------- oracles
SEP = "{sep}"  # the door's separator, put in by test_lifecycle.expect


def _flat(name: str, result: Any, values: dict[str, float], metric: Any = None) -> None:
    if isinstance(metric, ClasswiseWrapper):  # logged per class under its own name: "val/recall/0"
        for i, value in enumerate(result.values()):
            values[f"{name}{SEP}{i}"] = float(value)
    elif isinstance(result, dict):
        for key, value in result.items():
            # (non-scalars such as map's "classes" are not logged, nor mAP's -1, "no ground truth")
            if torch.as_tensor(value).numel() == 1 and not (isinstance(metric, MeanAveragePrecision) and value == -1):
                values[f"{name}_{key}"] = float(value)
    else:
        values[name] = float(result)


def _inputs(n: int, seed: int, indices: Any) -> dict[str, Any]:
    x, y, index = make_dataset(n, seed).tensors
    if indices is not None:
        pick = torch.as_tensor(list(indices), dtype=torch.long)
        x, y, index = x[pick], y[pick], index[pick]
    with torch.no_grad():
        logits = LifecycleModel()(x)
    out = lifecycle_outputs(logits, y, index)
    out["losses"] = nn.functional.cross_entropy(logits, y, reduction="none").double()
    return out


def _feed(metric: Any, spec: Any, out: dict[str, Any]) -> None:
    if isinstance(spec, dict):
        metric.update(**{param: out[key] for param, key in spec.items()})
    else:
        metric.update(*(out[key] for key in spec))


def lifecycle_oracle(n: int, seed: int, indices: Any = None) -> dict[str, float]:
    """What the representative metrics, ``"accuracy"`` and the loss give over the samples ``indices`` of
    the dataset (all of them by default; a repeated index counts as often as it appears), fed at once."""
    out = _inputs(n, seed, indices)
    values: dict[str, float] = {}
    for name, metric in lifecycle_metrics().items():
        _feed(metric, LIFECYCLE_INPUTS.get(name, ("preds", "target")), out)
        _flat(name, metric.compute(), values, metric)
    accuracy = MulticlassAccuracy(NUM_CLASSES, average="micro")  # what "accuracy" is built as
    accuracy.update(out["preds"], out["target"])
    values["accuracy"] = float(accuracy.compute())
    values["loss"] = float(out["losses"].mean())
    return values


def member_oracle(n: int, seed: int, inputs: dict[str, Any],
                  extra: Optional[dict[str, Any]] = None) -> dict[str, float]:
    """Each member alone, fed its inputs (and ``extra`` inputs, by member name) over the whole dataset."""
    out = _inputs(n, seed, None)
    values = {}
    for name, metric in member_collection().items(keep_base=True):
        _feed(metric, inputs.get(name, ("preds", "target")), out)
        if extra and name in extra:
            _feed(metric, extra[name], out)
        values[name] = float(metric.compute())
    return values


def boot_oracle(n: int, seed: int, lives: list[list]) -> dict[int, dict[str, float]]:
    """The seeded ``BootStrapper``'s values per epoch, from the batches ``(epoch, dataloader, indices)`` one
    stage fed in each of ``lives``: a generator's life, seeded anew (a new process, or a new clone of the
    template). Its draws depend only on the batch sizes fed since it was seeded; the copies accumulate the
    batches of each epoch, whatever life fed them (the states a checkpoint carries on)."""
    out = _inputs(n, seed, None)
    per_epoch: dict[int, BootStrapper] = {}
    for life in lives:
        generator = torch.Generator().manual_seed(BOOT_SEED)
        for epoch, _, indices in life:
            boot = per_epoch.setdefault(epoch, boot_metric())
            boot.generator = generator
            pick = torch.as_tensor(indices, dtype=torch.long)
            boot.update(out["preds"][pick], out["target"][pick])
    return {epoch: {k: float(v) for k, v in boot.compute().items()} for epoch, boot in per_epoch.items()}


def record_error(out: Path, name: str, make: Callable[[], Any]) -> None:
    """A cell that makes something and records the error that raises (or none)."""
    error = trace = None
    try:
        make()
    except Exception as err:  # noqa: BLE001 (recorded for the cell to assert)
        error, trace = f"{type(err).__name__}: {err}", traceback.format_exc()[-4000:]
    record = {"rank": 0, "batches": {}, "warnings": [], "error": error, "traceback": trace, "saved": {}, "rows": []}
    (out / f"{name}.rank0.json").write_text(json.dumps(record))


# -------------------------------------------------------------- run plans
def save_runs_one_process(out: Path) -> None:
    """The uninterrupted 1-process run, writing a checkpoint at every point (``save1_{point}.ckpt``)."""
    run_cell(out, "save1", point_saves=POINTS)


def other_runs_one_process(out: Path) -> None:
    """The 1-process cells that need no checkpoint."""
    run_cell(out, "validate", action="validate")
    run_cell(out, "fit_test", action="fit+test")
    run_cell(out, "sanity_on", num_sanity_val_steps=2)
    run_cell(out, "two_val", val=[loader(VAL_SIZE, 1), loader(VAL2_SIZE, 3)], max_epochs=1)
    run_cell(out, "members_callback", model=LifecycleModel(),
             callbacks=[lm.MetricsCallback(member_collection(compute_groups=False), inputs=MEMBER_INPUTS)])
    run_cell(out, "members_mixin", model=MemberMixinModel(), callbacks=[])
    # members of one compute group given different inputs: a clear error when the callback is made, and
    # when the mixin's engine is (at its first use: here, Lightning's configure_callbacks)
    record_error(out, "members_grouped_callback", lambda: lm.MetricsCallback(member_collection(), inputs=MEMBER_INPUTS))
    run_cell(out, "members_grouped_mixin", model=GroupedMemberMixinModel(), callbacks=[], max_epochs=1)
    run_cell(out, "zero_all_empty1", val=loader(0, 1), max_epochs=1)
    run_cell(out, "zero_all_limit1", limit_val_batches=0, max_epochs=1)
    record_error(out, "tracker_callback",
                 lambda: lm.MetricsCallback({"track": MetricTracker(MulticlassAccuracy(NUM_CLASSES, average="micro"))}))
    run_cell(out, "tracker_mixin", model=TrackerMixinModel(), callbacks=[], max_epochs=1)


def resume_runs_one_process(out: Path) -> None:
    for point in POINTS:
        run_cell(out, f"resume1from1_{point}", ckpt=str(out / f"save1_{point}.ckpt"))
        run_cell(out, f"resume1from2_{point}", ckpt=str(out / f"save2_{point}.ckpt"))


def two_process_runs(out: Path) -> None:
    """What the 2-process script runs: the save run, each point resumed 2->2 and 1->2 (from the
    1-process checkpoints), then the stages with zero batches on one rank (its only val sample falls to
    rank 0; rank 1's batch is the sampler's padding) and on every rank."""
    run_cell(out, "save2", point_saves=POINTS, **DDP)
    for point in POINTS:
        run_cell(out, f"resume2from2_{point}", ckpt=str(out / f"save2_{point}.ckpt"), **DDP)
        run_cell(out, f"resume2from1_{point}", ckpt=str(out / f"save1_{point}.ckpt"), **DDP)
    run_cell(out, "zero_one_padding2", val=loader(1, 1), max_epochs=1, **DDP)
    run_cell(out, "zero_all_empty2", val=loader(0, 1), max_epochs=1, **DDP)


def uneven_runs(out: Path) -> None:
    """Its own launch (a failure here can leave the process group unusable): rank 1's val loader is
    empty (a sampler giving every sample to rank 0), which Lightning allows only with
    ``allow_zero_length_dataloader_with_multiple_devices``; it then validates on rank 0 alone."""
    run_cell(out, "zero_one_sampler2", val=loader(VAL_SIZE, 1, sampler=RankZeroOnly(VAL_SIZE)),
             use_distributed_sampler=False, allow_zero_length=True, **DDP)
