"""COCO mean average precision as a metric: per-image detections kept as flat ``cat`` states."""

from __future__ import annotations

from typing import Any, Hashable, Optional, Union

import torch
from torch import Tensor

from lightning_metrics.functional.detection.mean_ap import check_map_args, detection_state, map_of_state
from lightning_metrics.metric import Metric
from lightning_metrics.utilities.checks import check_bool

# state name -> (dtype, trailing shape) of its rows
_COMMON = {
    "det_scores": (torch.float64, ()),
    "det_labels": (torch.int64, ()),
    "det_counts": (torch.int64, ()),
    "gt_labels": (torch.int64, ()),
    "gt_crowd": (torch.bool, ()),
    "gt_area": (torch.float64, ()),
    "gt_counts": (torch.int64, ()),
}
_BOXES = {"det_boxes": (torch.float64, (4,)), "gt_boxes": (torch.float64, (4,))}
_MASKS = {
    "det_runs": (torch.int32, (2,)),
    "det_run_counts": (torch.int64, ()),
    "gt_runs": (torch.int32, (2,)),
    "gt_run_counts": (torch.int64, ()),
}


class MeanAveragePrecision(Metric):
    r"""COCO mean average precision and recall for object detection (torchmetrics' ``MeanAveragePrecision``).

    The COCO protocol exactly as pycocotools' ``COCOeval`` implements it, computed natively in
    torch on the metric's device: per image and class, detections sorted by score (stably, as
    pycocotools' mergesort) and capped at ``max_detection_thresholds[-1]``; greedy matching at every
    IoU threshold; crowd regions (``iscrowd=1``) matched without being used up, with IoU = overlap /
    detection area; the area ranges small (``area <= 32**2``), medium and large; 101-point
    interpolated precision; -1 for a class without ground truth; by default pycocotools' own
    thresholds (IoU 0.5:0.05:0.95 and recall 0:0.01:1, the float64 values of its ``np.linspace``).
    pycocotools, faster-coco-eval and torchvision are not needed; ``backend`` is accepted for
    compatibility and ignored.

    Inputs, per image, as torchmetrics takes them: ``preds`` a list of dicts with ``boxes``
    ``(N, 4)`` (in ``box_format``), ``scores`` ``(N,)``, ``labels`` ``(N,)`` (integers) and, for
    ``iou_type="segm"``, ``masks`` ``(N, H, W)`` (bool); ``target`` a list of dicts with ``boxes``
    and/or ``masks``, ``labels``, and optionally ``iscrowd`` (0/1) and ``area`` (used when above
    0; otherwise the box's ``w * h`` or the mask's pixel count, the mask's when both are evaluated).

    Output: a dict with ``map``, ``map_50``, ``map_75``, ``map_small``, ``map_medium``,
    ``map_large``, ``mar_{k}`` for each cap ``k`` of ``max_detection_thresholds``, ``mar_small``,
    ``mar_medium``, ``mar_large``, ``map_per_class`` and ``mar_{k}_per_class`` (per class with
    ``class_metrics``, else -1) and ``classes``; with ``extended_summary`` also ``precision``
    ``(T, R, K, A, M)``, ``recall`` ``(T, K, A, M)``, ``scores`` and ``ious`` (a dict
    ``(image, class) -> (detections, ground truths)`` IoU matrix). With ``iou_type=("bbox",
    "segm")`` every key but ``classes`` comes twice, prefixed ``bbox_`` and ``segm_``.
    ``average="micro"`` pools all classes into one.

    State and memory: flat ``cat`` tensors, so a distributed sync gathers every image in one
    fused exchange and ``compute`` runs once on the merged state (N processes give the value of
    one). Per detection 16 bytes (score, label) plus 32 for a box; per ground truth 17 bytes
    (label, crowd flag, area) plus 32 for a box; per image 16 bytes. A mask is kept as its runs
    of pixels along the image rows (8 bytes per run, one or two per row the object crosses, plus
    8 per mask): memory follows the object's size, not the image's. Encoding masks reads the
    number of runs back from the device (one sync per image); boxes need none with
    ``validate_args=False``.

    Deliberate differences from torchmetrics (pycocotools backend): with ``max_detection_thresholds``
    that do not include 100, ``map`` is the mAP at the largest cap, as ``map_50``, ``map_75`` and the
    per-area mAPs are; pycocotools, and so torchmetrics, read ``map`` at 100 detections only and give
    -1 (faster-coco-eval reads the largest cap, as here). The default thresholds are pycocotools'
    float64 values where torchmetrics passes it float32 ones (``torch.linspace(...).tolist()``): a
    recall landing exactly on a threshold (3 of 5 ground truths at 0.6) reaches it here and in
    pycocotools, not in torchmetrics, whose ``map`` on ordinary data then differs by 1e-5 to 1e-3
    (``rec_thresholds=torch.linspace(0.0, 1.0, 101).tolist()`` gives torchmetrics' value). With masks
    only, images without ground truth still count; ``ious`` holds empty tensors where pycocotools
    has ``[]``; the per-class keys are always present. Extension:
    ``validate_args`` (``False`` skips the value checks of boxes, scores, crowd flags and areas:
    finite boxes with ``x2 >= x1``, finite scores, 0/1 flags, finite non-negative areas, and their
    host read; structure, key, dtype and shape checks always run).

    Ties in scores between images are broken by image order, as pycocotools does: the order of
    ``update`` calls; ``merge_state`` puts the incoming images first; after a distributed sync the
    images are ordered by rank. So with exactly tied scores across images, a value can differ
    from one process fed the images in another order (a rank holding a contiguous share of the
    data gives the single-process order).

    >>> import torch
    >>> from lightning_metrics.detection import MeanAveragePrecision
    >>> preds = [{"boxes": torch.tensor([[258.0, 41.0, 606.0, 285.0]]), "scores": torch.tensor([0.536]),
    ...           "labels": torch.tensor([0])}]
    >>> target = [{"boxes": torch.tensor([[214.0, 41.0, 562.0, 285.0]]), "labels": torch.tensor([0])}]
    >>> metric = MeanAveragePrecision(iou_type="bbox")
    >>> metric.update(preds, target)
    >>> result = metric.compute()
    >>> {k: round(float(v), 4) for k, v in result.items() if k in ("map", "map_50", "map_75", "mar_100")}
    {'map': 0.6, 'map_50': 1.0, 'map_75': 1.0, 'mar_100': 0.6}
    >>> result["map_small"], result["classes"]
    (tensor(-1.), tensor(0, dtype=torch.int32))
    """

    is_differentiable: bool = False
    higher_is_better: Optional[bool] = True
    full_state_update: bool = False
    additive_update = True  # per-image detections: one update of joined batches holds the same states
    plot_lower_bound: float = 0.0
    plot_upper_bound: float = 1.0

    warn_on_many_detections: bool = True
    # keys of the result that are no measure: the class ids and the extended summary's arrays (per
    # image and class IoUs, the precision/recall/score arrays); the Lightning engine neither logs nor
    # draws them, and keeps them in its ``results``
    unlogged_results = ("classes", "ious", "precision", "recall", "scores")
    # for the loggers: -1 is "undefined", never a value to log or draw; the per-class entries are the
    # classes in ``classes`` (MetricsCallback keys them by class id)
    missing_result = -1.0
    missing_result_reason = "no ground truth in that area range or class this epoch"
    per_class_ids = "classes"

    def __init__(
        self,
        box_format: str = "xyxy",
        iou_type: Union[str, tuple[str, ...]] = "bbox",
        iou_thresholds: Optional[list[float]] = None,
        rec_thresholds: Optional[list[float]] = None,
        max_detection_thresholds: Optional[list[int]] = None,
        class_metrics: bool = False,
        extended_summary: bool = False,
        average: str = "macro",
        backend: str = "pycocotools",
        validate_args: bool = True,
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _build(self) -> None:
        iou_types, ious, recs, caps = check_map_args(
            self.box_format, self.iou_type, self.iou_thresholds, self.rec_thresholds,
            self.max_detection_thresholds, self.class_metrics, self.extended_summary, self.average, self.backend,
        )
        check_bool("validate_args", self.validate_args)
        self.iou_type, self.iou_thresholds, self.rec_thresholds = iou_types, ious, recs
        self.max_detection_thresholds = caps
        self._layout = {**_COMMON, **(_BOXES if "bbox" in iou_types else {}), **(_MASKS if "segm" in iou_types else {})}
        for name in self._layout:
            self.add_state(name, [], dist_reduce_fx="cat")

    @property
    def statistic_spec(self) -> Hashable:
        """The kept detections (geometry kinds, box format, checks): equal specs share one state."""
        return ("coco_detections", self.iou_type, self.box_format, self.validate_args)

    def update(self, preds: list[dict[str, Tensor]], target: list[dict[str, Tensor]]) -> None:
        """Add a batch of images (lists of per-image dicts, checked before any state changes)."""
        cap = self.max_detection_thresholds[-1] if self.warn_on_many_detections else None
        state = detection_state(preds, target, self.iou_type, self.box_format, self.validate_args, cap)
        for name in self._layout:
            getattr(self, name).append(state[name])

    def _state(self) -> dict[str, Tensor]:
        out = {}
        for name, (dtype, trailing) in self._layout.items():
            value = getattr(self, name)
            if isinstance(value, list):
                value = torch.cat(value) if value else torch.zeros((0, *trailing), dtype=dtype, device=self.device)
            out[name] = value
        return out

    def compute(self) -> dict[str, Any]:
        """The COCO summary of every image seen (see the class docstring for the keys)."""
        return map_of_state(self._state(), self.iou_type, self.iou_thresholds, self.rec_thresholds,
                            self.max_detection_thresholds, self.class_metrics, self.extended_summary, self.average)

    def result_views(self, key: str, value: Any) -> dict[str, Any]:
        """What the Lightning engine draws for an unlogged result: for the extended summary's
        ``precision`` ``(T, R, K, A, M)``, one precision-recall curve per class as ``pr_curve``
        (COCO's interpolated precision at each recall threshold, at IoU 0.5 when it is among
        ``iou_thresholds``, else the first; all areas; the largest detection cap). A class without
        ground truth has no curve (NaN). Nothing for the other keys.

        >>> import torch
        >>> metric = MeanAveragePrecision(extended_summary=True)
        >>> metric.update([dict(boxes=torch.tensor([[0.0, 0.0, 10.0, 10.0]]), scores=torch.tensor([0.9]),
        ...                     labels=torch.tensor([0]))],
        ...               [dict(boxes=torch.tensor([[0.0, 0.0, 10.0, 10.0]]), labels=torch.tensor([0]))])
        >>> precision, recall = metric.result_views("precision", metric.compute()["precision"])["pr_curve"]
        >>> len(precision), precision[0][:3].tolist(), recall[0][-1].item()
        (1, [1.0, 1.0, 1.0], 1.0)
        """
        if key != "precision" or not isinstance(value, Tensor) or value.ndim != 5:
            return {}
        ious = torch.tensor(self.iou_thresholds, dtype=torch.float64)
        close = (ious - 0.5).abs() < 1e-9
        iou_index = int(close.nonzero()[0, 0]) if bool(close.any()) else 0
        curves = value[iou_index, :, :, 0, -1].double()  # (R, K)
        curves = torch.where(curves < 0, torch.full_like(curves, float("nan")), curves)
        recall = torch.tensor(self.rec_thresholds, dtype=torch.float64)
        return {"pr_curve": ([curves[:, k] for k in range(curves.shape[1])], [recall] * curves.shape[1])}

    def plot(self, val: Any = None, ax: Any = None) -> Any:
        """Draw the scalar entries of a result (default ``compute()``) as bars, or a series of results."""
        from lightning_metrics import plotting

        val = self.compute() if val is None else val

        def scalars(result: dict) -> dict:
            return {k: v for k, v in result.items()
                    if isinstance(v, Tensor) and v.numel() == 1 and v.is_floating_point() and "per_class" not in k}

        val = scalars(val) if isinstance(val, dict) else [scalars(v) for v in val]
        return plotting.plot_metric(self, val=val, ax=ax)
