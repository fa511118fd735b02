"""The lifecycle matrix (issue 35): one real metric per kind of state, through the callback and the
mixin side by side, across checkpoints, resumes, stages and process layouts.

The metrics (:func:`lifecycle_runs.lifecycle_metrics`): a sum tensor (``MulticlassAccuracy``), cat
tensors (``BinaryAUROC``), lists of dicts (``MeanAveragePrecision``), strings (``WordErrorRate``,
``BLEUScore``), extra inputs (``RetrievalMAP`` with ``indexes``), a per-sample mean
(``ScaleInvariantSignalDistortionRatio``), cluster labels (``AdjustedRandScore``), a wrapper
(``ClasswiseWrapper``), a metric given by name (``MetricsCallback(["accuracy"])``), the loss tracker
(``track_loss="sample"``) and a seeded ``BootStrapper`` (in its own callback: the main one is
coalesced, it is not). ``MetricTracker`` has cells of its own (below). Every input is a function of
the sample index, so each logged value is checked against the metric fed the samples at once (rel
1e-5), and every cell checks the exact set of (key, epoch) rows logged (nothing missing, nothing
twice, nothing extra) and the warnings our code gave (none, unless the cell expects one).

The matrix holds 37 cells (test ids):

- uninterrupted fits on 1 and 2 processes, sanity check off, writing checkpoints at every point (2);
- resumes at 5 points x 4 layouts (20): ``mid`` (end of train batch 1), ``last`` (end of the last
  train batch), ``epochend`` (the epoch-0 file of a real ``ModelCheckpoint(dirpath=...,
  save_top_k=-1)``: written in ``on_train_epoch_end`` after the metrics logged and reset the train
  states), ``midval`` (end of val batch 1), ``end`` (``on_validation_end``); resumed 1->1, 2->2,
  1->2, 2->1 (the 2-process runs are ``num_nodes=2, devices=1``, launched with ``NODE_RANK``, gloo on
  127.0.0.1). What a resumed run must log follows ``test_resume``: the train values of an epoch are
  those of the samples the checkpoint holds for it plus those Lightning fed after the resume (a
  non-resumable loader restarted mid-epoch feeds some twice: they count twice; across process counts
  Lightning may feed less of the next epoch: the values follow); val values equal the uninterrupted
  run's, and the interrupted epoch's exist only where Lightning runs that validation;
- ``validate()`` alone; ``fit()`` then ``test()``; the sanity check on (its batches must not reach
  epoch 0's val values: the same rows, values and steps as with it off); two val dataloaders (4);
- a stage with zero batches: on one rank (2 processes: a 1-sample val set whose rank-1 batch is
  the sampler's padding; a sampler giving rank 1 nothing, which Lightning accepts only with
  ``allow_zero_length_dataloader_with_multiple_devices``), on every rank (an empty val loader on 1
  and 2 processes, ``limit_val_batches=0``) (5);
- collections whose members are updated one at a time: the callback giving each member of a
  ``MetricCollection(compute_groups=False)`` its own inputs; the mixin with a member of a compute
  group also updated by hand in ``validation_step``; members of one compute group given different
  inputs (a clear error, both doors) (4);
- ``MetricTracker`` through the callback and the mixin (2).

The seeded ``BootStrapper`` is checked exactly in every 1-process cell. Its draws depend on the
batch sizes fed since its generator was seeded, and that generator is not part of a checkpoint (as
in torchmetrics): a resumed process draws from the seed again, so resumed values differ from the
uninterrupted run's; the 1->1 cells check exactly that (the copies' restored states plus the new
draws). On 2 processes each rank resamples its own shard with its own copy of the generator, so
there only its keys and the range of its values are checked.

All fits run in a module fixture: the 1-process fits in this process (well under a second each), the
2-process fits in two launches (one script per node running them in turn, under ``timeout -k``).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any, Optional, Union

import pytest
import torch
from lightning.pytorch.loops.fit_loop import _FitLoop

from tests.integration.integration_helpers import wait_two_nodes
from tests.integration.lifecycle_runs import (
    MEMBER_INPUTS, POINTS, TRAIN_SIZE, VAL2_SIZE, VAL_SIZE, TEST_SIZE, boot_oracle, launch_two_processes,
    lifecycle_oracle, member_oracle, other_runs_one_process, resume_runs_one_process, save_runs_one_process,
    two_process_runs,
)

pytestmark = [
    pytest.mark.timeout(900),
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::lightning.fabric.utilities.warnings.PossibleUserWarning"),
]

# Lightning 2.4 (the floor) has no restart stages in its fit loop: it runs again the train batch whose
# `on_train_batch_end` wrote the checkpoint (the engine warns that such a resume needs Lightning 2.5)
# and replays epoch 0 differently; the resume cells model Lightning 2.5+ replays, and
# tests/integration/test_resume.py covers the floor's resumes against the uninterrupted run
_NO_RESTART_STAGES = not hasattr(_FitLoop, "update_restart_stage")

# the datasets: (size, seed) of lifecycle_runs.loader
TRAIN, VAL, VAL2, TEST = (TRAIN_SIZE, 0), (VAL_SIZE, 1), (VAL2_SIZE, 3), (TEST_SIZE, 2)
LAYOUTS = [(1, 1), (2, 2), (1, 2), (2, 1)]
# a BootStrapper value checked for its range only (2 processes: each rank resamples its own shard)
IN_RANGE = "in range"


class Runs:
    def __init__(self, out: Path, failures: list[str]) -> None:
        self.out, self.failures = out, failures

    def ranks(self, name: str) -> list[dict[str, Any]]:
        found = [json.loads(p.read_text()) for p in sorted(self.out.glob(f"{name}.rank*.json"))]
        if not found:
            pytest.fail(f"the run {name!r} wrote nothing (killed or hung?); the 2-process launches said:\n"
                        + "\n".join(self.failures))
        return found

    def rank0(self, name: str) -> dict[str, Any]:
        return next(r for r in self.ranks(name) if r["rank"] == 0)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    out = tmp_path_factory.mktemp("lifecycle")
    save_runs_one_process(out)  # the 1-process checkpoints, which the 2-process script resumes 1->2
    procs = launch_two_processes(out, two_process_runs.__name__, timeout=400)
    other_runs_one_process(out)  # meanwhile: these need no checkpoint
    failures = wait_two_nodes(procs)
    failures += wait_two_nodes(launch_two_processes(out, "uneven_runs", timeout=120))
    resume_runs_one_process(out)  # 1->1 and 2->1
    return Runs(out, failures)


# ------------------------------------------------------------------ helpers
Expected = dict[tuple[str, int], Union[float, str]]


def expect(stage: str, epoch: int, values: dict[str, float], boot: Any = None, suffix: str = "",
           separators: tuple[str, ...] = ("/", ".")) -> Expected:
    """The rows both doors log for ``stage`` at ``epoch``: ``values`` by name, and the bootstrapper's
    (``boot``: its ``{"mean", "std"}``, :data:`IN_RANGE`, or None for none): the callback holding it
    alone logs its results unprefixed (``val/mean``), the mixin's collection as ``val.boot_mean``."""
    rows: Expected = {}
    for sep in separators:
        for name, value in values.items():
            rows[(f"{stage}{sep}{name.replace('{sep}', sep)}{suffix}", epoch)] = value
    if boot is not None:
        for part in ("mean", "std"):
            value = boot if boot == IN_RANGE else boot[part]
            rows[(f"{stage}/{part}{suffix}", epoch)] = value
            rows[(f"{stage}.boot_{part}{suffix}", epoch)] = value
    return rows


def check_rows(record: dict[str, Any], expected: Expected, where: str) -> None:
    assert record["error"] is None, f"{where}: {record['error']}\n{record['traceback']}"
    rows = record["rows"]
    counts = Counter((key, epoch) for key, epoch, _, _ in rows)
    twice = sorted(k for k, n in counts.items() if n > 1)
    assert not twice, f"{where}: logged more than once: {twice}"
    logged = {(key, epoch): value for key, epoch, value, _ in rows}
    missing = sorted(set(expected) - set(logged))
    extra = sorted(set(logged) - set(expected))
    assert not missing and not extra, f"{where}: missing {missing}; not expected {[(k, logged[k]) for k in extra]}"
    for key, want in expected.items():
        got = logged[key]
        if want == IN_RANGE:
            assert (0.0 <= got <= 1.0) if key[0].endswith("mean") else got >= 0.0, (where, key, got)
        elif not (math.isnan(want) and math.isnan(got)):
            assert got == pytest.approx(want, rel=1e-5, abs=1e-6), (where, key)


def check_no_warnings(runs: Runs, name: str) -> None:
    for record in runs.ranks(name):
        assert record["warnings"] == [], f"{name} (rank {record['rank']}): {record['warnings']}"


def batches(records: list[dict[str, Any]], stage: str, epoch: Optional[int] = None, dataloader: int = 0) -> list:
    return [b for r in records for b in (r["batches"] or {}).get(stage, [])
            if (epoch is None or b[0] == epoch) and b[1] == dataloader]


def samples(found: list) -> list[int]:
    return [i for _, _, indices in found for i in indices]


def boot_per_epoch(data: tuple[int, int], lives: list[list]) -> dict[int, dict[str, float]]:
    return boot_oracle(*data, lives)


def uninterrupted(train_epochs: int = 2, val_epochs: int = 2, boot_train: Any = IN_RANGE,
                  boot_val: Any = IN_RANGE) -> Expected:
    train, val = lifecycle_oracle(*TRAIN), lifecycle_oracle(*VAL)
    rows: Expected = {}
    for epoch in range(train_epochs):
        rows.update(expect("train", epoch, train, boot_train if boot_train == IN_RANGE else boot_train[epoch]))
    for epoch in range(val_epochs):
        rows.update(expect("val", epoch, val, boot_val if boot_val == IN_RANGE else boot_val[epoch]))
    return rows


# ---------------------------------------------------------- uninterrupted
@pytest.mark.parametrize("world", [1, 2], ids=["1proc", "2proc"])
def test_an_uninterrupted_fit_logs_the_oracle_values(runs: Runs, world: int) -> None:
    """Sanity check off, checkpoints written at every point (writing them changes nothing)."""
    name = f"save{world}"
    records = runs.ranks(name)
    if world == 1:  # the bootstrapper, replayed: one generator per stage, seeded when the fit started
        boot_train = boot_per_epoch(TRAIN, [batches(records, "train")])
        boot_val = boot_per_epoch(VAL, [batches(records, "val")])
        check_rows(runs.rank0(name), uninterrupted(boot_train=boot_train, boot_val=boot_val), name)
    else:
        check_rows(runs.rank0(name), uninterrupted(), name)
    check_no_warnings(runs, name)
    assert sorted(runs.rank0(name)["saved"]) == sorted(POINTS)
    # ModelCheckpoint's epoch-0 file was written after the metrics had logged and reset the train states
    checkpoint = torch.load(runs.out / f"{name}_epochend.ckpt", weights_only=False)
    assert checkpoint["epoch"] == 0
    states = [v for k, v in checkpoint["callbacks"].items() if k.startswith("MetricsCallback")]
    states.append(checkpoint["lightning_metrics"])
    for state in states:
        native = state["metrics"]["train_metrics"]["native"]
        for metric in ("acc", "auroc", "acc_w", "auroc_w", "loss", "accuracy", "boot"):
            if metric in native:
                assert native[metric]["count"] == 0, (name, metric)


# ----------------------------------------------------------------- resumes
@pytest.mark.parametrize("point", POINTS)
@pytest.mark.parametrize(("src", "dst"), LAYOUTS, ids=[f"{s}to{d}" for s, d in LAYOUTS])
def test_a_resumed_fit_logs_what_the_samples_it_fed_give(runs: Runs, point: str, src: int, dst: int) -> None:
    save, name = f"save{src}", f"resume{dst}from{src}_{point}"
    if _NO_RESTART_STAGES:
        if point in ("mid", "last"):  # written in on_train_batch_end: both doors say it cannot be exact
            said = runs.rank0(name)["warnings"]  # (said on rank zero)
            assert said and all("needs Lightning 2.5 or newer" in w for w in said), (name, said)
        pytest.skip("this Lightning replays a resumed epoch without restart stages (exact resumes need "
                    "Lightning 2.5 or newer); tests/integration/test_resume.py covers its resumes")
    saved_ranks, resumed = runs.ranks(save), runs.ranks(name)
    # the train samples whose states the checkpoint holds: those fed in epoch 0 before the save, but at
    # ``epochend`` the metrics had logged and reset them already (ModelCheckpoint runs last)
    held_batches = [] if point == "epochend" else [
        b for r in saved_ranks for b in r["saved"][point].get("train", []) if b[0] == 0
    ]
    held = samples(held_batches)
    fed = {e: samples(batches(resumed, "train", e)) for e in (0, 1)}
    if point == "mid":
        assert len(set(held + fed[0])) < len(held + fed[0])  # the loader restarted: some samples are fed twice
    elif point != "epochend":
        assert sorted(held) == list(range(TRAIN_SIZE))  # epoch 0 was all fed before the save
    if src == dst:  # Lightning replays nothing of epoch 0 (but after a mid-epoch save), and validates
        assert bool(fed[0]) == (point == "mid"), fed[0]  # epoch 0 again only after a mid-epoch save
        assert bool(batches(resumed, "val", 0)) == (point == "mid")

    # the bootstrapper on 1 process: its copies' restored states plus what this process drew from the
    # seed again (a checkpoint does not carry the generator); on 2 processes, its keys and range only
    one_process = src == dst == 1
    boot_train = boot_per_epoch(TRAIN, [held_batches, batches(resumed, "train")]) if one_process else None
    boot_val = boot_per_epoch(VAL, [batches(resumed, "val")]) if one_process else None

    expected: Expected = {}
    for epoch in (0, 1):
        fed_here = (held if epoch == 0 else []) + fed[epoch]
        if fed_here:
            expected.update(expect("train", epoch, lifecycle_oracle(*TRAIN, fed_here),
                                   boot_train[epoch] if boot_train else IN_RANGE))
        val_fed = samples(batches(resumed, "val", epoch))
        if val_fed:  # a validation Lightning runs is run whole: the uninterrupted values
            assert set(val_fed) == set(range(VAL_SIZE)), (name, epoch, val_fed)
            expected.update(expect("val", epoch, lifecycle_oracle(*VAL), boot_val[epoch] if boot_val else IN_RANGE))
    assert ("val/acc", 1) in expected and ("train/acc", 1) in expected
    record = runs.rank0(name)
    check_rows(record, expected, name)
    check_no_warnings(runs, name)
    if src == dst:  # the same batches per epoch: the same logging steps as the uninterrupted run
        base = {(k, e): step for k, e, _, step in runs.rank0(save)["rows"]}
        for key, epoch, _, step in record["rows"]:
            assert step == base[(key, epoch)], (name, key, epoch)


# ------------------------------------------------------------------ stages
def test_validate_alone(runs: Runs) -> None:
    records = runs.ranks("validate")
    boot = boot_per_epoch(VAL, [batches(records, "val")])
    check_rows(runs.rank0("validate"), expect("val", 0, lifecycle_oracle(*VAL), boot[0]), "validate")
    check_no_warnings(runs, "validate")


def test_fit_then_test(runs: Runs) -> None:
    records = runs.ranks("fit_test")
    expected = uninterrupted(boot_train=boot_per_epoch(TRAIN, [batches(records, "train")]),
                             boot_val=boot_per_epoch(VAL, [batches(records, "val")]))
    boot_test = boot_per_epoch(TEST, [batches(records, "test")])  # the test stage's own clone, seeded afresh
    expected.update(expect("test", 2, lifecycle_oracle(*TEST), boot_test[2]))
    check_rows(runs.rank0("fit_test"), expected, "fit_test")
    check_no_warnings(runs, "fit_test")


def test_the_sanity_check_reaches_no_value(runs: Runs) -> None:
    """With ``num_sanity_val_steps=2``: the same rows, values and steps as without (``save1``)."""
    records = runs.ranks("sanity_on")
    expected = uninterrupted(boot_train=boot_per_epoch(TRAIN, [batches(records, "train")]),
                             boot_val=boot_per_epoch(VAL, [batches(records, "val")]))
    check_rows(runs.rank0("sanity_on"), expected, "sanity_on")
    check_no_warnings(runs, "sanity_on")
    base = {(k, e): (v, s) for k, e, v, s in runs.rank0("save1")["rows"]}
    assert {(k, e): (v, s) for k, e, v, s in runs.rank0("sanity_on")["rows"]} == base


def test_two_val_dataloaders(runs: Runs) -> None:
    records = runs.ranks("two_val")
    expected: Expected = {}
    boot_train = boot_per_epoch(TRAIN, [batches(records, "train")])
    expected.update(expect("train", 0, lifecycle_oracle(*TRAIN), boot_train[0]))
    for idx, data in enumerate((VAL, VAL2)):  # each dataloader's metrics are a clone of their own
        boot = boot_per_epoch(data, [batches(records, "val", dataloader=idx)])
        expected.update(expect("val", 0, lifecycle_oracle(*data), boot[0], suffix=f"/dataloader_idx_{idx}"))
    check_rows(runs.rank0("two_val"), expected, "two_val")
    check_no_warnings(runs, "two_val")


# -------------------------------------------------------------- zero batches
def test_zero_val_batches_on_one_rank_its_only_batch_is_padding(runs: Runs) -> None:
    """1 val sample on 2 processes: rank 1's batch is the DistributedSampler's padding (dropped), so its
    metrics see no sample (its cat states stay empty lists through the sync)."""
    name = "zero_one_padding2"
    fed = {r["rank"]: samples(batches([r], "val", 0)) for r in runs.ranks(name)}
    assert fed == {0: [0], 1: [0]}  # (rank 1's is the padded copy of sample 0)
    expected = expect("train", 0, lifecycle_oracle(*TRAIN), IN_RANGE)
    expected.update(expect("val", 0, lifecycle_oracle(1, VAL[1]), IN_RANGE))
    check_rows(runs.rank0(name), expected, name)
    check_no_warnings(runs, name)


def test_zero_val_batches_on_one_rank_its_loader_is_empty(runs: Runs) -> None:
    """Rank 1's val loader is empty (a sampler giving every sample to rank 0; Lightning raises for that
    unless ``allow_zero_length_dataloader_with_multiple_devices``, set here). Lightning then validates on
    rank 0 alone: the values must be those of the samples rank 0 fed, or the run must stop with a clear
    error that says a rank had no val batch (not a bare KeyError from a mismatched collective)."""
    name = "zero_one_sampler2"
    records = runs.ranks(name)
    errors = [r["error"] for r in records if r["error"]]
    if errors:
        clear = [e for e in errors if "rank" in e and any(w in e for w in ("no batch", "zero", "allow_zero_length"))]
        assert clear, f"{name}: not a clear error:\n" + "\n".join(
            f"rank {r['rank']}: {r['error']}\n{r['traceback']}" for r in records)
        return
    assert samples(batches(records, "val", 0)) == list(range(VAL_SIZE))
    expected = expect("train", 0, lifecycle_oracle(*TRAIN), IN_RANGE)
    expected.update(expect("val", 0, lifecycle_oracle(*VAL), IN_RANGE))
    check_rows(runs.rank0(name), expected, name)


@pytest.mark.parametrize("name", ["zero_all_empty1", "zero_all_limit1", "zero_all_empty2"])
def test_zero_val_batches_on_every_rank(runs: Runs, name: str) -> None:
    """An empty val loader (1 and 2 processes) or ``limit_val_batches=0``: Lightning runs no val hook;
    nothing is logged for val, nothing crashes, the train values are exact."""
    records = runs.ranks(name)
    assert not batches(records, "val")
    boot = boot_per_epoch(TRAIN, [batches(records, "train")])[0] if name.endswith("1") else IN_RANGE
    check_rows(runs.rank0(name), expect("train", 0, lifecycle_oracle(*TRAIN), boot), name)
    check_no_warnings(runs, name)


# ----------------------------------------------------------------- members
def _member_rows(stage: str, values: dict[str, float], sep: str, epochs: int = 2) -> Expected:
    rows: Expected = {}
    for epoch in range(epochs):
        rows.update(expect(stage, epoch, values, separators=(sep,)))
    return rows


def test_members_given_their_own_inputs_through_the_callback(runs: Runs) -> None:
    """``MetricCollection(compute_groups=False)`` whose members read other keys (``inputs=`` per metric):
    each member equals that metric alone fed its inputs."""
    expected = _member_rows("train", member_oracle(*TRAIN, MEMBER_INPUTS), "/")
    expected.update(_member_rows("val", member_oracle(*VAL, MEMBER_INPUTS), "/"))
    check_rows(runs.rank0("members_callback"), expected, "members_callback")
    check_no_warnings(runs, "members_callback")


def test_a_member_updated_by_hand_through_the_mixin(runs: Runs) -> None:
    """The mixin feeds its compute group (acc, prec, f1) the step's preds; ``validation_step`` also feeds
    ``prec`` by hand (a member used on its own leaves its group until the epoch's reset): ``prec`` counts
    both, the others the step's preds only, in both epochs (the group forms again after the reset)."""
    expected = _member_rows("train", member_oracle(*TRAIN, {}), ".")
    expected.update(_member_rows("val", member_oracle(*VAL, {}, extra={"prec": ("preds_b", "target")}), "."))
    check_rows(runs.rank0("members_mixin"), expected, "members_mixin")
    check_no_warnings(runs, "members_mixin")


@pytest.mark.parametrize("name", ["members_grouped_callback", "members_grouped_mixin"])
def test_members_of_one_compute_group_given_other_inputs_is_a_clear_error(runs: Runs, name: str) -> None:
    """One statistic is updated once for its whole group, so members of one group cannot read other
    inputs: said when the callback (the mixin's engine) is made, with the way out."""
    error = runs.rank0(name)["error"]
    assert error is not None and error.startswith("ValueError"), error
    assert "share one statistic" in error and "compute_groups=False" in error, error
    assert not runs.rank0(name)["rows"]


# ----------------------------------------------------------------- wrappers
@pytest.mark.parametrize("name", ["tracker_callback", "tracker_mixin"])
def test_metric_tracker(runs: Runs, name: str) -> None:
    """``MetricTracker`` keeps one copy per ``increment()``, which nothing calls inside a fit (the engine's
    own ``track_best=`` is what tracks the best epoch there): both doors refuse it up front, with an error
    that names it and says what to pass instead (the callback when it is made, the mixin at setup)."""
    record = runs.rank0(name)
    assert record["error"] is not None, f"{name}: a MetricTracker was accepted"
    assert record["error"].startswith("TypeError") and "'track' is a MetricTracker" in record["error"], record["error"]
    assert "track_best=['track']" in record["error"]
    assert not record.get("rows")
