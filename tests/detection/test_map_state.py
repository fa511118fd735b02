"""MeanAveragePrecision's state: streaming in any batching equals one update and the function,
``merge_state`` and ``forward`` merge exactly, copies survive, and a collection shares one state
between metrics that differ only in what ``compute`` does."""

from __future__ import annotations

import copy
import io
import pickle
import warnings

import pytest
import torch

from lightning_metrics import MetricCollection
from lightning_metrics.detection import MeanAveragePrecision
from lightning_metrics.functional.detection import mean_average_precision
from tests.detection._cases import detection_data
from tests.reliability._registry import assert_identical

pytestmark = pytest.mark.filterwarnings("ignore:Encountered more than")

OPTIONS = [{"iou_type": "bbox"}, {"iou_type": "segm"}, {"iou_type": ("bbox", "segm"), "average": "micro"}]


def _data(options: dict, seed: int = 0) -> tuple[list, list]:
    return detection_data(seed, num_images=9, masks="segm" in str(options["iou_type"]))


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: str(o["iou_type"]))
def test_streaming_in_any_batching_equals_one_update(options: dict) -> None:
    preds, target = _data(options)
    one = MeanAveragePrecision(class_metrics=True, extended_summary=True, **options)
    one.update(preds, target)
    per_image = MeanAveragePrecision(class_metrics=True, extended_summary=True, **options)
    for p, t in zip(preds, target):
        per_image.update([p], [t])
    expected = one.compute()
    assert_identical(per_image.compute(), expected)
    functional = mean_average_precision(preds, target, class_metrics=True, extended_summary=True, **options)
    for key in expected:
        if key.endswith("ious"):
            continue
        assert_identical(functional[key], expected[key], key)


@pytest.mark.parametrize("options", OPTIONS[:2], ids=lambda o: str(o["iou_type"]))
def test_merge_state_and_forward(options: dict) -> None:
    preds, target = _data(options, seed=1)
    whole = MeanAveragePrecision(class_metrics=True, **options)
    whole.update(preds, target)
    a, b = MeanAveragePrecision(class_metrics=True, **options), MeanAveragePrecision(class_metrics=True, **options)
    b.update(preds[:4], target[:4])
    a.update(preds[4:], target[4:])
    a.merge_state(b)  # the incoming images come first: ties in scores across images keep the data's order
    assert_identical(a.compute(), whole.compute())
    stepped = MeanAveragePrecision(class_metrics=True, **options)
    batch_value = stepped(preds[:4], target[:4])
    alone = MeanAveragePrecision(class_metrics=True, **options)
    alone.update(preds[:4], target[:4])
    assert_identical(batch_value, alone.compute())
    stepped(preds[4:], target[4:])
    assert_identical(stepped.compute(), whole.compute())


@pytest.mark.parametrize("options", OPTIONS[:2], ids=lambda o: str(o["iou_type"]))
def test_copies_keep_the_state(options: dict) -> None:
    preds, target = _data(options, seed=2)
    metric = MeanAveragePrecision(**options)
    metric.update(preds[:5], target[:5])
    metric.persistent(True)
    buffer = io.BytesIO()
    torch.save(metric.state_dict(), buffer)
    buffer.seek(0)
    loaded = MeanAveragePrecision(**options)
    loaded.persistent(True)
    loaded.load_state_dict(torch.load(buffer, weights_only=True))
    copies = [loaded, pickle.loads(pickle.dumps(metric)), copy.deepcopy(metric), metric.clone()]
    metric.update(preds[5:], target[5:])
    for other in copies:
        other.update(preds[5:], target[5:])
        assert_identical(other.compute(), metric.compute())


def test_collection_shares_one_state_across_compute_options() -> None:
    preds, target = _data({"iou_type": "bbox"}, seed=3)
    collection = MetricCollection({
        "map": MeanAveragePrecision(),
        "map_classes": MeanAveragePrecision(class_metrics=True, extended_summary=True),
        "map_micro": MeanAveragePrecision(average="micro"),
        "map_xywh": MeanAveragePrecision(box_format="xywh"),
    })
    assert sorted(map(sorted, collection.compute_groups.values())) == [
        ["map", "map_classes", "map_micro"], ["map_xywh"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        collection.update(preds, target)
    result = collection.compute()
    alone = MeanAveragePrecision(class_metrics=True)
    alone.update(preds, target)
    assert_identical(result["map_classes_map_per_class"], alone.compute()["map_per_class"])
