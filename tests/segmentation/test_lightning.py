"""Segmentation metrics through the Lightning engine: a real ``Trainer`` fit logs ``val/miou`` (the
mixin), the per-class IoU as ``val/miou/<index>_<class>`` (the callback, with ``class_names``) and
``val/dice``; under 2-process DDP, with an odd-length validation set, the values equal one process."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import torchmetrics.segmentation as tms

from tests._lightning import assert_logged, fit_logged, two_process_logged
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
    assert_logged(fit_logged(trainer(), SegmentationModel(), loader, VAL_SIZE), _expected())


def test_two_process_ddp_equals_one_process(tmp_path: Path) -> None:
    logged = two_process_logged("tests.segmentation._lightning_model", "SegmentationModel", tmp_path)
    assert_logged(logged, _expected())
    padded = _expected(padded=True)  # what counting the padded sample would give: the test can tell
    assert all(abs(padded[k] - logged[k]) > 1e-4 for k in ("val/miou", "val/dice", "val/miou/0_background"))
