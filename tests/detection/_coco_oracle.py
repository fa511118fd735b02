"""pycocotools' ``COCOeval`` driven directly on the per-image dicts torchmetrics takes (the oracle).

The datasets are built as torchmetrics' pycocotools backend builds them: boxes converted to COCO's
``xywh`` with torchvision's float32 arithmetic (written out here in numpy), ground-truth areas
given or computed (box ``w * h``, mask pixels), annotation ids from 1, masks run-length encoded by
pycocotools. Every image is listed, also for masks (see the deviations in
``lightning_metrics.functional.detection.mean_ap``). Default thresholds are pycocotools' own.
"""

from __future__ import annotations

import contextlib
import io
from typing import Any, Optional

import numpy as np
import torch

_pycoco = __import__("pytest").importorskip("pycocotools")
from pycocotools import mask as mask_utils
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval


def to_xywh(boxes: torch.Tensor, fmt: str) -> np.ndarray:
    """torchvision's ``box_convert(boxes, fmt, "xywh")``, step by step, in the boxes' own dtype."""
    b = boxes.numpy().reshape(-1, 4)
    half = b.dtype.type(0.5)
    if fmt == "xyxy":
        x1, y1, x2, y2 = b.T
    elif fmt == "xywh":
        return b.copy()
    else:
        cx, cy, w, h = b.T
        x1, y1, x2, y2 = cx - half * w, cy - half * h, cx + half * w, cy + half * h
    return np.stack([x1, y1, x2 - x1, y2 - y1], axis=1)


def _dataset(items: list[dict], is_det: bool, iou_type: str, fmt: str, micro: bool, categories: list,
             both: bool) -> dict:
    images, annotations, next_id = [], [], 1
    for image_id, item in enumerate(items):
        image: dict[str, Any] = {"id": image_id}
        labels = item["labels"].tolist()
        boxes = to_xywh(item["boxes"], fmt).tolist() if "boxes" in item else None
        masks = None
        if "masks" in item:
            m = item["masks"]
            image["height"], image["width"] = int(m.shape[1]), int(m.shape[2])
            masks = [mask_utils.encode(np.asfortranarray(x.numpy().astype(np.uint8))) for x in m]
        elif iou_type == "segm":
            image["height"], image["width"] = 1, 1
        images.append(image)
        for k, label in enumerate(labels):
            ann: dict[str, Any] = {"id": next_id, "image_id": image_id, "category_id": 0 if micro else label}
            next_id += 1
            if boxes is not None:
                ann["bbox"] = boxes[k]
            if masks is not None:
                ann["segmentation"] = masks[k]
            geometry = float(mask_utils.area(masks[k])) if (iou_type == "segm" or (both and not is_det)) \
                else boxes[k][2] * boxes[k][3]
            given = float(item["area"][k]) if (not is_det and "area" in item) else 0.0
            ann["area"] = given if given > 0 else geometry
            if is_det:
                ann["score"] = float(item["scores"][k])
            else:
                ann["iscrowd"] = int(item["iscrowd"][k]) if "iscrowd" in item else 0
            annotations.append(ann)
    return {"images": images, "annotations": annotations, "categories": [{"id": c} for c in categories],
            "info": {}}


def _coco(dataset: dict) -> COCO:
    coco = COCO()
    coco.dataset = dataset
    with contextlib.redirect_stdout(io.StringIO()):
        coco.createIndex()
    return coco


def coco_eval(
    preds: list[dict],
    target: list[dict],
    iou_type: str = "bbox",
    box_format: str = "xyxy",
    iou_thresholds: Optional[list[float]] = None,
    rec_thresholds: Optional[list[float]] = None,
    max_detection_thresholds: Optional[list[int]] = None,
    average: str = "macro",
    class_metrics: bool = False,
    both: bool = False,
) -> dict[str, Any]:
    """pycocotools' ``stats``, ``precision``, ``recall``, ``scores``, ``ious`` and per-class values."""
    labels = sorted({int(v) for item in (*preds, *target) for v in item["labels"].tolist()})
    micro = average == "micro"
    categories = [0] if micro else labels
    gt = _coco(_dataset(target, False, iou_type, box_format, micro, categories, both))
    dt = _coco(_dataset(preds, True, iou_type, box_format, micro, categories, both))
    caps = sorted(max_detection_thresholds or [1, 10, 100])

    def run(cat_ids: Optional[list] = None) -> COCOeval:
        ev = COCOeval(gt, dt, iouType=iou_type)
        # thresholds not given: pycocotools' own (float64; torchmetrics would set float32 ones)
        if iou_thresholds:
            ev.params.iouThrs = np.array(iou_thresholds, dtype=np.float64)
        if rec_thresholds:
            ev.params.recThrs = np.array(rec_thresholds, dtype=np.float64)
        ev.params.maxDets = caps
        if cat_ids is not None:
            ev.params.catIds = cat_ids
        with contextlib.redirect_stdout(io.StringIO()):
            ev.evaluate()
            ev.accumulate()
            ev.summarize()
        return ev

    ev = run()
    stats = np.array(ev.stats, dtype=np.float64)
    precision = ev.eval["precision"]
    # pycocotools' summary reads cap 100 for `map`; the largest cap is used instead (documented)
    s = precision[:, :, :, 0, -1]
    stats[0] = np.mean(s[s > -1]) if (s > -1).any() else -1.0
    out = {"stats": stats, "pycocotools_stats": np.array(ev.stats, dtype=np.float64), "precision": precision,
           "recall": ev.eval["recall"], "scores": ev.eval["scores"], "ious": ev.ious}
    if class_metrics:
        if micro:
            gt = _coco(_dataset(target, False, iou_type, box_format, False, labels, both))
            dt = _coco(_dataset(preds, True, iou_type, box_format, False, labels, both))
        per_map, per_mar = [], []
        for c in labels:
            one = run([c])
            p = one.eval["precision"][:, :, :, 0, -1]
            per_map.append(np.mean(p[p > -1]) if (p > -1).any() else -1.0)
            per_mar.append(one.stats[8])
        out["map_per_class"], out["mar_per_class"] = np.array(per_map), np.array(per_mar)
    out["classes"] = labels
    return out
