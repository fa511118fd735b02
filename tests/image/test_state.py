"""Constant memory, streaming and merging of the image metrics.

- Every mean- or sum-reduced metric holds states of one byte size after 1 and after 200 updates.
- ``merge_state`` of two metrics equals one metric that saw both streams (float64 sums: equal to
  rounding; counts and kept values: exactly).
- An additive metric gives the same value for one update of concatenated batches as for one
  update per batch; ``forward`` and ``reset`` behave.
"""

from __future__ import annotations

import pytest
import torch

import lightning_metrics.image as lmi
from lightning_metrics import MetricCollection
from lightning_metrics.functional.image.structural import ssim_window
from tests.image.test_modular_parity import MODULAR_CASES, update_args
from tests.reliability._registry import assert_close

SMALL = {"MultiScaleStructuralSimilarityIndexMeasure": {"betas": (0.5, 0.5), "data_range": 1.0}}


def _state_bytes(metric) -> int:
    total = 0
    for value in metric.metric_state.values():
        for tensor in value if isinstance(value, list) else [value]:
            total += tensor.numel() * tensor.element_size()
    return total


def _tiny_batch(name: str, gen: torch.Generator) -> tuple:
    if name in ("SpatialDistortionIndex", "QualityWithNoReference"):
        fused, pan = torch.rand(1, 2, 24, 24, generator=gen), torch.rand(1, 2, 24, 24, generator=gen)
        return fused, {"ms": torch.rand(1, 2, 12, 12, generator=gen), "pan": pan, "pan_lr": pan[..., ::2, ::2]}
    if name == "SpectralDistortionIndex":
        return torch.rand(1, 2, 24, 24, generator=gen), torch.rand(1, 2, 12, 12, generator=gen)
    if name == "TotalVariation":
        return (torch.rand(1, 1, 12, 12, generator=gen),)
    side = 41 if name == "VisualInformationFidelity" else 24
    target = torch.rand(1, 2 if name in ("SpectralAngleMapper",) else 1, side, side, generator=gen)
    return (target * 0.9 + 0.05).clamp(0, 1), target


MEAN_REDUCED = sorted({
    (name, tuple(sorted(kwargs.items(), key=lambda kv: kv[0])))
    for name, kwargs, _ in MODULAR_CASES
    if kwargs.get("reduction", "elementwise_mean") not in ("none", None) and not kwargs.get("return_full_image")
    and not kwargs.get("return_contrast_sensitivity") and "high_pass_filter" not in kwargs
    and "dim" not in kwargs and not (name == "MultiScaleStructuralSimilarityIndexMeasure" and kwargs.get("betas"))
}, key=repr)


@pytest.mark.parametrize(("name", "kwargs"), MEAN_REDUCED, ids=[f"{n}{dict(k)}" for n, k in MEAN_REDUCED])
def test_state_size_does_not_grow_with_the_number_of_updates(name, kwargs):
    kwargs = {**dict(kwargs), **SMALL.get(name, {})}
    if name == "UniversalImageQualityIndex":
        kwargs["kernel_size"], kwargs["sigma"] = (5, 5), (1.0, 1.0)
    metric = getattr(lmi, name)(**kwargs)
    gen = torch.Generator().manual_seed(0)
    batch = _tiny_batch(name, gen)
    metric.update(*batch)
    after_one = _state_bytes(metric)
    for _ in range(199):
        metric.update(*batch)
    assert _state_bytes(metric) == after_one
    assert torch.isfinite(metric.compute()).all()


def test_psnr_with_dim_keeps_a_sum_where_torchmetrics_keeps_every_image():
    metric = lmi.PeakSignalNoiseRatio(data_range=1.0, dim=(1, 2, 3))
    preds, target = update_args("PeakSignalNoiseRatio", "rgb", torch.float32, 0)
    metric.update(preds, target)
    size = _state_bytes(metric)
    for _ in range(20):
        metric.update(preds, target)
    assert _state_bytes(metric) == size


MERGE_CASES = [c for c in MODULAR_CASES if c[2] not in ("large", "large3d", "volume")]


@pytest.mark.parametrize("case", MERGE_CASES, ids=lambda c: f"{c[0]}{c[1]}"[:120])
def test_merge_state_equals_one_metric_over_both_streams(case):
    name, kwargs, kind = case
    batches = [update_args(name, kind, torch.float64, seed) for seed in range(3)]
    whole, first, second = (getattr(lmi, name)(**kwargs) for _ in range(3))
    for batch in batches:
        whole.update(*batch)
    for batch in batches[:2]:
        first.update(*batch)
    second.update(*batches[2])
    if kwargs.get("reduction", "x") in ("none", None) or kwargs.get("return_full_image") or kwargs.get(
            "return_contrast_sensitivity"):
        # kept values: merge_state puts the incoming metric's first, as torchmetrics does
        second.merge_state(first)
        assert_close(second.compute(), whole.compute(), rtol=0, atol=0)
        return
    first.merge_state(second)
    assert first.update_count == 3
    assert_close(first.compute(), whole.compute(), rtol=1e-12, atol=1e-12)


ADDITIVE = [c for c in MERGE_CASES if getattr(lmi, c[0])(**c[1]).additive_update]


@pytest.mark.parametrize("case", ADDITIVE, ids=lambda c: f"{c[0]}{c[1]}"[:120])
def test_one_update_of_concatenated_batches_equals_one_per_batch(case):
    name, kwargs, kind = case
    batches = [update_args(name, kind, torch.float64, seed) for seed in range(2)]
    streamed, joined = getattr(lmi, name)(**kwargs), getattr(lmi, name)(**kwargs)
    for batch in batches:
        streamed.update(*batch)

    def cat(parts):
        if isinstance(parts[0], dict):
            return {k: torch.cat([p[k] for p in parts]) for k in parts[0]}
        return torch.cat(parts)

    joined.update(*(cat(list(parts)) for parts in zip(*batches)))
    assert_close(joined.compute(), streamed.compute(), rtol=1e-10, atol=1e-10)


def test_data_range_none_ssim_is_per_batch_and_not_additive():
    """As in torchmetrics: without ``data_range`` each batch brings its own range, so the metric
    may not be coalesced by the Lightning engine."""
    assert not lmi.StructuralSimilarityIndexMeasure().additive_update
    assert lmi.StructuralSimilarityIndexMeasure(data_range=1.0).additive_update
    assert not lmi.PeakSignalNoiseRatioWithBlockedEffect(data_range=1.0).additive_update


def test_reset_returns_to_the_empty_state_and_windows_are_built_once():
    metric = lmi.StructuralSimilarityIndexMeasure(data_range=1.0)
    preds, target = update_args("StructuralSimilarityIndexMeasure", "rgb", torch.float32, 0)
    metric.update(preds, target)
    _, geometry = ssim_window(metric.gaussian_kernel, metric.kernel_size, metric.sigma, preds.ndim - 2)
    kernels = geometry.window.kernels(preds.device, torch.float32)
    metric.update(preds, target)
    assert geometry.window.kernels(preds.device, torch.float32) is kernels  # cached, not rebuilt
    value = metric.compute()
    metric.reset()
    assert metric.update_count == 0 and float(metric.count) == 0
    metric.update(preds, target)
    metric.update(preds, target)
    assert_close(metric.compute(), value, rtol=1e-7, atol=1e-7)


def test_collection_of_image_metrics():
    preds, target = update_args("StructuralSimilarityIndexMeasure", "rgb", torch.float32, 1)
    collection = MetricCollection({
        "psnr": lmi.PeakSignalNoiseRatio(data_range=1.0),
        "ssim": lmi.StructuralSimilarityIndexMeasure(data_range=1.0),
        "uqi": lmi.UniversalImageQualityIndex(),
    })
    collection.update(preds, target)
    values = collection.compute()
    assert_close(values["psnr"], lmi.PeakSignalNoiseRatio(data_range=1.0)(preds, target), rtol=0, atol=0)
    assert_close(values["ssim"], lmi.StructuralSimilarityIndexMeasure(data_range=1.0)(preds, target), rtol=0, atol=0)
