"""Segmentation metrics through the Lightning engine: a real ``Trainer`` fit logs ``val/miou`` (the
mixin), the per-class IoU as ``val/miou/<index>_<class>`` (the callback, with ``class_names``) and
``val/dice``; under 2-process DDP, with an odd-length validation set, the values equal one process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
import torchmetrics.segmentation as tms

from tests.integration.integration_helpers import assert_close, run_script
from tests.segmentation._lightning_model import CLASSES, VAL_SIZE, SegmentationModel, dataset, loader, trainer

pytestmark = [pytest.mark.timeout(300), pytest.mark.filterwarnings("ignore::UserWarning")]


def _expected(padded: bool = False) -> dict[str, float]:
    """torchmetrics over the whole validation set, in one process (``padded``: with sample 0 twice,
    as the DistributedSampler feeds 2 ranks)."""
    images, masks = dataset(VAL_SIZE, 1).tensors
    if padded:
        images, masks = torch.cat([images, images[:1]]), torch.cat([masks, masks[:1]])
    with torch.no_grad():
        logits = SegmentationModel()(images)
    args = {"num_classes": len(CLASSES), "input_format": "mixed"}
    out = {
        "val/miou": tms.MeanIoU(**args)(logits, masks),
        "val/dice": tms.DiceScore(**args)(logits, masks),
    }
    per_class = tms.MeanIoU(**args, per_class=True)(logits, masks)
    out.update({f"val/miou/{i}_{name}": value for i, (name, value) in enumerate(zip(CLASSES, per_class))})
    return {k: float(v) for k, v in out.items()}


def test_fit_logs_mean_and_per_class_iou() -> None:
    fit = trainer()
    fit.fit(SegmentationModel(), loader(8, 0), loader(VAL_SIZE, 1))
    logged = {k: float(v) for k, v in fit.callback_metrics.items()}
    expected = _expected()
    assert set(expected) <= set(logged), sorted(logged)
    for key, value in expected.items():
        assert_close(logged[key], value, key)


_SCRIPT = """
import json, sys
import torch
from tests.segmentation._lightning_model import VAL_SIZE, SegmentationModel, loader, trainer

torch.set_num_threads(1)
fit = trainer(devices=2, strategy="ddp")
fit.fit(SegmentationModel(), loader(8, 0), loader(VAL_SIZE, 1))
with open(f"rank{fit.global_rank}.json", "w") as handle:
    json.dump({k: float(v) for k, v in fit.callback_metrics.items()}, handle)
"""


def test_two_process_ddp_equals_one_process(tmp_path: Path) -> None:
    run_script(_SCRIPT, tmp_path, timeout=240)
    ranks = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in (0, 1)]
    assert ranks[0] == ranks[1]
    for key, value in _expected().items():
        assert_close(ranks[0][key], value, key)
    padded = _expected(padded=True)  # what counting the padded sample would give: the test can tell
    assert all(abs(padded[k] - ranks[0][k]) > 1e-4 for k in ("val/miou", "val/dice", "val/miou/0_background"))
