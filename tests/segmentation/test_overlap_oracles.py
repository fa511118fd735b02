"""Mean IoU and Dice against scikit-learn on flattened pixels, ``ignore_index`` against dropping the
pixels, generalized Dice against its formula, and the accumulation properties: streaming, merging,
``forward``, shared collection state, and no one-hot expansion of class maps in memory."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import f1_score, jaccard_score
from torch.profiler import ProfilerActivity, profile

import lightning_metrics.functional.segmentation as lmf
import lightning_metrics.segmentation as lms
from lightning_metrics import MetricCollection
from lightning_metrics.functional.segmentation import _counts
from tests.segmentation._cases import batch, class_maps, multilabel_masks, one_hot, split, with_void

C = 5


def _sk(fn, target: np.ndarray, preds: np.ndarray, **kwargs) -> np.ndarray:
    """sklearn's score with NaN for the classes absent from both (its ``zero_division`` takes 0 or 1)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = np.asarray(
            fn(target, preds, labels=list(range(C)), zero_division=0, **kwargs), dtype=np.float64
        )
    if kwargs.get("average") is None:
        absent = ~np.isin(np.arange(C), np.concatenate([target, preds]))
        value[absent] = np.nan
    return value


def _per_class_iou(preds: torch.Tensor, target: torch.Tensor) -> np.ndarray:
    if not target.numel():  # every pixel ignored: no class is present
        return np.full(C, np.nan)
    return _sk(jaccard_score, target.reshape(-1).numpy(), preds.reshape(-1).numpy(), average=None)


@pytest.mark.parametrize("shape", [(6, 7), (3, 4, 5)])
def test_mean_iou_and_dice_equal_sklearn_on_flattened_pixels(shape: tuple[int, ...]) -> None:
    gen = torch.Generator().manual_seed(0)
    preds, target = class_maps(gen, 4, C, shape)
    per_sample = np.stack([_per_class_iou(p, t) for p, t in zip(preds, target)])
    ours = lmf.mean_iou(preds, target, C, per_class=True, input_format="index").numpy()
    np.testing.assert_allclose(ours, np.nan_to_num(per_sample, nan=-1.0), rtol=1e-6)
    means = lmf.mean_iou(preds, target, C, input_format="index").numpy()
    np.testing.assert_allclose(means, np.nanmean(per_sample, axis=1), rtol=1e-6)
    metric = lms.MeanIoU(C, per_class=True, input_format="index")
    metric.update(preds, target)
    np.testing.assert_allclose(
        metric.compute().numpy(), np.nan_to_num(np.nanmean(per_sample, 0), nan=-1), rtol=1e-6
    )

    flat_t, flat_p = target.reshape(-1).numpy(), preds.reshape(-1).numpy()
    per_class = _sk(f1_score, flat_t, flat_p, average=None)
    support = np.bincount(flat_t, minlength=C)
    expected = {
        "none": per_class,
        "micro": _sk(f1_score, flat_t, flat_p, average="micro"),
        "macro": np.nanmean(per_class),
        "weighted": np.nansum(per_class * support) / support.sum(),
    }
    for average, value in expected.items():
        got = lmf.dice_score(
            preds, target, C, average=average, input_format="index", aggregation_level="global"
        )
        np.testing.assert_allclose(got.numpy()[0], value, rtol=1e-6, err_msg=average)
    samplewise = lmf.dice_score(preds, target, C, average="none", input_format="index")
    for n in range(len(preds)):
        expected_n = _sk(f1_score, target[n].reshape(-1).numpy(), preds[n].reshape(-1).numpy(), average=None)
        np.testing.assert_allclose(samplewise[n].numpy(), expected_n, rtol=1e-6)


def test_multilabel_masks_are_binary_problems_per_class() -> None:
    gen = torch.Generator().manual_seed(1)
    preds, target = multilabel_masks(gen, 3, C, (5, 6))
    iou = lmf.mean_iou(preds, target, per_class=True)
    dice = lmf.dice_score(preds, target, C, average="none")
    for n in range(3):
        for c in range(C):
            t, p = target[n, c].reshape(-1).numpy(), preds[n, c].reshape(-1).numpy()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                j = jaccard_score(t, p, zero_division=0) if (t.any() or p.any()) else np.nan
                f = f1_score(t, p, zero_division=0) if (t.any() or p.any()) else np.nan
            assert iou[n, c].item() == pytest.approx(-1.0 if np.isnan(j) else j)
            np.testing.assert_allclose(dice[n, c].item(), f, rtol=1e-6)


@pytest.mark.parametrize("form", ["index", "mixed-scores"])
@pytest.mark.parametrize("ignore_index", [255, -1, 0])
def test_ignore_index_equals_dropping_the_pixels(form: str, ignore_index: int) -> None:
    gen = torch.Generator().manual_seed(2)
    preds, target, input_format = batch(form, gen, 4, C, (6, 7))
    void_target = with_void(target, gen, ignore_index)
    kept = void_target != ignore_index
    hard = preds if form == "index" else preds.argmax(1)
    for n in range(4):
        keep = kept[n]
        expected = _per_class_iou(hard[n][keep], target[n][keep])
        got = lmf.mean_iou(
            preds[n : n + 1],
            void_target[n : n + 1],
            C,
            per_class=True,
            input_format=input_format,
            ignore_index=ignore_index,
        )[0]
        np.testing.assert_allclose(got.numpy(), np.nan_to_num(expected, nan=-1.0), rtol=1e-6)
        dice = lmf.dice_score(
            preds[n : n + 1],
            void_target[n : n + 1],
            C,
            average="none",
            input_format=input_format,
            ignore_index=ignore_index,
        )[0]
        if keep.any():
            expected = _sk(f1_score, target[n][keep].numpy(), hard[n][keep].numpy(), average=None)
        else:  # sample 0 is all background: with ignore_index=0 every pixel is void
            expected = np.full(C, np.nan)
        np.testing.assert_allclose(dice.numpy(), expected, rtol=1e-6)


def test_ignore_index_with_target_masks_is_refused() -> None:
    preds, target = class_maps(torch.Generator().manual_seed(0), 2, C, (4, 4))
    with pytest.raises(ValueError, match="`ignore_index`=255"):
        lms.MeanIoU(C, ignore_index=255)
    with pytest.raises(ValueError, match="`ignore_index`=255 needs a class-index `target`"):
        lmf.mean_iou(preds, one_hot(target, C), C, input_format="mixed", ignore_index=255)


def _generalized_dice_oracle(preds: np.ndarray, target: np.ndarray, weight_type: str) -> np.ndarray:
    """Per sample, from the definition; a class absent from the sample's target weighs 0."""
    out = []
    for p, t in zip(preds, target):
        tp = np.array([np.sum((p == c) & (t == c)) for c in range(C)], dtype=np.float64)
        ps = np.array([np.sum(p == c) for c in range(C)], dtype=np.float64)
        ts = np.array([np.sum(t == c) for c in range(C)], dtype=np.float64)
        if weight_type == "linear":
            w = np.ones(C)
        else:  # 1 / t or 1 / t**2, and 0 for a class the sample's target lacks
            w = np.where(ts > 0, 1.0 / np.maximum(ts, 1) ** (2 if weight_type == "square" else 1), 0.0)
        den = np.sum(w * (ps + ts))
        out.append(2 * np.sum(w * tp) / den if den else 0.0)
    return np.array(out)


@pytest.mark.parametrize("weight_type", ["square", "simple", "linear"])
def test_generalized_dice_equals_its_definition(weight_type: str) -> None:
    preds, target = class_maps(torch.Generator().manual_seed(3), 5, C, (6, 6))
    ours = lmf.generalized_dice_score(preds, target, C, weight_type=weight_type, input_format="index")
    expected = _generalized_dice_oracle(preds.numpy(), target.numpy(), weight_type)
    np.testing.assert_allclose(ours.numpy(), expected, rtol=1e-5)


# ------------------------------------------------------------------------ accumulation
CONFIGS = [
    ("MeanIoU", {"per_class": True}),
    ("MeanIoU", {"include_background": False}),
    ("DiceScore", {"average": "weighted"}),
    ("DiceScore", {"average": "none", "aggregation_level": "global"}),
    ("DiceScore", {"average": "micro", "include_background": False, "ignore_index": 255}),
    ("GeneralizedDiceScore", {"per_class": True, "weight_type": "simple"}),
]


def _build(name: str, kwargs: dict, input_format: str = "index") -> lms.MeanIoU:
    return getattr(lms, name)(num_classes=C, input_format=input_format, **kwargs)


def _data(seed: int, n: int = 9) -> tuple[torch.Tensor, torch.Tensor]:
    preds, target = class_maps(torch.Generator().manual_seed(seed), n, C, (5, 6))
    return preds, with_void(target, torch.Generator().manual_seed(seed + 1), 255, 0.1)


def _equal(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a.nan_to_num(7.5), b.nan_to_num(7.5))


@pytest.mark.parametrize(("name", "kwargs"), CONFIGS)
def test_streaming_merging_and_forward(name: str, kwargs: dict) -> None:
    preds, target = _data(4)
    if "ignore_index" not in kwargs:
        target = target.masked_fill(target == 255, 0)
    whole = _build(name, kwargs)
    whole.update(preds, target)
    expected = whole.compute()

    streamed = _build(name, kwargs)
    for p, t in zip(split(preds, (2, 0, 4, 1, 2)), split(target, (2, 0, 4, 1, 2))):  # an empty batch too
        streamed.update(p, t)
    assert _equal(streamed.compute(), expected)

    first, second = _build(name, kwargs), _build(name, kwargs)
    first.update(preds[:5], target[:5])
    second.update(preds[5:], target[5:])
    first.merge_state(second)
    assert _equal(first.compute(), expected)

    forwarded = _build(name, kwargs)
    batch_value = forwarded(preds[:4], target[:4])
    alone = _build(name, kwargs)
    alone.update(preds[:4], target[:4])
    assert _equal(batch_value, alone.compute())
    forwarded(preds[4:], target[4:])
    assert _equal(forwarded.compute(), expected)


def test_collection_shares_one_table_and_one_update(monkeypatch: pytest.MonkeyPatch) -> None:
    preds, target, input_format = batch("one-hot-scores", torch.Generator().manual_seed(5), 6, C)
    metrics = {
        "miou": lms.MeanIoU(C),
        "miou_class": lms.MeanIoU(C, per_class=True, include_background=False),
        "dice": lms.DiceScore(C),
        "dice_weighted": lms.DiceScore(C, average="weighted", include_background=False),
        "gds": lms.GeneralizedDiceScore(C, weight_type="linear"),
        "dice_global": lms.DiceScore(C, aggregation_level="global"),  # another table: a sum, not per sample
    }
    alone = {k: m.clone() for k, m in metrics.items()}
    collection = MetricCollection(metrics)
    assert sorted(map(sorted, collection.compute_groups.values())) == [
        ["dice", "dice_weighted", "gds", "miou", "miou_class"],
        ["dice_global"],
    ]
    calls = []
    real_batch = _counts.OverlapSpec.batch
    monkeypatch.setattr(
        _counts.OverlapSpec, "batch", lambda self, p, t: calls.append(1) or real_batch(self, p, t)
    )
    collection.update(preds, target)
    assert len(calls) == 2  # one per table, for six metrics
    results = collection.compute()
    for key, metric in alone.items():
        metric.update(preds, target)
        assert _equal(results[key], metric.compute()), key
    batch_values = collection(preds[:2], target[:2])  # forward: the batch alone, accumulated too
    for key, metric in alone.items():
        assert _equal(batch_values[key], type(metric)(**_init_args(metric))(preds[:2], target[:2])), key
        metric.update(preds[:2], target[:2])
        assert _equal(collection[key].compute(), metric.compute()), key


def _init_args(metric) -> dict:
    import inspect

    names = [n for n in inspect.signature(type(metric).__init__).parameters if n not in ("self", "kwargs")]
    return {n: getattr(metric, n) for n in names}


def test_mean_iou_without_num_classes_reads_them_and_keeps_them() -> None:
    preds, target, _ = batch("one-hot", torch.Generator().manual_seed(6), 4, C)
    metric = lms.MeanIoU(per_class=True)
    metric.update(preds, target)
    assert metric.compute().shape == (C,)
    with pytest.raises(ValueError, match=f"3 classes, but the earlier batches had {C}"):
        metric.update(preds[:, :3], target[:, :3])
    assert metric.compute().shape == (C,)


def _largest_allocation(fn) -> int:
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    return max([e.self_cpu_memory_usage for e in prof.events()] + [0])


@pytest.mark.parametrize("name", ["MeanIoU", "DiceScore", "GeneralizedDiceScore"])
def test_class_maps_are_never_expanded_to_one_hot(name: str) -> None:
    """The largest allocation of an update: a few int64 per pixel, far below one byte per pixel and class."""
    classes, n, side = 150, 2, 128
    gen = torch.Generator().manual_seed(0)
    preds, target = (torch.randint(0, classes, (n, side, side), generator=gen) for _ in range(2))
    for ignore_index in (None, 255):
        metric = getattr(lms, name)(num_classes=classes, input_format="index", ignore_index=ignore_index)
        metric.update(preds, target)  # warm up
        largest = _largest_allocation(lambda: metric.update(preds, target))
        pixels = n * side * side
        assert 0 < largest <= 16 * pixels < classes * pixels, f"{name}: {largest} bytes for {pixels} pixels"


@pytest.mark.parametrize("limit", [7, 60, 500, 10**9])
@pytest.mark.parametrize("shape", [(6, 7), (3, 4, 5)])
def test_chunked_mask_reductions_equal_whole_ones(
    limit: int, shape: tuple, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Masks are reduced chunk by chunk on the CPU (samples, then rows of the first spatial axis)."""
    gen = torch.Generator().manual_seed(8)
    masks = multilabel_masks(gen, 5, C, shape)
    preds, target = class_maps(gen, 5, C, shape)
    void = with_void(target, gen, 255)
    expected = {
        "masks": lmf.dice_score(*masks, C, average="none"),
        "mixed": lmf.dice_score(
            one_hot(preds, C), void, C, average="none", input_format="mixed", ignore_index=255
        ),
    }
    monkeypatch.setattr(_counts, "_CHUNK_ELEMENTS", limit)
    got = {
        "masks": lmf.dice_score(*masks, C, average="none"),
        "mixed": lmf.dice_score(
            one_hot(preds, C), void, C, average="none", input_format="mixed", ignore_index=255
        ),
    }
    for key in expected:
        torch.testing.assert_close(got[key], expected[key], rtol=0, atol=0, equal_nan=True)


# ------------------------------------------------------------------------ the count table
def _numpy_counts(preds: np.ndarray, target: np.ndarray, classes: int, ignore) -> np.ndarray:
    """(N, C, 3) tp, fp, fn of class maps by direct comparison, pixel by pixel."""
    out = np.zeros((len(preds), classes, 3), dtype=np.int64)
    for n in range(len(preds)):
        for p, t in zip(preds[n].reshape(-1), target[n].reshape(-1)):
            if ignore is not None and t == ignore:
                continue
            if p == t:
                out[n, t, 0] += 1
            else:
                out[n, p, 1] += 1
                out[n, t, 2] += 1
    return out


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    n=st.integers(0, 3),
    classes=st.integers(1, 6),
    shape=st.sampled_from([(1,), (3,), (2, 5), (3, 1, 2)]),
    form=st.sampled_from(["index", "masks-preds", "masks-target", "masks"]),
    ignore=st.sampled_from([None, 255, 0]),
    seed=st.integers(0, 2**16),
)
def test_count_table_equals_direct_counting(n, classes, shape, form, ignore, seed) -> None:
    gen = torch.Generator().manual_seed(seed)
    preds = torch.randint(0, classes, (n, *shape), generator=gen)
    target = torch.randint(0, classes, (n, *shape), generator=gen)
    if ignore is not None:
        if form in ("masks-target", "masks"):
            ignore = None  # ignore_index needs class-index targets
        else:
            target = with_void(target, gen, ignore, 0.3)
    expected = _numpy_counts(preds.numpy(), target.numpy(), classes, ignore)
    p = one_hot(preds, classes) if form in ("masks-preds", "masks") else preds
    t = one_hot(target.clamp(0, classes - 1), classes) if form in ("masks-target", "masks") else target
    input_format = {"index": "index", "masks": "one-hot"}.get(form, "mixed")
    spec = _counts.OverlapSpec(classes, input_format, ignore_index=ignore)
    np.testing.assert_array_equal(spec.batch(p, t).numpy(), expected)


def test_signatures_extend_torchmetrics() -> None:
    """Every torchmetrics parameter, in its order, with its default; ours come after (extensions)."""
    import inspect

    import torchmetrics.functional.segmentation as tmf
    import torchmetrics.segmentation as tms

    pairs = [(getattr(lms, n).__init__, getattr(tms, n).__init__) for n in lms.__all__]
    pairs += [(getattr(lmf, n), getattr(tmf, n)) for n in lmf.__all__]
    for ours, theirs in pairs:
        mine = [p for p in inspect.signature(ours).parameters.values() if p.kind is not p.VAR_KEYWORD]
        reference = [p for p in inspect.signature(theirs).parameters.values() if p.kind is not p.VAR_KEYWORD]
        assert [(p.name, p.default) for p in mine[: len(reference)]] == [
            (p.name, p.default) for p in reference
        ]
        assert {p.name for p in mine[len(reference) :]} <= {"ignore_index", "validate_args"}
