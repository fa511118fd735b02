"""The box IoU family against float64 formulas written here: the functions (matrices, diagonal means,
thresholds, empty inputs) and the metrics (all pairs or pairs of equal labels, per class, thresholds,
box formats, images without predictions or targets) over generated images."""

from __future__ import annotations

import math
from typing import Optional

import pytest
import torch

import lightning_metrics.detection as lmd
import lightning_metrics.functional.detection as lmf
from lightning_metrics.functional.detection._boxes import convert_boxes
from tests.detection._cases import detection_data

MEASURES = ("iou", "giou", "diou", "ciou")
FUNCTIONS = {
    "iou": lmf.intersection_over_union,
    "giou": lmf.generalized_intersection_over_union,
    "diou": lmf.distance_intersection_over_union,
    "ciou": lmf.complete_intersection_over_union,
}
CLASSES = {
    "iou": lmd.IntersectionOverUnion,
    "giou": lmd.GeneralizedIntersectionOverUnion,
    "diou": lmd.DistanceIntersectionOverUnion,
    "ciou": lmd.CompleteIntersectionOverUnion,
}


def reference(measure: str, a: list[float], b: list[float]) -> float:
    """One pair of (x1, y1, x2, y2) boxes, in Python floats (float64)."""
    ax1, ay1, ax2, ay2 = a
    bx1, by1, bx2, by2 = b
    inter = max(0.0, min(ax2, bx2) - max(ax1, bx1)) * max(0.0, min(ay2, by2) - max(ay1, by1))
    union = (ax2 - ax1) * (ay2 - ay1) + (bx2 - bx1) * (by2 - by1) - inter
    iou = inter / union
    if measure == "iou":
        return iou
    ex = max(ax2, bx2) - min(ax1, bx1)
    ey = max(ay2, by2) - min(ay1, by1)
    if measure == "giou":
        return iou - (ex * ey - union) / (ex * ey)
    centre = ((ax1 + ax2) / 2 - (bx1 + bx2) / 2) ** 2 + ((ay1 + ay2) / 2 - (by1 + by2) / 2) ** 2
    diou = iou - centre / (ex**2 + ey**2 + 1e-7)
    if measure == "diou":
        return diou
    v = 4 / math.pi**2 * (math.atan((ax2 - ax1) / (ay2 - ay1)) - math.atan((bx2 - bx1) / (by2 - by1))) ** 2
    return diou - v / (1 - iou + v + 1e-7) * v


def reference_matrix(measure: str, preds: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return torch.tensor([[reference(measure, p, t) for t in target.tolist()] for p in preds.tolist()],
                        dtype=torch.float64).reshape(preds.shape[0], target.shape[0])


def _boxes(seed: int, n: int) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    xy = torch.rand(n, 2, generator=gen, dtype=torch.float64) * 50
    return torch.cat([xy, xy + 1 + torch.rand(n, 2, generator=gen, dtype=torch.float64) * 40], 1)


@pytest.mark.parametrize("measure", MEASURES)
def test_functions_match_the_formulas(measure: str) -> None:
    preds, target = _boxes(0, 6), _boxes(1, 4)
    expected = reference_matrix(measure, preds, target)
    fn = FUNCTIONS[measure]
    torch.testing.assert_close(fn(preds, target, aggregate=False), expected, rtol=0, atol=1e-12)
    torch.testing.assert_close(fn(preds.float(), target.float(), aggregate=False), expected.float(), rtol=0, atol=2e-6)
    torch.testing.assert_close(fn(preds, target), expected.diag().mean(), rtol=0, atol=1e-12)
    thresholded = fn(preds, target, iou_threshold=0.1, replacement_val=-5.0, aggregate=False)
    torch.testing.assert_close(thresholded, torch.where(expected < 0.1, -5.0, expected), rtol=0, atol=1e-12)
    # torchmetrics: no predictions give the (M, M) zero matrix, no targets the (N, N) one
    assert torch.equal(fn(preds[:0], target, aggregate=False), torch.zeros(4, 4))
    assert torch.equal(fn(preds, target[:0], aggregate=False), torch.zeros(6, 6))
    assert fn(preds[:0], target[:0]) == 0.0
    with pytest.raises(ValueError, match=r"`preds` must have shape \(N, 4\)"):
        fn(preds[:, :3], target)


def _expected(measure: str, preds: list, target: list, box_format: str, threshold: Optional[float],
              respect_labels: bool, class_metrics: bool) -> dict[str, float]:
    """torchmetrics' definition, image by image: valid matrix entries, zero matrices for empty sides."""
    values, per_class = [], {}
    seen = set()
    for p, t in zip(preds, target):
        pb, tb = convert_boxes(p["boxes"].double(), box_format, "xyxy"), convert_boxes(t["boxes"].double(), box_format,
                                                                                        "xyxy")
        pl, tl = p["labels"].tolist(), t["labels"].tolist()
        seen |= set(pl) | set(tl)
        n, m = len(pl), len(tl)
        if n and m:
            matrix = reference_matrix(measure, pb, tb)
            valid = torch.ones(n, m, dtype=torch.bool)
            if threshold is not None:
                valid &= matrix >= threshold
            if respect_labels:
                valid &= torch.tensor(pl)[:, None] == torch.tensor(tl)[None, :]
        else:
            size = m if n == 0 else n
            matrix = torch.zeros(size, size, dtype=torch.float64)
            valid = torch.eye(size, dtype=torch.bool) if respect_labels else torch.ones(size, size, dtype=torch.bool)
        values += matrix[valid].tolist()
        for j, label in enumerate(tl):
            column = matrix[:, j][valid[:, j]]
            per_class.setdefault(label, []).extend(column.tolist())
    out = {measure: sum(values) / len(values) if values else 0.0}
    if class_metrics:
        for c in sorted(seen):
            vals = per_class.get(c, [])
            out[f"{measure}/cl_{c}"] = sum(vals) / len(vals) if vals else 0.0
    return out


CONFIGS = [
    dict(box_format="xyxy", iou_threshold=None, respect_labels=True, class_metrics=True),
    dict(box_format="xywh", iou_threshold=0.2, respect_labels=True, class_metrics=True),
    dict(box_format="cxcywh", iou_threshold=None, respect_labels=False, class_metrics=True),
    dict(box_format="xyxy", iou_threshold=0.4, respect_labels=False, class_metrics=False),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(str(v) for v in c.values()))
@pytest.mark.parametrize("measure", MEASURES)
def test_metrics_match_the_definition(measure: str, config: dict) -> None:
    preds, target = detection_data(3, num_images=8, crowded_image=False, box_format=config["box_format"])
    target.append({"boxes": torch.zeros(0, 4), "labels": torch.zeros(0, dtype=torch.long)})  # no targets
    preds.append({"boxes": preds[2]["boxes"], "labels": preds[2]["labels"]})
    metric = CLASSES[measure](**config)
    metric.update(preds[:4], target[:4])
    metric.update(preds[4:], target[4:])
    result = metric.compute()
    expected = _expected(measure, preds, target, config["box_format"], config["iou_threshold"],
                         config["respect_labels"], config["class_metrics"])
    assert list(result) == list(expected)
    for key, value in expected.items():
        assert result[key].dtype == torch.float32 and result[key].shape == (), key
        assert float(result[key]) == pytest.approx(value, abs=2e-6), key


def _floats(result: dict) -> dict:
    return {k: float(v) for k, v in result.items()}


def test_merge_and_forward_agree() -> None:
    preds, target = detection_data(4, num_images=6, crowded_image=False)
    whole = lmd.GeneralizedIntersectionOverUnion(class_metrics=True)
    whole.update(preds, target)
    a, b = lmd.GeneralizedIntersectionOverUnion(class_metrics=True), lmd.GeneralizedIntersectionOverUnion(
        class_metrics=True)
    b.update(preds[:3], target[:3])
    a.update(preds[3:], target[3:])
    a.merge_state(b)
    assert _floats(a.compute()) == pytest.approx(_floats(whole.compute()), abs=1e-7)
    stepped = lmd.GeneralizedIntersectionOverUnion(class_metrics=True)
    first = stepped(preds[:3], target[:3])
    assert _floats(first) == _floats(b.compute())
    stepped(preds[3:], target[3:])
    assert _floats(stepped.compute()) == pytest.approx(_floats(whole.compute()), abs=1e-7)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="`box_format`"):
        lmd.IntersectionOverUnion(box_format="xy")
    with pytest.raises(ValueError, match="`class_metrics`.*'yes'"):
        lmd.IntersectionOverUnion(class_metrics="yes")
    with pytest.raises(ValueError, match="`respect_labels`.*None"):
        lmd.CompleteIntersectionOverUnion(respect_labels=None)
    with pytest.raises(ValueError, match="`iou_threshold`.*'0.5'"):
        lmd.DistanceIntersectionOverUnion(iou_threshold="0.5")
