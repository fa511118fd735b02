"""COCO mAP (bbox): lightning_metrics vs pycocotools' COCOeval vs faster-coco-eval, in one process.

Scenarios (the issue's): 500 images x 100 detections x 80 classes, and 5,000 images x 20 detections
x 80 classes, bbox. Each image has 1-14 ground-truth boxes of random sizes (small, medium and
large) and classes; detections are jittered copies of them (70% keep the class) plus noise.

Timed, from the same per-image tensors:

- ours: ``MeanAveragePrecision.update`` over batches of 8 images ("inputs"), then ``compute``
  ("eval");
- pycocotools and faster-coco-eval driven directly: building the COCO dicts from the tensors
  (``xywh`` boxes, areas, ids: what torchmetrics does before calling them) and ``COCO``'s index
  ("inputs"), then ``evaluate``, ``accumulate``, ``summarize`` ("eval").

The 12 summary numbers of the three are compared (max absolute difference); pycocotools and
faster-coco-eval run with their default thresholds (float64 ``np.linspace``, as ours; torchmetrics
would set float32 ones). Ratios are each tool's time over ours (above 1: ours is faster), for the
total and for the evaluation alone.
Timings are of the run with the median total out of ``--repeats``; on a shared machine they are
noisy, the ratios from one process less so. faster-coco-eval may use several threads.

Run: ``python benchmarks/detection.py [--repeats 3] [--threads 1] [--small]``
"""

from __future__ import annotations

import argparse
import contextlib
import io
import time
import warnings
from typing import Callable

import numpy as np
import torch

from lightning_metrics.detection import MeanAveragePrecision

NAMES = ("map", "map_50", "map_75", "map_small", "map_medium", "map_large",
         "mar_1", "mar_10", "mar_100", "mar_small", "mar_medium", "mar_large")


def make_data(images: int, detections: int, classes: int, seed: int = 0) -> tuple[list[dict], list[dict]]:
    gen = torch.Generator().manual_seed(seed)
    preds, target = [], []
    for _ in range(images):
        m = int(torch.randint(1, 15, (1,), generator=gen))
        xy = torch.rand(m, 2, generator=gen) * 500
        wh = torch.exp(torch.empty(m, 2).uniform_(2.0, 5.3, generator=gen))
        gt = torch.cat([xy, xy + wh], 1)
        gt_labels = torch.randint(0, classes, (m,), generator=gen)
        source = torch.randint(0, m, (detections,), generator=gen)
        det = gt[source] + torch.randn(detections, 4, generator=gen) * wh[source].repeat(1, 2) * 0.15
        det = torch.cat([torch.minimum(det[:, :2], det[:, 2:]), torch.maximum(det[:, :2], det[:, 2:])], 1)
        keep = torch.rand(detections, generator=gen) < 0.7
        det_labels = torch.where(keep, gt_labels[source], torch.randint(0, classes, (detections,), generator=gen))
        preds.append({"boxes": det, "scores": torch.rand(detections, generator=gen), "labels": det_labels})
        target.append({"boxes": gt, "labels": gt_labels, "iscrowd": torch.zeros(m, dtype=torch.int64)})
    return preds, target


def ours(preds: list[dict], target: list[dict]) -> tuple[np.ndarray, float, float]:
    """Summary numbers, seconds of the updates, seconds of ``compute``."""
    start = time.perf_counter()
    metric = MeanAveragePrecision()
    for lo in range(0, len(preds), 8):
        metric.update(preds[lo : lo + 8], target[lo : lo + 8])
    middle = time.perf_counter()
    result = metric.compute()
    return np.array([float(result[n]) for n in NAMES]), middle - start, time.perf_counter() - middle


def coco_dicts(preds: list[dict], target: list[dict]) -> tuple[dict, dict]:
    """The COCO datasets torchmetrics builds from the tensors (boxes to xywh, areas, ids)."""
    labels = sorted({*torch.cat([t["labels"] for t in target]).tolist(), *torch.cat([p["labels"] for p in preds]).tolist()})
    images = [{"id": i} for i in range(len(preds))]
    gt_anns, dt_anns, next_id = [], [], 1
    for i, t in enumerate(target):
        boxes = t["boxes"].clone()
        boxes[:, 2:] -= boxes[:, :2]
        for box, label, crowd in zip(boxes.tolist(), t["labels"].tolist(), t["iscrowd"].tolist()):
            gt_anns.append({"id": next_id, "image_id": i, "bbox": box, "area": box[2] * box[3],
                            "category_id": label, "iscrowd": crowd})
            next_id += 1
    next_id = 1
    for i, p in enumerate(preds):
        boxes = p["boxes"].clone()
        boxes[:, 2:] -= boxes[:, :2]
        for box, label, score in zip(boxes.tolist(), p["labels"].tolist(), p["scores"].tolist()):
            dt_anns.append({"id": next_id, "image_id": i, "bbox": box, "area": box[2] * box[3],
                            "category_id": label, "score": score, "iscrowd": 0})
            next_id += 1
    categories = [{"id": c} for c in labels]
    return ({"images": images, "annotations": gt_anns, "categories": categories, "info": {}},
            {"images": images, "annotations": dt_anns, "categories": categories, "info": {}})


def pycocotools(preds: list[dict], target: list[dict]) -> tuple[np.ndarray, float, float]:
    """Summary numbers, seconds of the conversion (dicts, index), seconds of evaluate/accumulate/summarize."""
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    start = time.perf_counter()
    gt_data, dt_data = coco_dicts(preds, target)
    with contextlib.redirect_stdout(io.StringIO()):
        gt, dt = COCO(), COCO()
        gt.dataset, dt.dataset = gt_data, dt_data
        gt.createIndex()
        dt.createIndex()
        middle = time.perf_counter()
        ev = COCOeval(gt, dt, iouType="bbox")
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    return np.array(ev.stats), middle - start, time.perf_counter() - middle


def faster_coco_eval(preds: list[dict], target: list[dict]) -> tuple[np.ndarray, float, float]:
    from faster_coco_eval import COCO, COCOeval_faster

    start = time.perf_counter()
    gt_data, dt_data = coco_dicts(preds, target)
    gt, dt = COCO(gt_data), COCO(dt_data)
    middle = time.perf_counter()
    ev = COCOeval_faster(gt, dt, iouType="bbox")
    with contextlib.redirect_stdout(io.StringIO()):
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    return np.array(ev.stats[:12]), middle - start, time.perf_counter() - middle


def timed(fn: Callable[[], tuple], repeats: int) -> tuple[np.ndarray, float, float]:
    """The run with the median total time: (stats, first part seconds, second part seconds)."""
    runs = sorted((fn() for _ in range(repeats)), key=lambda r: r[1] + r[2])
    return runs[len(runs) // 2]


def scenario(images: int, detections: int, classes: int, repeats: int) -> None:
    preds, target = make_data(images, detections, classes)
    print(f"\n{images} images x {detections} detections x {classes} classes (bbox), "
          f"{sum(len(t['labels']) for t in target)} ground truths")
    header = (f"{'tool':<18} | {'total s':>8} | {'total / ours':>12} | {'inputs s':>8} | {'eval s':>7} | "
              f"{'eval / ours':>11} | {'max |stats - ours|':>18}")
    print(header)
    print("-" * len(header))
    base, up, comp = timed(lambda: ours(preds, target), repeats)
    total = up + comp
    print(f"{'lightning_metrics':<18} | {total:>8.3f} | {1.0:>12.2f} | {up:>8.3f} | {comp:>7.3f} | {1.0:>11.2f} | "
          f"{0.0:>18.1e}")
    for name, fn in (("pycocotools", pycocotools), ("faster-coco-eval", faster_coco_eval)):
        try:
            stats, convert, evaluate = timed(lambda fn=fn: fn(preds, target), repeats)
        except ImportError as err:
            print(f"{name:<18} | not installed ({err})")
            continue
        print(f"{name:<18} | {convert + evaluate:>8.3f} | {(convert + evaluate) / total:>12.2f} | {convert:>8.3f} | "
              f"{evaluate:>7.3f} | {evaluate / comp:>11.2f} | {np.abs(stats - base).max():>18.1e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (faster-coco-eval picks its own)")
    parser.add_argument("--small", action="store_true", help="a quick run on 50 and 500 images")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    warnings.simplefilter("ignore")
    print(f"torch {torch.__version__}, {args.threads} torch thread(s), median of {args.repeats}")
    scale = 10 if args.small else 1
    scenario(500 // scale, 100, 80, args.repeats)
    scenario(5000 // scale, 20, 80, args.repeats)


if __name__ == "__main__":
    main()
