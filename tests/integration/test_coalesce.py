"""Coalesced updates: buffered batches give the values, counts, order and errors of one update per batch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import lightning.pytorch as L
import pytest
import torch
from tests.integration.integration_helpers import RecordingModel, SaveCheckpointAt, loader, trainer_kwargs
from tests.reliability._registry import ENTRIES, assert_close, batches

import lightning_metrics as lm
from lightning_metrics.classification import MulticlassAccuracy, MulticlassConfusionMatrix, MulticlassF1Score
from lightning_metrics.integration.coalesce import BatchBuffer
from lightning_metrics.integration.stage_metrics import StageMetrics

pytestmark = pytest.mark.timeout(120)

SIZES = (5, 0, 7, 1, 3, 4)  # an empty batch too
# the public classes whose result depends on how samples are split into updates, or whose
# inputs are not tensors with a sample axis: never coalesced
NOT_ADDITIVE = {
    "BootStrapper",
    "LambdaInputTransformer",  # a user's transform may read the whole batch
    "MetricInputTransformer",
    "MetricTracker",
    "MinMaxMetric",
    "MultioutputWrapper",
    "MultitaskWrapper",
    "PeakSignalNoiseRatioWithBlockedEffect",  # one blocking factor per batch, as in torchmetrics
    "Running",
    "RunningMean",
    "RunningSum",
}


def _coalesced(metric: Any, max_batches: int = 64, max_bytes: int = 2**30) -> StageMetrics:
    stage = StageMetrics.build(metric)
    assert stage.coalesce(max_batches, max_bytes)
    return stage


def _counts(stage: StageMetrics) -> list[int]:
    return [m.update_count for _, m in stage._native_tree()]


# ---------------------------------------------------------------- the buffer
def test_buffer_keeps_batches_in_order_and_detached() -> None:
    buffer = BatchBuffer(max_batches=3)
    weights = torch.ones(2, requires_grad=True)
    preds = torch.tensor([[0.2, 0.8], [0.6, 0.4]]) * weights
    assert buffer.add((preds, torch.tensor([1, 0])), label=0)
    assert buffer.add((torch.tensor([[0.9, 0.1]]), torch.tensor([0])), label=1)
    assert buffer.batches[0][0].grad_fn is None and preds.grad_fn is not None  # the graph is not kept alive
    assert not buffer.full
    assert buffer.add((torch.tensor([[0.5, 0.5]]), torch.tensor([1])), label=2)
    assert buffer.full  # max_batches
    seen: list = []
    assert buffer.flush(lambda args, n, label: seen.append((args, n)))
    ((joined, n),) = seen
    assert n == 3 and len(buffer) == 0
    torch.testing.assert_close(joined[0], torch.tensor([[0.2, 0.8], [0.6, 0.4], [0.9, 0.1], [0.5, 0.5]]))
    assert joined[1].tolist() == [1, 0, 0, 1]


@pytest.mark.parametrize(
    "second",
    [
        (torch.tensor([0.1]), torch.tensor([0])),  # 1-d preds after 2-d
        (torch.tensor([[0.1, 0.9]], dtype=torch.float64), torch.tensor([0])),  # another dtype: no promotion
        (torch.tensor([[0.1, 0.9]]),),  # another number of arguments
        (torch.tensor([[0.1, 0.9]]), 1),  # not a tensor
        (torch.tensor([[0.1, 0.9]]), torch.tensor(1)),  # 0-d
    ],
    ids=["ndim", "dtype", "arity", "non-tensor", "0-d"],
)
def test_buffer_refuses_batches_it_cannot_join(second: tuple) -> None:
    buffer = BatchBuffer()
    assert buffer.add((torch.tensor([[0.3, 0.7]]), torch.tensor([1])))
    assert not buffer.add(second)
    assert len(buffer) == 1


def test_buffer_joins_lists_tuples_and_dicts_and_refuses_what_it_cannot_join() -> None:
    buffer = BatchBuffer()
    first = ([{"boxes": torch.ones(2, 4)}], ("a cat",), [["a cat", "the cat"]], {"scores": torch.tensor([0.5])})
    second = ([{"boxes": torch.ones(1, 4)}, {"boxes": torch.ones(0, 4)}], ("a dog", "a cow"), [["dog"], ["cow"]],
              {"scores": torch.tensor([0.1, 0.9])})
    assert buffer.add(first) and buffer.add(second)
    assert not buffer.add((first[0], "a string", first[2], first[3]))  # a string is not per sample: alone
    assert not buffer.add((first[0], first[1], first[2], {"other": torch.tensor([1.0])}))  # other dict keys
    seen: list = []
    assert buffer.flush(lambda args, n, label: seen.append((args, n)))
    ((boxes, texts, references, scores), n), = seen
    assert n == 2 and [b["boxes"].shape[0] for b in boxes] == [2, 1, 0]
    assert texts == ("a cat", "a dog", "a cow") and references == [["a cat", "the cat"], ["dog"], ["cow"]]
    assert scores["scores"].tolist() == pytest.approx([0.5, 0.1, 0.9])


def test_buffer_is_full_at_its_byte_limit() -> None:
    buffer = BatchBuffer(max_batches=100, max_bytes=1000)
    buffer.add((torch.zeros(50, dtype=torch.float32),))  # 200 bytes
    assert not buffer.full
    buffer.add((torch.zeros(200, dtype=torch.float32),))  # 800 more
    assert buffer.full


# ------------------------------------------------- every public metric class
@pytest.mark.parametrize("key", sorted(ENTRIES))
def test_coalesced_updates_equal_one_update_per_batch(key: str) -> None:
    entry = ENTRIES[key]
    stage = StageMetrics.build(entry.build())
    if not stage.coalesce(64, 2**30):
        assert entry.name in NOT_ADDITIVE, f"{key} is not additive: add `additive_update` or list it here"
        return
    assert entry.name not in NOT_ADDITIVE
    direct = StageMetrics.build(entry.build())
    for i, batch in enumerate(batches(entry.kind, SIZES, seed=3)):
        stage.push(batch, i)
        direct.update(*batch)
    assert len(stage._buffer) == len(SIZES)  # nothing applied yet
    assert_close(stage.compute(), direct.compute(), rtol=1e-6, atol=1e-9)  # float sums: another order
    assert _counts(stage) == _counts(direct)


def test_additivity_follows_the_configuration() -> None:
    assert not lm.regression.CriticalSuccessIndex(0.5, keep_sequence_dim=1).additive_update  # per-batch rows
    assert lm.regression.CriticalSuccessIndex(0.5, keep_sequence_dim=0).additive_update
    mse = lm.regression.MeanSquaredError()
    assert lm.wrappers.MultioutputWrapper(mse, 2, output_dim=1).additive_update
    assert not lm.wrappers.MultioutputWrapper(mse, 2).additive_update  # -1 is dim 0 of a 1-d input
    assert (MulticlassAccuracy(3) + MulticlassF1Score(3)).additive_update
    assert not (MulticlassAccuracy(3) + lm.aggregation.RunningMean(window=2)).additive_update
    assert lm.wrappers.ClasswiseWrapper(MulticlassAccuracy(3, average=None)).additive_update


def test_foreign_metrics_are_never_coalesced() -> None:
    import torchmetrics

    assert not StageMetrics.build(
        {"mine": MulticlassAccuracy(3), "theirs": torchmetrics.MeanMetric()}
    ).coalesce(64, 2**20)


# ------------------------------------------------------------------- errors
def _multiclass(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, 3, generator=g), torch.randint(0, 3, (n,), generator=g)


def test_a_bad_batch_raises_its_own_error_naming_its_index_and_keeps_the_batches_before_it() -> None:
    stage = _coalesced({"acc": MulticlassAccuracy(3), "cm": MulticlassConfusionMatrix(3)})
    direct = StageMetrics.build({"acc": MulticlassAccuracy(3), "cm": MulticlassConfusionMatrix(3)})
    good = [_multiclass(4, seed) for seed in range(3)]
    bad = (torch.randn(2, 3), torch.tensor([0, 7]))
    for i, batch in enumerate(good[:2]):
        stage.push(batch, i)
        direct.update(*batch)
    stage.push(bad, 2)
    stage.push(good[2], 3)  # after the bad one: never applied, as without the buffer
    with pytest.raises(ValueError) as direct_error:
        direct.update(*bad)
    with pytest.raises(ValueError) as late:
        stage.flush()
    assert str(late.value) == str(direct_error.value)
    assert "batch_idx=2" in "\n".join(getattr(late.value, "__notes__", ["batch_idx=2"]))
    assert torch.equal(stage.native["cm"].confmat, direct.native["cm"].confmat)
    assert _counts(stage) == _counts(direct) == [2, 2]
    assert len(stage._buffer) == 0  # usable again
    stage.push(good[2], 4)
    direct.update(*good[2])
    assert_close(stage.compute(), direct.compute(), rtol=0, atol=0)


def test_batches_that_cannot_be_concatenated_are_replayed_one_by_one() -> None:
    # same dtype and dims, other trailing shape: torch.cat fails at the flush
    stage = _coalesced(lm.classification.BinaryAccuracy())
    direct = lm.classification.BinaryAccuracy()
    inputs = [
        (torch.rand(4, 2), torch.randint(0, 2, (4, 2))),
        (torch.rand(4, 3), torch.randint(0, 2, (4, 3))),
    ]
    for i, batch in enumerate(inputs):
        stage.push(batch, i)
        direct.update(*batch)
    assert_close(stage.compute(), {"BinaryAccuracy": direct.compute()}, rtol=0, atol=0)
    assert stage._buffer is None  # coalescing is off for these metrics from now on
    assert stage.native["BinaryAccuracy"].update_count == 2


# --------------------------------------------------------- reads flush first
def test_every_read_of_the_states_applies_the_buffered_batches() -> None:
    batch = _multiclass(6, 0)

    def filled() -> StageMetrics:
        stage = _coalesced({"cm": MulticlassConfusionMatrix(3)})
        stage.push(batch, 0)
        stage.push(batch, 1)
        return stage

    expected = 2 * MulticlassConfusionMatrix(3)(*batch)
    assert torch.equal(filled().compute()["cm"], expected)
    stage = filled()
    stage.native.persistent(True)
    assert torch.equal(stage.state_dict()["native.cm.confmat"], expected)
    assert torch.equal(filled().merged_state()["native"]["cm"]["states"]["confmat"], expected)
    stage = filled()
    stage.to("cpu")  # a device move applies them on the old device first
    assert len(stage._buffer) == 0 and torch.equal(stage.native["cm"].confmat, expected)
    stage = filled()
    stage.update(*batch)  # a direct update keeps the order: buffered batches first
    assert torch.equal(stage.native["cm"].confmat, 1.5 * expected)
    stage = filled()
    assert torch.equal(stage(*batch)["cm"], expected / 2)  # forward: the batch value
    assert torch.equal(stage.native["cm"].confmat, 1.5 * expected)
    stage = filled()
    stage.reset()  # the buffered batches are forgotten with the states
    assert len(stage._buffer) == 0 and not stage.native["cm"].confmat.any()


# ------------------------------------------------------------ engine options
@pytest.mark.parametrize("value", [0, -1, True, 2.5, "8"])
def test_coalesce_batches_must_be_a_positive_int(value: Any) -> None:
    with pytest.raises(ValueError, match=f"`coalesce_batches` must be a positive int, got {value!r}"):
        lm.MetricsCallback(MulticlassAccuracy(3), coalesce_batches=value)


def test_stages_with_step_values_or_intervals_are_not_coalesced() -> None:
    metrics = {"acc": MulticlassAccuracy(3), "f1": MulticlassF1Score(3)}
    engine = lm.MetricsCallback(
        metrics, log_on_step=True, confidence_intervals=["acc"], ci_bootstraps=3
    ).engine
    buffered = {stage: engine.metrics_for(stage)._buffer is not None for stage in ("train", "val", "test")}
    assert buffered == {"train": False, "val": False, "test": False}  # forward per batch / resampling
    engine = lm.MetricsCallback(metrics, coalesce_batches=1).engine
    assert engine.metrics_for("val")._buffer is None
    assert lm.MetricsCallback(metrics).engine.metrics_for("val")._buffer is not None


# ------------------------------------------------------- real Lightning fits
def _library_metrics() -> dict[str, Any]:
    return {
        "acc": MulticlassAccuracy(3),
        "f1": MulticlassF1Score(3, average="macro"),
        "cm": MulticlassConfusionMatrix(3),
        "auroc": lm.classification.MulticlassAUROC(3),
        "ap": lm.classification.MulticlassAveragePrecision(3, thresholds=11),
    }


def test_a_coalesced_fit_logs_exactly_the_values_of_one_update_per_batch(tmp_path: Path) -> None:
    results = []
    for coalesce in (64, 3, 1):
        callback = lm.MetricsCallback(_library_metrics(), coalesce_batches=coalesce)
        trainer = L.Trainer(callbacks=[callback], **trainer_kwargs(tmp_path, logger=False))
        trainer.fit(RecordingModel(), loader(100, seed=0, batch_size=8), loader(37, seed=1, batch_size=8))
        fitted = dict(callback.results)  # the next run (test) starts afresh
        trainer.test(trainer.lightning_module, loader(29, seed=2, batch_size=8), verbose=False)
        results.append({**fitted, **callback.results})
    assert len(results[0]) > 10
    for other in results[1:]:
        assert sorted(other) == sorted(results[0])
        for key, value in results[0].items():
            assert torch.equal(torch.as_tensor(other[key]), torch.as_tensor(value)), key


class _BadTargetAt(RecordingModel):
    def __init__(self, bad_batch: int) -> None:
        super().__init__()
        self.bad_batch = bad_batch

    def training_step(self, batch: Any, batch_idx: int) -> dict[str, torch.Tensor]:
        out = super().training_step(batch, batch_idx)
        if batch_idx == self.bad_batch:
            out["target"] = out["target"] + 5  # out of range for 3 classes
        return out


@pytest.mark.parametrize("coalesce", [64, 1])
def test_a_bad_batch_in_a_fit_fails_it_naming_the_batch(tmp_path: Path, coalesce: int) -> None:
    callback = lm.MetricsCallback(
        {"acc": MulticlassAccuracy(3)}, stages=("train",), coalesce_batches=coalesce
    )
    trainer = L.Trainer(callbacks=[callback], **trainer_kwargs(tmp_path, logger=False, max_epochs=1))
    with pytest.raises(ValueError, match="Argument `target` must hold values in") as error:
        trainer.fit(_BadTargetAt(3), loader(64, seed=0, batch_size=8))
    notes = "\n".join(getattr(error.value, "__notes__", []))
    if hasattr(BaseException, "add_note"):  # Python 3.11+: the stage, dataloader, batch and metric, always
        assert "'acc' (MulticlassAccuracy) of the 'train' metrics (dataloader 0) at batch_idx=3" in notes
        assert ("waited in a buffer" in notes) == (coalesce > 1)


class _MixinReadsMidEpoch(lm.MetricsMixin, RecordingModel):
    def configure_metrics(self) -> Any:
        return {"cm": MulticlassConfusionMatrix(3)}

    def training_step(self, batch: Any, batch_idx: int) -> dict[str, torch.Tensor]:
        if batch_idx == 5:  # batches 0..4 were pushed: reading through the stage metrics applies them
            self.seen_at_5 = int(self.stage_metrics["train_metrics"].compute()["cm"].sum())
        return super().training_step(batch, batch_idx)


def test_mixin_reads_mid_epoch_see_every_batch_so_far(tmp_path: Path) -> None:
    model = _MixinReadsMidEpoch()
    L.Trainer(**trainer_kwargs(tmp_path, logger=False, max_epochs=1, limit_val_batches=0)).fit(
        model, loader(64, seed=0, batch_size=8)
    )
    assert model.seen_at_5 == 5 * 8


# ------------------------------------------------------- hook dispatch saving
class _Counting(lm.MetricsCallback):
    calls = 0

    def on_train_batch_start(self, trainer: Any, pl_module: Any, batch: Any, batch_idx: int) -> None:
        super().on_train_batch_start(trainer, pl_module, batch, batch_idx)  # the base hook still works
        type(self).calls += 1


def test_unused_per_batch_hooks_are_switched_off_unless_overridden(tmp_path: Path) -> None:
    callback = lm.MetricsCallback(MulticlassAccuracy(3))
    assert callback.on_before_backward is None and callback.on_train_batch_start is None
    assert callable(callback.on_train_batch_end)
    counting = _Counting({"acc": MulticlassAccuracy(3)}, stages=("train",))
    assert callable(counting.on_train_batch_start) and counting.on_before_backward is None
    L.Trainer(callbacks=[counting, callback], **trainer_kwargs(tmp_path, logger=False, max_epochs=1)).fit(
        RecordingModel(), loader(32, seed=0, batch_size=8), loader(8, seed=1)
    )
    assert _Counting.calls == 4 and "train/acc" in counting.results


def test_a_mid_epoch_checkpoint_holds_the_buffered_batches(tmp_path: Path) -> None:
    callback = lm.MetricsCallback({"cm": MulticlassConfusionMatrix(3)}, stages=("train",))
    path = tmp_path / "mid.ckpt"
    L.Trainer(callbacks=[callback, SaveCheckpointAt(path, 4)], **trainer_kwargs(tmp_path, logger=False, max_epochs=1)).fit(
        RecordingModel(), loader(64, seed=0, batch_size=8)
    )
    state = torch.load(path, weights_only=False)["callbacks"][callback.state_key]
    entry = state["metrics"]["train_metrics"]["native"]["cm"]
    assert int(entry["states"]["confmat"].sum()) == 5 * 8 and entry["count"] == 5
