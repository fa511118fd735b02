"""Metrics with other inputs than ``(preds, target)`` through the callback and the mixin, the loss
per stage, stage-qualified ``track_best``, and the errors for inputs that do not fit.

The metrics of :mod:`input_kinds` take three inputs (retrieval-style), lists of dicts (detection-
style), lists of strings against lists of references (text-style), and ``BinaryFairness``'s
groups; every value is checked against the metric fed the whole dataset at once.
"""

from __future__ import annotations

import json
import pickle
import re
import warnings
from pathlib import Path
from typing import Any

import lightning.pytorch as L
import pytest
import torch

import lightning_metrics as lm
from lightning_metrics.classification import BinaryAccuracy, BinaryFairness, MulticlassAccuracy
from lightning_metrics.integration.inputs import Binding, UpdateSignature, bind, supplied_by_call, supplied_by_keys
from lightning_metrics.integration.inputs import KeySpec
from tests.integration.input_kinds import (
    KINDS_INPUTS,
    KindsMixinModel,
    KindsModel,
    TopHit,
    WordMatch,
    kinds_metrics,
    kinds_oracle,
    loader,
)
from tests.integration.integration_helpers import run_script, trainer_kwargs

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.filterwarnings("ignore::lightning.fabric.utilities.warnings.PossibleUserWarning"),
]

BINARY = ("bacc", "DP_", "EO_")  # the oracle's values of the binary callback
TRAIN, VAL = 40, 37  # 37 = 4 batches of 8 and one of 5: per-sample and per-batch means differ


def _assert_values(found: dict[str, Any], expected: dict[str, float], prefix: str, names: Any = None) -> None:
    for name, value in expected.items():
        if names is None or name in names:
            assert float(found[f"{prefix}{name}"]) == pytest.approx(value, rel=1e-6, abs=1e-7), f"{prefix}{name}"


def _hits_inputs(outputs: dict[str, Any], batch: Any) -> dict[str, Any]:
    return {"indexes": outputs["query"], "preds": outputs["scores"], "target": outputs["relevant"]}


def test_every_kind_of_input_through_both_doors(tmp_path: Path) -> None:
    """Per-metric keys (positional and by parameter name), one stage-wide key sequence whose members
    take different numbers of inputs, a dict from ``extract``, coalesced or one update per batch."""
    callbacks = [
        lm.MetricsCallback(kinds_metrics(), stages=("val",), inputs=KINDS_INPUTS, track_loss="sample"),
        lm.MetricsCallback(kinds_metrics(), stages=("val",), inputs=KINDS_INPUTS, separator="|", coalesce_batches=1),
        # BinaryAccuracy takes (preds, target), BinaryFairness (preds, target, groups): each gets its share
        lm.MetricsCallback({"bacc": BinaryAccuracy(), "bfair": BinaryFairness(num_groups=2)}, stages=("val",),
                           inputs=("probs", "binary", "groups"), separator="-"),
        lm.MetricsCallback({"hits": TopHit()}, stages=("val",), separator="~", extract=_hits_inputs),
    ]
    # what ddp_spawn does to the callbacks and the module: the bound plans travel with them
    callbacks = pickle.loads(pickle.dumps(callbacks))
    model = pickle.loads(pickle.dumps(KindsMixinModel()))
    trainer = L.Trainer(callbacks=callbacks, **trainer_kwargs(tmp_path, max_epochs=1, logger=False))
    trainer.fit(model, loader(TRAIN), loader(VAL, seed=1))
    assert callbacks[0].engine.store["val_metrics"]._buffer is not None  # lists and dicts coalesce too
    expected = kinds_oracle(VAL, 1, model)
    found = trainer.callback_metrics
    kinds = [n for n in expected if not n.startswith(BINARY) and n != "loss"]
    for prefix in ("val/", "val.", "val|"):
        _assert_values(found, expected, prefix, kinds)
    _assert_values(found, expected, "val/", ["loss"])
    _assert_values(found, expected, "val.", ["loss"])
    _assert_values(found, expected, "val-", [n for n in expected if n.startswith(BINARY)])
    _assert_values(found, expected, "val~", ["hits"])
    assert "val|loss" not in found  # track_loss is per callback


def test_update_metrics_with_keyword_arguments(tmp_path: Path) -> None:
    class StepModel(lm.MetricsMixin, KindsModel):
        metrics_stages = ("val",)
        short = False

        def configure_metrics(self):
            return {"hits": TopHit(), "bacc": BinaryAccuracy()}

        def validation_step(self, batch, batch_idx):
            out = super().validation_step(batch, batch_idx)
            if self.short:
                self.update_metrics("val", out["scores"], indexes=out["query"])
            else:  # BinaryAccuracy takes (preds, target) and leaves `indexes` to TopHit
                self.update_metrics("val", out["scores"], out["relevant"], indexes=out["query"])
            return out["loss"]

    model = StepModel()
    trainer = L.Trainer(**trainer_kwargs(tmp_path, max_epochs=1, logger=False))
    trainer.fit(model, loader(16), loader(VAL, seed=1))
    expected = kinds_oracle(VAL, 1, model)
    for name in ("hits", "bacc"):
        assert float(trainer.callback_metrics[f"val/{name}"]) == pytest.approx(expected[name]), name
    model.short = True
    with pytest.raises(ValueError, match=r"'bacc' \(BinaryAccuracy\) takes `update\(preds, target, \*, sample_weight=None\)`, but "
                                         r"`update_metrics` supplies \(<0>, indexes=...\): 'target' is missing"):
        L.Trainer(**trainer_kwargs(tmp_path, max_epochs=1, logger=False)).fit(model, loader(16), loader(16, seed=1))


def test_loss_per_sample_and_per_batch_equal_their_hand_written_means(tmp_path: Path) -> None:
    losses: dict[str, list] = {"train": [], "val": []}

    class Recorded(KindsModel):
        def training_step(self, batch, batch_idx):
            out = super().training_step(batch, batch_idx)
            losses["train"].append(out["loss"].detach().clone())  # a batch mean (backward needs a scalar)
            return out

        def validation_step(self, batch, batch_idx):
            out = super().validation_step(batch, batch_idx)
            losses["val"].append(out["loss"].clone())  # per-sample losses
            return out

    per_sample = lm.MetricsCallback({"acc": MulticlassAccuracy(3)}, track_loss="sample")
    per_batch = lm.MetricsCallback({"acc": MulticlassAccuracy(3)}, track_loss={"train": "batch", "val": "batch"},
                                   separator="|")
    trainer = L.Trainer(callbacks=[per_sample, per_batch], **trainer_kwargs(tmp_path, max_epochs=1, logger=False))
    trainer.fit(Recorded(lr=0.1), loader(VAL, batch_size=8), loader(VAL, seed=1, batch_size=8))
    found = trainer.callback_metrics
    sizes = [8, 8, 8, 8, 5]
    train_sample = sum(l.double() * n for l, n in zip(losses["train"], sizes)) / VAL
    train_batch = torch.stack([l.double() for l in losses["train"]]).mean()
    val_sample = torch.cat(losses["val"]).double().mean()
    val_batch = torch.stack([l.double().mean() for l in losses["val"]]).mean()
    assert float(train_sample) != pytest.approx(float(train_batch), rel=1e-4)  # the two modes differ here
    for key, expected in {"train/loss": train_sample, "train|loss": train_batch, "val/loss": val_sample,
                          "val|loss": val_batch}.items():
        assert float(found[key]) == pytest.approx(float(expected), rel=1e-6), key
    assert per_sample.engine.store["val_metrics"].native["loss"].total.dtype == torch.float64
    with pytest.raises(ValueError, match="`track_loss` must be 'sample' or 'batch'"):
        lm.MetricsCallback({"acc": MulticlassAccuracy(3)}, track_loss="mean")
    with pytest.raises(ValueError, match="a metric is named so already"):
        lm.MetricsCallback({"loss": lm.aggregation.MeanMetric()}, track_loss=True)


def test_track_best_takes_stage_qualified_names(tmp_path: Path) -> None:
    callback = lm.MetricsCallback({"acc": MulticlassAccuracy(3)}, track_best=["test/acc", "acc", "train/loss"],
                                  track_loss="sample")
    model = KindsModel(lr=0.5)
    trainer = L.Trainer(callbacks=[callback], **trainer_kwargs(tmp_path, max_epochs=3, logger=False))
    trainer.fit(model, loader(TRAIN), loader(VAL, seed=1))
    found = set(trainer.callback_metrics)
    assert {"val/acc_best", "val/acc_best_epoch", "train/loss_best", "train/loss_best_epoch"} <= found
    assert not {"train/acc_best", "val/loss_best"} & found  # only what was asked for (bare names: val)
    (results,) = trainer.test(model, loader(VAL, seed=2), verbose=False)
    assert {"test/acc", "test/acc_best", "test/acc_best_epoch"} <= set(results)
    assert results["test/acc_best"] == pytest.approx(results["test/acc"])


# ------------------------------------------------------------------ what does not fit is named
def _fit_val(tmp_path: Path, callback: Any, model: Any = None) -> None:
    trainer = L.Trainer(callbacks=[callback], **trainer_kwargs(tmp_path, max_epochs=1, logger=False))
    trainer.fit(model or KindsModel(), loader(16), loader(16, seed=1))


def test_an_extract_of_the_wrong_arity_is_named(tmp_path: Path) -> None:
    short = lm.MetricsCallback({"acc": MulticlassAccuracy(3)}, stages=("val",), extract=lambda out, batch: (out["preds"],))
    with pytest.raises(ValueError, match=r"In the 'val' metrics \(dataloader 0\), 'acc' \(MulticlassAccuracy\) takes "
                                         r"`update\(preds, target, \*, sample_weight=None\)`, but `extract` "
                                         r"supplies \(<0>\): 'target' is missing"):
        _fit_val(tmp_path, short)
    long = lm.MetricsCallback({"acc": MulticlassAccuracy(3)}, stages=("val",),
                              extract=lambda out, batch: (out["preds"], out["target"], out["query"]))
    with pytest.raises(ValueError, match=r"`extract` supplies \(<0>, <1>, <2>\), but no metric takes <2>"):
        _fit_val(tmp_path, long)
    with pytest.raises(ValueError, match=r"supplies \(preds=..., target=..., index=...\): 'indexes' is missing"):
        lm.MetricsCallback({"hits": TopHit()}, stages=("val",),  # keys given explicitly: checked at once
                           inputs={"preds": "scores", "target": "relevant", "index": "query"})


def test_missing_keys_and_bad_inputs_are_named(tmp_path: Path) -> None:
    callback = lm.MetricsCallback({"hits": TopHit()}, stages=("val",), inputs=("scores", "relevant", "queries"))
    with pytest.raises(ValueError, match=r"the 'val' metrics look for the keys 'scores', 'relevant' and 'queries' "
                                         r"in what `validation_step` returns, but it returned a dict with keys"):
        _fit_val(tmp_path, callback)
    with pytest.raises(ValueError, match=r"`inputs` names metrics \['hit'\] that no stage has: \['hits'\]"):
        lm.MetricsCallback({"hits": TopHit()}, stages=("val",), inputs={"hit": ("scores", "relevant", "query")})
    with pytest.raises(ValueError, match=r"`inputs` names metrics \['hit'\] that the 'val' stage does not have"):
        lm.MetricsCallback({"hits": TopHit()}, stages=("val",), inputs={"val": {"hit": ("scores", "relevant", "query")}})
    with pytest.raises(TypeError, match="Argument `inputs` must be a sequence of output keys"):
        lm.MetricsCallback({"hits": TopHit()}, inputs="scores")
    with pytest.raises(ValueError, match="pass one of them"):
        lm.MetricsCallback({"hits": TopHit()}, inputs=("a", "b", "c"), extract=lambda out, batch: ())
    with pytest.raises(ValueError, match=r"share one statistic .* but are given different inputs"):
        lm.MetricsCallback({"acc": MulticlassAccuracy(3), "acc2": MulticlassAccuracy(3)},
                           inputs={"acc2": ("other", "target")})


def test_a_rejected_batch_names_stage_dataloader_batch_and_metric(tmp_path: Path) -> None:
    class BadAt(KindsModel):
        def validation_step(self, batch, batch_idx, dataloader_idx=0):
            out = super().validation_step(batch, batch_idx)
            if dataloader_idx == 1 and batch_idx == 1:
                out["text"] = out["text"][:-1]  # one hypothesis short
            return out

    for coalesce in (64, 1):
        callback = lm.MetricsCallback(kinds_metrics(), stages=("val",), inputs=KINDS_INPUTS, coalesce_batches=coalesce)
        trainer = L.Trainer(callbacks=[callback], **trainer_kwargs(tmp_path, max_epochs=1, logger=False))
        with pytest.raises(ValueError, match="must be a list of strings") as error:
            trainer.fit(BadAt(), loader(16), [loader(16, seed=1), loader(24, seed=2)])
        notes = "\n".join(getattr(error.value, "__notes__", []))
        assert "'words' (WordMatch) of the 'val' metrics (dataloader 1) at batch_idx=1" in notes, notes


@pytest.mark.parametrize(
    ("signature", "supplied", "expected"),
    [
        ("update(self, preds, target)", ("call", 3, ()), Binding((0, 1))),  # room for two: the first two
        ("update(self, preds, target, indexes)", ("call", 3, ()), Binding((0, 1, 2))),
        ("update(self, *args)", ("call", 3, ()), Binding((0, 1, 2))),
        ("update(self, preds, target, indexes=None)", ("call", 2, ("indexes",)), Binding((0, 1), (("indexes", 2),))),
        ("update(self, preds, target)", ("call", 2, ("indexes",)), Binding((0, 1))),  # keywords it does not name
        ("update(self, preds, target, **kwargs)", ("call", 2, ("indexes",)), Binding((0, 1), (("indexes", 2),))),
        ("update(self, value, weight=1.0)", ("keys", ("loss",), (("weight", "n"),)), Binding((0,), (("weight", 1),))),
        ("update(self, preds, target, groups)", ("keys", (), (("groups", "g"), ("preds", "p"), ("target", "t"))),
         Binding((), (("groups", 0), ("preds", 1), ("target", 2)))),
    ],
)
def test_bindings(signature: str, supplied: tuple, expected: Binding) -> None:
    namespace: dict[str, Any] = {}
    exec(f"class Probe:\n    def {signature}:\n        pass", namespace)  # noqa: S102 - a signature to bind
    if supplied[0] == "call":
        offered = supplied_by_call(supplied[1], supplied[2], "`extract`")
    else:
        spec = KeySpec(supplied[1], supplied[2])
        offered = supplied_by_keys(spec, spec.keys, "`inputs`")
    assert bind(UpdateSignature.of(namespace["Probe"]()), offered, "a metric") == expected


def test_a_binding_names_what_is_missing() -> None:
    class Probe:
        def update(self, preds, target, indexes):
            pass

    with pytest.raises(ValueError, match=re.escape("takes `update(preds, target, indexes)`, but `inputs` supplies "
                                                   "('scores', 'relevant'): 'indexes' is missing.")):
        bind(UpdateSignature.of(Probe()), supplied_by_keys(KeySpec(("scores", "relevant")), ("scores", "relevant"),
                                                          "`inputs`"), "'hits' (Probe)")


# ------------------------------------------------------------------ two processes, an odd val set
_DDP_SCRIPT = """
import json, sys, warnings
import lightning.pytorch as L
import torch
import lightning_metrics as lm
from lightning_metrics.classification import BinaryAccuracy, BinaryFairness, MulticlassAccuracy
from tests.integration.input_kinds import KINDS_INPUTS, KindsMixinModel, KindsModel, kinds_metrics, loader
from tests.integration.integration_helpers import CountAccuracy, RecordingModel, make_dataset
from torch.utils.data import DataLoader

warnings.simplefilter("ignore")


def trainer(callbacks, **kwargs):
    options = dict(accelerator="cpu", devices=2, strategy="ddp", callbacks=callbacks, max_epochs=1, logger=False,
                   enable_progress_bar=False, enable_model_summary=False, enable_checkpointing=False,
                   num_sanity_val_steps=0)
    options.update(kwargs)
    return L.Trainer(**options)


kinds = lm.MetricsCallback(kinds_metrics(), stages=("val", "test"), inputs=KINDS_INPUTS, track_loss="sample",
                           track_best=["test/acc"])
binary = lm.MetricsCallback({"bacc": BinaryAccuracy(), "bfair": BinaryFairness(num_groups=2)}, stages=("val",),
                            inputs=("probs", "binary", "groups"), separator="-")
fit = trainer([kinds, binary])
model = KindsMixinModel()
fit.fit(model, loader(%(train)d), loader(%(val)d, seed=1))
found = {k: float(v) for k, v in fit.callback_metrics.items()}
(tested,) = fit.test(model, loader(%(val)d, seed=2), verbose=False)

# a val set of one sample: rank 1 sees only the padded repeat, so its metrics have no update of their own
one = lm.MetricsCallback({"acc": CountAccuracy()}, stages=("val",))
small = trainer([one])
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    small.fit(RecordingModel(lr=0.0), DataLoader(make_dataset(8, 0), batch_size=4),
              DataLoader(make_dataset(1, 1), batch_size=4))
before_update = [str(w.message) for w in caught if "before the ``update``" in str(w.message)]
with open(f"rank{fit.global_rank}.json", "w") as handle:
    json.dump({"fit": found, "test": tested, "before_update": before_update,
               "one": float(small.callback_metrics["val/acc"]), "updates": one.engine.store["val_metrics"].native["acc"].update_count}, handle)
"""


def test_two_processes_with_an_odd_val_set_give_the_single_process_values(tmp_path: Path) -> None:
    run_script(_DDP_SCRIPT % {"train": TRAIN, "val": VAL}, tmp_path, timeout=240)
    rank0, rank1 = (json.loads((tmp_path / f"rank{r}.json").read_text()) for r in (0, 1))
    assert rank0["fit"] == rank1["fit"] and rank0["test"] == rank1["test"]
    expected = kinds_oracle(VAL, 1, KindsMixinModel())
    kinds = [n for n in expected if not n.startswith(BINARY)]
    _assert_values(rank0["fit"], expected, "val/", kinds)  # the callback (loss: per-sample losses, exact)
    _assert_values(rank0["fit"], expected, "val.", kinds)  # the mixin
    _assert_values(rank0["fit"], expected, "val-", [n for n in expected if n.startswith(BINARY)])
    tested = kinds_oracle(VAL, 2, KindsMixinModel())
    _assert_values(rank0["test"], tested, "test/", kinds)
    assert {"test/acc_best", "test/acc_best_epoch"} <= set(rank0["test"])
    # the one-sample set: exact, and no rank warns that compute ran before update (the merged state has one)
    x, y = __import__("tests.integration.integration_helpers", fromlist=["make_dataset"]).make_dataset(1, 1).tensors
    for rank in (rank0, rank1):
        assert rank["before_update"] == []
    assert rank1["updates"] == 0  # (rank 1 really had none of its own)
    with torch.no_grad():
        from tests.integration.integration_helpers import RecordingModel

        logits = RecordingModel(lr=0.0)(x)
    assert rank0["one"] == rank1["one"] == float(logits.argmax(-1)[0] == y[0])


def test_flat_per_metric_inputs_apply_to_the_stages_that_have_the_metric(tmp_path: Path) -> None:
    """``inputs={"hits": (...)}`` with ``hits`` in validation only: the training stage, which has
    other metrics, reads its default keys (issue 36, point 4); the values equal the metric alone."""
    callback = lm.MetricsCallback(
        {"train": {"acc": MulticlassAccuracy(3)}, "val": {"hits": TopHit(), "acc": MulticlassAccuracy(3)}},
        inputs={"hits": KINDS_INPUTS["hits"]},
    )
    model = KindsModel()
    trainer = L.Trainer(callbacks=[callback], **trainer_kwargs(tmp_path, max_epochs=1, logger=False))
    trainer.fit(model, loader(16), loader(16, seed=1))
    assert {"train/acc", "val/acc", "val/hits"} <= set(trainer.callback_metrics)
    expected = kinds_oracle(16, 1, model)
    assert float(trainer.callback_metrics["val/hits"]) == pytest.approx(expected["hits"], rel=1e-6)
