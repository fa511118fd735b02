"""A step's ``sample_weight`` through the engine: the metrics that take it, the loss, the padding, DDP.

The weights hold integers, fractions and zeros, and the sample the DistributedSampler repeats weighs 5,
so a padded sample left in (or a weight dropped, or a loss counted unweighted) changes every value.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

import lightning.pytorch as L
import pytest
import torch

import lightning_metrics as lm
from tests.integration.integration_helpers import ROOT, free_port
from tests.integration.weighted_runs import WeightedModel, callback, loaders, oracle

pytestmark = [pytest.mark.timeout(300)]


def _fit(cb, tmp_path, **kwargs):
    trainer = L.Trainer(
        accelerator="cpu", devices=1, callbacks=[cb], max_epochs=1, logger=False, enable_progress_bar=False,
        enable_model_summary=False, enable_checkpointing=False, num_sanity_val_steps=0, limit_train_batches=1,
        default_root_dir=str(tmp_path), **kwargs,
    )
    train, val = loaders()
    trainer.fit(WeightedModel(), train, val)
    return {k: float(v) for k, v in trainer.callback_metrics.items()}


@pytest.mark.parametrize("coalesce", [1, 4])
def test_step_weights_reach_the_metrics_that_take_them_and_the_loss(tmp_path, coalesce):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        logged = _fit(callback(coalesce_batches=coalesce), tmp_path)
    expected = oracle()
    for key, value in expected.items():
        assert logged[key] == pytest.approx(value, rel=1e-6), key
    messages = [str(w.message) for w in caught]
    assert any("['n'] do not and are computed unweighted" in m for m in messages), messages


def test_sample_weight_key_none_turns_weights_off(tmp_path):
    logged = _fit(callback(sample_weight_key=None), tmp_path)
    x, y, _ = loaders()[1].dataset.tensors
    with torch.no_grad():
        right = (WeightedModel()(x).argmax(-1) == y).double().mean()
    assert logged["val/acc"] == pytest.approx(float(right), rel=1e-6)


def test_weights_with_no_metric_to_take_them_fail_clearly(tmp_path):
    from tests.integration.weighted_runs import UnweightedCount

    cb = lm.MetricsCallback({"n": UnweightedCount()}, stages=["val"])
    with pytest.raises(ValueError, match=r"no metric takes sample_weight"):
        _fit(cb, tmp_path)


def test_two_processes_drop_the_padding_from_the_weights(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()),
               OMP_NUM_THREADS="1")
    script = ROOT / "tests" / "integration" / "weighted_runs.py"
    proc = subprocess.run([sys.executable, str(script), str(tmp_path), "ddp"], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]
    expected = oracle()
    for rank in (0, 1):
        logged = json.loads((tmp_path / f"rank{rank}.json").read_text())
        for key, value in expected.items():
            assert logged[key] == pytest.approx(value, rel=1e-6), (rank, key)
