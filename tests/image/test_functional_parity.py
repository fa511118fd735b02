"""Every image function against torchmetrics 1.9 over generated cases: values, dtypes and shapes.

float32 and float64 run every case; the half precisions run every case for dtypes and shapes, and
for values where torchmetrics' half-precision filtering is usable (elsewhere against torchmetrics
on the same values in float64: it loses every digit of some variances in float16, we filter in
float32).
"""

from __future__ import annotations

import warnings

import pytest
import torch

import lightning_metrics.functional.image as lmf
from tests.image._cases import FLOATS, FUNCTIONAL_CASES, HALVES, case_id, inputs, returns_map, tolerance
from tests.reliability._registry import assert_close, to_plain

tmf = pytest.importorskip("torchmetrics.functional.image")

# torchmetrics' half-precision result is not a usable reference here (NaN or digits lost): the
# reference is torchmetrics on the same values in float64
HALF_REFERENCE_IN_FLOAT64 = {"visual_information_fidelity", "multiscale_structural_similarity_index_measure",
                             "peak_signal_noise_ratio_with_blocked_effect", "structural_similarity_index_measure",
                             "spectral_angle_mapper"}
# per-pixel UQI of half inputs uses float16's epsilon in its denominator (as torchmetrics): neither
# the float64 values nor torchmetrics' half filtering are a reference pixel by pixel
HALF_LAYOUT_ONLY = {"universal_image_quality_index"}


def _call(module, name, args, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(module, name)(*args, **kwargs)


def _same_layout(ours, theirs, path="result"):
    ours, theirs = to_plain(ours), to_plain(theirs)
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs), path
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _same_layout(a, b, f"{path}[{i}]")
        return
    assert ours.dtype == theirs.dtype, f"{path}: dtype {ours.dtype} != {theirs.dtype}"
    assert ours.shape == theirs.shape, f"{path}: shape {tuple(ours.shape)} != {tuple(theirs.shape)}"


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("case", FUNCTIONAL_CASES, ids=case_id)
def test_function_matches_torchmetrics(case, dtype):
    name, kwargs, kind = case
    args = inputs(kind, dtype, seed=len(name) + len(kwargs))
    ours, theirs = _call(lmf, name, args, kwargs), _call(tmf, name, args, kwargs)
    _same_layout(ours, theirs)
    if kind == "constant" and dtype == torch.float32:
        # torchmetrics' float32 variance of a constant image is a rounding residue of 4e-7 (its 2-D
        # kernel sums to 1 - 1.2e-7), which moves SSIM by 5e-4; ours stays at the exact value
        theirs = _call(tmf, name, [a.double() for a in args], kwargs)
    # a result kept in float32 for float64 inputs (spatial_correlation_coefficient, as torchmetrics)
    # is held to float32's tolerance
    result_dtype = ours.dtype if isinstance(ours, torch.Tensor) and ours.is_floating_point() else dtype
    assert_close(ours, theirs, **tolerance(result_dtype, returns_map(kwargs)), path=case_id(case))


HALF_CASES = [c for c in FUNCTIONAL_CASES if c[2] not in ("constant",)][::2]  # sampled: every other case


@pytest.mark.parametrize("dtype", HALVES, ids=str)
@pytest.mark.parametrize("case", HALF_CASES, ids=case_id)
def test_half_precision_matches_torchmetrics(case, dtype):
    name, kwargs, kind = case
    args = inputs(kind, dtype, seed=3)
    ours = _call(lmf, name, args, kwargs)
    try:
        theirs = _call(tmf, name, args, kwargs)
    except NotImplementedError:  # torchmetrics' 3-D pooling has no half kernels on CPU; ours pools in float32
        theirs = None
    except RuntimeError as error:
        if "not implemented for" not in str(error):
            raise
        # torch before 2.5 has no half CPU kernel for torchmetrics' reflection padding: no oracle
        # of torchmetrics' half arithmetic (which ours follows) on this torch; ours ran above
        pytest.skip(f"torchmetrics cannot run this in {dtype} on torch {torch.__version__}: {error}")
    else:
        _same_layout(ours, theirs)
    if name in HALF_LAYOUT_ONLY and returns_map(kwargs):
        return
    if name in HALF_REFERENCE_IN_FLOAT64 or theirs is None:
        reference = _call(tmf, name, [a.double() for a in args], kwargs)
    else:
        reference = theirs
    assert_close(ours, reference, **tolerance(dtype), path=case_id(case))


def test_integer_images_are_read_as_float32():
    """uint8 images (as loaded) work where torchmetrics' filters need floats: as float32 values."""
    preds, target = inputs("rgb", torch.float64)
    preds, target = (preds * 255).round().to(torch.uint8), (target * 255).round().to(torch.uint8)
    ours = lmf.peak_signal_noise_ratio(preds, target, data_range=255.0)
    assert_close(ours, tmf.peak_signal_noise_ratio(preds, target, data_range=255.0), rtol=1e-6, atol=1e-6)
    ssim = lmf.structural_similarity_index_measure(preds, target, data_range=255.0)
    expected = tmf.structural_similarity_index_measure(preds.float(), target.float(), data_range=255.0)
    assert_close(ssim, expected, rtol=1e-5, atol=1e-5)
