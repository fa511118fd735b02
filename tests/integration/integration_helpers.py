"""Tiny models, data and test-local metrics for the Lightning integration tests.

Kept importable by name (the DDP tests run scripts in subprocesses that import this module).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from collections import defaultdict
from pathlib import Path
from typing import Any, Optional

import lightning.pytorch as L
import torch
from lightning.pytorch.loggers import CSVLogger
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import lightning_metrics as lm

NUM_FEATURES = 8
NUM_CLASSES = 3
HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def make_dataset(n: int, seed: int = 0) -> TensorDataset:
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(n, NUM_FEATURES, generator=generator)
    y = torch.randint(0, NUM_CLASSES, (n,), generator=generator)
    return TensorDataset(x, y)


def loader(n: int, seed: int = 0, batch_size: int = 16, shuffle: bool = False) -> DataLoader:
    return DataLoader(make_dataset(n, seed), batch_size=batch_size, shuffle=shuffle)


# ----------------------------------------------------------------- metrics
class AdditiveMetric(lm.Metric):
    """The base of the test metrics below: per-sample sums, counts, max or cat states, so the
    engine may coalesce batches."""

    full_state_update = False
    additive_update = True


class CountAccuracy(AdditiveMetric):
    """Multiclass accuracy from logits (test-local, sum states)."""

    def __init__(self, num_classes: int = NUM_CLASSES, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.num_classes = num_classes
        self.add_state("correct", torch.tensor(0), dist_reduce_fx="sum")
        self.add_state("total", torch.tensor(0), dist_reduce_fx="sum")

    def update(self, preds: torch.Tensor, target: torch.Tensor) -> None:
        self.correct += (preds.argmax(-1) == target).sum()
        self.total += target.numel()

    def compute(self) -> torch.Tensor:
        return self.correct.float() / self.total


class PerClassRecall(AdditiveMetric):
    """Recall per class (a vector of ``num_classes`` values)."""

    def __init__(self, num_classes: int = NUM_CLASSES, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.num_classes = num_classes
        self.add_state("hits", torch.zeros(num_classes), dist_reduce_fx="sum")
        self.add_state("support", torch.zeros(num_classes), dist_reduce_fx="sum")

    def update(self, preds: torch.Tensor, target: torch.Tensor) -> None:
        hit = (preds.argmax(-1) == target).float()
        self.hits += torch.bincount(target, weights=hit, minlength=self.num_classes)
        self.support += torch.bincount(target, minlength=self.num_classes).float()

    def compute(self) -> torch.Tensor:
        return self.hits / self.support


class Confusion(AdditiveMetric):
    """A confusion matrix: a non-scalar that must never reach ``self.log``."""

    def __init__(self, num_classes: int = NUM_CLASSES, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.num_classes = num_classes
        self.add_state("matrix", torch.zeros(num_classes, num_classes, dtype=torch.long), dist_reduce_fx="sum")

    def update(self, preds: torch.Tensor, target: torch.Tensor) -> None:
        index = target * self.num_classes + preds.argmax(-1)
        self.matrix += torch.bincount(index, minlength=self.num_classes**2).reshape(self.num_classes, -1)

    def compute(self) -> torch.Tensor:
        return self.matrix


class MaxLogit(AdditiveMetric):
    """The largest logit seen (a max state) — exactness of max under resume."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_state("peak", torch.tensor(float("-inf")), dist_reduce_fx="max")

    def update(self, preds: torch.Tensor, target: torch.Tensor) -> None:
        self.peak = torch.maximum(self.peak, preds.max())

    def compute(self) -> torch.Tensor:
        return self.peak


class TargetsSeen(AdditiveMetric):
    """Concatenates the targets (a cat state) and returns their sum of squares and count."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_state("targets", [], dist_reduce_fx="cat")

    def update(self, preds: torch.Tensor, target: torch.Tensor) -> None:
        self.targets.append(target.float())

    def compute(self) -> torch.Tensor:
        return (lm.utilities.dim_zero_cat(self.targets) ** 2).sum()


class SampleCount(AdditiveMetric):
    """How many samples were fed (a padded sample counts twice)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_state("n", torch.tensor(0), dist_reduce_fx="sum")

    def update(self, preds: torch.Tensor, target: torch.Tensor) -> None:
        self.n += target.shape[0]

    def compute(self) -> torch.Tensor:
        return self.n


class SaveCheckpointAt(L.Callback):
    """Writes a checkpoint at the end of one train batch (a mid-epoch save)."""

    def __init__(self, path: Path, batch_idx: int) -> None:
        self.path, self.batch_idx = path, batch_idx

    def on_train_batch_end(self, trainer: L.Trainer, pl_module: Any, outputs: Any, batch: Any, batch_idx: int) -> None:
        if batch_idx == self.batch_idx:
            trainer.save_checkpoint(self.path)


def standard_metrics() -> dict[str, lm.Metric]:
    return {"acc": CountAccuracy(), "recall": PerClassRecall(), "peak": MaxLogit(), "sq": TargetsSeen()}


def oracle(preds: torch.Tensor, target: torch.Tensor) -> dict[str, Any]:
    """The values ``standard_metrics`` must produce over these predictions."""
    hard = preds.argmax(-1)
    recall = torch.stack([(hard[target == c] == c).float().mean() for c in range(NUM_CLASSES)])
    return {
        "acc": (hard == target).float().mean(),
        "recall": recall,
        "peak": preds.max(),
        "sq": (target.float() ** 2).sum(),
    }


# ------------------------------------------------------------------ models
class LinearClassifier(L.LightningModule):
    """A linear layer from ``NUM_FEATURES`` to ``NUM_CLASSES`` logits, initialised from ``seed``,
    trained by SGD at ``lr``; subclasses write the steps."""

    def __init__(self, lr: float = 0.1, seed: int = 0) -> None:
        super().__init__()
        torch.manual_seed(seed)
        self.layer = nn.Linear(NUM_FEATURES, NUM_CLASSES)
        self.lr = lr

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layer(x)

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=self.lr)


class RecordingModel(LinearClassifier):
    """A linear classifier whose steps return preds/target and record them per stage/epoch."""

    def __init__(self, lr: float = 0.1, seed: int = 0) -> None:
        super().__init__(lr, seed)
        self.records: dict[tuple, list] = defaultdict(list)  # (stage, dataloader_idx) -> [(preds, target)]

    def _step(self, stage: str, batch: Any, dataloader_idx: int = 0) -> dict[str, torch.Tensor]:
        x, y = batch
        logits = self(x)
        loss = nn.functional.cross_entropy(logits, y)
        self.records[(stage, dataloader_idx)].append((logits.detach().clone(), y.clone()))
        return {"loss": loss, "preds": logits, "target": y}

    def training_step(self, batch: Any, batch_idx: int) -> dict[str, torch.Tensor]:
        return self._step("train", batch)

    def validation_step(self, batch: Any, batch_idx: int, dataloader_idx: int = 0) -> dict[str, torch.Tensor]:
        return self._step("val", batch, dataloader_idx)

    def test_step(self, batch: Any, batch_idx: int, dataloader_idx: int = 0) -> dict[str, torch.Tensor]:
        return self._step("test", batch, dataloader_idx)

    def on_train_epoch_start(self) -> None:
        self.records.pop(("train", 0), None)

    def on_validation_epoch_start(self) -> None:
        for key in [k for k in self.records if k[0] == "val"]:
            del self.records[key]

    def on_test_epoch_start(self) -> None:
        for key in [k for k in self.records if k[0] == "test"]:
            del self.records[key]

    def recorded(self, stage: str, dataloader_idx: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
        pairs = self.records[(stage, dataloader_idx)]
        return torch.cat([p for p, _ in pairs]), torch.cat([t for _, t in pairs])


def trainer_kwargs(tmp_path: Path, **overrides: Any) -> dict[str, Any]:
    kwargs: dict[str, Any] = dict(
        accelerator="cpu",
        devices=1,
        max_epochs=2,
        enable_progress_bar=False,
        enable_model_summary=False,
        enable_checkpointing=False,
        logger=CSVLogger(str(tmp_path), name="logs"),
        num_sanity_val_steps=0,
        deterministic=True,
    )
    kwargs.update(overrides)
    return kwargs


def assert_close(actual: Any, expected: Any, key: str = "") -> None:
    actual = torch.as_tensor(actual, dtype=torch.float64)
    expected = torch.as_tensor(expected, dtype=torch.float64)
    torch.testing.assert_close(actual, expected, rtol=1e-6, atol=1e-7, equal_nan=True, msg=lambda m: f"{key}: {m}")


def assert_oracle_logged(logged: dict[str, Any], expected: dict[str, Any], stage: str, sep: str = "/", suffix: str = "") -> None:
    """Each oracle value of ``expected`` was logged as ``<stage><sep><name><suffix>``, a vector value
    once per class as ``<stage><sep><name><sep><class><suffix>``."""
    for name, value in expected.items():
        if value.ndim:
            for c, v in enumerate(value):
                assert_close(logged[f"{stage}{sep}{name}{sep}{c}{suffix}"], v, f"{stage}{sep}{name}{sep}{c}")
        else:
            assert_close(logged[f"{stage}{sep}{name}{suffix}"], value, f"{stage}{sep}{name}")


# -------------------------------------------------------------- subprocess
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def launch_two_nodes(out: Path, name: str, source: str, args: tuple[str, ...] = (),
                     timeout: int = 400) -> "list[subprocess.Popen]":
    """Write ``source`` to ``out/name.py`` and start it as two nodes of one process each
    (``Trainer(num_nodes=2, devices=1)``: ``NODE_RANK`` 0 and 1, gloo on 127.0.0.1), each under
    ``timeout -k 10 {timeout}``, with ``out`` and ``args`` as its arguments."""
    script = out / f"{name}.py"
    script.write_text(source)
    port = str(free_port())
    procs = []
    for node in (0, 1):
        env = dict(os.environ, PYTHONPATH=str(ROOT), MASTER_ADDR="127.0.0.1", MASTER_PORT=port,
                   NODE_RANK=str(node), LOCAL_RANK="0", OMP_NUM_THREADS="1")
        procs.append(subprocess.Popen(
            ["timeout", "-k", "10", str(timeout), sys.executable, str(script), str(out), *args], cwd=str(out), env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        ))
    return procs


def wait_two_nodes(procs: "list[subprocess.Popen]") -> list[str]:
    """Wait for both nodes of :func:`launch_two_nodes`; the failures, with the tail of their output."""
    outputs = [p.communicate()[0] for p in procs]
    return [f"node {node} failed ({proc.returncode}):\n{text[-6000:]}"
            for node, (proc, text) in enumerate(zip(procs, outputs)) if proc.returncode != 0]


def run_script(source: str, tmp_path: Path, timeout: float = 150.0) -> subprocess.CompletedProcess:
    """Run ``source`` in a fresh interpreter (repo root on the path, a free port), with a timeout."""
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(source))
    env = dict(os.environ)
    env.update(
        PYTHONPATH=os.pathsep.join([str(ROOT), str(HERE), env.get("PYTHONPATH", "")]),
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(free_port()),
        PL_DISABLE_FORK="0",
        OMP_NUM_THREADS="1",
    )
    proc = subprocess.run(
        [sys.executable, str(script)], cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=timeout
    )
    if proc.returncode != 0:
        raise AssertionError(f"script failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-6000:]}")
    return proc


def latest(metrics: dict[str, Any], key: str) -> Optional[float]:
    value = metrics.get(key)
    return None if value is None else float(value)
