"""Image metrics through the Lightning engine: an image-to-image model logs ``val/psnr`` and
``val/ssim`` with ``MetricsCallback``; under 2-process DDP, with an odd-length validation set,
the values equal torchmetrics over the whole set in one process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
import torchmetrics.image as tmi

from tests.image._lightning_model import VAL_SIZE, DenoisingModel, dataset, loader, trainer
from tests.integration.integration_helpers import assert_close, run_script

pytestmark = [pytest.mark.timeout(300), pytest.mark.filterwarnings("ignore::UserWarning")]


def _expected(padded: bool = False) -> dict[str, float]:
    """torchmetrics over the whole validation set in one process (``padded``: with image 0 twice, as
    the DistributedSampler feeds 2 ranks)."""
    noisy, clean = dataset(VAL_SIZE, 1).tensors
    if padded:
        noisy, clean = torch.cat([noisy, noisy[:1]]), torch.cat([clean, clean[:1]])
    with torch.no_grad():
        denoised = DenoisingModel()(noisy)
    psnr = tmi.PeakSignalNoiseRatio(data_range=1.0)(denoised, clean)
    ssim = tmi.StructuralSimilarityIndexMeasure(data_range=1.0)(denoised, clean)
    return {"val/psnr": float(psnr), "val/ssim": float(ssim)}


def test_fit_logs_psnr_and_ssim():
    fit = trainer()
    fit.fit(DenoisingModel(), loader(8, 0), loader(VAL_SIZE, 1))
    logged = {k: float(v) for k, v in fit.callback_metrics.items()}
    for key, value in _expected().items():
        assert_close(logged[key], value, key)


_SCRIPT = """
import json
import torch
from tests.image._lightning_model import VAL_SIZE, DenoisingModel, loader, trainer

torch.set_num_threads(1)
fit = trainer(devices=2, strategy="ddp")
fit.fit(DenoisingModel(), loader(8, 0), loader(VAL_SIZE, 1))
with open(f"rank{fit.global_rank}.json", "w") as handle:
    json.dump({k: float(v) for k, v in fit.callback_metrics.items()}, handle)
"""


def test_two_process_ddp_equals_the_oracle_over_the_whole_set(tmp_path: Path):
    run_script(_SCRIPT, tmp_path, timeout=240)
    ranks = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in (0, 1)]
    assert ranks[0] == ranks[1]
    for key, value in _expected().items():
        assert_close(ranks[0][key], value, key)
    padded = _expected(padded=True)  # what counting the padded image would give: the test can tell
    assert all(abs(padded[k] - ranks[0][k]) > 1e-4 for k in padded)
