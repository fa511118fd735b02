"""Modular detection metrics (torchmetrics names and arguments), computed natively in torch.

:class:`MeanAveragePrecision` gives pycocotools' ``COCOeval`` numbers at pycocotools' default
thresholds (its float64 ``np.linspace`` values; torchmetrics passes float32 ones, which moves
``map`` by 1e-5 to 1e-3 on ordinary data). With ``max_detection_thresholds`` that do not include
100, ``map`` is the mAP at the largest cap, as ``map_50``, ``map_75`` and the per-area mAPs are;
pycocotools, and so torchmetrics, read ``map`` at 100 detections only and give -1
(faster-coco-eval reads the largest cap, as here). The other differences are listed in the class
docstring.

>>> import torch
>>> from lightning_metrics.detection import MeanAveragePrecision
>>> metric = MeanAveragePrecision()
>>> metric.update([{"boxes": torch.tensor([[0.0, 0.0, 10.0, 10.0]]), "scores": torch.tensor([0.9]),
...                 "labels": torch.tensor([1])}],
...               [{"boxes": torch.tensor([[0.0, 0.0, 10.0, 10.0]]), "labels": torch.tensor([1])}])
>>> metric.compute()["map"]
tensor(1.)

Notes and differences from torchmetrics (detection)
---------------------------------------------------

``MeanAveragePrecision`` runs the COCO protocol exactly as pycocotools' ``COCOeval``
implements it (stable score ranking per image and class, greedy matching at every IoU threshold at
once, crowd regions matched without being consumed, area ranges, detection caps, 101-point
interpolated precision, -1 for classes without ground truth), natively in torch: no pycocotools,
faster-coco-eval or torchvision at run time; ``backend`` is accepted and ignored. Detections are
flat ``cat`` states (about 48 bytes per box), so a DDP sync gathers every image in one exchange and
``compute`` runs once on the merged state: N processes give the one-process value. Masks are kept as
runs of set pixels along rows, so memory follows object size, not image size. A step returns
``{"preds": [dict, ...], "target": [dict, ...]}``; give the metric in a list so its keys log as
``val/map``, ``val/map_50``, ..., and ``class_names`` (a list indexed by class id, or a dict
``{id: name}``) for ``val/map_per_class/<id>_<class>``: per-class results are keyed by the class id
the metric reports in ``classes``, so a class keeps its key when others come and go. mAP's -1 (no
ground truth in an area range or class that epoch) is never logged as a number: the callback
leaves it out of that epoch's scalars, says so once, and draws it as "n/a" in the per-class bars.
Differences from
torchmetrics' pycocotools backend: ``map`` reads the largest detection cap (pycocotools returns -1
when 100 is not a cap; faster-coco-eval reads the largest too); mask-only evaluation keeps images
without ground-truth masks (their detections count as false positives); the extended summary's
``ious`` holds empty tensors where pycocotools has ``[]``; the per-class keys are always present;
``validate_args=False`` skips the box value checks; ``full_state_update=False``.
"""

from lightning_metrics.detection.iou import (
    CompleteIntersectionOverUnion,
    DistanceIntersectionOverUnion,
    GeneralizedIntersectionOverUnion,
    IntersectionOverUnion,
)
from lightning_metrics.detection.mean_ap import MeanAveragePrecision
from lightning_metrics.detection.panoptic_qualities import ModifiedPanopticQuality, PanopticQuality

__all__ = [
    "CompleteIntersectionOverUnion",
    "DistanceIntersectionOverUnion",
    "GeneralizedIntersectionOverUnion",
    "IntersectionOverUnion",
    "MeanAveragePrecision",
    "ModifiedPanopticQuality",
    "PanopticQuality",
]
