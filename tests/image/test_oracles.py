"""Image metrics against independent oracles: scikit-image (SSIM, UQI as SSIM without constants,
PSNR), SciPy's uniform filter (RMSE-SW) and float64 NumPy formulas (ERGAS, SAM, D-lambda, TV,
image gradients), on float64 inputs.

scikit-image averages the SSIM map without its border; torchmetrics (and we) pad the borders by
reflection and average the whole map. The maps agree on the interior to 1e-12; the means differ
by a few 1e-4 to 1e-2 on small images (see ``test_ssim_mean_differs_from_scikit_image_by_the_border``).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import lightning_metrics.functional.image as lmf
from tests.image._cases import inputs

skimage_metrics = pytest.importorskip("skimage.metrics")
ndimage = pytest.importorskip("scipy.ndimage")


def _skimage_ssim_map(preds, target, data_range, **kwargs):
    """scikit-image's SSIM map of every (image, channel), stacked like ours."""
    maps = [
        skimage_metrics.structural_similarity(
            t.numpy(), p.numpy(), data_range=data_range, full=True, use_sample_covariance=False, **kwargs
        )[1]
        for pi, ti in zip(preds, target)
        for p, t in zip(pi, ti)
    ]
    return np.stack(maps).reshape(*preds.shape)


def _interior(x, pad):
    index = (Ellipsis, *(slice(pad, -pad) for _ in range(x.ndim - 2)))
    return x[index]


@pytest.mark.parametrize(
    ("kind", "kwargs", "skimage_kwargs", "pad"),
    [
        ("rgb", {"sigma": 1.5}, {"gaussian_weights": True, "sigma": 1.5}, 5),
        ("gray", {"sigma": 0.8}, {"gaussian_weights": True, "sigma": 0.8}, 3),
        ("rgb", {"gaussian_kernel": False, "kernel_size": 7}, {"win_size": 7}, 3),
        ("volume", {"sigma": 1.0, "kernel_size": 9}, {"gaussian_weights": True, "sigma": 1.0}, 4),
    ],
    ids=["gaussian", "gaussian-small", "uniform", "3d"],
)
def test_ssim_map_interior_equals_scikit_image(kind, kwargs, skimage_kwargs, pad):
    preds, target = inputs(kind, torch.float64, seed=4)
    _, ours = lmf.structural_similarity_index_measure(preds, target, data_range=1.0, return_full_image=True, **kwargs)
    oracle = _skimage_ssim_map(preds, target, 1.0, **skimage_kwargs)
    np.testing.assert_allclose(_interior(ours.numpy(), pad), _interior(oracle, pad), rtol=1e-10, atol=1e-12)


def test_ssim_mean_differs_from_scikit_image_by_the_border():
    """The documented difference: the same interior, but torchmetrics' mean covers the padded
    border too. On 23x29 images the border is most of the map; on 256x256 it is a few 1e-4."""
    gen = torch.Generator().manual_seed(0)
    target = torch.rand(1, 1, 256, 256, generator=gen, dtype=torch.float64)
    preds = (0.8 * target + 0.2 * torch.rand(1, 1, 256, 256, generator=gen, dtype=torch.float64))
    ours = float(lmf.structural_similarity_index_measure(preds, target, data_range=1.0))
    oracle = skimage_metrics.structural_similarity(
        target[0, 0].numpy(), preds[0, 0].numpy(), data_range=1.0, gaussian_weights=True, sigma=1.5,
        use_sample_covariance=False,
    )
    assert 0 < abs(ours - oracle) < 2e-3


def test_uqi_equals_scikit_image_ssim_without_constants():
    preds, target = inputs("rgb", torch.float64, seed=5)
    ours = lmf.universal_image_quality_index(preds, target, reduction="none")
    oracle = [
        skimage_metrics.structural_similarity(
            t.numpy(), p.numpy(), data_range=1.0, full=True, use_sample_covariance=False,
            gaussian_weights=True, sigma=1.5, K1=0.0, K2=0.0,
        )[1][5:-5, 5:-5]
        for pi, ti in zip(preds, target) for p, t in zip(pi, ti)
    ]
    np.testing.assert_allclose(ours.numpy(), np.stack(oracle).reshape(ours.shape), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("data_range", [1.0, 0.5])
def test_psnr_equals_scikit_image(data_range):
    preds, target = inputs("rgb", torch.float64, seed=6)
    ours = lmf.peak_signal_noise_ratio(preds, target, data_range=data_range)
    oracle = skimage_metrics.peak_signal_noise_ratio(target.numpy(), preds.numpy(), data_range=data_range)
    assert abs(float(ours) - oracle) < 1e-10


def test_rmse_sw_map_equals_scipy_uniform_filter():
    preds, target = inputs("bands", torch.float64, seed=7)
    for window in (3, 4, 8):
        _, ours = lmf.root_mean_squared_error_using_sliding_window(preds, target, window, return_rmse_map=True)
        error = ((target - preds) ** 2).numpy()
        filtered = ndimage.uniform_filter(error, size=(1, 1, window, window), mode="reflect")
        np.testing.assert_allclose(ours.numpy(), np.sqrt(filtered).mean(0), rtol=1e-10, atol=1e-12)


def test_ergas_equals_numpy():
    preds, target = (x.numpy() for x in inputs("bands", torch.float64, seed=8))
    ratio = 4
    rmse = np.sqrt(((preds - target) ** 2).mean(axis=(2, 3)))
    expected = 100 / ratio * np.sqrt(((rmse / target.mean(axis=(2, 3))) ** 2).mean(axis=1))
    ours = lmf.error_relative_global_dimensionless_synthesis(torch.from_numpy(preds), torch.from_numpy(target),
                                                             ratio, reduction="none")
    np.testing.assert_allclose(ours.numpy(), expected, rtol=1e-12)


def test_sam_equals_numpy():
    preds, target = (x.numpy() for x in inputs("bands", torch.float64, seed=9))
    cosine = (preds * target).sum(1) / (np.linalg.norm(preds, axis=1) * np.linalg.norm(target, axis=1))
    ours = lmf.spectral_angle_mapper(torch.from_numpy(preds), torch.from_numpy(target), reduction="none")
    np.testing.assert_allclose(ours.numpy(), np.arccos(np.clip(cosine, -1, 1)), rtol=1e-10, atol=1e-12)


def test_d_lambda_equals_numpy_over_scikit_image_uqi():
    fused, ms = inputs("fused_ms", torch.float64, seed=10)

    def uqi(a, b):  # mean UQI over images and the valid pixels, as in the index's definition
        return np.mean([
            skimage_metrics.structural_similarity(y, x, data_range=1.0, full=True, use_sample_covariance=False,
                                                  gaussian_weights=True, sigma=1.5, K1=0.0, K2=0.0)[1][5:-5, 5:-5]
            for x, y in zip(a, b)
        ])

    bands = fused.shape[1]
    for p in (1, 2):
        diffs = [abs(uqi(ms[:, k].numpy(), ms[:, r].numpy()) - uqi(fused[:, k].numpy(), fused[:, r].numpy())) ** p
                 for k in range(bands) for r in range(bands) if k != r]
        expected = (np.sum(diffs) / (bands * (bands - 1))) ** (1 / p)
        ours = lmf.spectral_distortion_index(fused, ms, p=p)
        assert abs(float(ours) - expected) < 1e-6  # torchmetrics returns float32


def test_total_variation_and_gradients_equal_numpy():
    (image,) = inputs("image", torch.float64, seed=11)
    x = image.numpy()
    expected = np.abs(np.diff(x, axis=2)).sum(axis=(1, 2, 3)) + np.abs(np.diff(x, axis=3)).sum(axis=(1, 2, 3))
    np.testing.assert_allclose(lmf.total_variation(image, reduction="none").numpy(), expected, rtol=1e-12)
    dy, dx = lmf.image_gradients(image)
    np.testing.assert_allclose(dy.numpy()[..., :-1, :], np.diff(x, axis=2), rtol=1e-12)
    np.testing.assert_allclose(dx.numpy()[..., :, :-1], np.diff(x, axis=3), rtol=1e-12)
    assert not dy[..., -1, :].any() and not dx[..., -1].any()
