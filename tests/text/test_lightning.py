"""Text metrics through the Lightning engine: a sequence model's validation step returns lists of
strings as ``preds``/``target``; the values logged equal the functional oracle, in one process and
under 2-process DDP with an odd-length validation set (the DistributedSampler pads it: the engine's
padding drop trims lists as it trims tensors); the engine's coalescing extends the lists of several
batches into one update, which changes no value."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import lightning.pytorch as L
import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import lightning_metrics as lm
import lightning_metrics.functional.text as F
import lightning_metrics.text as M
from tests.integration.integration_helpers import run_script
from tests.text._corpora import corpus

pytestmark = [pytest.mark.timeout(300)]

VAL_SIZE = 41  # odd: 2 ranks get 21 each, one of them a repeat of sample 0
PREDS, REFERENCES = corpus(33, n=VAL_SIZE)
TARGET = [refs[0] for refs in REFERENCES]


class SequenceModel(L.LightningModule):
    """Stands in for a seq2seq model: sample ``i`` decodes to ``PREDS[i]``, its reference is ``TARGET[i]``."""

    def __init__(self) -> None:
        super().__init__()
        self.layer = nn.Linear(1, 1)

    def validation_step(self, batch: Any, batch_idx: int) -> dict[str, Any]:
        (index,) = batch
        loss = self.layer(index.float()[:, None]).sum() * 0
        indices = index.tolist()
        return {"loss": loss, "preds": [PREDS[i] for i in indices], "target": [TARGET[i] for i in indices]}


def metrics() -> dict[str, Any]:
    return {
        "wer": M.WordErrorRate(),
        "bleu": M.BLEUScore(),
        "chrf": M.CHRFScore(),
        "rouge": M.ROUGEScore(rouge_keys=("rouge1", "rougeL")),
    }


def oracle(preds: list[str] = PREDS, target: list[str] = TARGET) -> dict[str, float]:
    out = {
        "val/wer": F.word_error_rate(preds, target).item(),
        "val/bleu": F.bleu_score(preds, target).item(),
        "val/chrf": F.chrf_score(preds, target).item(),
    }
    # a dict result is logged key by key, flattened as a MetricCollection flattens it (no metric name)
    for key, value in F.rouge_score(preds, target, rouge_keys=("rouge1", "rougeL")).items():
        out[f"val/{key}"] = value.item()
    return out


def test_the_padded_sample_would_change_every_value() -> None:
    padded = oracle(PREDS + PREDS[:1], TARGET + TARGET[:1])  # what 2 ranks count without the padding drop
    for key, value in oracle().items():
        assert padded[key] != pytest.approx(value, rel=1e-6), key


def test_lists_of_strings_through_the_engine_in_one_process(tmp_path: Path) -> None:
    trainer = L.Trainer(
        accelerator="cpu", devices=1, callbacks=[lm.MetricsCallback(metrics(), stages=("val",))], logger=False, enable_progress_bar=False,
        enable_model_summary=False, enable_checkpointing=False, default_root_dir=str(tmp_path),
    )  # fmt: skip
    trainer.validate(SequenceModel(), DataLoader(TensorDataset(torch.arange(VAL_SIZE)), batch_size=8))
    logged = {k: float(v) for k, v in trainer.callback_metrics.items()}
    for key, value in oracle().items():
        assert logged[key] == pytest.approx(value, rel=1e-6, abs=1e-7), key


_SCRIPT = """
import json, sys
import lightning.pytorch as L
import torch
from torch.utils.data import DataLoader, TensorDataset
import lightning_metrics as lm
from tests.text.test_lightning import SequenceModel, VAL_SIZE, metrics

trainer = L.Trainer(
    accelerator="cpu", devices=2, strategy="ddp", callbacks=[lm.MetricsCallback(metrics(), stages=("val",))], logger=False,
    enable_progress_bar=False, enable_model_summary=False, enable_checkpointing=False,
)
trainer.validate(SequenceModel(), DataLoader(TensorDataset(torch.arange(VAL_SIZE)), batch_size=8))
with open(f"{sys.argv[1]}/rank{trainer.global_rank}.json", "w") as handle:
    json.dump({k: float(v) for k, v in trainer.callback_metrics.items()}, handle)
"""


def test_lists_of_strings_under_two_process_ddp_drop_the_padding(tmp_path: Path) -> None:
    script = tmp_path / "run.py"
    script.write_text(_SCRIPT)
    run_script(
        f"import runpy, sys; sys.argv = ['run.py', {str(tmp_path)!r}]; runpy.run_path({str(script)!r}, run_name='__main__')",
        tmp_path,
        timeout=240,
    )
    expected = oracle()
    for rank in (0, 1):
        logged = json.loads((tmp_path / f"rank{rank}.json").read_text())
        for key, value in expected.items():
            assert logged[key] == pytest.approx(value, rel=1e-6, abs=1e-7), (rank, key)
