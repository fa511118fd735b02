"""COCO mean average precision and recall, computed natively (torchmetrics' ``mean_average_precision``).

The protocol is pycocotools' ``COCOeval`` (``evaluate``, ``accumulate``, ``summarize``), split the
same way (:mod:`._evaluate`, :mod:`._accumulate`) and vectorised over images, classes, area ranges
and thresholds; no pycocotools, faster-coco-eval or torchvision is needed. A batch of per-image
dicts first becomes a few flat tensors (:func:`detection_state`), the same tensors the modular
metric keeps as ``cat`` states; :func:`map_of_state` evaluates such a state.

Where the result differs from torchmetrics (whose default backend is pycocotools):

- ``map`` uses the largest detection cap, as every other number does (pycocotools' ``summarize``
  reads the cap 100 and gives -1 when 100 is not among ``max_detection_thresholds``;
  faster-coco-eval uses the largest one);
- the default IoU and recall thresholds are pycocotools' (float64 ``np.linspace`` values), not the
  float32 values torchmetrics passes it: where a recall equals a threshold (3 of 5 ground truths
  at 0.6), torchmetrics reads the precision one true positive later (see
  :func:`default_rec_thresholds`);
- with masks only (``iou_type="segm"``), an image without ground-truth masks still counts: its
  detections are false positives (torchmetrics leaves such images out of the COCO dataset it
  builds, so their detections are ignored; with boxes it keeps them);
- ``ious`` in the extended summary holds an empty ``(n, 0)``/``(0, m)`` tensor where pycocotools
  gives ``[]``;
- the result always has ``map_per_class`` and ``mar_*_per_class`` (torchmetrics drops them when no
  image was seen).
"""

from __future__ import annotations

from typing import Any, Optional

import torch
from torch import Tensor

from lightning_metrics.functional.detection._accumulate import accumulate, summarize
from lightning_metrics.functional.detection._boxes import coco_box_iou
from lightning_metrics.functional.detection._evaluate import AREA_RANGES, evaluate
from lightning_metrics.functional.detection._inputs import check_box_format, check_iou_type, flatten_batch
from lightning_metrics.functional.detection._masks import (
    coco_mask_iou,
    encode_masks,
    masks_area,
    pair_intersections,
)
from lightning_metrics.utilities.checks import check_bool, check_choice
from lightning_metrics.utilities.prints import rank_zero_warn

_STAT_NAMES = ("map", "map_50", "map_75", "map_small", "map_medium", "map_large")
_RECALL_AREAS = ("mar_small", "mar_medium", "mar_large")


def _numpy_linspace(start: float, stop: float, num: int) -> list[float]:
    """``numpy.linspace(start, stop, num)`` bit for bit: ``i * step + start`` in float64, the last ``stop``.

    (``torch.linspace`` in float64 rounds some values differently, and in float32 all but a few.)
    """
    step = (stop - start) / (num - 1)
    return [i * step + start for i in range(num - 1)] + [stop]


def default_iou_thresholds() -> list[float]:
    """pycocotools' IoU thresholds 0.5:0.05:0.95, the float64 values of its ``np.linspace``.

    torchmetrics passes pycocotools float32 values instead (``torch.linspace(...).tolist()``): an IoU
    between, say, 0.55 and float32(0.55) = 0.55000001 is matched at 0.55 here and in pycocotools' own
    defaults, not in torchmetrics.

    >>> default_iou_thresholds()[:3]
    [0.5, 0.55, 0.6]
    """
    return _numpy_linspace(0.5, 0.95, round((0.95 - 0.5) / 0.05) + 1)


def default_rec_thresholds() -> list[float]:
    """pycocotools' recall thresholds 0:0.01:1, the float64 values of its ``np.linspace``.

    Not torchmetrics' float32 values: a recall that equals a threshold, such as 3 of 5 ground truths
    at 0.6, reaches it here and in pycocotools; in torchmetrics float32(0.6) = 0.60000002 is above
    3 / 5, and the precision at 0.6 is read one true positive later (a lower value, or 0).

    >>> default_rec_thresholds()[:4]
    [0.0, 0.01, 0.02, 0.03]
    """
    return _numpy_linspace(0.0, 1.0, round(1.00 / 0.01) + 1)


def check_map_args(
    box_format: Any,
    iou_type: Any,
    iou_thresholds: Any,
    rec_thresholds: Any,
    max_detection_thresholds: Any,
    class_metrics: Any,
    extended_summary: Any,
    average: Any,
    backend: Any,
) -> tuple[tuple[str, ...], list[float], list[float], list[int]]:
    """Check torchmetrics' arguments; the iou types and the thresholds with their defaults filled in."""
    check_box_format(box_format)
    iou_types = check_iou_type(iou_type)
    for name, value in (("iou_thresholds", iou_thresholds), ("rec_thresholds", rec_thresholds)):
        if value is not None and (not isinstance(value, list) or not all(isinstance(v, (int, float)) for v in value)):
            raise ValueError(f"Argument `{name}` must be None or a list of floats, got {value!r}")
    if max_detection_thresholds is not None:
        if not isinstance(max_detection_thresholds, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in max_detection_thresholds
        ):
            raise ValueError(
                f"Argument `max_detection_thresholds` must be None or a list of positive ints, got "
                f"{max_detection_thresholds!r}"
            )
        if len(max_detection_thresholds) != 3:
            raise ValueError(
                f"Argument `max_detection_thresholds` must hold 3 values, got {len(max_detection_thresholds)}"
            )
    for name, value in (("class_metrics", class_metrics), ("extended_summary", extended_summary)):
        check_bool(name, value)
    check_choice("average", average, ("macro", "micro"))
    check_choice("backend", backend, ("pycocotools", "faster_coco_eval"))
    ious = [float(v) for v in iou_thresholds] if iou_thresholds else default_iou_thresholds()
    recs = [float(v) for v in rec_thresholds] if rec_thresholds else default_rec_thresholds()
    caps = sorted(max_detection_thresholds or [1, 10, 100])
    return iou_types, ious, recs, caps


def detection_state(
    preds: Any, target: Any, iou_types: tuple[str, ...], box_format: str, validate_args: bool = True,
    warn_above: int | None = None,
) -> dict[str, Tensor]:
    """The state tensors of one batch; torchmetrics' warning when one of its images has more than
    ``warn_above`` detections (the largest cap; ``None``: no warning).

    Keys: ``det_scores`` (float64), ``det_labels`` (int64), ``det_counts`` (detections per image),
    ``gt_labels``, ``gt_crowd`` (bool), ``gt_area`` (float64: the given area, or the mask's or box's
    where none or 0 is given, as torchmetrics), ``gt_counts``; with boxes ``det_boxes``/``gt_boxes``
    (float64 ``xywh``); with masks ``det_runs``/``det_run_counts``/``gt_runs``/``gt_run_counts``
    (see :mod:`._masks`).
    """
    flat = flatten_batch(preds, target, iou_types, box_format, validate_args)
    most = flat.pop("most_detections")
    state = {k: v for k, v in flat.items() if k not in ("det_masks", "gt_masks")}
    fallback = None
    if "segm" in iou_types:
        for side in ("det", "gt"):
            runs, run_counts = _encode_images(flat[f"{side}_masks"], state["det_scores"].device)
            state[f"{side}_runs"], state[f"{side}_run_counts"] = runs, run_counts
        fallback = masks_area(state["gt_runs"], state["gt_run_counts"]).to(torch.float64)
    elif "bbox" in iou_types:
        fallback = state["gt_boxes"][:, 2] * state["gt_boxes"][:, 3]
    state["gt_area"] = torch.where(state["gt_area"] > 0, state["gt_area"], fallback)
    if warn_above is not None and most > warn_above:
        warn_many_detections(warn_above)
    return state


def _encode_images(masks: list[Tensor], device: torch.device) -> tuple[Tensor, Tensor]:
    runs, counts = [], []
    for m in masks:
        r, c = encode_masks(m)
        runs.append(r)
        counts.append(c)
    if not runs:
        return torch.zeros(0, 2, dtype=torch.int32, device=device), torch.zeros(0, dtype=torch.int64, device=device)
    return torch.cat(runs), torch.cat(counts)


def _image_index(counts: Tensor) -> Tensor:
    return torch.repeat_interleave(torch.arange(counts.numel(), device=counts.device), counts)


def _geometry(state: dict[str, Tensor], iou_kind: str) -> tuple[Tensor, Any]:
    """The detections' areas and the COCO IoU of (detection, ground truth) index pairs, for one iou type."""
    crowd = state["gt_crowd"]
    if iou_kind == "bbox":
        det_boxes, gt_boxes = state["det_boxes"], state["gt_boxes"]
        return det_boxes[:, 2] * det_boxes[:, 3], lambda d, g: coco_box_iou(det_boxes[d], gt_boxes[g], crowd[g])
    det_runs, det_counts = state["det_runs"], state["det_run_counts"]
    gt_runs, gt_counts = state["gt_runs"], state["gt_run_counts"]
    det_px, gt_px = masks_area(det_runs, det_counts), masks_area(gt_runs, gt_counts)

    def iou(d: Tensor, g: Tensor) -> Tensor:
        inter = pair_intersections(det_runs, det_counts, gt_runs, gt_counts, d, g)
        return coco_mask_iou(inter, det_px[d], gt_px[g], crowd[g])

    return det_px.to(torch.float64), iou


def map_of_state(
    state: dict[str, Tensor],
    iou_types: tuple[str, ...],
    iou_thresholds: list[float],
    rec_thresholds: list[float],
    max_detection_thresholds: list[int],
    class_metrics: bool = False,
    extended_summary: bool = False,
    average: str = "macro",
) -> dict[str, Any]:
    """torchmetrics' result dict for a detection state (see :func:`detection_state`)."""
    device = state["det_scores"].device
    det_image, gt_image = _image_index(state["det_counts"]), _image_index(state["gt_counts"])
    classes = torch.unique(torch.cat([state["det_labels"], state["gt_labels"]]))
    num_images = state["det_counts"].numel()
    ious = torch.tensor(iou_thresholds, dtype=torch.float64, device=device)
    recs = torch.tensor(rec_thresholds, dtype=torch.float64, device=device)
    areas = torch.tensor(AREA_RANGES, dtype=torch.float64, device=device)
    caps = list(max_detection_thresholds)

    def run(iou_kind: str, micro: bool) -> tuple[Any, Any, Any]:
        det_area, pair_iou = _geometry(state, iou_kind)
        if micro:
            det_class, gt_class, k = torch.zeros_like(state["det_labels"]), torch.zeros_like(state["gt_labels"]), 1
        else:
            det_class = torch.searchsorted(classes, state["det_labels"])
            gt_class, k = torch.searchsorted(classes, state["gt_labels"]), classes.numel()
        ev = evaluate(det_image, det_class, state["det_scores"], det_area, gt_image, gt_class, state["gt_crowd"],
                      state["gt_area"], k, pair_iou, ious, caps[-1], areas)
        acc = accumulate(ev, k, recs, caps)
        return ev, acc, summarize(acc, ious)

    result: dict[str, Any] = {}
    for iou_kind in iou_types:
        prefix = "" if len(iou_types) == 1 else f"{iou_kind}_"
        ev, acc, summary = run(iou_kind, average == "micro")
        stats = summary.stats.to(torch.float32)
        for name, value in zip(_STAT_NAMES, stats[:6]):
            result[f"{prefix}{name}"] = value
        for cap, value in zip(caps, stats[6:9]):
            result[f"{prefix}mar_{cap}"] = value
        for name, value in zip(_RECALL_AREAS, stats[9:]):
            result[f"{prefix}{name}"] = value
        if extended_summary:
            result[f"{prefix}ious"] = _iou_blocks(ev, num_images, classes, average == "micro", state)
            result[f"{prefix}precision"] = acc.precision
            result[f"{prefix}recall"] = acc.recall
            result[f"{prefix}scores"] = acc.scores
        if class_metrics:
            per_class = run(iou_kind, False)[2] if average == "micro" else summary
            map_per_class = per_class.map_per_class.to(torch.float32)
            mar_per_class = per_class.mar_per_class.to(torch.float32)
        else:
            map_per_class = mar_per_class = torch.tensor([-1.0], device=device)
        result[f"{prefix}map_per_class"] = map_per_class
        result[f"{prefix}mar_{caps[-1]}_per_class"] = mar_per_class
    result["classes"] = classes.to(torch.int32)
    return result


def _iou_blocks(
    ev: Any, num_images: int, classes: Tensor, micro: bool, state: dict[str, Tensor]
) -> dict[tuple[int, int], Tensor]:
    """pycocotools' ``ious``: per (image, class label) the (detections by score, ground truths) IoU matrix.

    Keys run over every image and class, as pycocotools' (micro averaging has the single class 0).
    """
    labels = torch.zeros(1, dtype=classes.dtype, device=classes.device) if micro else classes
    k = labels.numel()
    gt_image = _image_index(state["gt_counts"])
    gt_class = torch.zeros_like(state["gt_labels"]) if micro else torch.searchsorted(classes, state["gt_labels"])
    n_det = torch.bincount(ev.det_image * k + ev.det_class, minlength=num_images * k)
    n_gt = torch.bincount(gt_image * k + gt_class, minlength=num_images * k)
    sizes = (n_det * n_gt).tolist()
    blocks = torch.split(ev.entry_iou.to(torch.float32), sizes)
    shapes = torch.stack([n_det, n_gt], 1).tolist()
    names = labels.tolist()
    return {
        (i, names[c]): block.view(*shapes[i * k + c])
        for i in range(num_images)
        for c in range(k)
        for block in (blocks[i * k + c],)
    }


def mean_average_precision(
    preds: list[dict[str, Any]],
    target: list[dict[str, Any]],
    box_format: str = "xyxy",
    iou_type: Any = "bbox",
    iou_thresholds: Optional[list[float]] = None,
    rec_thresholds: Optional[list[float]] = None,
    max_detection_thresholds: Optional[list[int]] = None,
    class_metrics: bool = False,
    extended_summary: bool = False,
    average: str = "macro",
    backend: str = "pycocotools",
    warn_on_many_detections: bool = True,
    validate_args: bool = True,
) -> dict[str, Any]:
    """COCO mean average precision and recall of detections, natively (torchmetrics' function).

    Inputs and arguments as :class:`~lightning_metrics.detection.MeanAveragePrecision`; ``backend``
    is accepted and ignored (the protocol runs here). ``validate_args=False`` skips the value
    checks of the boxes (finite, ``x2 >= x1``), the scores (finite), the crowd flags (0/1), the
    areas (finite, non-negative) and their host read.

    >>> import torch
    >>> from lightning_metrics.functional.detection import mean_average_precision
    >>> preds = [{"boxes": torch.tensor([[258.0, 41.0, 606.0, 285.0]]), "scores": torch.tensor([0.536]),
    ...           "labels": torch.tensor([0])}]
    >>> target = [{"boxes": torch.tensor([[214.0, 41.0, 562.0, 285.0]]), "labels": torch.tensor([0])}]
    >>> result = mean_average_precision(preds, target)
    >>> round(float(result["map"]), 4), float(result["map_50"])
    (0.6, 1.0)
    """
    iou_types, ious, recs, caps = check_map_args(box_format, iou_type, iou_thresholds, rec_thresholds,
                                                 max_detection_thresholds, class_metrics, extended_summary,
                                                 average, backend)
    state = detection_state(preds, target, iou_types, box_format, validate_args,
                            caps[-1] if warn_on_many_detections else None)
    result = map_of_state(state, iou_types, ious, recs, caps, class_metrics, extended_summary, average)
    return {k: v.squeeze() if isinstance(v, Tensor) and v.numel() == 1 else v for k, v in result.items()}


def warn_many_detections(limit: int) -> None:
    rank_zero_warn(
        f"Encountered more than {limit} detections in a single image. This means that certain detections with "
        "the lowest scores will be ignored, that may have an undesirable impact on performance. Please consider "
        "adjusting the `max_detection_threshold` to suit your use case. To disable this warning, set attribute "
        "class `warn_on_many_detections=False`, after initializing the metric.",
        UserWarning,
    )
