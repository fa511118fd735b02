"""Mean IoU, Dice and generalized Dice against torchmetrics 1.9, over sampled argument combinations.

Every input form (class maps, multi-label 0/1 masks, bool one-hot, scores, both mixed forms), 1 to
4 classes, 2-D and 3-D images, with absent classes, an all-background image, empty masks and a
perfect sample in every batch. Values, dtypes and shapes must equal torchmetrics' (1e-6).

Known differences, tested here as such: the generalized Dice of a class absent from a sample's
target (ours equals torchmetrics fed one sample per call), and torchmetrics' modular ``MeanIoU``
and ``GeneralizedDiceScore`` with a single class and ``include_background=False`` (they keep no
class at all; we keep the only class, as their functional forms do).
"""

from __future__ import annotations

import itertools
import random
import warnings
import zlib

import pytest
import torch
import torchmetrics.functional.segmentation as tmf
import torchmetrics.segmentation as tms

import lightning_metrics.functional.segmentation as lmf
import lightning_metrics.segmentation as lms
from tests.segmentation._cases import FORMS, batch, split

SHAPES = ((6, 7), (3, 4, 5))
CLASSES = (1, 2, 4)


def _grid(name: str) -> list[dict]:
    if name == "mean_iou":
        axes = {
            "include_background": (True, False),
            "per_class": (True, False),
            "given_classes": (True, False),
        }
    elif name == "dice_score":
        axes = {
            "include_background": (True, False),
            "average": ("micro", "macro", "weighted", "none", None),
            "aggregation_level": ("samplewise", "global"),
        }
    else:
        axes = {
            "include_background": (True, False),
            "per_class": (True, False),
            "weight_type": ("square", "simple", "linear"),
        }
    return [dict(zip(axes, values)) for values in itertools.product(*axes.values())]


NAMES = ("mean_iou", "dice_score", "generalized_dice_score")
GROUPS = [(name, form) for name in NAMES for form in FORMS]


def _cases(name: str, form: str, count: int, seed: int) -> list[tuple]:
    """``count`` sampled (arguments, classes, shape) combinations of one metric and input form."""
    every = [(kwargs, c, shape) for kwargs in _grid(name) for c in CLASSES for shape in SHAPES]
    return random.Random(f"{seed}-{name}-{form}").sample(every, min(count, len(every)))


def _generator(*key: object) -> torch.Generator:
    return torch.Generator().manual_seed(zlib.crc32(repr(key).encode()))


def _arguments(name: str, kwargs: dict, classes: int, input_format: str) -> dict:
    kwargs = dict(kwargs)
    given = kwargs.pop("given_classes", True)
    if name != "mean_iou" or given or input_format == "index":
        kwargs["num_classes"] = classes
    return {**kwargs, "input_format": input_format}


def _assert_same(ours: torch.Tensor, oracle: torch.Tensor, tag: str) -> None:
    assert ours.dtype == oracle.dtype and ours.shape == oracle.shape, (
        f"{tag}: {ours.dtype}{tuple(ours.shape)} != {oracle.dtype}{tuple(oracle.shape)}"
    )
    torch.testing.assert_close(
        ours, oracle, rtol=1e-6, atol=1e-6, equal_nan=True, msg=lambda m: f"{tag}: {m}"
    )


@pytest.mark.parametrize(("name", "form"), GROUPS)
def test_functional_equals_torchmetrics(name: str, form: str) -> None:
    for kwargs, classes, shape in _cases(name, form, 14, seed=0):
        preds, target, input_format = batch(form, _generator(name, form, classes, shape), 3, classes, shape)
        args = _arguments(name, kwargs, classes, input_format)
        ours = getattr(lmf, name)(preds, target, **args)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if name == "generalized_dice_score":  # per sample: see the module docstring
                pairs = zip(preds.split(1), target.split(1))
                oracle = torch.cat([tmf.generalized_dice_score(p, t, **args) for p, t in pairs])
            else:
                oracle = getattr(tmf, name)(preds, target, **args)
        _assert_same(ours, oracle, f"{name}({args}) {form} C={classes} {shape}")


CLASS_OF = {
    "mean_iou": "MeanIoU",
    "dice_score": "DiceScore",
    "generalized_dice_score": "GeneralizedDiceScore",
}


@pytest.mark.parametrize(("name", "form"), GROUPS)
def test_modular_streaming_equals_torchmetrics(name: str, form: str) -> None:
    sizes = (3, 1, 2)
    for kwargs, classes, shape in _cases(name, form, 6, seed=1):
        preds, target, input_format = batch(
            form, _generator(name, form, classes, shape, 1), 6, classes, shape
        )
        args = _arguments(name, kwargs, classes, input_format)
        if name != "dice_score" and classes == 1 and not args["include_background"]:
            continue  # torchmetrics' modular metric keeps no class here (see the module docstring)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours = getattr(lms, CLASS_OF[name])(**args)
            oracle = getattr(tms, CLASS_OF[name])(**args)
            for p, t in zip(split(preds, sizes), split(target, sizes)):
                ours.update(p, t)
                if name == "generalized_dice_score":
                    for ps, ts in zip(p.split(1), t.split(1)):
                        oracle.update(ps, ts)
                else:
                    oracle.update(p, t)
            _assert_same(
                ours.compute(), oracle.compute(), f"{CLASS_OF[name]}({args}) {form} C={classes} {shape}"
            )


@pytest.mark.parametrize("per_class", [True, False])
def test_unbatched_class_maps_follow_torchmetrics(per_class: bool) -> None:
    """``mean_iou`` reads a 2-D (1-D) class map as one image; ``dice_score`` reads rows as samples."""
    gen = torch.Generator().manual_seed(5)
    preds, target = (torch.randint(0, 3, (2, 5, 6), generator=gen) for _ in range(2))
    for p, t in ((preds, target), (preds[0], target[0])):
        for args in ({"num_classes": 3, "per_class": per_class, "input_format": "index"},):
            _assert_same(lmf.mean_iou(p, t, **args), tmf.mean_iou(p, t, **args), "mean_iou")
            metric, oracle = lms.MeanIoU(**args), tms.MeanIoU(**args)
            _assert_same(metric(p, t), oracle(p, t), "MeanIoU")
    args = {"num_classes": 3, "average": "none" if per_class else "macro", "input_format": "index"}
    _assert_same(
        lmf.dice_score(preds[0], target[0], **args), tmf.dice_score(preds[0], target[0], **args), "dice"
    )
    flat = preds[0, 0], target[0, 0]
    _assert_same(
        lmf.mean_iou(*flat, 3, input_format="index"), tmf.mean_iou(*flat, 3, input_format="index"), "1-D"
    )


def test_generalized_dice_is_batch_independent_where_torchmetrics_is_not() -> None:
    """The documented difference: a class absent from a sample's target weighs 0 in that sample."""
    gen = torch.Generator().manual_seed(0)
    preds = torch.randint(0, 4, (3, 8, 8), generator=gen)
    target = torch.randint(0, 3, (3, 8, 8), generator=gen)  # class 3 only ever predicted
    args = {"num_classes": 4, "input_format": "index"}
    ours = lmf.generalized_dice_score(preds, target, **args)
    one_by_one = torch.cat(
        [lmf.generalized_dice_score(p, t, **args) for p, t in zip(preds.split(1), target.split(1))]
    )
    assert torch.equal(ours, one_by_one)
    torchmetrics_batched = tmf.generalized_dice_score(preds, target, **args)
    assert not torch.allclose(torchmetrics_batched, ours)  # torchmetrics' value moves with the batch
    torch.testing.assert_close(
        ours,
        torch.cat(
            [tmf.generalized_dice_score(p, t, **args) for p, t in zip(preds.split(1), target.split(1))]
        ),
    )


def test_index_inputs_of_any_integer_dtype() -> None:
    """torchmetrics needs int64 class maps (``one_hot``); any integer dtype works here, with equal values."""
    gen = torch.Generator().manual_seed(2)
    preds, target, _ = batch("index", gen, 4, 5)
    expected = lmf.dice_score(preds, target, 5, average="none", input_format="index")
    for dtype in (torch.int32, torch.int16, torch.uint8):
        ours = lmf.dice_score(preds.to(dtype), target.to(dtype), 5, average="none", input_format="index")
        torch.testing.assert_close(ours, expected, rtol=0, atol=0, equal_nan=True)
