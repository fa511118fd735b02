"""Image metrics through the Lightning engine: an image-to-image model logs ``val/psnr`` and
``val/ssim`` with ``MetricsCallback``; under 2-process DDP, with an odd-length validation set,
the values equal torchmetrics over the whole set in one process."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import torchmetrics.image as tmi

from tests._lightning import assert_logged, fit_logged, two_process_logged
from tests.image._lightning_model import VAL_SIZE, DenoisingModel, dataset, loader, trainer

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
    assert_logged(fit_logged(trainer(), DenoisingModel(), loader, VAL_SIZE), _expected())


def test_two_process_ddp_equals_the_oracle_over_the_whole_set(tmp_path: Path):
    logged = two_process_logged("tests.image._lightning_model", "DenoisingModel", tmp_path)
    assert_logged(logged, _expected())
    padded = _expected(padded=True)  # what counting the padded image would give: the test can tell
    assert all(abs(padded[k] - logged[k]) > 1e-4 for k in padded)
