"""Lightning's precisions on the CPU, through the callback and the mixin: the states keep their
dtypes (counts int64, moments float64, even where ``"bf16-true"``/``"16-true"`` casts the whole
module, the mixin's metrics included), and the values are those of the inputs the steps produced,
as exact as in float32; against the float32 run they differ by no more than the inputs do.

(``"16-mixed"`` on the CPU is Lightning's bfloat16 autocast. FSDP needs a GPU in Lightning 2.6:
see :func:`test_lightning_refuses_fsdp_on_the_cpu`.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import lightning.pytorch as L
import pytest
import torch
from torch import nn

import lightning_metrics as lm
from lightning_metrics.classification import MulticlassAccuracy
from lightning_metrics.regression import MeanSquaredError, PearsonCorrCoef
from tests.integration.integration_helpers import CountAccuracy, RecordingModel, loader, trainer_kwargs

pytestmark = [pytest.mark.timeout(240),
              pytest.mark.filterwarnings("ignore::lightning.fabric.utilities.warnings.PossibleUserWarning"),
              pytest.mark.filterwarnings("ignore::UserWarning")]

PRECISIONS = ("32-true", "bf16-mixed", "16-mixed", "bf16-true", "16-true")
# what the step outputs carry in each (the -true precisions convert the module and the inputs)
INPUT_DTYPE = {"32-true": torch.float32, "bf16-mixed": torch.bfloat16, "16-mixed": torch.bfloat16,
               "bf16-true": torch.bfloat16, "16-true": torch.float16}


def _metrics() -> dict[str, Any]:
    return {"count_acc": CountAccuracy(), "acc": MulticlassAccuracy(3, average="micro"),
            "pearson": PearsonCorrCoef(), "mse": MeanSquaredError()}


def _extract(outputs: Any, batch: Any) -> dict[str, Any]:
    return {"preds": outputs["preds"], "target": outputs["target"]}


class _Regressing(RecordingModel):
    """Steps return logits (for the classifiers) and the first logit against the class (for the regressors)."""

    def _step(self, stage: str, batch: Any, dataloader_idx: int = 0) -> dict[str, torch.Tensor]:
        out = super()._step(stage, batch, dataloader_idx)
        out["score"] = out["preds"][:, 0]
        out["value"] = out["target"].to(out["preds"].dtype)
        return out


_INPUTS = {"count_acc": ("preds", "target"), "acc": ("preds", "target"), "pearson": ("score", "value"),
           "mse": ("score", "value")}


class _Mixin(lm.MetricsMixin, _Regressing):
    metrics_separator = "."
    metrics_inputs = _INPUTS
    metrics_track_loss = "sample"

    def configure_metrics(self) -> Any:
        return _metrics()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = {}
    for precision in PRECISIONS:
        callback = lm.MetricsCallback(_metrics(), inputs=_INPUTS, track_loss="sample")
        model = _Mixin(lr=0.0)
        trainer = L.Trainer(callbacks=[callback], precision=precision,
                            **trainer_kwargs(tmp_path_factory.mktemp(precision), max_epochs=1, logger=False))
        trainer.fit(model, loader(64, batch_size=16), loader(37, seed=1, batch_size=8))
        out[precision] = (trainer, model, callback)
    return out


@pytest.mark.parametrize("precision", PRECISIONS)
def test_states_keep_their_dtypes(runs: dict[str, Any], precision: str) -> None:
    trainer, model, callback = runs[precision]
    preds, _ = model.recorded("val")
    assert preds.dtype == INPUT_DTYPE[precision]
    for door in (callback.engine.store["val_metrics"], model.stage_metrics["val_metrics"]):
        native = door.native
        assert native["count_acc"].correct.dtype == torch.int64
        assert native["acc"].correct.dtype == torch.int64
        assert native["pearson"].moments.dtype == torch.float64
        assert native["mse"].moments.dtype == torch.float64
        assert native["loss"].total.dtype == torch.float64


@pytest.mark.parametrize("precision", PRECISIONS)
def test_values_are_those_of_the_inputs_and_near_the_float32_run(runs: dict[str, Any], precision: str) -> None:
    trainer, model, _ = runs[precision]
    preds, target = (t.double() for t in model.recorded("val"))
    score, value = preds[:, 0], target
    hard = preds.argmax(-1)
    centred = score - score.mean(), value - value.mean()
    losses = nn.functional.cross_entropy(preds, target.long(), reduction="none")
    expected = {
        "acc": (hard == target).double().mean(),
        "count_acc": (hard == target).double().mean(),
        "pearson": (centred[0] * centred[1]).sum() / (centred[0].norm() * centred[1].norm()),
        "mse": ((score - value) ** 2).mean(),
    }
    found = trainer.callback_metrics
    for sep in ("/", "."):
        for name, value_ in expected.items():
            assert float(found[f"val{sep}{name}"]) == pytest.approx(float(value_), rel=1e-5, abs=1e-6), (sep, name)
        # the step's loss is computed in the step's precision; its per-sample mean is exact
        assert float(found[f"val{sep}loss"]) == pytest.approx(float(losses.mean()), rel=2e-2)
    reference = runs["32-true"][0].callback_metrics
    tolerance = {torch.float32: 1e-6, torch.bfloat16: 3e-2, torch.float16: 5e-3}[INPUT_DTYPE[precision]]
    for name in ("pearson", "mse", "loss"):  # within the precision of the inputs
        assert float(found[f"val/{name}"]) == pytest.approx(float(reference[f"val/{name}"]), rel=tolerance), name


def test_lightning_refuses_fsdp_on_the_cpu() -> None:
    """Lightning 2.6 has no CPU FSDP: there is no FSDP run to test on this machine (the refusal is Lightning's)."""
    with pytest.raises(ValueError, match="requires a GPU accelerator"):
        L.Trainer(accelerator="cpu", devices=1, strategy="fsdp", logger=False)
