"""Bad detection input: a clear error naming the argument, the image index and the key, and a rejected
batch (through ``update`` or ``forward``) leaves the metric exactly as it was."""

from __future__ import annotations

import copy
import warnings
from typing import Any, Callable

import pytest
import torch

from lightning_metrics.detection import IntersectionOverUnion, MeanAveragePrecision, PanopticQuality
from tests.detection._cases import detection_data
from tests.reliability._registry import assert_identical


def _good(masks: bool = False, seed: int = 0) -> tuple[list, list]:
    """Three images: 0 without ground truth, 1 without detections, 2 with both."""
    return detection_data(seed, num_images=3, crowded_image=False, masks=masks)


def _edit(side: int, image: int, key: str, fn: Callable[[Any], Any]) -> Callable[[tuple], tuple]:
    def bad(batch: tuple) -> tuple:
        out = copy.deepcopy(batch)
        if fn is None:
            del out[side][image][key]
        else:
            out[side][image][key] = fn(out[side][image][key])
        return out

    return bad


def _swap_corners(boxes: torch.Tensor) -> torch.Tensor:
    out = boxes.clone()
    out[0, [0, 2]] = out[0, [2, 0]] + torch.tensor([1.0, -1.0])  # x2 < x1
    return out


def _nan_box(boxes: torch.Tensor) -> torch.Tensor:
    out = boxes.clone()
    out[-1, 3] = float("nan")
    return out


P, T = 0, 1
CASES: list[tuple[str, bool, Callable[[tuple], tuple], tuple[str, ...]]] = [
    ("missing-scores", False, _edit(P, 1, "scores", None), ("`preds[1]`", "'scores'")),
    ("missing-labels", False, _edit(T, 2, "labels", None), ("`target[2]`", "'labels'")),
    ("missing-boxes", False, _edit(T, 1, "boxes", None), ("`target[1]`", "'boxes'")),
    ("missing-masks", True, _edit(P, 2, "masks", None), ("`preds[2]`", "'masks'")),
    ("boxes-not-nx4", False, _edit(P, 2, "boxes", lambda b: torch.cat([b, b[:, :1]], 1)), ("`preds[2]['boxes']`", "(N, 4)")),
    ("boxes-flat", False, _edit(T, 1, "boxes", lambda b: b.flatten()), ("`target[1]['boxes']`", "(N, 4)")),
    ("x2-below-x1", False, _edit(T, 1, "boxes", _swap_corners), ("`target[1]['boxes']`", "row 0", "x2 >= x1")),
    ("nan-box", False, _edit(P, 2, "boxes", _nan_box), ("`preds[2]['boxes']`", "finite")),
    ("scores-shorter", False, _edit(P, 2, "scores", lambda s: s[:-1]), ("`preds[2]['scores']`", "shape")),
    ("boxes-longer", False, _edit(P, 2, "boxes", lambda b: torch.cat([b, b[:1]])), ("`preds[2]['boxes']`", "labels")),
    ("masks-other-size", True, _edit(P, 2, "masks", lambda m: torch.zeros(m.shape[0], 48, 47, dtype=torch.bool)),
     ("`preds[2]['masks']`", "(48, 47)", "`target[2]['masks']`")),
    ("masks-fewer", True, _edit(T, 2, "masks", lambda m: m[:-1]), ("`target[2]['masks']`", "one mask per label")),
    ("masks-float", True, _edit(T, 1, "masks", lambda m: m.float()), ("`target[1]['masks']`", "bool")),
    ("labels-float", False, _edit(T, 1, "labels", lambda v: v.float()), ("`target[1]['labels']`", "integer")),
    ("labels-bool", False, _edit(P, 1, "labels", lambda v: v > 0), ("`preds[1]['labels']`", "integer")),
    ("scores-int", False, _edit(P, 1, "scores", lambda s: (s * 10).long()), ("`preds[1]['scores']`", "floating")),
    ("scores-list", False, _edit(P, 2, "scores", lambda s: s.tolist()), ("`preds[2]['scores']`", "tensor")),
    ("crowd-2", False, _edit(T, 2, "iscrowd", lambda c: c + 2), ("`target[2]['iscrowd']`", "0 or 1")),
    ("area-shorter", False, _edit(T, 1, "area", lambda a: torch.ones(0)), ("`target[1]['area']`", "shape")),
    ("dict-not-list", False, lambda b: (b[0][0], b[1]), ("`preds`", "list of dicts")),
    ("item-not-dict", False, lambda b: (b[0], [b[1][0], (1, 2), b[1][2]]), ("`target[1]`", "dict")),
    ("lengths-differ", False, lambda b: (b[0], b[1][:2]), ("`preds`", "`target`", "3 and 2")),
]


def _with_area(batch: tuple) -> tuple:
    preds, target = batch
    for t in target:
        t["area"] = torch.full((t["labels"].shape[0],), 50.0)
    return preds, target


@pytest.mark.parametrize("mode", ["update", "forward"])
@pytest.mark.parametrize(("case", "masks", "bad", "needles"), CASES, ids=[c[0] for c in CASES])
def test_bad_batch_is_named_and_leaves_state_untouched(case: str, masks: bool, bad: Callable, needles: tuple,
                                                      mode: str) -> None:
    iou_type = "segm" if masks else "bbox"
    first, second = _with_area(_good(masks, 0)), _with_area(_good(masks, 1))
    metric = MeanAveragePrecision(iou_type=iou_type, class_metrics=True)
    metric.update(*first)
    count = metric.update_count
    with warnings.catch_warnings(), pytest.raises((ValueError, TypeError)) as info:
        warnings.simplefilter("ignore")
        metric.update(*bad(first)) if mode == "update" else metric(*bad(first))
    for needle in needles:
        assert needle in str(info.value), f"{needle!r} not in {info.value}"
    assert metric.update_count == count
    metric.update(*second)
    fresh = MeanAveragePrecision(iou_type=iou_type, class_metrics=True)
    fresh.update(*first)
    fresh.update(*second)
    assert_identical(metric.compute(), fresh.compute())


def test_value_checks_skipped_without_validate_args() -> None:
    preds, target = _good()
    bad = _edit(T, 1, "boxes", _swap_corners)((preds, target))
    MeanAveragePrecision(validate_args=False).update(*bad)  # no error, no host read for the check
    with pytest.raises(ValueError, match="x2 >= x1"):
        MeanAveragePrecision().update(*bad)


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
