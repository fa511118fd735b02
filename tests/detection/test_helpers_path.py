"""torchmetrics' ``detection.helpers`` at its path: the tensor helpers custom detection metrics import
(``_input_validator``, ``_fix_empty_tensors``, ``_validate_iou_type_arg``, ``_get_classes``,
``_warning_on_too_many_detections``) against torchmetrics 1.9 as the oracle, one table of calls on
generated per-image dicts, valid and broken every way the validator knows; ``CocoBackend`` (a
pycocotools/faster-coco-eval driver) says it is not offered.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable

import pytest
import torch
import torchmetrics.detection.helpers as tm_helpers

from lightning_metrics import _compat
from tests._seeds import keyed_generator

lm_helpers = importlib.import_module("lightning_metrics.detection.helpers")


def _image(key: str, n: int, scores: bool = True, masks: bool = False) -> dict[str, torch.Tensor]:
    g = keyed_generator(key)
    xy = torch.rand(n, 2, generator=g) * 50
    item = {"boxes": torch.cat([xy, xy + torch.rand(n, 2, generator=g) * 20 + 1], 1),
            "labels": torch.randint(0, 7, (n,), generator=g)}
    if scores:
        item["scores"] = torch.rand(n, generator=g)
    if masks:
        item["masks"] = torch.rand(n, 16, 16, generator=g) > 0.5
    return item


PREDS = [_image(f"p{i}", n, masks=True) for i, n in enumerate([5, 0, 12, 1, 30])]
TARGET = [_image(f"t{i}", n, scores=False, masks=True) for i, n in enumerate([3, 2, 0, 1, 25])]


def _without(items: list[dict], i: int, key: str) -> list[dict]:
    return [{k: v for k, v in item.items() if not (j == i and k == key)} for j, item in enumerate(items)]


def _with(items: list[dict], i: int, key: str, value: object) -> list[dict]:
    return [{**item, key: value} if j == i else item for j, item in enumerate(items)]


Call = tuple[str, Callable[[object], object]]
CALLS: list[Call] = []
for iou_type in ("bbox", "segm", ("bbox", "segm"), ("segm",), ["bbox"]):
    for ignore_score in (False, True):
        preds = [{k: v for k, v in p.items() if k != "scores"} for p in PREDS] if ignore_score else PREDS
        CALLS.append((f"valid-{iou_type}-{ignore_score}",
                      lambda m, p=preds, t=iou_type, s=ignore_score: m._input_validator(p, TARGET, t, s)))
CALLS += [
    ("valid-tuple-of-dicts", lambda m: m._input_validator(tuple(PREDS), tuple(TARGET))),
    ("valid-empty-lists", lambda m: m._input_validator([], [])),
    ("valid-unchecked-pred-lengths", lambda m: m._input_validator(
        _with([{k: v for k, v in p.items() if k != "scores"} for p in PREDS], 2, "labels", torch.zeros(3)), TARGET,
        ignore_score=True)),
    ("bad-iou-type", lambda m: m._input_validator(PREDS, TARGET, "keypoints")),
    ("bad-iou-type-in-tuple", lambda m: m._input_validator(PREDS, TARGET, ("bbox", "poly"))),
    ("bad-preds-dict", lambda m: m._input_validator(PREDS[0], TARGET)),
    ("bad-target-tensor", lambda m: m._input_validator(PREDS, torch.zeros(5))),
    ("bad-lengths", lambda m: m._input_validator(PREDS, TARGET[:4])),
    ("bad-target-lengths-segm", lambda m: m._input_validator(PREDS, _with(TARGET, 3, "masks", torch.zeros(4, 16, 16)), "segm")),
]
for key in ("boxes", "labels", "scores"):
    CALLS += [
        (f"bad-pred-lacks-{key}", lambda m, k=key: m._input_validator(_without(PREDS, 3, k), TARGET)),
        (f"bad-pred-{key}-not-tensor", lambda m, k=key: m._input_validator(_with(PREDS, 1, k, [0.0]), TARGET)),
        (f"bad-pred-{key}-length", lambda m, k=key: m._input_validator(_with(PREDS, 4, k, PREDS[4][k][:7]), TARGET)),
    ]
for key in ("boxes", "labels"):
    CALLS += [
        (f"bad-target-lacks-{key}", lambda m, k=key: m._input_validator(PREDS, _without(TARGET, 0, k))),
        (f"bad-target-{key}-not-tensor", lambda m, k=key: m._input_validator(PREDS, _with(TARGET, 4, k, (1, 2)))),
        (f"bad-target-{key}-length", lambda m, k=key: m._input_validator(PREDS, _with(TARGET, 0, k, TARGET[0][k][:1]))),
    ]
CALLS += [
    ("bad-pred-lacks-masks", lambda m: m._input_validator(_without(PREDS, 0, "masks"), TARGET, "segm")),
    ("bad-pred-masks-length", lambda m: m._input_validator(_with(PREDS, 2, "masks", torch.zeros(2, 16, 16)), TARGET, "segm")),
    ("bad-target-no-labels-but-scores-ignored", lambda m: m._input_validator(PREDS, _without(TARGET, 1, "labels"),
                                                                           ignore_score=True)),
]
for shape in ((0,), (0, 4), (3, 4), (1, 0), (4,), (0, 0)):
    CALLS.append((f"fix-empty-{shape}", lambda m, s=shape: m._fix_empty_tensors(torch.zeros(s))))
for iou_type in ("bbox", "segm", ("bbox", "segm"), ["segm"], ()):
    CALLS.append((f"iou-type-{iou_type}", lambda m, t=iou_type: m._validate_iou_type_arg(t)))
CALLS += [
    ("bad-iou-type-arg", lambda m: m._validate_iou_type_arg("mask")),
    ("bad-iou-type-arg-tuple", lambda m: m._validate_iou_type_arg(("bbox", "box"))),
    ("iou-type-default", lambda m: m._validate_iou_type_arg()),
    ("classes", lambda m: m._get_classes([p["labels"] for p in PREDS], [t["labels"] for t in TARGET])),
    ("classes-detections-only", lambda m: m._get_classes([p["labels"] for p in PREDS], [])),
    ("classes-none", lambda m: m._get_classes([], [])),
    ("classes-floats", lambda m: m._get_classes([torch.tensor([2.0, 0.5])], [torch.tensor([0.5])])),
]


def _run(module, call: Callable) -> object:
    try:
        return call(module)
    except Exception as error:  # noqa: BLE001 - the outcome compared is the exception's type
        return error


@pytest.mark.parametrize(("name", "call"), CALLS, ids=[c[0] for c in CALLS])
def test_matches_torchmetrics(name: str, call: Callable) -> None:
    theirs, ours = _run(tm_helpers, call), _run(lm_helpers, call)
    if name.startswith("bad-"):
        assert isinstance(theirs, Exception), f"{name}: the oracle accepted it"
        assert isinstance(ours, type(theirs)), f"{name}: torchmetrics raised {theirs!r}, ours gave {ours!r}"
        return
    assert not isinstance(theirs, Exception), f"{name}: the oracle raised {theirs!r}"
    assert not isinstance(ours, Exception), f"{name}: ours raised {ours!r}"
    if isinstance(theirs, torch.Tensor):
        assert (ours.dtype, ours.shape) == (theirs.dtype, theirs.shape)
        torch.testing.assert_close(ours, theirs, rtol=0, atol=0)
    else:
        assert type(ours) is type(theirs) and ours == theirs, (ours, theirs)


def test_warning_on_too_many_detections() -> None:
    for module in (tm_helpers, lm_helpers):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module._warning_on_too_many_detections(100)
        assert [w.category for w in caught] == [UserWarning] and "100" in str(caught[0].message)


def test_the_coco_backend_is_not_offered() -> None:
    with pytest.raises(ImportError, match="does not offer torchmetrics.detection.helpers.CocoBackend: it needs"):
        exec("from lightning_metrics.detection.helpers import CocoBackend", {})
    assert not hasattr(lm_helpers, "CocoBackend")
    assert "CocoBackend" in _compat.table()["detection.helpers"]
    for name in ("_load_coco_backend_tools", "_get_safe_item_values", "_calculate_map_with_coco"):
        assert hasattr(tm_helpers, name) and not hasattr(lm_helpers, name)
