"""Distributed faults, 2 gloo processes each: empty ranks, uneven cat states, ranks holding
different metrics, a sync that starts on one rank only, and a 1-sample validation set under
Lightning DDP. Every case has a timeout: a hang fails the test instead of blocking CI.
"""

from __future__ import annotations

import gc
import json
import time
import warnings
from pathlib import Path
from typing import Any, Callable

import pytest
import torch
import torch.distributed as dist

import lightning_metrics as lm
from lightning_metrics import Metric, MetricCollection, distributed
from lightning_metrics import aggregation as agg
from lightning_metrics import classification as cls
from lightning_metrics import regression as reg
from tests._distributed import CollectiveCounter, run_distributed

pytestmark = pytest.mark.timeout(300)


class MeanKind(Metric):
    """A state with ``dist_reduce_fx="mean"``: the ranks' values are averaged (ranks without
    updates contribute their default), as in torchmetrics."""

    full_state_update = False

    def __init__(self) -> None:
        super().__init__()
        self.add_state("level", torch.zeros(2), dist_reduce_fx="mean")

    def update(self, value: torch.Tensor) -> None:
        self.level = self.level + torch.stack([value.sum(), value.new_tensor(float(value.numel()))])

    def compute(self) -> torch.Tensor:
        return self.level


# ------------------------------------------------------------------ the data of each rank
def _rank_data(rank: int, empty_rank: Any) -> dict[str, list[tuple]]:
    """Uneven batch counts and sizes; the empty rank has no batch at all."""
    if rank == empty_rank:
        return {"values": [], "multiclass": [], "real2": []}
    g = torch.Generator().manual_seed(100 + rank)
    sizes = (5, 1, 7) if rank == 0 else (4,)
    out: dict[str, list[tuple]] = {"values": [], "multiclass": [], "real2": []}
    for n in sizes:
        out["values"].append((torch.randn(n, generator=g) * 3,))
        out["multiclass"].append(
            (torch.randn(n, 3, generator=g).softmax(-1), torch.randint(0, 3, (n,), generator=g))
        )
        t = torch.randn(n, 2, generator=g, dtype=torch.float64).float()
        out["real2"].append((t + 0.5 * torch.randn(n, 2, generator=g), t))
    return out


def _families() -> dict[str, Callable[[], dict[str, Metric]]]:
    """Metrics per input kind, covering every state kind: sum, cat, min, max, mean, custom."""
    return {
        "values": lambda: {
            "sum": agg.SumMetric(),
            "mean": agg.MeanMetric(),
            "max": agg.MaxMetric(),
            "min": agg.MinMetric(),
            "cat": agg.CatMetric(),
            "mean_kind": MeanKind(),
        },
        "multiclass": lambda: {
            "acc": cls.MulticlassAccuracy(num_classes=3),
            "auroc": cls.MulticlassAUROC(num_classes=3),
            "confmat": cls.MulticlassConfusionMatrix(num_classes=3),
            "binned_ap": cls.MulticlassAveragePrecision(num_classes=3, thresholds=11),
        },
        "real2": lambda: {
            "r2": reg.R2Score(multioutput="raw_values"),
            "spearman": reg.SpearmanCorrCoef(num_outputs=2),
            "mse": reg.MeanSquaredError(num_outputs=2),
            "mae": reg.MeanAbsoluteError(num_outputs=2),
        },
    }


def _empty_rank_worker(rank: int, world: int) -> dict[Any, dict[str, Any]]:
    """Both cases in one pair of processes (spawning costs seconds): rank 0 empty, then rank 1."""
    return {empty_rank: _empty_rank_case(rank, empty_rank) for empty_rank in (0, 1)}


def _empty_rank_case(rank: int, empty_rank: int) -> dict[str, Any]:
    warnings.simplefilter("ignore")  # compute() before update() on the empty rank warns
    data = _rank_data(rank, empty_rank)
    out: dict[str, Any] = {}
    for family, build in _families().items():
        collection = MetricCollection(build())
        singles = build()
        for batch in data[family]:
            collection.update(*batch)
            for metric in singles.values():
                metric.update(*batch)
        out.update({f"collection.{k}": v for k, v in collection.compute().items()})
        out.update({f"single.{k}": m.compute() for k, m in singles.items()})
        out.update({f"local.{k}": m.metric_state for k, m in singles.items() if k == "mean_kind"})
    return out


def _single_process_values(empty_rank: Any) -> dict[str, Any]:
    expected: dict[str, Any] = {}
    per_rank = [_rank_data(r, empty_rank) for r in (0, 1)]
    for family, build in _families().items():
        metrics = build()
        for rank_data in per_rank:
            for batch in rank_data[family]:
                for metric in metrics.values():
                    metric.update(*batch)
        expected.update({k: m.compute() for k, m in metrics.items()})
    return expected


def test_a_rank_without_batches_every_state_kind() -> None:
    """Collections and single metrics on 2 ranks, one of them with zero batches, equal the
    values of one process fed every batch (the "mean" reduction averages ranks, by definition)."""
    both = run_distributed(_empty_rank_worker, timeout=150)
    for empty_rank in (0, 1):
        _check_empty_rank_case(empty_rank, [values[empty_rank] for values in both])


def _check_empty_rank_case(empty_rank: int, results: list[dict[str, Any]]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = _single_process_values(empty_rank)
    for rank, values in enumerate(results):
        for path in ("collection", "single"):
            for name, value in expected.items():
                got = values[f"{path}.{name}"]
                if name == "mean_kind":
                    busy = results[1 - empty_rank]["local.mean_kind"]["level"]
                    value = (busy + torch.zeros(2)) / 2  # the empty rank contributes its default
                where = f"empty rank {empty_rank}, rank {rank} {path}.{name}"
                assert got.dtype == value.dtype, f"{where}: {got.dtype} != {value.dtype}"
                torch.testing.assert_close(
                    got,
                    value,
                    rtol=1e-6,
                    atol=1e-6,
                    equal_nan=True,
                    msg=lambda m, where=where: f"{where}: {m}",
                )


# ------------------------------------------------------------------ uneven cat states
CAT_DTYPES = tuple(d for d in distributed._DTYPES if not d.is_complex)  # every real dtype the sync moves
TRAILING = ((), (3,), (2, 4))


class ManyCats(Metric):
    """One list ``cat`` state per (dtype, trailing shape) used by the package, plus a tensor cat state."""

    full_state_update = False

    def __init__(self) -> None:
        super().__init__()
        for d in range(len(CAT_DTYPES)):
            for s in range(len(TRAILING)):
                self.add_state(f"cat_{d}_{s}", [], dist_reduce_fx="cat")
        self.add_state("tensor_cat", torch.zeros(0, 3, dtype=torch.int64), dist_reduce_fx="cat")

    def update(self, n: int, seed: int) -> None:
        g = torch.Generator().manual_seed(seed)
        for d, dtype in enumerate(CAT_DTYPES):
            for s, trailing in enumerate(TRAILING):
                values = torch.randint(0, 2 if dtype == torch.bool else 100, (n, *trailing), generator=g)
                getattr(self, f"cat_{d}_{s}").append(values.to(dtype))
        self.tensor_cat = torch.cat([self.tensor_cat, torch.randint(0, 9, (n, 3), generator=g)])

    def compute(self) -> dict[str, torch.Tensor]:
        return {
            name: lm.utilities.dim_zero_cat(getattr(self, name))
            for name in self._defaults
            if getattr(self, name) != []
        }


UNEVEN = {  # rank -> batch sizes (0: an empty batch appended, as a data loader's last batch may be)
    "uneven": ((2, 0, 5), (1,)),
    "rank1_none": ((3, 4), ()),
    "rank0_only_empty_batches": ((0, 0), (6, 2)),
}


def _uneven_cat_worker(rank: int, world: int) -> dict[str, Any]:
    out = {}
    for case, sizes in UNEVEN.items():
        metric = ManyCats()
        for i, n in enumerate(sizes[rank]):
            metric.update(n, seed=1000 * rank + i)
        with CollectiveCounter() as counter:
            out[case] = metric.compute()
        out[f"{case}.calls"] = counter.total
    return out


def test_uneven_cat_lengths_in_every_dtype_and_trailing_shape() -> None:
    results = run_distributed(_uneven_cat_worker, timeout=150)
    for case, sizes in UNEVEN.items():
        reference = ManyCats()
        for rank in (0, 1):
            for i, n in enumerate(sizes[rank]):
                reference.update(n, seed=1000 * rank + i)
        expected = reference.compute()
        for rank, values in enumerate(results):
            got = values[case]
            assert sorted(got) == sorted(expected), f"{case} rank {rank}"
            for name, value in expected.items():
                assert got[name].dtype == value.dtype and torch.equal(got[name], value), (
                    f"{case} rank {rank} {name}"
                )
            # one fingerprint + one size exchange + one gather per dtype present: bounded, not per state
            assert values[f"{case}.calls"] <= 2 + len(CAT_DTYPES)


# ------------------------------------------------------------------ ranks holding different metrics
def _mismatch_cases(rank: int) -> dict[str, tuple[Any, tuple]]:
    g = torch.Generator().manual_seed(rank)
    probs = torch.randn(6, 3, generator=g).softmax(-1)
    labels = torch.randint(0, 3, (6,), generator=g)
    wide = torch.randn(6, 4, generator=g).softmax(-1)
    values = (torch.randn(5, generator=g),)
    binary = (torch.rand(6, generator=g), torch.randint(0, 2, (6,), generator=g))
    return {
        "different keys": (
            MetricCollection({"a": agg.SumMetric(), "b" if rank == 0 else "c": agg.MaxMetric()}),
            values,
        ),
        "extra metric": (
            MetricCollection(
                {"a": agg.SumMetric()} if rank == 0 else {"a": agg.SumMetric(), "b": agg.MaxMetric()}
            ),
            values,
        ),
        "num_classes of a sum state": (
            MetricCollection({"acc": cls.MulticlassAccuracy(num_classes=3 + rank)}),
            (probs, labels) if rank == 0 else (wide, labels),
        ),
        "num_classes of a cat state": (
            MetricCollection({"auroc": cls.MulticlassAUROC(num_classes=3 + rank)}),
            (probs, labels) if rank == 0 else (wide, labels),
        ),
        "num_classes of a cat state (single metric)": (
            cls.MulticlassAUROC(num_classes=3 + rank),
            (probs, labels) if rank == 0 else (wide, labels),
        ),
        "threshold (same shapes)": (
            MetricCollection({"acc": cls.BinaryAccuracy(threshold=0.5 if rank == 0 else 0.7)}),
            binary,
        ),
        "dtype of a sum state": (
            MetricCollection(
                {"s": agg.SumMetric() if rank == 0 else agg.SumMetric().set_dtype(torch.float64)}
            ),
            values,
        ),
        "num_outputs (single metric)": (
            reg.PearsonCorrCoef(num_outputs=1 + rank),
            (torch.randn(6, 1 + rank, generator=g), torch.randn(6, 1 + rank, generator=g)),
        ),
    }


def _mismatch_worker(rank: int, world: int) -> dict[str, str]:
    messages = {}
    for case, (metric, batch) in _mismatch_cases(rank).items():
        metric.update(*batch)
        try:
            metric.compute()
            messages[case] = "no error"
        except RuntimeError as err:
            messages[case] = str(err)
    # after every failed sync the ranks are still in step: a last, matching sync works
    final = agg.SumMetric()
    final.update(torch.tensor(float(rank + 1)))
    messages["final"] = str(final.compute().item())
    return messages


def test_ranks_with_different_metrics_fail_clearly_on_every_rank() -> None:
    results = run_distributed(_mismatch_worker, timeout=150)
    cases = list(_mismatch_cases(0))
    for rank, messages in enumerate(results):
        for case in cases:
            message = messages[case]
            assert "differ" in message and "process" in message, f"rank {rank}, {case}: {message}"
        assert messages["final"] == "3.0"


# ------------------------------------------------------------------ a sync on one rank only
def _one_rank_worker(rank: int, world: int, bound: float) -> Any:
    distributed.set_sync_timeout(bound)
    metric = cls.MulticlassAccuracy(num_classes=3)
    metric.update(torch.tensor([0, 1, 2]), torch.tensor([0, 1, 1]))
    if rank == 1:  # e.g. compute() under rank_zero_only: rank 1 never joins
        time.sleep(bound + 4)
        return "skipped"
    start = time.monotonic()
    try:
        metric.compute()
        message = "no error"
    except RuntimeError as err:
        message = str(err)
    waited = time.monotonic() - start
    # the process group still comes down (returns once rank 1 has gone): on torch 2.4 it hung for
    # good if the exchange the sync stopped waiting for had been garbage-collected
    gc.collect()
    dist.destroy_process_group()
    return message, waited


def test_compute_on_one_rank_only_is_detected_with_a_sync_timeout() -> None:
    message, waited = run_distributed(_one_rank_worker, 3.0, timeout=60)[0]
    assert "did not join within 3s" in message and "rank_zero_only" in message, message
    assert waited < 30


def test_sync_timeout_argument_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="seconds"):
        distributed.set_sync_timeout(0)
    monkeypatch.setenv(distributed.SYNC_TIMEOUT_ENV, "12.5")
    assert distributed.sync_timeout() == 12.5
    distributed.set_sync_timeout(4)
    assert distributed.sync_timeout() == 4.0
    distributed.set_sync_timeout(None)
    monkeypatch.setenv(distributed.SYNC_TIMEOUT_ENV, "soon")
    with pytest.raises(ValueError, match="LIGHTNING_METRICS_SYNC_TIMEOUT"):
        distributed.sync_timeout()


# ------------------------------------------------------------------ Lightning: a 1-sample validation set
_LIGHTNING_SCRIPT = """
import json, sys, warnings
import lightning.pytorch as L
import torch
from torch.utils.data import DataLoader
import lightning_metrics as lm
from lightning_metrics import classification as cls
from tests.integration.integration_helpers import (
    MaxLogit, RecordingModel, SampleCount, TargetsSeen, make_dataset,
)

OUT = sys.argv[1]


class MinLogit(lm.Metric):
    full_state_update = False

    def __init__(self):
        super().__init__()
        self.add_state("low", torch.tensor(float("inf")), dist_reduce_fx="min")

    def update(self, preds, target):
        self.low = torch.minimum(self.low, preds.min())

    def compute(self):
        return self.low


class MeanLogit(lm.Metric):
    full_state_update = False

    def __init__(self):
        super().__init__()
        self.add_state("level", torch.tensor(0.0), dist_reduce_fx="mean")

    def update(self, preds, target):
        self.level = self.level + preds.sum()

    def compute(self):
        return self.level


class Dump(L.Callback):
    def on_fit_end(self, trainer, pl_module):
        payload = {k: v.tolist() for k, v in trainer.callback_metrics.items()}
        payload["records"] = [(p.tolist(), t.tolist()) for p, t in pl_module.records[("val", 0)]]
        with open(f"{OUT}/rank{trainer.global_rank}.json", "w") as handle:
            json.dump(payload, handle)


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    metrics = {"count": SampleCount(), "sq": TargetsSeen(), "peak": MaxLogit(), "low": MinLogit(),
               "level": MeanLogit(), "acc": cls.MulticlassAccuracy(num_classes=3, average="micro")}
    callback = lm.MetricsCallback(metrics, stages=("val",))
    trainer = L.Trainer(accelerator="cpu", devices=2, strategy="ddp", callbacks=[callback, Dump()],
                        max_epochs=1,
                        logger=False, enable_progress_bar=False, enable_model_summary=False,
                        enable_checkpointing=False, num_sanity_val_steps=0)
    train = DataLoader(make_dataset(8, 0), batch_size=4)
    val = DataLoader(make_dataset(1, 1), batch_size=4)  # one sample on two ranks: rank 1 only sees padding
    trainer.fit(RecordingModel(lr=0.0), train, val)
"""


def test_lightning_validation_set_of_one_sample_on_two_ranks(tmp_path: Path) -> None:
    from tests.integration.integration_helpers import RecordingModel, make_dataset, run_script

    out = tmp_path / "out"
    out.mkdir()
    run_script(_LIGHTNING_SCRIPT.replace("sys.argv[1]", repr(str(out))), tmp_path, timeout=240)
    ranks = [json.loads((out / f"rank{r}.json").read_text()) for r in (0, 1)]
    x, y = make_dataset(1, 1).tensors
    with torch.no_grad():
        logits = RecordingModel(lr=0.0)(x)
    expected = {
        "val/count": 1.0,
        "val/sq": float(y[0]) ** 2,
        "val/peak": float(logits.max()),
        "val/low": float(logits.min()),
        "val/level": float(logits.sum())
        / 2,  # "mean" state: rank 1 (no real sample) contributes its default 0
        "val/acc": float(logits.argmax(-1)[0] == y[0]),
    }
    for rank, values in enumerate(ranks):
        for key, value in expected.items():
            assert values[key] == pytest.approx(value, rel=1e-6, abs=1e-7), f"rank {rank} {key}"
    assert ranks[0]["records"] and ranks[1]["records"]  # both ranks ran a validation step (rank 1 on padding)


# ------------------------------------------------------------------ Lightning: a rank raises during validation
_EXCEPTION_SCRIPT = """
import os, sys, warnings
import lightning.pytorch as L
from lightning.pytorch.callbacks import OnExceptionCheckpoint
import lightning_metrics as lm
from tests.integration.integration_helpers import CountAccuracy, RecordingModel, loader

warnings.simplefilter("ignore")


class FailsOnRank1(RecordingModel):
    crash = False

    def validation_step(self, batch, batch_idx):
        if self.global_rank == 1 and batch_idx == 1:
            if self.crash:
                os._exit(3)  # the process dies: no exception, no checkpoint
            raise ValueError("boom on rank 1")
        return super().validation_step(batch, batch_idx)


def fit(model, callbacks):
    trainer = L.Trainer(accelerator="cpu", devices=2, strategy="ddp", max_epochs=1, logger=False,
                        enable_progress_bar=False, enable_model_summary=False, num_sanity_val_steps=0,
                        callbacks=[lm.MetricsCallback({"acc": CountAccuracy()}), *callbacks])
    try:
        trainer.fit(model, loader(32), loader(64))
    except BaseException as err:
        print(f"[caught on rank {trainer.global_rank}] {type(err).__name__}: {err}", flush=True)


if __name__ == "__main__":
    # 1. rank 1 raises; OnExceptionCheckpoint writes a checkpoint on every rank
    fit(FailsOnRank1(lr=0.0), [OnExceptionCheckpoint(sys.argv[1])])
    # 2. (the same processes) rank 1 dies during validation
    model = FailsOnRank1(lr=0.0)
    model.crash = True
    fit(model, [])
"""


def test_a_rank_that_fails_during_validation_is_reported_as_such(tmp_path: Path) -> None:
    """1. Rank 1 raises in ``validation_step`` and ``OnExceptionCheckpoint`` writes a checkpoint on every
    rank: rank 1 tells rank 0 (at rank 0's epoch-end sync) that it stops, so rank 0 fails at once saying
    so; rank 1's own error stays its error, no rank blames the metrics, and nobody hangs.
    2. Rank 1 dies: rank 0's epoch-end sync says that another process stopped taking part."""
    import os
    import subprocess
    import sys

    from tests.integration.integration_helpers import HERE, ROOT, CountAccuracy, free_port

    script = tmp_path / "fails.py"
    script.write_text(_EXCEPTION_SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(HERE)]), MASTER_ADDR="127.0.0.1",
               MASTER_PORT=str(free_port()), OMP_NUM_THREADS="1")
    start = time.monotonic()
    proc = subprocess.run(["timeout", "-k", "10", "150", sys.executable, str(script), str(tmp_path)], cwd=str(tmp_path),
                          env=env, capture_output=True, text=True)
    output = proc.stdout + proc.stderr
    assert proc.returncode not in (124, 137), output[-4000:]  # not ended by the timeout
    assert time.monotonic() - start < 120
    assert "[caught on rank 1] ValueError: boom on rank 1" in output, output[-4000:]
    assert "[caught on rank 0] PeerStoppedError: Metric sync on rank 0: rank 1 stopped on an exception" in output
    assert "differ across processes" not in output
    assert ("[caught on rank 0] RuntimeError: MetricsCallback: the 'val' metrics (dataloader 0) could not be merged "
            "across processes at the epoch end on rank 0: another process stopped taking part") in output, output[-4000:]
    # the checkpoint holds no metric states (they cannot be merged), and a resume from it says so
    state = torch.load(tmp_path / "on_exception.ckpt", weights_only=False)
    (saved,) = [v for k, v in state["callbacks"].items() if k.startswith("MetricsCallback")]
    assert saved["interrupted"] and saved["metrics"] == {}
    with pytest.warns(UserWarning, match="holds no metric states"):
        lm.MetricsCallback({"acc": CountAccuracy()}).load_state_dict(saved)
