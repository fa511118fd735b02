"""Fit-time overhead of MetricsCallback vs no metrics and vs the idiomatic torchmetrics way.

Run: ``python benchmarks/integration_overhead.py [--repeats 9] [--configs ...] [--instructions]``.
A tiny MLP (64 features, 10 classes, batch 64) fits 2 epochs of 300 train + 75 val batches on
the CPU with 8 multiclass metrics tracked for train and val. Every configuration runs in the same session, interleaved,
and the median fit time of each is reported with its ratio to the no-metrics fit. Ratios use
the process CPU time (one torch thread, no loader workers), which other processes sharing the
machine disturb less than the wall time; the wall times are printed too. Each round runs every
configuration once; a configuration's ratio is the median over rounds of its time over that
round's no-metrics time (slow stretches of a shared machine cancel), and the ratio of the
fastest runs is printed beside it.

- ``none``: no metrics at all;
- ``floor: self.log only``: no metrics, only the 16 epoch values logged through ``self.log``
  (constants), as the callback logs them: what Lightning's logging costs on its own (every
  configuration is printed against it too, "vs floor": the cost of the metric work alone);
- ``callback``: ``lightning_metrics.MetricsCallback`` (steps return preds/target);
- ``callback per batch``: the same with ``coalesce_batches=1`` (one update per batch);
- ``mixin``: ``lightning_metrics.MetricsMixin`` (same engine, other door);
- ``torchmetrics log_dict``: ``self.train_metrics(preds, y)`` + ``self.log_dict(collection)`` in
  the steps (train ``on_step=False``), the idiom of the torchmetrics docs;
- ``torchmetrics update``: ``update`` in the steps, ``log_dict(collection.compute())`` and
  ``reset()`` at epoch end;
- ``ours log_dict``: the torchmetrics idiom with our metrics (import swapped).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from typing import Any, Callable

import lightning.pytorch as L
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import lightning_metrics as lm  # noqa: E402

FEATURES, CLASSES, BATCH, TRAIN_BATCHES, VAL_BATCHES, EPOCHS = 64, 10, 64, 300, 75, 2
# Lightning's own cost of logging the callback's 16 values: each configuration is also shown against it
FLOOR = "floor: self.log only"
NAMES = ("MulticlassAccuracy", "MulticlassPrecision", "MulticlassRecall", "MulticlassF1Score",
         "MulticlassSpecificity", "MulticlassJaccardIndex", "MulticlassMatthewsCorrCoef", "MulticlassCohenKappa")


def eight_metrics(package: Any) -> dict[str, Any]:
    """The 8 multiclass metrics, from ``lightning_metrics.classification`` or torchmetrics'."""
    return {name: getattr(package, name)(num_classes=CLASSES) for name in NAMES}


def loaders() -> tuple[DataLoader, DataLoader]:
    g = torch.Generator().manual_seed(0)
    x = torch.randn((TRAIN_BATCHES + VAL_BATCHES) * BATCH, FEATURES, generator=g)
    y = torch.randint(0, CLASSES, (x.shape[0],), generator=g)
    split = TRAIN_BATCHES * BATCH
    train = DataLoader(TensorDataset(x[:split], y[:split]), batch_size=BATCH, shuffle=True)
    val = DataLoader(TensorDataset(x[split:], y[split:]), batch_size=BATCH)
    return train, val


class MLP(L.LightningModule):
    """The plain model: its steps return preds/target, nothing else about metrics."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.net = nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, CLASSES))

    def training_step(self, batch: Any, batch_idx: int) -> dict[str, torch.Tensor]:
        x, y = batch
        logits = self.net(x)
        return {"loss": nn.functional.cross_entropy(logits, y), "preds": logits, "target": y}

    def validation_step(self, batch: Any, batch_idx: int) -> dict[str, torch.Tensor]:
        x, y = batch
        logits = self.net(x)
        return {"loss": nn.functional.cross_entropy(logits, y), "preds": logits, "target": y}

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=0.05)


class MixinMLP(lm.MetricsMixin, MLP):
    def configure_metrics(self) -> Any:
        return lm.MetricCollection(eight_metrics(lm.classification))


class LogOnly(L.Callback):
    """The floor: no metric at all, only the 16 epoch values logged through ``self.log`` as the
    callback logs them (constants), with the same per-batch hooks switched off."""

    on_train_batch_start = on_before_backward = on_after_backward = None
    on_before_optimizer_step = on_before_zero_grad = on_validation_batch_start = None

    def _log(self, pl_module: L.LightningModule, stage: str) -> None:
        for name in NAMES:
            pl_module.log(f"{stage}/{name}", torch.tensor(0.5), on_step=False, on_epoch=True, reduce_fx="sum",
                          sync_dist=False, add_dataloader_idx=False, batch_size=1)

    def on_train_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._log(pl_module, "train")

    def on_validation_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._log(pl_module, "val")


def idiomatic(collection_cls: Callable, package: Any, log_dict_in_steps: bool) -> L.LightningModule:
    class Idiomatic(MLP):
        def __init__(self) -> None:
            super().__init__()
            self.train_metrics = collection_cls(eight_metrics(package), prefix="train/")
            self.val_metrics = collection_cls(eight_metrics(package), prefix="val/")

        def training_step(self, batch: Any, batch_idx: int) -> Any:
            out = super().training_step(batch, batch_idx)
            if log_dict_in_steps:
                self.train_metrics(out["preds"], out["target"])
                self.log_dict(self.train_metrics, on_step=False, on_epoch=True)
            else:
                self.train_metrics.update(out["preds"], out["target"])
            return out["loss"]

        def validation_step(self, batch: Any, batch_idx: int) -> Any:
            out = super().validation_step(batch, batch_idx)
            self.val_metrics.update(out["preds"], out["target"])
            if log_dict_in_steps:
                self.log_dict(self.val_metrics)
            return out["loss"]

        def on_train_epoch_end(self) -> None:
            if not log_dict_in_steps:
                self.log_dict(self.train_metrics.compute())
                self.train_metrics.reset()

        def on_validation_epoch_end(self) -> None:
            if not log_dict_in_steps:
                self.log_dict(self.val_metrics.compute())
                self.val_metrics.reset()

    return Idiomatic()


def configurations() -> dict[str, Callable[[], tuple[L.LightningModule, list]]]:
    import torchmetrics
    import torchmetrics.classification as tmc

    return {
        "none": lambda: (MLP(), []),
        FLOOR: lambda: (MLP(), [LogOnly()]),
        "callback": lambda: (MLP(), [lm.MetricsCallback(lm.MetricCollection(eight_metrics(lm.classification)),
                                                        stages=("train", "val"))]),
        "callback per batch": lambda: (MLP(), [lm.MetricsCallback(lm.MetricCollection(eight_metrics(lm.classification)),
                                                                  stages=("train", "val"), coalesce_batches=1)]),
        "mixin": lambda: (MixinMLP(), []),
        "torchmetrics log_dict": lambda: (idiomatic(torchmetrics.MetricCollection, tmc, True), []),
        "torchmetrics update": lambda: (idiomatic(torchmetrics.MetricCollection, tmc, False), []),
        "ours log_dict": lambda: (idiomatic(lm.MetricCollection, lm.classification, True), []),
    }


def _trainer(callbacks: list) -> L.Trainer:
    return L.Trainer(
        accelerator="cpu", devices=1, max_epochs=EPOCHS, logger=False, callbacks=callbacks,
        enable_progress_bar=False, enable_model_summary=False, enable_checkpointing=False,
        num_sanity_val_steps=0,
    )


def fit_seconds(make: Callable, train: DataLoader, val: DataLoader) -> tuple[float, float, dict]:
    model, callbacks = make()
    trainer = _trainer(callbacks)
    start, start_cpu = time.perf_counter(), time.process_time()
    trainer.fit(model, train, val)
    return time.process_time() - start_cpu, time.perf_counter() - start, dict(trainer.callback_metrics)


# ------------------------------------------------------------------ instruction counts
# Timing on a shared machine drifts by several percent between identical fits. The instructions
# executed by ``trainer.fit`` do not: ``--instructions`` runs each configuration once under
# valgrind's callgrind (about 3 minutes each, as many at a time as there are CPUs) with the
# counting switched on around ``trainer.fit`` only, and prints the counts and their ratios. They
# ignore cache misses and waits, so they are a floor of the time ratio, not a replacement. A count
# is the same for every PYTHONHASHSEED, but unrelated code changes move it by about 0.15% (CPython's
# attribute cache and malloc are keyed by addresses): the third decimal of a ratio is noise.
def _count_one(name: str) -> None:
    """Child side: warm up, then count the instructions of one fit (under callgrind)."""
    import subprocess

    train, val = loaders()
    make = configurations()[name]
    fit_seconds(make, train, val)  # warm-up, as in the timed runs
    model, callbacks = make()
    trainer = _trainer(callbacks)
    subprocess.run(["callgrind_control", "--instr=on", str(os.getpid())], check=True, capture_output=True)
    trainer.fit(model, train, val)
    subprocess.run(["callgrind_control", "--instr=off", str(os.getpid())], check=True, capture_output=True)


def count_instructions(names: list[str]) -> None:
    import re
    import shutil
    import subprocess
    import tempfile

    if not (shutil.which("valgrind") and shutil.which("callgrind_control")):
        raise SystemExit("--instructions needs valgrind (callgrind) on the PATH")
    env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1")
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        pending = list(names)
        while pending:
            batch, pending = pending[: os.cpu_count() or 1], pending[os.cpu_count() or 1 :]
            procs = {
                name: subprocess.Popen(
                    ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={tmp}/cg.%p",
                     sys.executable, os.path.abspath(__file__), "--count-one", name],
                    env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                )
                for name in batch
            }
            for name, proc in procs.items():
                _, err = proc.communicate()
                found = re.findall(r"Collected : (\d+)", err)
                if proc.returncode or not found or not int(found[-1]):
                    raise SystemExit(f"counting {name!r} failed:\n{err[-2000:]}")
                counts[name] = int(found[-1])
    base, floor = counts["none"], counts.get(FLOOR)
    print(f"{'configuration':<24}{'instructions':>16}{'vs none':>10}{'vs floor':>10}")
    for name in names:
        versus_floor = f"{counts[name] / floor:>9.3f}x" if floor else f"{'-':>10}"
        print(f"{name:<24}{counts[name]:>16,}{counts[name] / base:>9.3f}x{versus_floor}")
    print("(instructions executed by trainer.fit, counted by callgrind; PYTHONHASHSEED=0)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--configs", nargs="*", default=None, help="a subset of the configurations to run")
    parser.add_argument("--instructions", action="store_true", help="count instructions under callgrind instead")
    parser.add_argument("--count-one", default=None, help=argparse.SUPPRESS)  # the child of --instructions
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    import logging

    logging.getLogger("lightning.pytorch").setLevel(logging.ERROR)
    torch.set_num_threads(1)
    if args.count_one:
        _count_one(args.count_one)
        return
    configs = configurations()
    if args.configs:
        configs = {name: configs[name] for name in dict.fromkeys(["none", *args.configs])}
    if args.instructions:
        count_instructions(list(configs))
        return
    train, val = loaders()
    times: dict[str, list[float]] = {name: [] for name in configs}
    walls: dict[str, list[float]] = {name: [] for name in configs}
    results: dict[str, dict] = {}
    # Warm-up: first-call costs paid once per process, e.g. the first `self.log` imports
    # torch._dynamo (Lightning's result collection is wrapped in torch.compiler.disable).
    for make in configs.values():
        fit_seconds(make, train, val)
    order = list(configs)
    for round_ in range(args.repeats):
        for name in order[round_ % len(order):] + order[: round_ % len(order)]:  # rotate: no position bias
            cpu, wall, results[name] = fit_seconds(configs[name], train, val)
            times[name].append(cpu)
            walls[name].append(wall)
    # Other tenants of a shared machine slow whole stretches of runs: each round's ratio to the
    # round's own no-metrics fit cancels that drift, and the fastest runs show the cost with
    # the least interference. Both estimates are printed.
    base = times["none"]
    tm, floor = times.get("torchmetrics log_dict"), times.get(FLOOR)
    print(
        f"{'configuration':<24}{'median cpu s':>13}{'vs none':>9}{'min/min':>9}{'vs floor':>10}{'vs tm log_dict':>16}"
        f"{'median wall s':>15}   cpu range"
    )
    for name, values in times.items():
        paired = statistics.median(v / b for v, b in zip(values, base))
        fastest = min(values) / min(base)
        versus_floor = f"{statistics.median(v / f for v, f in zip(values, floor)):>9.3f}x" if floor else f"{'-':>10}"
        versus_tm = f"{statistics.median(v / t for v, t in zip(values, tm)):>15.2f}x" if tm else f"{'-':>16}"
        print(
            f"{name:<24}{statistics.median(values):>13.2f}{paired:>8.3f}x{fastest:>8.3f}x{versus_floor}{versus_tm}"
            f"{statistics.median(walls[name]):>15.2f}   {min(values):.2f}-{max(values):.2f}"
        )
    print(f"({args.repeats} interleaved rounds; 'vs none': median of the per-round ratios; 'min/min': fastest runs)")
    if "callback" not in results or "torchmetrics log_dict" not in results:
        return
    ours, theirs = results["callback"], results["torchmetrics log_dict"]
    same = all(
        torch.allclose(ours[key].double(), theirs[key].double(), rtol=1e-5, atol=1e-6) for key in ours if key in theirs
    )
    print(f"callback values equal torchmetrics' ({len([k for k in ours if k in theirs])} keys): {same}")


if __name__ == "__main__":
    main()
