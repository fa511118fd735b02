"""Metrics given by name under 2-process DDP: the same metrics and values as one process, ranks that
disagree raise on every rank, a rank without a batch takes what the others built."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import torch
import torchmetrics

from tests._distributed import run_distributed
from tests.integration.integration_helpers import assert_close, run_script
from tests.integration.test_by_name import TaskModel, _dataset

pytestmark = [pytest.mark.timeout(240)]

NAMES = ["accuracy", "f1", "auroc", "confusion_matrix"]
TRAIN_SIZE, VAL_SIZE = 75, 101  # odd: the DistributedSampler pads one sample on 2 ranks

_SCRIPT = '''
import json, sys
import lightning.pytorch as L
from torch.utils.data import DataLoader
import lightning_metrics as lm
from tests.integration.test_by_name import TaskModel, _dataset

callback = lm.MetricsCallback(%(names)r, stages=("train", "val"))
model = TaskModel("multiclass", lr=0.0)  # the same weights on any number of devices
trainer = L.Trainer(
    accelerator="cpu", devices=2, strategy="ddp", callbacks=[callback], max_epochs=1, logger=False,
    enable_progress_bar=False, enable_model_summary=False, enable_checkpointing=False, num_sanity_val_steps=0,
)
trainer.fit(model, DataLoader(_dataset("multiclass", %(train)d, 0), batch_size=16),
            DataLoader(_dataset("multiclass", %(val)d, 1), batch_size=16))
built = {stage: {name: type(m).__name__ for name, m in callback.engine.metrics_for(stage).native.items()}
         for stage in ("train", "val")}
with open(f"{OUT}/rank{trainer.global_rank}.json", "w") as handle:
    json.dump({"results": {k: v.tolist() for k, v in callback.results.items()}, "built": built}, handle)
'''


def test_two_processes_build_the_same_metrics_and_values_as_one(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    source = f"OUT = {str(out)!r}\n" + _SCRIPT % {"names": NAMES, "train": TRAIN_SIZE, "val": VAL_SIZE}
    proc = run_script(source, tmp_path, timeout=200)
    rank0, rank1 = (json.loads((out / f"rank{r}.json").read_text()) for r in (0, 1))
    assert rank0 == rank1
    assert rank0["built"]["val"] == {
        "accuracy": "MulticlassAccuracy", "auroc": "MulticlassAUROC", "confusion_matrix": "MulticlassConfusionMatrix",
        "f1": "MulticlassF1Score",
    }
    assert proc.stderr.count("val metrics: multiclass, 5 classes") == 1  # said once (rank zero)
    model = TaskModel("multiclass", lr=0.0)
    for stage, n, seed in (("train", TRAIN_SIZE, 0), ("val", VAL_SIZE, 1)):
        x, y = _dataset("multiclass", n, seed).tensors
        with torch.no_grad():
            preds = model.layer(x)
        for name in NAMES:
            oracle = getattr(torchmetrics, {"accuracy": "Accuracy", "f1": "F1Score", "auroc": "AUROC",
                                            "confusion_matrix": "ConfusionMatrix"}[name])
            expected = oracle(task="multiclass", num_classes=5)(preds, y)
            assert_close(torch.tensor(rank0["results"][f"{stage}/{name}"]), expected, f"{stage}/{name}")


# ------------------------------------------------- engine-level, 2 gloo ranks
class _Module:
    device = torch.device("cpu")

    def __init__(self) -> None:
        self.logged: dict[str, float] = {}

    def log(self, key: str, value: Any, **kwargs: Any) -> None:
        self.logged[key] = float(value)


def _trainer(rank: int) -> Any:
    return SimpleNamespace(
        world_size=2, global_rank=rank, is_global_zero=rank == 0, sanity_checking=False, num_val_batches=[1],
        current_epoch=0, loggers=[], _evaluation_loop=SimpleNamespace(_combined_loader=None),
    )


def _epoch(rank: int, world: int, widths: tuple[int, int], rank1_has_batch: bool) -> Any:
    import warnings

    import lightning_metrics as lm

    warnings.simplefilter("ignore")  # (the fake trainer has no dataloader for the padding plan)
    callback = lm.MetricsCallback(["accuracy", "confusion_matrix"], stages=("val",))
    engine, trainer, module = callback.engine, _trainer(rank), _Module()
    g = torch.Generator().manual_seed(rank)
    preds, target = torch.randn(12, widths[rank], generator=g), torch.randint(0, min(widths), (12,), generator=g)
    if rank == 0 or rank1_has_batch:
        engine.batch_end(trainer, module, "val", {"preds": preds, "target": target}, None, 0)
    try:
        engine.epoch_end(trainer, module, "val")
    except RuntimeError as err:
        return {"error": str(err)}
    return {"logged": module.logged, "matrix": callback.results["val/confusion_matrix"].tolist(),
            "data": (preds, target)}


def test_ranks_that_infer_differently_raise_on_every_rank() -> None:
    results = run_distributed(_epoch, (5, 4), True)
    for result in results:
        assert "the processes built different 'val' metrics" in result["error"]
        assert "rank 0: multiclass, 5 classes" in result["error"] and "rank 1: multiclass, 4 classes" in result["error"]


def test_a_rank_without_a_batch_takes_what_the_others_built() -> None:
    rank0, rank1 = run_distributed(_epoch, (5, 5), False)
    assert rank0["logged"] == rank1["logged"] and rank0["matrix"] == rank1["matrix"]
    preds, target = rank0["data"]
    expected = torchmetrics.Accuracy(task="multiclass", num_classes=5)(preds, target)
    assert rank0["logged"]["val/accuracy"] == pytest.approx(float(expected))
