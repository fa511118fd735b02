"""ARNIQA and NISQA through ``MetricsCallback`` in one Lightning run: each reads its one input from
the step's output (``inputs`` maps ``update``'s parameter to an output key) and the values equal
the metrics run over the whole validation set directly. The networks are a random NISQA and
ARNIQA's stand-in of tests/networks/test_arniqa_nisqa_distributed.py (the sync is tested there)."""

from __future__ import annotations

import lightning.pytorch as L
import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import lightning_metrics as lm
from tests._lightning import quiet_trainer
from tests.networks.test_arniqa_nisqa_distributed import _metrics

pytestmark = [pytest.mark.timeout(300), pytest.mark.filterwarnings("ignore::UserWarning")]


def _data() -> TensorDataset:
    gen = torch.Generator().manual_seed(3)
    return TensorDataset(torch.rand(7, 3, 16, 16, generator=gen), torch.randn(7, 4000, generator=gen))


def test_callback_logs_arniqa_and_nisqa():
    class Model(L.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.gain = nn.Parameter(torch.tensor(0.5))

        def validation_step(self, batch, batch_idx):
            img, audio = batch
            return {"preds": (img * self.gain).clamp(0, 1), "audio": audio * self.gain}

    metrics = _metrics()
    del metrics["arniqa_sum"]
    callback = lm.MetricsCallback(metrics, stages=("val",), inputs={"img": "preds", "preds": "audio"})
    trainer = quiet_trainer(callbacks=[callback])
    trainer.validate(Model(), DataLoader(_data(), batch_size=3))
    logged = {k: v for k, v in trainer.callback_metrics.items()}

    expected = _metrics()
    img, audio = _data().tensors
    expected["arniqa_mean"].update((img * 0.5).clamp(0, 1))
    expected["nisqa"].update(audio * 0.5)
    torch.testing.assert_close(
        logged["val/arniqa_mean"], expected["arniqa_mean"].compute(), rtol=1e-6, atol=1e-7
    )
    # NISQA's five scores: one logged scalar each (its score_names), the vector kept in the callback's results
    scores = expected["nisqa"].compute()
    torch.testing.assert_close(callback.results["val/nisqa"], scores, rtol=1e-6, atol=1e-6)
    names = ("mos", "noisiness", "discontinuity", "coloration", "loudness")
    for name, value in zip(names, scores):
        torch.testing.assert_close(logged[f"val/nisqa/{name}"], value.float(), rtol=1e-6, atol=1e-6)
