"""MeanAveragePrecision edge cases: torchmetrics' documented values, empty inputs, the result's keys,
dtypes and shapes, arguments, warnings, and memory proportional to the objects."""

from __future__ import annotations

import warnings

import pytest
import torch

from lightning_metrics.detection import MeanAveragePrecision
from lightning_metrics.functional.detection import mean_average_precision
from tests.detection._coco_oracle import coco_eval

KEYS = {"map", "map_50", "map_75", "map_small", "map_medium", "map_large", "mar_1", "mar_10", "mar_100",
        "mar_small", "mar_medium", "mar_large", "map_per_class", "mar_100_per_class", "classes"}


def _box(*xyxy: float) -> torch.Tensor:
    return torch.tensor([list(xyxy)])


def test_torchmetrics_documented_bbox_example() -> None:
    preds = [{"boxes": _box(258.0, 41.0, 606.0, 285.0), "scores": torch.tensor([0.536]), "labels": torch.tensor([0])}]
    target = [{"boxes": _box(214.0, 41.0, 562.0, 285.0), "labels": torch.tensor([0])}]
    metric = MeanAveragePrecision(iou_type="bbox")
    metric.update(preds, target)
    result = metric.compute()
    assert set(result) == KEYS
    expected = {"map": 0.6, "map_50": 1.0, "map_75": 1.0, "map_large": 0.6, "map_medium": -1.0, "map_small": -1.0,
                "mar_1": 0.6, "mar_10": 0.6, "mar_100": 0.6, "mar_large": 0.6, "mar_medium": -1.0, "mar_small": -1.0,
                "map_per_class": -1.0, "mar_100_per_class": -1.0}
    for key, value in expected.items():
        assert result[key].shape == () and result[key].dtype == torch.float32, key
        assert float(result[key]) == pytest.approx(value, abs=1e-4), key
    assert result["classes"].dtype == torch.int32 and result["classes"].tolist() == 0


def test_torchmetrics_documented_segm_example() -> None:
    mask_pred = [[0, 0, 0, 0, 0], [0, 0, 1, 1, 0], [0, 0, 1, 1, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]]
    mask_tgt = [[0, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 1, 1, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 0]]
    preds = [{"masks": torch.tensor([mask_pred], dtype=torch.bool), "scores": torch.tensor([0.536]),
              "labels": torch.tensor([0])}]
    target = [{"masks": torch.tensor([mask_tgt], dtype=torch.bool), "labels": torch.tensor([0])}]
    # the IoU is 3 / 5 = 0.6: torchmetrics' float32 threshold 0.6000000238 misses it, pycocotools' 0.6 does not
    float32_thresholds = torch.linspace(0.5, 0.95, 10).tolist()
    result = MeanAveragePrecision(iou_type="segm", iou_thresholds=float32_thresholds)(preds, target)
    expected = {"map": 0.2, "map_50": 1.0, "map_75": 0.0, "map_large": -1.0, "map_medium": -1.0, "map_small": 0.2,
                "mar_1": 0.2, "mar_10": 0.2, "mar_100": 0.2, "mar_small": 0.2}
    for key, value in expected.items():
        assert float(result[key]) == pytest.approx(value, abs=1e-4), key
    result = MeanAveragePrecision(iou_type="segm")(preds, target)  # pycocotools' default thresholds
    names = ("map", "map_50", "map_75", "map_small", "map_medium", "map_large", "mar_1", "mar_10", "mar_100")
    reference = coco_eval(preds, target, iou_type="segm")["pycocotools_stats"]
    assert [float(result[k]) for k in names] == pytest.approx(reference[:9].tolist(), abs=1e-6)
    assert float(result["map"]) == pytest.approx(0.3) and float(result["mar_100"]) == pytest.approx(0.3)


def test_no_images_and_images_without_objects() -> None:
    metric = MeanAveragePrecision(class_metrics=True, extended_summary=True)
    with pytest.warns(UserWarning, match="before the ``update``"):
        empty = metric.compute()
    assert all(float(empty[k]) == -1.0 for k in KEYS - {"classes", "map_per_class", "mar_100_per_class"})
    assert empty["classes"].numel() == 0 and empty["map_per_class"].numel() == 0
    assert empty["precision"].shape == (10, 101, 0, 4, 3) and empty["ious"] == {}
    nothing = {"boxes": torch.zeros(0, 4), "scores": torch.zeros(0), "labels": torch.zeros(0, dtype=torch.long)}
    metric.update([nothing, nothing], [{"boxes": torch.zeros(0, 4), "labels": torch.zeros(0, dtype=torch.long)}] * 2)
    result = metric.compute()
    assert float(result["map"]) == -1.0 and set(result["ious"]) == set()


def test_only_predictions_or_only_targets() -> None:
    box, label = _box(0.0, 0.0, 10.0, 10.0), torch.tensor([3])
    only_preds = mean_average_precision([{"boxes": box, "scores": torch.tensor([0.9]), "labels": label}],
                                        [{"boxes": torch.zeros(0, 4), "labels": torch.zeros(0, dtype=torch.long)}])
    assert float(only_preds["map"]) == -1.0 and only_preds["classes"].tolist() == 3
    only_targets = mean_average_precision([{"boxes": torch.zeros(0, 4), "scores": torch.zeros(0),
                                            "labels": torch.zeros(0, dtype=torch.long)}],
                                          [{"boxes": box, "labels": label}], extended_summary=True)
    assert float(only_targets["map"]) == 0.0 and float(only_targets["mar_100"]) == 0.0
    assert only_targets["ious"][(0, 3)].shape == (0, 1)


def test_image_without_ground_truth_counts_for_masks_too() -> None:
    """A deliberate difference: torchmetrics drops segm images without target masks, pycocotools would not."""
    mask = torch.zeros(1, 8, 8, dtype=torch.bool)
    mask[0, 2:6, 2:6] = True
    preds = [{"masks": mask, "scores": torch.tensor([0.9]), "labels": torch.tensor([0])},
             {"masks": mask, "scores": torch.tensor([0.95]), "labels": torch.tensor([0])}]
    target = [{"masks": mask, "labels": torch.tensor([0])},
              {"masks": torch.zeros(0, 8, 8, dtype=torch.bool), "labels": torch.zeros(0, dtype=torch.long)}]
    ours = mean_average_precision(preds, target, iou_type="segm")
    ref = coco_eval(preds, target, iou_type="segm")
    assert float(ours["map"]) == pytest.approx(ref["stats"][0]) and float(ours["map"]) < 1.0


def test_micro_pools_classes_and_keeps_the_class_list() -> None:
    box = _box(0.0, 0.0, 10.0, 10.0)
    preds = [{"boxes": box, "scores": torch.tensor([0.9]), "labels": torch.tensor([1])}]
    target = [{"boxes": box, "labels": torch.tensor([2])}]
    assert float(mean_average_precision(preds, target, average="macro")["map"]) == 0.0
    micro = mean_average_precision(preds, target, average="micro", extended_summary=True)
    assert float(micro["map"]) == 1.0 and micro["classes"].tolist() == [1, 2]
    assert set(micro["ious"]) == {(0, 0)} and micro["precision"].shape[2] == 1


def test_more_detections_than_the_cap_warn_and_are_cut() -> None:
    gen = torch.Generator().manual_seed(0)
    boxes = torch.rand(120, 2, generator=gen) * 50
    boxes = torch.cat([boxes, boxes + 5], 1)
    preds = [{"boxes": boxes, "scores": torch.rand(120, generator=gen), "labels": torch.zeros(120, dtype=torch.long)}]
    target = [{"boxes": boxes[:30], "labels": torch.zeros(30, dtype=torch.long)}]
    metric = MeanAveragePrecision()
    with pytest.warns(UserWarning, match="more than 100 detections"):
        metric.update(preds, target)
    metric.warn_on_many_detections = False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        metric.update(preds, target)
    ref = coco_eval(preds * 2, target * 2)
    assert float(metric.compute()["map"]) == pytest.approx(ref["stats"][0], abs=1e-6)


def test_backend_is_accepted_and_ignored() -> None:
    box = _box(0.0, 0.0, 10.0, 10.0)
    preds = [{"boxes": box, "scores": torch.tensor([0.9]), "labels": torch.tensor([1])}]
    target = [{"boxes": box, "labels": torch.tensor([1])}]
    a = MeanAveragePrecision(backend="pycocotools")(preds, target)
    b = MeanAveragePrecision(backend="faster_coco_eval")(preds, target)
    assert all(torch.equal(a[k], b[k]) for k in a)


BAD_ARGUMENTS = [
    ({"box_format": "xyhw"}, "`box_format`.*'xyhw'"),
    ({"iou_type": "keypoints"}, "`iou_type`.*'keypoints'"),
    ({"iou_thresholds": 0.5}, "`iou_thresholds`.*0.5"),
    ({"rec_thresholds": (0.1, 0.2)}, "`rec_thresholds`"),
    ({"max_detection_thresholds": [1, 10]}, "`max_detection_thresholds` must hold 3"),
    ({"max_detection_thresholds": [1, 10, 0]}, "`max_detection_thresholds`.*positive"),
    ({"class_metrics": 1}, "`class_metrics`.*1"),
    ({"extended_summary": "yes"}, "`extended_summary`.*'yes'"),
    ({"average": "weighted"}, "`average`.*'weighted'"),
    ({"backend": "detectron"}, "`backend`.*'detectron'"),
    ({"validate_args": None}, "`validate_args`.*None"),
]


@pytest.mark.parametrize(("kwargs", "message"), BAD_ARGUMENTS, ids=[str(k) for k, _ in BAD_ARGUMENTS])
def test_bad_arguments(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        MeanAveragePrecision(**kwargs)


def test_arguments_are_recorded_as_torchmetrics_does() -> None:
    """The default thresholds are pycocotools' float64 values (torchmetrics records float32 ones)."""
    import numpy as np

    metric = MeanAveragePrecision(iou_type="segm", max_detection_thresholds=[100, 1, 10])
    assert metric.iou_type == ("segm",) and metric.max_detection_thresholds == [1, 10, 100]
    assert metric.iou_thresholds == np.linspace(0.5, 0.95, 10).tolist()
    assert metric.rec_thresholds == np.linspace(0.0, 1.0, 101).tolist()
    assert MeanAveragePrecision(rec_thresholds=[0.25, 0.75]).rec_thresholds == [0.25, 0.75]


def test_mask_state_grows_with_objects_not_images() -> None:
    """A 10x10 object in a 1000x1000 image costs a few hundred bytes, not a megapixel."""
    mask = torch.zeros(2, 1000, 1000, dtype=torch.bool)
    mask[0, 100:110, 200:210] = True
    mask[1, 500:510, 500:520] = True
    metric = MeanAveragePrecision(iou_type="segm")
    metric.update([{"masks": mask, "scores": torch.tensor([0.7, 0.5]), "labels": torch.tensor([0, 0])}],
                  [{"masks": mask[:1], "labels": torch.tensor([0])}])
    state_bytes = sum(t.numel() * t.element_size() for name in metric._defaults for t in getattr(metric, name))
    assert state_bytes < 1000, state_bytes
    assert metric.det_runs[0].shape == (20, 2)  # one run per row the objects cross
    assert float(metric.compute()["map_50"]) == 1.0


def test_runs_on_float64_and_integer_boxes_like_float32() -> None:
    box = _box(0.0, 0.0, 10.0, 10.0)
    target = [{"boxes": box, "labels": torch.tensor([1])}]
    results = [
        mean_average_precision([{"boxes": (box + 1).to(dtype), "scores": torch.tensor([0.9]),
                                 "labels": torch.tensor([1])}], target)["map"]
        for dtype in (torch.float32, torch.float64, torch.int64)
    ]
    assert results[0] == results[1] == results[2]
