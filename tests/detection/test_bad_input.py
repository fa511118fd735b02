"""Bad detection input: a clear error naming the argument, the image index, the key and the value,
and a rejected batch (through ``update`` or ``forward``) leaves the metric exactly as it was: its
states, its update count and ``compute()`` (:func:`tests._bad_input.assert_rejected_untouched`)."""

from __future__ import annotations

import copy
import warnings
from typing import Any, Callable

import pytest
import torch

from lightning_metrics.detection import IntersectionOverUnion, MeanAveragePrecision, PanopticQuality
from tests._bad_input import assert_rejected_untouched
from tests.detection._cases import detection_data
from tests.reliability._registry import assert_identical

NAN, INF = float("nan"), float("inf")


def _good(masks: bool = False, seed: int = 0, box_format: str = "xyxy") -> tuple[list, list]:
    """Three images: 0 without ground truth, 1 without detections, 2 with both."""
    return detection_data(seed, num_images=3, crowded_image=False, masks=masks, box_format=box_format)


def _edit(side: int, image: int, key: str, fn: Callable[[Any], Any]) -> Callable[[tuple], tuple]:
    def bad(batch: tuple) -> tuple:
        out = copy.deepcopy(batch)
        if fn is None:
            del out[side][image][key]
        else:
            out[side][image][key] = fn(out[side][image][key])
        return out

    return bad


def _put(index: Any, value: float) -> Callable[[torch.Tensor], torch.Tensor]:
    def put(values: torch.Tensor) -> torch.Tensor:
        out = values.clone()
        out[index] = value
        return out

    return put


def _swap_corners(boxes: torch.Tensor) -> torch.Tensor:
    out = boxes.clone()
    out[0, [0, 2]] = out[0, [2, 0]] + torch.tensor([1.0, -1.0])  # x2 < x1
    return out


def _swap_rows(boxes: torch.Tensor) -> torch.Tensor:
    out = boxes.clone()
    out[1, [1, 3]] = out[1, [3, 1]] + torch.tensor([1.0, -1.0])  # y2 < y1
    return out


P, T = 0, 1
XYWH, CXCYWH = {"box_format": "xywh"}, {"box_format": "cxcywh"}
# (id, masks, MeanAveragePrecision arguments, bad batch from the good one, needles of the message)
CASES: list[tuple[str, bool, dict, Callable[[tuple], tuple], tuple[str, ...]]] = [
    ("missing-scores", False, {}, _edit(P, 1, "scores", None), ("`preds[1]`", "'scores'")),
    ("missing-labels", False, {}, _edit(T, 2, "labels", None), ("`target[2]`", "'labels'")),
    ("missing-boxes", False, {}, _edit(T, 1, "boxes", None), ("`target[1]`", "'boxes'")),
    ("missing-masks", True, {}, _edit(P, 2, "masks", None), ("`preds[2]`", "'masks'")),
    ("boxes-not-nx4", False, {}, _edit(P, 2, "boxes", lambda b: torch.cat([b, b[:, :1]], 1)),
     ("`preds[2]['boxes']`", "(N, 4)")),
    ("boxes-flat", False, {}, _edit(T, 1, "boxes", lambda b: b.flatten()), ("`target[1]['boxes']`", "(N, 4)")),
    ("boxes-bool", False, {}, _edit(T, 2, "boxes", lambda b: b > 50), ("`target[2]['boxes']`", "real numbers")),
    ("x2-below-x1", False, {}, _edit(T, 1, "boxes", _swap_corners), ("`target[1]['boxes']`", "row 0", "x2 >= x1")),
    ("y2-below-y1", False, {}, _edit(P, 2, "boxes", _swap_rows), ("`preds[2]['boxes']`", "row 1", "y2 >= y1")),
    ("xywh-negative-width", False, XYWH, _edit(T, 2, "boxes", _put((0, 2), -3.0)),
     ("`target[2]['boxes']`", "row 0", "-3.0", "'xywh'", "w >= 0 and h >= 0")),
    ("xywh-negative-height", False, XYWH, _edit(P, 2, "boxes", _put((1, 3), -0.5)),
     ("`preds[2]['boxes']`", "row 1", "-0.5", "'xywh'")),
    ("cxcywh-negative-width", False, CXCYWH, _edit(P, 2, "boxes", _put((0, 2), -1.0)),
     ("`preds[2]['boxes']`", "row 0", "'cxcywh'", "w >= 0 and h >= 0")),
    ("nan-box", False, {}, _edit(P, 2, "boxes", _put((-1, 3), NAN)), ("`preds[2]['boxes']`", "nan", "finite")),
    ("inf-box", False, {}, _edit(T, 2, "boxes", _put((0, 2), INF)), ("`target[2]['boxes']`", "inf", "finite")),
    ("nan-box-xywh", False, XYWH, _edit(T, 1, "boxes", _put((0, 0), NAN)), ("`target[1]['boxes']`", "nan")),
    ("nan-score", False, {}, _edit(P, 2, "scores", _put(1, NAN)),
     ("`preds[2]['scores']`", "finite", "nan at index 1")),
    ("inf-score", False, {}, _edit(P, 2, "scores", _put(0, INF)), ("`preds[2]['scores']`", "inf at index 0")),
    ("minus-inf-score", False, {}, _edit(P, 2, "scores", _put(-1, -INF)), ("`preds[2]['scores']`", "-inf")),
    ("nan-score-masks", True, {}, _edit(P, 2, "scores", _put(0, NAN)), ("`preds[2]['scores']`", "nan")),
    ("scores-shorter", False, {}, _edit(P, 2, "scores", lambda s: s[:-1]), ("`preds[2]['scores']`", "shape")),
    ("scores-2d", False, {}, _edit(P, 2, "scores", lambda s: s[:, None]), ("`preds[2]['scores']`", "shape")),
    ("boxes-longer", False, {}, _edit(P, 2, "boxes", lambda b: torch.cat([b, b[:1]])),
     ("`preds[2]['boxes']`", "labels")),
    ("masks-other-size", True, {}, _edit(P, 2, "masks", lambda m: torch.zeros(m.shape[0], 48, 47, dtype=torch.bool)),
     ("`preds[2]['masks']`", "(48, 47)", "`target[2]['masks']`")),
    ("masks-fewer", True, {}, _edit(T, 2, "masks", lambda m: m[:-1]), ("`target[2]['masks']`", "one mask per label")),
    ("masks-float", True, {}, _edit(T, 1, "masks", lambda m: m.float()), ("`target[1]['masks']`", "bool")),
    ("labels-float", False, {}, _edit(T, 1, "labels", lambda v: v.float()), ("`target[1]['labels']`", "integer")),
    ("labels-bool", False, {}, _edit(P, 1, "labels", lambda v: v > 0), ("`preds[1]['labels']`", "integer")),
    ("labels-2d", False, {}, _edit(T, 2, "labels", lambda v: v[:, None]), ("`target[2]['labels']`", "(N,)")),
    ("labels-list", False, {}, _edit(T, 2, "labels", lambda v: v.tolist()), ("`target[2]['labels']`", "tensor")),
    ("scores-int", False, {}, _edit(P, 1, "scores", lambda s: (s * 10).long()), ("`preds[1]['scores']`", "floating")),
    ("scores-list", False, {}, _edit(P, 2, "scores", lambda s: s.tolist()), ("`preds[2]['scores']`", "tensor")),
    ("crowd-2", False, {}, _edit(T, 2, "iscrowd", lambda c: c + 2), ("`target[2]['iscrowd']`", "0 or 1")),
    ("crowd-negative", False, {}, _edit(T, 2, "iscrowd", _put(0, -1)), ("`target[2]['iscrowd']`", "-1", "index 0")),
    ("area-shorter", False, {}, _edit(T, 1, "area", lambda a: torch.ones(0)), ("`target[1]['area']`", "shape")),
    ("area-nan", False, {}, _edit(T, 2, "area", _put(1, NAN)), ("`target[2]['area']`", "nan", "index 1")),
    ("area-negative", False, {}, _edit(T, 2, "area", _put(0, -4.0)), ("`target[2]['area']`", "-4.0", "non-negative")),
    ("dict-not-list", False, {}, lambda b: (b[0][0], b[1]), ("`preds`", "list of dicts")),
    ("preds-none", False, {}, lambda b: (None, b[1]), ("`preds`", "NoneType")),
    ("item-not-dict", False, {}, lambda b: (b[0], [b[1][0], (1, 2), b[1][2]]), ("`target[1]`", "dict")),
    ("lengths-differ", False, {}, lambda b: (b[0], b[1][:2]), ("`preds`", "`target`", "3 and 2")),
]  # fmt: skip


def _with_area(batch: tuple) -> tuple:
    preds, target = batch
    for t in target:
        t["area"] = torch.full((t["labels"].shape[0],), 50.0)
    return preds, target


@pytest.mark.parametrize(("case", "masks", "kwargs", "bad", "needles"), CASES, ids=[c[0] for c in CASES])
def test_bad_batch_is_named_and_leaves_state_untouched(case: str, masks: bool, kwargs: dict, bad: Callable,
                                                      needles: tuple) -> None:
    box_format = kwargs.get("box_format", "xyxy")
    good = [_with_area(_good(masks, seed, box_format)) for seed in (0, 1)]
    iou_type = "segm" if masks else "bbox"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_rejected_untouched(
            lambda: MeanAveragePrecision(iou_type=iou_type, class_metrics=True, **kwargs), good, bad(good[0]),
            needles=needles,
        )


@pytest.mark.parametrize(
    "bad",
    [_edit(T, 1, "boxes", _swap_corners), _edit(P, 2, "scores", _put(1, NAN)), _edit(P, 2, "boxes", _put((0, 1), INF)),
     _edit(T, 2, "iscrowd", _put(0, 3))],
    ids=["x2-below-x1", "nan-score", "inf-box", "crowd-3"],
)
def test_value_checks_skipped_without_validate_args(bad: Callable) -> None:
    batch = bad(_good())
    MeanAveragePrecision(validate_args=False).update(*batch)  # no error, no host read for the check
    with pytest.raises(ValueError, match="`(preds|target)\\[[12]\\]"):
        MeanAveragePrecision().update(*batch)


def test_iou_metrics_reject_non_finite_boxes_unless_told_not_to() -> None:
    good = [_good(seed=seed) for seed in (0, 1)]
    for bad, needles in (
        (_edit(P, 2, "boxes", _put((1, 2), NAN)), ("`preds[2]['boxes']`", "nan at index (1, 2)")),
        (_edit(T, 1, "boxes", _put((0, 0), -INF)), ("`target[1]['boxes']`", "-inf at index (0, 0)")),
    ):
        assert_rejected_untouched(IntersectionOverUnion, good, bad(good[0]), needles=needles)
        IntersectionOverUnion(validate_args=False).update(*bad(good[0]))  # skipped: no host read


def test_iou_metrics_name_the_image_and_key() -> None:
    preds, target = _good()
    metric = IntersectionOverUnion()
    metric.update(preds, target)
    before = metric.compute()
    for bad, needle in (
        (_edit(T, 2, "labels", None), "`target[2]`"),
        (_edit(P, 2, "boxes", lambda b: b[:, :3]), "`preds[2]['boxes']`"),
        (_edit(T, 2, "boxes", lambda b: b[:-1]), "`target[2]['boxes']`"),
        (lambda b: (b[0][0], b[1]), "`preds`"),
    ):
        with pytest.raises(ValueError, match=None) as info:
            metric.update(*bad((preds, target)))
        assert needle in str(info.value)
    assert_identical(metric.compute(), before)


def test_panoptic_bad_input_keeps_state() -> None:
    metric = PanopticQuality(things={0, 1}, stuffs={6})
    good = torch.tensor([[[[0, 0], [6, 0]], [[1, 1], [6, 0]]]])
    metric.update(good, good)
    before = metric.compute()
    with pytest.raises(ValueError, match="Unknown categories found in `preds`"):
        metric.update(torch.tensor([[[[9, 0], [6, 0]], [[1, 1], [6, 0]]]]), good)
    with pytest.raises(ValueError, match="same shape"):
        metric.update(good[..., :1, :], good)
    with pytest.raises(ValueError, match="2 channels"):
        metric.update(good[..., :1], good[..., :1])
    with pytest.raises(TypeError, match="`things`"):
        PanopticQuality(things={0.5}, stuffs={6})
    with pytest.raises(ValueError, match="distinct"):
        PanopticQuality(things={0, 6}, stuffs={6})
    assert_identical(metric.compute(), before)
