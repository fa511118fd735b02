"""Exact under DDP: Trainer(devices=2, strategy="ddp"/"ddp_spawn") on CPU, each run in a subprocess.

The model is trained with ``lr=0`` so its weights are the same on any number of devices, and
the single-device values are an oracle over the whole dataset.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch
from torchmetrics.functional.classification import multiclass_accuracy, multiclass_f1_score

from tests.integration.integration_helpers import (
    RecordingModel,
    assert_oracle_logged,
    make_dataset,
    oracle,
    run_script,
)

pytestmark = [pytest.mark.timeout(240)]

TRAIN_SIZE, VAL_SIZE = 75, 101  # both odd: the DistributedSampler pads one sample on 2 ranks

_COMMON = '''
import json, os, sys
import lightning.pytorch as L
import torch
from lightning.pytorch.callbacks import Callback
from torch.utils.data import DataLoader
import lightning_metrics as lm
from lightning_metrics.classification import MulticlassAccuracy, MulticlassF1Score
from tests.integration.integration_helpers import (
    MaxLogit, PerClassRecall, RecordingModel, SampleCount, TargetsSeen, make_dataset,
)

OUT = sys.argv[2]


def data(n, seed):
    dataset = make_dataset(n, seed)
    dataset.tensors[1][0] = 2  # the padding repeats sample 0: make it count in every metric
    return dataset


def metrics():
    return {
        "acc": MulticlassAccuracy(3, average="micro"), "f1": MulticlassF1Score(3), "count": SampleCount(),
        "sq": TargetsSeen(), "peak": MaxLogit(), "recall": PerClassRecall(),
    }


def trainer(callbacks, **kwargs):
    options = dict(
        accelerator="cpu", devices=2, strategy=sys.argv[1], callbacks=callbacks, max_epochs=1, logger=False,
        enable_progress_bar=False, enable_model_summary=False, enable_checkpointing=False,
        num_sanity_val_steps=0,
    )
    options.update(kwargs)
    return L.Trainer(**options)


def dump(trainer, name, extra=None):
    payload = {k: v.tolist() for k, v in trainer.callback_metrics.items()}
    payload.update(extra or {})
    with open(os.path.join(OUT, f"{name}_rank{trainer.global_rank}.json"), "w") as handle:
        json.dump(payload, handle)
'''

_SCRIPT = _COMMON + '''

class Dump(Callback):
    def on_fit_end(self, trainer, pl_module):
        dump(trainer, "fit")


class MixinModel(lm.MetricsMixin, RecordingModel):
    metrics_separator = "."

    def configure_metrics(self):
        return metrics()


def tracked():
    return {"sq": TargetsSeen(), "peak": MaxLogit(), "acc": MulticlassAccuracy(3, average="micro"),
            "count": SampleCount()}


CKPT = os.path.join(OUT, "mid.ckpt")


class SaveMidEpoch(Callback):
    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        if batch_idx == 1:
            trainer.save_checkpoint(CKPT)  # every rank calls it: the callback merges across ranks


class Probe(Callback):
    def __init__(self, callback, phase):
        self.callback, self.phase, self.local = callback, phase, {}

    def on_train_start(self, trainer, pl_module):
        native = self.callback.engine.metrics_for("train", 0, trainer).native
        self.local = {"count": int(native["count"].n), "updates": native["acc"].update_count,
                      "targets": [t.tolist() for t in native["sq"].targets]}

    def on_fit_end(self, trainer, pl_module):
        records = pl_module.records[("train", 0)]
        dump(trainer, self.phase, {
            "local": self.local,
            "targets": [t.tolist() for _, t in records],
            "peaks": [float(p.max()) for p, _ in records],
        })


def checkpoint_phase(phase):
    # a second and third Trainer in the same processes: the process group is reused
    callback = lm.MetricsCallback(tracked(), stages=("train",))
    callbacks = [callback, SaveMidEpoch(), Probe(callback, phase)] if phase == "save" else [callback, Probe(callback, phase)]
    train = DataLoader(data(64, 0), batch_size=8)
    ckpt = CKPT if phase == "resume" else None
    trainer(callbacks, limit_val_batches=0).fit(RecordingModel(lr=0.0), train, ckpt_path=ckpt)


if __name__ == "__main__":
    exact = lm.MetricsCallback(metrics())
    uncorrected = lm.MetricsCallback(metrics(), separator="|")
    uncorrected.engine.correct_padding = False
    model = MixinModel(lr=0.0)
    train = DataLoader(data(%(train)d, 0), batch_size=16, shuffle=True)
    val = DataLoader(data(%(val)d, 1), batch_size=16)
    trainer([exact, uncorrected, Dump()]).fit(model, train, val)
    if sys.argv[1] == "ddp":
        checkpoint_phase("save")
        checkpoint_phase("resume")
''' % {"train": TRAIN_SIZE, "val": VAL_SIZE}


def _data(n: int, seed: int):
    dataset = make_dataset(n, seed)
    dataset.tensors[1][0] = 2
    return dataset.tensors


def _single_device_values(n: int, seed: int) -> dict[str, Any]:
    x, y = _data(n, seed)
    with torch.no_grad():
        logits = RecordingModel(lr=0.0)(x)
    values = oracle(logits, y)
    values.update(
        acc=multiclass_accuracy(logits, y, 3, average="micro"),
        f1=multiclass_f1_score(logits, y, 3),
        count=torch.tensor(float(n)),
    )
    return values


def _read(out: Path, name: str) -> list[dict[str, Any]]:
    return [json.loads((out / f"{name}_rank{r}.json").read_text()) for r in (0, 1)]


_RUNS: dict[str, tuple[Path, str]] = {}


def _run(strategy: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """Run the script once per strategy (the ddp run also does the checkpoint phases)."""
    if strategy not in _RUNS:
        workdir = tmp_path_factory.mktemp(strategy)
        out = workdir / "out"
        out.mkdir()
        script = _SCRIPT.replace("OUT = sys.argv[2]", f"OUT = {str(out)!r}").replace("sys.argv[1]", repr(strategy))
        proc = run_script(script, workdir, timeout=200)
        _RUNS[strategy] = (out, proc.stderr)
    return _RUNS[strategy]


@pytest.mark.parametrize("strategy", ["ddp", "ddp_spawn"])
def test_two_processes_give_exactly_the_single_device_values(
    strategy: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    out, stderr = _run(strategy, tmp_path_factory)
    rank0, rank1 = _read(out, "fit")
    # values come from synced states: Lightning's sync_dist advice is silenced for our keys only
    assert "It is recommended to use `self.log('val/" not in stderr
    assert rank0 == rank1  # every rank logs the same (synced) values: monitors agree everywhere
    for stage, n, seed in (("val", VAL_SIZE, 1), ("train", TRAIN_SIZE, 0)):
        expected = _single_device_values(n, seed)
        for sep in ("/", "."):  # the callback and the mixin, both exact
            assert_oracle_logged(rank0, expected, stage, sep)
        # without the correction the padded sample is counted twice and the values move
        assert rank0[f"{stage}|count"] == n + 1
    assert rank0["val|sq"] == pytest.approx(float(_single_device_values(VAL_SIZE, 1)["sq"]) + 4.0)  # sample 0 twice


def test_checkpoint_under_ddp_restores_the_merged_state(tmp_path_factory: pytest.TempPathFactory) -> None:
    out, _ = _run("ddp", tmp_path_factory)
    saved = _read(out, "save")
    before = [t for rank in saved for t in rank["targets"][:2]]  # both ranks, the two batches before the save
    ckpt = torch.load(out / "mid.ckpt", weights_only=False)
    (state,) = [v for k, v in ckpt["callbacks"].items() if k.startswith("MetricsCallback")]
    native = state["metrics"]["train_metrics"]["native"]
    assert int(native["count"]["states"]["n"]) == 32  # 2 batches x 8 samples x 2 ranks
    assert sorted(native["sq"]["states"]["targets"].tolist()) == sorted(float(t) for b in before for t in b)

    rank0, rank1 = _read(out, "resume")
    assert rank0["local"]["count"] == 32 and rank0["local"]["updates"] == 4  # rank 0 takes the merged state
    assert rank1["local"] == {"count": 0, "updates": 0, "targets": []}  # the others start empty
    after = [t for rank in (rank0, rank1) for batch in rank["targets"] for t in batch]
    restored = [float(t) for batch in before for t in batch]
    assert rank0["train/count"] == rank1["train/count"] == len(restored) + len(after)
    assert rank0["train/sq"] == pytest.approx(sum(t * t for t in restored) + sum(t * t for t in after))
    peaks = [p for rank in saved for p in rank["peaks"][:2]] + [p for r in (rank0, rank1) for p in r["peaks"]]
    assert rank0["train/peak"] == pytest.approx(max(peaks))
