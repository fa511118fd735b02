"""Bad arguments and bad batches: a clear error naming the argument and the value, and a rejected
batch leaves the metric (and a collection) exactly as it was: its states, its update count and
``compute()`` (:func:`tests._bad_input.assert_rejected_untouched`)."""

from __future__ import annotations

import copy
import re

import pytest
import torch

import lightning_metrics.functional.segmentation as lmf
import lightning_metrics.segmentation as lms
from lightning_metrics import MetricCollection
from tests._bad_input import assert_rejected_untouched
from tests.segmentation._cases import class_maps, one_hot

C = 4

BAD_ARGUMENTS = [
    ("MeanIoU", {"num_classes": 0}, "`num_classes`.*0"),
    ("MeanIoU", {"num_classes": "4"}, "`num_classes`.*'4'"),
    ("MeanIoU", {"input_format": "index"}, "`num_classes` must be given.*'index'"),
    ("MeanIoU", {"include_background": "yes"}, "`include_background`.*'yes'"),
    ("MeanIoU", {"per_class": 1}, "`per_class`.*1"),
    ("MeanIoU", {"input_format": "onehot"}, "`input_format`.*'onehot'"),
    ("MeanIoU", {"num_classes": C, "input_format": "index", "ignore_index": 2.5}, "`ignore_index`.*2.5"),
    ("MeanIoU", {"num_classes": C, "ignore_index": 255}, "`ignore_index`=255.*'one-hot'"),
    ("MeanIoU", {"validate_args": "no"}, "`validate_args`.*'no'"),
    ("DiceScore", {"num_classes": None}, "`num_classes`.*None"),
    ("DiceScore", {"num_classes": C, "average": "mean"}, "`average`.*'mean'"),
    ("DiceScore", {"num_classes": C, "aggregation_level": None}, "`aggregation_level`.*None"),
    ("GeneralizedDiceScore", {"num_classes": -2}, "`num_classes`.*-2"),
    ("GeneralizedDiceScore", {"num_classes": C, "weight_type": "cube"}, "`weight_type`.*'cube'"),
    ("HausdorffDistance", {"num_classes": C, "distance_metric": "cosine"}, "`distance_metric`.*'cosine'"),
    ("HausdorffDistance", {"num_classes": C, "spacing": [1.0, 0.0]}, r"`spacing`.*\[1.0, 0.0\]"),
    ("HausdorffDistance", {"num_classes": C, "spacing": "1,1"}, "`spacing`.*'1,1'"),
    ("HausdorffDistance", {"num_classes": C, "directed": None}, "`directed`.*None"),
    ("HausdorffDistance", {"num_classes": True}, "`num_classes`.*True"),
]


@pytest.mark.parametrize(("name", "kwargs", "message"), BAD_ARGUMENTS)
def test_bad_constructor_arguments(name: str, kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        getattr(lms, name)(**kwargs)


def test_bad_function_arguments() -> None:
    preds, target = class_maps(torch.Generator().manual_seed(0), 2, C, (4, 4))
    with pytest.raises(ValueError, match="`average`.*'mean'"):
        lmf.dice_score(preds, target, C, average="mean", input_format="index")
    with pytest.raises(ValueError, match="`weight_type`.*'cube'"):
        lmf.generalized_dice_score(preds, target, C, weight_type="cube", input_format="index")
    with pytest.raises(ValueError, match="`distance_metric`.*'l2'"):
        lmf.hausdorff_distance(preds, target, C, distance_metric="l2", input_format="index")
    with pytest.raises(ValueError, match="`num_classes` must be given"):
        lmf.mean_iou(preds, target, input_format="index")


def _good(input_format: str, seed: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    preds, target = class_maps(gen, 3, C, (5, 5))
    if input_format == "one-hot":
        return one_hot(preds, C), one_hot(target, C)
    if input_format == "mixed":
        return torch.randn(3, C, 5, 5, generator=gen) + 4 * one_hot(preds, C), target
    return preds, target


def _out_of_range(label: int, where: str):
    def make(preds, target):
        preds, target = preds.clone(), target.clone()
        (preds if where == "preds" else target)[0, 0, 0] = label
        return preds, target

    return make


def _not_binary(preds, target):
    preds = preds.clone()
    preds[1, 2, 0, 0] = 2
    return preds, target


def _scores(value: float, as_one_hot: bool = False):
    """Float scores (argmax-ed into class maps) with one ``value`` at ``(2, 1, 3, 4)``."""

    def make(preds, target):
        scores = torch.randn(3, C, 5, 5, generator=torch.Generator().manual_seed(4))
        scores[2, 1, 3, 4] = value
        return scores, (one_hot(target, C) if as_one_hot and target.ndim == 3 else target)

    return make


BAD_BATCHES = [
    # (input_format, metric kwargs, bad batch from the good one, exception, message)
    (
        "index",
        {},
        _out_of_range(C, "preds"),
        ValueError,
        rf"`preds` must hold values in \[0, {C - 1}\], got \[{C}\]",
    ),
    ("index", {}, _out_of_range(-3, "target"), ValueError, r"`target` must hold values in .*got \[-3\]"),
    (
        "index",
        {"ignore_index": 255},
        _out_of_range(9, "target"),
        ValueError,
        r"`target`.*`ignore_index`=255, got \[9\]",
    ),
    ("index", {}, lambda p, t: (p.float(), t), TypeError, "`preds` must hold integer class indices.*float32"),
    (
        "index",
        {},
        lambda p, t: (p, t[:, :4]),
        ValueError,
        r"`preds` and `target` must have the same shape.*\(3, 5, 5\)",
    ),
    ("index", {}, lambda p, t: (p[0, 0, 0], t[0, 0, 0]), ValueError, r"spatial dimension, got shape \(\)"),
    ("index", {}, lambda p, t: (p.tolist(), t), TypeError, "`preds` must be a torch.Tensor, got list"),
    ("one-hot", {}, _not_binary, ValueError, r"`preds` must hold values in \[0, 1\], got \[2\]"),
    (
        "one-hot",
        {},
        lambda p, t: (p[:, :3], t[:, :3]),
        ValueError,
        rf"`num_classes`={C} channels.*\(3, 3, 5, 5\)",
    ),
    ("one-hot", {}, lambda p, t: (p[:, 0, 0], t[:, 0, 0]), ValueError, r"`preds` in one-hot form.*\(3, 5\)"),
    ("one-hot", {}, lambda p, t: (torch.randn(3, C + 1, 5, 5), t), ValueError, "`preds`"),
    (
        "mixed",
        {},
        lambda p, t: (p, t[:2]),
        ValueError,
        r"batch and spatial sizes.*\(3, 4, 5, 5\) and \(2, 5, 5\)",
    ),
    (
        "mixed",
        {},
        lambda p, t: (p, p),
        ValueError,
        r"`input_format`='mixed'.*\(3, 4, 5, 5\) and \(3, 4, 5, 5\)",
    ),
    (
        "mixed",
        {},
        lambda p, t: (torch.randn(3, C + 2, 5, 5), t),
        ValueError,
        rf"6 score channels.*`num_classes`={C}",
    ),
    (
        "mixed",
        {"ignore_index": 255},
        lambda p, t: (p.argmax(1), one_hot(t, C)),
        ValueError,
        "`ignore_index`=255",
    ),
    # NaN scores have no argmax (infinite ones are logits): rejected with validate_args, as in classification
    (
        "mixed",
        {},
        _scores(float("nan")),
        ValueError,
        r"`preds` must not contain NaN, got nan at index \(2, 1, 3, 4\)$",
    ),
    (
        "one-hot",
        {},
        _scores(float("nan"), as_one_hot=True),
        ValueError,
        r"`preds` must not contain NaN, got nan at index \(2, 1, 3, 4\)$",
    ),
    (
        "index",
        {},
        lambda p, t: (p, t.double()),
        TypeError,
        "`target` must hold integer class indices.*float64",
    ),
    ("index", {}, lambda p, t: (p, t.tolist()), TypeError, "`target` must be a torch.Tensor, got list"),
]
METRICS = ("MeanIoU", "DiceScore", "GeneralizedDiceScore", "HausdorffDistance")


def _states(metric) -> dict:
    return copy.deepcopy(metric.metric_state)


def _same_states(a: dict, b: dict) -> bool:
    def plain(v):
        return torch.cat(v) if isinstance(v, list) and v else v

    return a.keys() == b.keys() and all(
        (isinstance(a[k], list) and a[k] == [] and b[k] == []) or torch.equal(plain(a[k]), plain(b[k]))
        for k in a
    )


@pytest.mark.parametrize("name", METRICS)
@pytest.mark.parametrize(("input_format", "kwargs", "make", "error", "message"), BAD_BATCHES)
def test_bad_batch_is_rejected_and_leaves_the_state(name, input_format, kwargs, make, error, message) -> None:
    if name == "HausdorffDistance" and "ignore_index" in kwargs:
        pytest.skip("no ignore_index on the Hausdorff distance")
    good = [_good(input_format, seed) for seed in (1, 2)]
    build = lambda: getattr(lms, name)(num_classes=C, input_format=input_format, **kwargs)  # noqa: E731
    assert_rejected_untouched(build, good, make(*good[0]), errors=error, match=message)


@pytest.mark.parametrize("name", METRICS)
def test_validate_args_false_skips_the_nan_check_and_inf_scores_are_logits(name) -> None:
    good = _good("mixed")
    unchecked = getattr(lms, name)(num_classes=C, input_format="mixed", validate_args=False)
    unchecked.update(*_scores(float("nan"))(*good))  # no check, no host read for it
    for value in (float("inf"), -float("inf")):
        getattr(lms, name)(num_classes=C, input_format="mixed").update(*_scores(value)(*good))


def test_a_collection_rejects_a_batch_as_a_whole() -> None:
    collection = MetricCollection(
        {"miou": lms.MeanIoU(C, input_format="index"), "hd": lms.HausdorffDistance(C, input_format="index")}
    )
    good = _good("index")
    collection.update(*good)
    before = {k: _states(m) for k, m in collection.items()}
    with pytest.raises(ValueError, match="`target` must hold values"):
        collection.update(*_out_of_range(C + 3, "target")(*good))
    assert all(_same_states(_states(m), before[k]) for k, m in collection.items())


def test_messages_name_the_argument() -> None:
    for _, _, message in BAD_ARGUMENTS:
        assert re.search(r"`\w+`", message)
