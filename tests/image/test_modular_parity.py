"""Every image metric class against torchmetrics 1.9 over streamed batches: the value of each
``forward`` and the final ``compute`` (values, dtypes, shapes), for every argument."""

from __future__ import annotations

import warnings

import pytest
import torch

import lightning_metrics.image as lmi
from tests.image._cases import FLOATS, inputs, returns_map, tolerance
from tests.reliability._registry import assert_close, to_plain

tmi = pytest.importorskip("torchmetrics.image")

# (class, kwargs, input kind)
MODULAR_CASES: list[tuple[str, dict, str]] = [
    ("StructuralSimilarityIndexMeasure", {}, "rgb"),
    ("StructuralSimilarityIndexMeasure", {"data_range": 1.0, "reduction": "sum"}, "gray"),
    ("StructuralSimilarityIndexMeasure", {"reduction": "none", "data_range": (0.1, 0.9)}, "rgb"),
    ("StructuralSimilarityIndexMeasure", {"return_full_image": True, "data_range": 1.0}, "gray"),
    ("StructuralSimilarityIndexMeasure", {"return_contrast_sensitivity": True, "reduction": None}, "rgb"),
    ("StructuralSimilarityIndexMeasure", {"gaussian_kernel": False, "kernel_size": (5, 3), "data_range": 1.0}, "rgb"),
    ("StructuralSimilarityIndexMeasure", {"sigma": 1.0, "kernel_size": 7, "data_range": 1.0}, "volume"),
    ("MultiScaleStructuralSimilarityIndexMeasure", {"data_range": 1.0}, "large"),
    ("MultiScaleStructuralSimilarityIndexMeasure", {"reduction": "none", "normalize": "simple"}, "large"),
    ("MultiScaleStructuralSimilarityIndexMeasure", {"reduction": "sum", "betas": (0.5, 0.5), "kernel_size": 7,
                                                    "sigma": 1.0, "data_range": 1.0}, "large3d"),
    ("UniversalImageQualityIndex", {}, "rgb"),
    ("UniversalImageQualityIndex", {"reduction": "sum", "kernel_size": (7, 7), "sigma": (1.0, 1.0)}, "gray"),
    ("UniversalImageQualityIndex", {"reduction": "none"}, "bands"),
    ("PeakSignalNoiseRatio", {"data_range": 1.0}, "rgb"),
    ("PeakSignalNoiseRatio", {"data_range": (0.2, 0.8), "base": 2.0}, "gray"),
    ("PeakSignalNoiseRatio", {"data_range": 1.0, "dim": (1, 2, 3)}, "rgb"),
    ("PeakSignalNoiseRatio", {"data_range": 1.0, "dim": (2, 3), "reduction": "sum"}, "bands"),
    ("PeakSignalNoiseRatio", {"data_range": 1.0, "dim": 1, "reduction": "none"}, "rgb"),
    ("PeakSignalNoiseRatioWithBlockedEffect", {"data_range": 1.0}, "gray"),
    ("PeakSignalNoiseRatioWithBlockedEffect", {"data_range": (0.1, 0.9), "block_size": 4}, "gray"),
    ("ErrorRelativeGlobalDimensionlessSynthesis", {}, "rgb"),
    ("ErrorRelativeGlobalDimensionlessSynthesis", {"ratio": 2, "reduction": "none"}, "bands"),
    ("ErrorRelativeGlobalDimensionlessSynthesis", {"reduction": "sum"}, "gray"),
    ("SpectralAngleMapper", {}, "rgb"),
    ("SpectralAngleMapper", {"reduction": "none"}, "bands"),
    ("SpectralAngleMapper", {"reduction": "sum"}, "rgb"),
    ("RelativeAverageSpectralError", {}, "rgb"),
    ("RelativeAverageSpectralError", {"window_size": 5}, "bands"),
    ("RootMeanSquaredErrorUsingSlidingWindow", {}, "rgb"),
    ("RootMeanSquaredErrorUsingSlidingWindow", {"window_size": 3}, "bands"),
    ("SpatialCorrelationCoefficient", {}, "rgb"),
    ("SpatialCorrelationCoefficient", {"window_size": 5, "high_pass_filter": torch.tensor([[0.0, -1.0], [-1.0, 2.0]])},
     "gray"),
    ("VisualInformationFidelity", {}, "vif"),
    ("VisualInformationFidelity", {"sigma_n_sq": 1.0, "reduction": "none"}, "vif"),
    ("TotalVariation", {}, "image"),
    ("TotalVariation", {"reduction": "mean"}, "image"),
    ("TotalVariation", {"reduction": "none"}, "image"),
    ("SpectralDistortionIndex", {}, "fused_ms"),
    ("SpectralDistortionIndex", {"p": 2, "reduction": "none"}, "rgb"),
    ("SpatialDistortionIndex", {}, "pan_lr"),
    ("SpatialDistortionIndex", {"norm_order": 2, "window_size": 5, "reduction": "none"}, "pan_lr"),
    ("QualityWithNoReference", {}, "pan_lr"),
    ("QualityWithNoReference", {"alpha": 0.5, "beta": 1.5, "reduction": "sum"}, "pan_lr"),
]


def _ids(case):
    name, kwargs, kind = case
    return f"{name}({','.join(f'{k}={v!r}' for k, v in kwargs.items() if k != 'high_pass_filter')})[{kind}]"


def update_args(name: str, kind: str, dtype: torch.dtype, seed: int) -> tuple:
    """``update``'s arguments for one batch (the pan-sharpening metrics take a dict target)."""
    args = inputs(kind, dtype, seed)
    if name in ("SpatialDistortionIndex", "QualityWithNoReference"):
        return args[0], {"ms": args[1], "pan": args[2], "pan_lr": args[3]}
    return args


def _tolerance(dtype, kwargs, reference):
    """The input dtype's tolerance, or float32's where torchmetrics returns float32 (its running
    sums of float64 values are float32: ours are float64)."""
    value = reference[0] if isinstance(reference, tuple) else reference
    return tolerance(torch.float32 if value.dtype == torch.float32 else dtype, returns_map(kwargs))


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("case", MODULAR_CASES, ids=_ids)
def test_streamed_batches_match_torchmetrics(case, dtype):
    name, kwargs, kind = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = getattr(lmi, name)(**kwargs), getattr(tmi, name)(**kwargs)
        for seed in range(3):
            batch = update_args(name, kind, dtype, seed)
            ours_batch, theirs_batch = ours(*batch), theirs(*batch)
            tol = _tolerance(dtype, kwargs, theirs_batch)
            assert_close(ours_batch, theirs_batch, **tol, path=f"{_ids(case)} forward {seed}")
        ours_value, theirs_value = ours.compute(), theirs.compute()
    for a, b in zip(*(v if isinstance(v, tuple) else (v,) for v in (to_plain(ours_value), to_plain(theirs_value)))):
        assert (a.dtype, a.shape) == (b.dtype, b.shape), f"{a.dtype}{tuple(a.shape)} != {b.dtype}{tuple(b.shape)}"
    assert_close(ours_value, theirs_value, **tol, path=_ids(case))


def test_psnr_data_range_none_is_the_range_of_every_target_seen():
    """Extension (torchmetrics before 1.9): ``data_range=None`` reads the targets' range from
    min/max states, over all batches, not per batch."""
    metric = lmi.PeakSignalNoiseRatio(data_range=None)
    batches = [inputs("rgb", torch.float64, seed) for seed in range(3)]
    batches[1] = (batches[1][0] * 3, batches[1][1] * 3)  # a batch of another range
    for preds, target in batches:
        metric.update(preds, target)
    preds, target = (torch.cat(t) for t in zip(*batches))
    expected = tmi.PeakSignalNoiseRatio(data_range=float(target.max() - target.min()))(preds, target)
    assert_close(metric.compute(), expected, rtol=1e-6, atol=1e-6)
