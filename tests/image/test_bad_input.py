"""Bad arguments and bad batches of the image metrics: a clear error that names the argument and
the value, raised before anything changes, so a rejected batch leaves the metric as it was."""

from __future__ import annotations

import re

import pytest
import torch

import lightning_metrics.functional.image as lmf
import lightning_metrics.image as lmi
from tests._bad_input import assert_rejected_untouched

BAD_ARGUMENTS = [
    ("StructuralSimilarityIndexMeasure", {"kernel_size": 4}, "`kernel_size`.*odd positive.*4"),
    ("StructuralSimilarityIndexMeasure", {"kernel_size": 0}, "`kernel_size`.*0"),
    ("StructuralSimilarityIndexMeasure", {"kernel_size": (3, 4)}, r"`kernel_size`.*\(3, 4\)"),
    ("StructuralSimilarityIndexMeasure", {"kernel_size": -3}, "`kernel_size`.*-3"),
    ("StructuralSimilarityIndexMeasure", {"sigma": -1.0}, "`sigma`.*-1.0"),
    ("StructuralSimilarityIndexMeasure", {"sigma": 0}, "`sigma`.*0"),
    ("StructuralSimilarityIndexMeasure", {"sigma": (1.5, -0.5)}, r"`sigma`.*\(1.5, -0.5\)"),
    ("StructuralSimilarityIndexMeasure", {"sigma": (1.5, 1.5, 1.5, 1.5)}, "`sigma`.*one entry per spatial dim"),
    ("StructuralSimilarityIndexMeasure", {"data_range": 0.0}, "`data_range`.*0.0"),
    ("StructuralSimilarityIndexMeasure", {"data_range": -1}, "`data_range`.*-1"),
    ("StructuralSimilarityIndexMeasure", {"data_range": (1.0, 0.0)}, r"`data_range`.*\(1.0, 0.0\)"),
    ("StructuralSimilarityIndexMeasure", {"reduction": "mean"}, "`reduction`.*'mean'"),
    ("StructuralSimilarityIndexMeasure", {"k1": -0.1}, "`k1`.*-0.1"),
    ("StructuralSimilarityIndexMeasure", {"gaussian_kernel": "yes"}, "`gaussian_kernel`.*'yes'"),
    ("StructuralSimilarityIndexMeasure", {"return_full_image": True, "return_contrast_sensitivity": True},
     "mutually exclusive"),
    ("MultiScaleStructuralSimilarityIndexMeasure", {"betas": (1, 2)}, r"`betas`.*\(1, 2\)"),
    ("MultiScaleStructuralSimilarityIndexMeasure", {"betas": [0.5, 0.5]}, r"`betas`.*\[0.5, 0.5\]"),
    ("MultiScaleStructuralSimilarityIndexMeasure", {"normalize": "tanh"}, "`normalize`.*'tanh'"),
    ("MultiScaleStructuralSimilarityIndexMeasure", {"kernel_size": 10}, "`kernel_size`.*10"),
    ("MultiScaleStructuralSimilarityIndexMeasure", {"data_range": 0}, "`data_range`.*0"),
    ("UniversalImageQualityIndex", {"kernel_size": (4, 4)}, r"`kernel_size`.*\(4, 4\)"),
    ("UniversalImageQualityIndex", {"kernel_size": 11}, "`kernel_size`.*11"),
    ("UniversalImageQualityIndex", {"sigma": (1.5, -1.0)}, r"`sigma`.*\(1.5, -1.0\)"),
    ("UniversalImageQualityIndex", {"reduction": "avg"}, "`reduction`.*'avg'"),
    ("PeakSignalNoiseRatio", {"data_range": 0.0}, "`data_range`.*0.0"),
    ("PeakSignalNoiseRatio", {"data_range": -2}, "`data_range`.*-2"),
    ("PeakSignalNoiseRatio", {"data_range": None, "dim": 1}, "`data_range` must be given.*dim=1"),
    ("PeakSignalNoiseRatio", {"data_range": 1.0, "base": 1}, "`base`.*1"),
    ("PeakSignalNoiseRatio", {"data_range": 1.0, "dim": "1"}, "`dim`.*'1'"),
    ("PeakSignalNoiseRatioWithBlockedEffect", {"data_range": None}, "`data_range`.*None"),
    ("PeakSignalNoiseRatioWithBlockedEffect", {"data_range": 1.0, "block_size": 0}, "`block_size`.*0"),
    ("ErrorRelativeGlobalDimensionlessSynthesis", {"ratio": 0}, "`ratio`.*0"),
    ("SpectralAngleMapper", {"reduction": "mean"}, "`reduction`.*'mean'"),
    ("RelativeAverageSpectralError", {"window_size": 0}, "`window_size`.*0"),
    ("RootMeanSquaredErrorUsingSlidingWindow", {"window_size": 2.5}, "`window_size`.*2.5"),
    ("SpatialCorrelationCoefficient", {"window_size": 0}, "`window_size`.*0"),
    ("SpatialCorrelationCoefficient", {"high_pass_filter": torch.ones(3)}, "`hp_filter`.*2-D"),
    ("VisualInformationFidelity", {"sigma_n_sq": -1.0}, "`sigma_n_sq`.*-1.0"),
    ("VisualInformationFidelity", {"reduction": "sum"}, "`reduction`.*'sum'"),
    ("TotalVariation", {"reduction": "max"}, "`reduction`.*'max'"),
    ("SpectralDistortionIndex", {"p": 0}, "`p`.*0"),
    ("SpectralDistortionIndex", {"reduction": None}, "`reduction`.*None"),
    ("SpatialDistortionIndex", {"norm_order": -1}, "`norm_order`.*-1"),
    ("SpatialDistortionIndex", {"window_size": 0}, "`window_size`.*0"),
    ("QualityWithNoReference", {"alpha": -1}, "`alpha`.*-1"),
    ("QualityWithNoReference", {"beta": "1"}, "`beta`.*'1'"),
]


@pytest.mark.parametrize(("name", "kwargs", "message"), BAD_ARGUMENTS, ids=lambda x: str(x)[:60])
def test_bad_constructor_arguments(name, kwargs, message):
    with pytest.raises(ValueError, match=message):
        getattr(lmi, name)(**kwargs)


def _images(*shape, seed=0):
    gen = torch.Generator().manual_seed(seed)
    target = torch.rand(shape, generator=gen)
    return target * 0.8 + 0.1, target


BAD_BATCHES = [
    # (class, kwargs, good batch shape, bad batch, error type, message)
    ("StructuralSimilarityIndexMeasure", {}, (2, 3, 16, 16), (torch.rand(2, 3, 16, 16), torch.rand(2, 3, 16, 15)),
     RuntimeError, r"same shape.*\(2, 3, 16, 16\).*\(2, 3, 16, 15\)"),
    ("StructuralSimilarityIndexMeasure", {}, (2, 3, 16, 16), (torch.rand(2, 16, 16), torch.rand(2, 16, 16)),
     ValueError, r"at least 2 spatial dims.*\(2, 16, 16\)"),
    ("StructuralSimilarityIndexMeasure", {}, (2, 3, 16, 16), _images(2, 3, 5, 5), ValueError,
     r"larger than the image.*\(11, 11\).*\(5, 5\)"),
    ("StructuralSimilarityIndexMeasure", {"gaussian_kernel": False, "kernel_size": 9}, (2, 3, 16, 16),
     _images(2, 3, 4, 30), ValueError, r"larger than the image.*\(9, 9\).*\(4, 30\)"),
    ("StructuralSimilarityIndexMeasure", {"kernel_size": (11, 11)}, (2, 3, 16, 16), _images(1, 1, 16, 16, 16),
     ValueError, r"`kernel_size` must have one entry per spatial dim, 3 \(the input has 3 spatial dims\)"),
    ("MultiScaleStructuralSimilarityIndexMeasure", {"data_range": 1.0}, (1, 1, 180, 180), _images(1, 1, 64, 64),
     ValueError, "`betas` has 5 scales.*larger than 160, got 64"),
    ("MultiScaleStructuralSimilarityIndexMeasure", {"data_range": 1.0}, (1, 1, 180, 180), _images(1, 1, 100, 100),
     ValueError, "`betas` has 5 scales.*larger than 160, got 100"),
    ("MultiScaleStructuralSimilarityIndexMeasure", {"data_range": 1.0, "sigma": 3.0}, (1, 1, 200, 200),
     _images(1, 1, 176, 180), ValueError, r"`betas` has 5 scales: at scale 5 the image is \(11, 11\).*\(23, 23\)"),
    ("UniversalImageQualityIndex", {}, (2, 3, 16, 16), (torch.rand(2, 3, 16, 16), torch.rand(2, 3, 16, 16).double()),
     TypeError, "same dtype.*float32.*float64"),
    ("UniversalImageQualityIndex", {}, (2, 3, 16, 16), _images(2, 3, 4, 4), ValueError, "larger than the image"),
    ("PeakSignalNoiseRatio", {"data_range": 1.0}, (2, 3, 8, 8), (torch.rand(2, 3), torch.rand(3, 2)),
     RuntimeError, r"same shape.*\(2, 3\).*\(3, 2\)"),
    ("PeakSignalNoiseRatioWithBlockedEffect", {"data_range": 1.0}, (2, 1, 16, 16), _images(2, 3, 16, 16),
     ValueError, "grayscale.*3 channels"),
    ("ErrorRelativeGlobalDimensionlessSynthesis", {}, (2, 3, 8, 8), _images(2, 3, 8), ValueError,
     r"\(N, C, H, W\).*\(2, 3, 8\)"),
    ("SpectralAngleMapper", {}, (2, 3, 8, 8), _images(2, 1, 8, 8), ValueError, r"more than 1 band.*\(2, 1, 8, 8\)"),
    ("RootMeanSquaredErrorUsingSlidingWindow", {"window_size": 8}, (2, 3, 16, 16), _images(2, 3, 4, 16),
     ValueError, r"`window_size`=8 is too large.*\(4, 16\)"),
    ("RelativeAverageSpectralError", {}, (2, 3, 16, 16), _images(2, 3, 16, 12), ValueError,
     "every batch must have the same number of bands and image size"),
    ("SpatialCorrelationCoefficient", {"window_size": 8}, (2, 3, 16, 16), _images(2, 3, 6, 16), ValueError,
     r"`window_size`=8 must not exceed.*\(6, 16\)"),
    ("VisualInformationFidelity", {}, (1, 1, 41, 41), _images(1, 1, 40, 41), ValueError, "at least 41x41.*40x41"),
    ("TotalVariation", {}, (2, 3, 8, 8), (torch.rand(3, 8, 8),), RuntimeError, r"4-D.*\(3, 8, 8\)"),
    ("SpectralDistortionIndex", {}, (2, 3, 16, 16), (torch.rand(2, 3, 16, 16), torch.rand(2, 2, 8, 8)),
     ValueError, r"same batch and channel sizes.*\(2, 3, 16, 16\).*\(2, 2, 8, 8\)"),
]

NAN, INF = float("nan"), float("inf")


def _poisoned(shape, where, index, value, seed=5):
    """Good images but for one pixel of ``preds`` (``where=0``) or ``target`` (1) set to ``value``."""
    batch = list(_images(*shape, seed=seed))
    batch[where] = batch[where].clone()
    batch[where][index] = value
    return tuple(batch)


def _finite_message(name, value, index):
    return rf"`{name}` must be finite \(no NaN or infinity\), got {value} at index {re.escape(str(index))}$"


# NaN and infinite pixels: every image metric refuses them (one would poison the state for good)
NON_FINITE = [
    ("PeakSignalNoiseRatio", {"data_range": 1.0}, (2, 3, 8, 8), "preds", NAN, (1, 2, 3, 4)),
    ("PeakSignalNoiseRatio", {"data_range": 1.0}, (2, 3, 8, 8), "target", INF, (0, 0, 0, 0)),
    ("PeakSignalNoiseRatio", {"data_range": (0.0, 1.0)}, (2, 3, 8, 8), "preds", -INF, (0, 1, 7, 7)),  # before clamping
    ("PeakSignalNoiseRatio", {"data_range": 1.0, "dim": (1, 2, 3), "reduction": "none"}, (2, 3, 8, 8), "target",
     NAN, (1, 0, 0, 1)),
    ("PeakSignalNoiseRatioWithBlockedEffect", {"data_range": 1.0}, (2, 1, 16, 16), "preds", NAN, (0, 0, 5, 5)),
    ("StructuralSimilarityIndexMeasure", {"data_range": 1.0}, (2, 3, 16, 16), "target", NAN, (0, 1, 3, 3)),
    ("StructuralSimilarityIndexMeasure", {}, (2, 3, 16, 16), "preds", -INF, (1, 2, 15, 0)),
    ("StructuralSimilarityIndexMeasure", {"data_range": 1.0, "return_full_image": True}, (2, 3, 16, 16), "preds",
     INF, (1, 0, 8, 8)),
    ("MultiScaleStructuralSimilarityIndexMeasure", {"data_range": 1.0, "betas": (0.5, 0.5)}, (1, 1, 48, 48),
     "preds", NAN, (0, 0, 20, 21)),
    ("UniversalImageQualityIndex", {}, (2, 3, 16, 16), "target", INF, (1, 1, 1, 1)),
    ("ErrorRelativeGlobalDimensionlessSynthesis", {}, (2, 3, 8, 8), "preds", NAN, (0, 2, 4, 4)),
    ("SpectralAngleMapper", {}, (2, 3, 8, 8), "target", NAN, (1, 0, 2, 2)),
    ("RootMeanSquaredErrorUsingSlidingWindow", {}, (2, 3, 16, 16), "preds", INF, (0, 0, 9, 9)),
    ("RelativeAverageSpectralError", {}, (2, 3, 16, 16), "target", NAN, (1, 2, 0, 15)),
    ("SpatialCorrelationCoefficient", {}, (2, 3, 16, 16), "preds", NAN, (0, 1, 2, 3)),
    ("VisualInformationFidelity", {}, (1, 1, 41, 41), "target", INF, (0, 0, 20, 20)),
    ("SpectralDistortionIndex", {}, (2, 3, 16, 16), "preds", NAN, (1, 1, 1, 1)),
]
BAD_BATCHES += [
    (name, kwargs, shape, _poisoned(shape, ("preds", "target").index(arg), index, value), ValueError,
     _finite_message(arg, value, index))
    for name, kwargs, shape, arg, value, index in NON_FINITE
    if name != "SpectralDistortionIndex"
]
BAD_BATCHES += [
    ("SpectralDistortionIndex", {}, (2, 3, 16, 16),
     (_images(2, 3, 16, 16)[0], _poisoned((2, 3, 8, 8), 1, (1, 2, 3, 3), NAN)[1]), ValueError,
     _finite_message("target", NAN, (1, 2, 3, 3))),
    ("TotalVariation", {}, (2, 3, 8, 8), (_poisoned((2, 3, 8, 8), 0, (1, 1, 1, 1), -INF)[0],), ValueError,
     _finite_message("img", -INF, (1, 1, 1, 1))),
]


def _good_batch(name, shape, seed):
    if name == "TotalVariation":
        return (_images(*shape, seed=seed)[1],)
    if name == "SpectralDistortionIndex":
        return _images(*shape, seed=seed)[0], _images(shape[0], shape[1], shape[2] // 2, shape[3] // 2, seed=seed)[1]
    return _images(*shape, seed=seed)


@pytest.mark.parametrize("case", BAD_BATCHES, ids=lambda c: f"{c[0]}-{c[5]}"[:80])
def test_bad_batch_raises_and_leaves_the_state_untouched(case):
    name, kwargs, shape, bad, error, message = case
    good = [_good_batch(name, shape, seed) for seed in range(2)]
    assert_rejected_untouched(lambda: getattr(lmi, name)(**kwargs), good, bad, errors=error, match=message)


def test_bad_function_arguments():
    preds, target = _images(2, 3, 16, 16)
    with pytest.raises(ValueError, match="`kernel_size`.*odd positive.*6"):
        lmf.structural_similarity_index_measure(preds, target, kernel_size=6)
    with pytest.raises(ValueError, match="`sigma`.*-2"):
        lmf.multiscale_structural_similarity_index_measure(preds, target, sigma=-2)
    with pytest.raises(ValueError, match="`data_range`.*0"):
        lmf.peak_signal_noise_ratio(preds, target, data_range=0)
    with pytest.raises(ValueError, match="mutually exclusive"):
        lmf.structural_similarity_index_measure(preds, target, return_full_image=True, return_contrast_sensitivity=True)
    with pytest.raises(ValueError, match="`reduction`.*'avg'"):
        lmf.spatial_correlation_coefficient(preds, target, reduction="avg")
    with pytest.raises(ValueError, match="`window_size` must be smaller than the height and width of `ms`"):
        lmf.spatial_distortion_index(preds, preds[..., ::2, ::2], target, window_size=8)
    with pytest.raises(ValueError, match="multiples of those of `ms`"):
        lmf.spatial_distortion_index(preds, preds[..., :5, :5], target)
    with pytest.raises(TypeError, match="`img` must be a tensor"):
        lmf.image_gradients([[0.0]])
    with pytest.raises(RuntimeError, match=r"`img` must be a 4-D.*\(16, 16\)"):
        lmf.image_gradients(preds[0, 0])
    with pytest.raises(ValueError, match="`hp_filter` must be a 2-D tensor"):
        lmf.spatial_correlation_coefficient(preds, target, hp_filter=torch.ones(3, 3, 3))


@pytest.mark.parametrize("name", ["SpatialDistortionIndex", "QualityWithNoReference"])
@pytest.mark.parametrize("key", ["ms", "pan", "pan_lr"])
def test_pan_sharpening_dict_targets_must_be_finite(name, key):
    def batch(seed, bad=False):
        gen = torch.Generator().manual_seed(seed)
        preds = torch.rand(1, 2, 32, 32, generator=gen)
        target = {"ms": torch.rand(1, 2, 16, 16, generator=gen), "pan": torch.rand(1, 2, 32, 32, generator=gen),
                  "pan_lr": torch.rand(1, 2, 16, 16, generator=gen)}
        if bad:
            target[key][0, 1, 3, 4] = NAN
        return preds, target

    assert_rejected_untouched(getattr(lmi, name), [batch(0), batch(1)], batch(2, bad=True),
                              needles=(f"`target['{key}']`", "nan at index (0, 1, 3, 4)"))


@pytest.mark.parametrize(
    ("name", "kwargs", "shape"),
    [("PeakSignalNoiseRatio", {"data_range": 1.0}, (2, 3, 8, 8)),
     ("StructuralSimilarityIndexMeasure", {}, (2, 3, 16, 16)),
     ("RelativeAverageSpectralError", {}, (2, 3, 16, 16)),
     ("TotalVariation", {}, (2, 3, 8, 8))],
)
def test_validate_args_false_skips_the_finiteness_check(name, kwargs, shape):
    """``validate_args`` is a keyword argument here (torchmetrics' image classes have none)."""
    batch = _poisoned(shape, 0, (0, 0, 1, 1), NAN)[: 1 if name == "TotalVariation" else 2]
    metric = getattr(lmi, name)(validate_args=False, **kwargs)
    metric.update(*batch)  # no check, no host read: the NaN goes in
    assert metric.update_count == 1
    with pytest.raises(ValueError, match="`validate_args` must be a bool, got 'no'"):
        getattr(lmi, name)(validate_args="no", **kwargs)


def test_functions_do_not_check_finiteness():
    """A function returns NaN for NaN pixels, as torchmetrics does (no host read per call)."""
    preds, target = _poisoned((2, 3, 16, 16), 0, (0, 0, 1, 1), NAN)
    assert lmf.peak_signal_noise_ratio(preds, target, data_range=1.0).isnan()
    assert lmf.structural_similarity_index_measure(preds, target, data_range=1.0).isnan()


def test_pan_sharpening_targets_must_be_dicts_with_ms_and_pan():
    metric = lmi.SpatialDistortionIndex()
    preds = torch.rand(1, 2, 32, 32)
    with pytest.raises(ValueError, match="key 'pan'"):
        metric.update(preds, {"ms": preds[..., ::2, ::2]})
    with pytest.raises(TypeError, match="`target` must be a dict"):
        metric.update(preds, preds)
    assert metric.update_count == 0 and metric.low_sums.numel() == 0
