"""Hausdorff distance: the torch distance transform and boundaries against scipy, the distance
against ``scipy.spatial.distance`` on the boundary points, and against torchmetrics 1.9 where it is
right (square 2-D images: its transform indexes rows by the height)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import torch
import torchmetrics.functional.segmentation as tmf
import torchmetrics.segmentation as tms
from scipy import ndimage
from scipy.spatial.distance import cdist, directed_hausdorff

import lightning_metrics.functional.segmentation as lmf
import lightning_metrics.segmentation as lms
from lightning_metrics.functional.segmentation._distance import distance_to_nearest, mask_edges
from tests.segmentation._cases import class_maps, masks_with_presence, one_hot

SHAPES = ((9,), (5, 8), (7, 4), (4, 5, 6))
SPACINGS = {
    1: ((1.0,), (0.7,)),
    2: ((1.0, 1.0), (0.5, 2.0), (1.3, 0.9)),
    3: ((1.0, 1.0, 1.0), (2.0, 0.5, 1.5)),
}


def _random_masks(gen: torch.Generator, shape: tuple[int, ...], count: int, density: float) -> torch.Tensor:
    return torch.rand((count, *shape), generator=gen) < density


def _brute_force(features: np.ndarray, spacing: tuple[float, ...], metric: str) -> np.ndarray:
    """Distance from every pixel to the nearest feature, by comparing every pair of pixels."""
    grid = np.indices(features.shape).reshape(features.ndim, -1).T * np.asarray(spacing)
    points = grid[features.reshape(-1)]
    name = {"euclidean": "euclidean", "chessboard": "chebyshev", "taxicab": "cityblock"}[metric]
    return cdist(grid, points, metric=name).min(1).reshape(features.shape)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_euclidean_transform_equals_scipy_edt(shape: tuple[int, ...]) -> None:
    gen = torch.Generator().manual_seed(len(shape))
    features = _random_masks(gen, shape, 6, 0.15)
    features[0] = False
    features[0].view(-1)[0] = True  # a single feature
    features[1] = True  # no background
    for spacing in SPACINGS[len(shape)]:
        ours = distance_to_nearest(features, len(shape), "euclidean", spacing)
        assert ours.dtype == torch.float32 and ours.shape == features.shape
        for image, got in zip(features.numpy(), ours):
            if image.any():  # scipy has no answer for an image without features (ours: inf, tested below)
                expected = ndimage.distance_transform_edt(~image, sampling=spacing)
                np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("metric", ["chessboard", "taxicab"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_chessboard_and_taxicab_transforms(metric: str, shape: tuple[int, ...]) -> None:
    gen = torch.Generator().manual_seed(7 + len(shape))
    features = _random_masks(gen, shape, 4, 0.2)
    features[0] = False
    features[0].view(-1)[-1] = True
    unit = distance_to_nearest(features, len(shape), metric)
    for image, got in zip(features.numpy(), unit):  # scipy's chamfer transform is exact for unit spacing
        if image.any():
            np.testing.assert_array_equal(got.numpy(), ndimage.distance_transform_cdt(~image, metric=metric))
    for spacing in SPACINGS[len(shape)]:
        ours = distance_to_nearest(features, len(shape), metric, spacing)
        for image, got in zip(features.numpy(), ours):
            if image.any():
                np.testing.assert_allclose(
                    got.numpy(), _brute_force(image, spacing, metric), rtol=1e-6, atol=1e-6
                )


def test_transform_of_an_image_without_features_is_infinite() -> None:
    out = distance_to_nearest(torch.zeros(2, 3, 4, dtype=torch.bool), 2, "taxicab")
    assert torch.isinf(out).all()


def test_transform_is_chunked_without_changing_values(monkeypatch: pytest.MonkeyPatch) -> None:
    from lightning_metrics.functional.segmentation import _distance

    features = _random_masks(torch.Generator().manual_seed(3), (13, 11), 3, 0.1)
    whole = distance_to_nearest(features, 2)
    monkeypatch.setattr(_distance, "_CHUNK_ELEMENTS", 40)
    assert torch.equal(distance_to_nearest(features, 2), whole)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_edges_equal_scipy_erosion(shape: tuple[int, ...]) -> None:
    masks = _random_masks(torch.Generator().manual_seed(11), shape, 5, 0.6)
    masks[0] = True  # the image border is outside the mask
    ours = mask_edges(masks, len(shape))
    structure = ndimage.generate_binary_structure(len(shape), 1)
    for mask, got in zip(masks.numpy(), ours.numpy()):
        expected = mask & ~ndimage.binary_erosion(mask, structure=structure, border_value=0)
        np.testing.assert_array_equal(got, expected)


def _edges_np(mask: np.ndarray) -> np.ndarray:
    structure = ndimage.generate_binary_structure(mask.ndim, 1)
    return np.argwhere(mask & ~ndimage.binary_erosion(mask, structure=structure, border_value=0))


def _scipy_hausdorff(pred: np.ndarray, target: np.ndarray, metric: str, spacing, directed: bool) -> float:
    a, b = _edges_np(pred), _edges_np(target)
    if not len(a) and not len(b):
        return float("nan")
    if not len(a) or not len(b):
        return float("inf")
    a, b = a * np.asarray(spacing), b * np.asarray(spacing)
    if metric == "euclidean":
        forward = directed_hausdorff(a, b)[0]
        return forward if directed else max(forward, directed_hausdorff(b, a)[0])
    name = {"chessboard": "chebyshev", "taxicab": "cityblock"}[metric]
    pair = cdist(a, b, metric=name)
    return pair.min(1).max() if directed else max(pair.min(1).max(), pair.min(0).max())


CASES = list(itertools.product(SHAPES[1:], ("euclidean", "chessboard", "taxicab"), (False, True)))


@pytest.mark.parametrize(("shape", "metric", "directed"), CASES, ids=str)
def test_hausdorff_equals_scipy_on_the_boundaries(
    shape: tuple[int, ...], metric: str, directed: bool
) -> None:
    gen = torch.Generator().manual_seed(len(shape) * 10 + len(metric))
    classes = 4
    preds, target = class_maps(gen, 3, classes, shape)  # absent classes, an all-background target
    spacing = SPACINGS[len(shape)][-1]
    ours = lmf.hausdorff_distance(
        preds,
        target,
        classes,
        include_background=True,
        distance_metric=metric,
        spacing=list(spacing),
        directed=directed,
        input_format="index",
    )
    assert ours.shape == (3, classes) and ours.dtype == torch.float32
    for n, c in itertools.product(range(3), range(classes)):
        expected = _scipy_hausdorff(
            (preds[n] == c).numpy(), (target[n] == c).numpy(), metric, spacing, directed
        )
        np.testing.assert_allclose(
            ours[n, c].item(), expected, rtol=1e-6, atol=1e-6, err_msg=f"sample {n} class {c}"
        )


# torchmetrics' Hausdorff distance loops over samples and classes with pairwise distances: slow,
# so a fixed sample of the combinations, each over three batches
TORCHMETRICS_CASES = [
    (
        "index",
        None,
        dict(distance_metric="euclidean", spacing=None, directed=False, include_background=False),
    ),
    (
        "index",
        None,
        dict(distance_metric="chessboard", spacing=[0.5, 2.0], directed=True, include_background=True),
    ),
    (
        "index",
        None,
        dict(distance_metric="taxicab", spacing=[1.5, 1.0], directed=False, include_background=True),
    ),
    (
        "index",
        "pred",
        dict(distance_metric="euclidean", spacing=[0.5, 2.0], directed=True, include_background=False),
    ),
    (
        "index",
        "target",
        dict(distance_metric="taxicab", spacing=None, directed=False, include_background=False),
    ),
    (
        "one-hot",
        None,
        dict(distance_metric="euclidean", spacing=[2.0, 1.0], directed=False, include_background=True),
    ),
    (
        "one-hot",
        "target",
        dict(distance_metric="chessboard", spacing=None, directed=True, include_background=False),
    ),
    ("mixed", None, dict(distance_metric="euclidean", spacing=None, directed=True, include_background=True)),
    (
        "mixed",
        "pred",
        dict(distance_metric="taxicab", spacing=[0.5, 2.0], directed=False, include_background=False),
    ),
]


@pytest.mark.parametrize(("form", "missing", "args"), TORCHMETRICS_CASES)
def test_square_images_equal_torchmetrics(form: str, missing, args: dict) -> None:
    gen = torch.Generator().manual_seed(4)
    args = {**args, "num_classes": 3, "input_format": form}
    ours, oracle = lms.HausdorffDistance(**args), []
    for i, n in enumerate((2, 1)):
        preds, target = masks_with_presence(gen, n, 3, (6, 6), missing if i == 0 else None)
        if form == "one-hot":
            preds, target = one_hot(preds, 3), one_hot(target, 3)
        elif form == "mixed":
            preds = torch.randn(n, 3, 6, 6, generator=gen) + 5 * one_hot(preds, 3)
        oracle.append(tmf.hausdorff_distance(preds, target, **args))
        torch.testing.assert_close(lmf.hausdorff_distance(preds, target, **args), oracle[-1], rtol=0, atol=0)
        ours.update(preds, target)
    # torchmetrics' HausdorffDistance.compute: the sum of its functional values over their number
    expected = torch.cat([o.reshape(-1) for o in oracle])
    expected = expected.sum() / expected.numel()
    result = ours.compute()
    assert result.dtype == expected.dtype and result.shape == expected.shape
    torch.testing.assert_close(result, expected, rtol=1e-6, atol=1e-6)
    if missing is not None:
        assert torch.isinf(result)


def test_modular_equals_torchmetrics_modular() -> None:
    gen = torch.Generator().manual_seed(9)
    preds, target = masks_with_presence(gen, 2, 3, (5, 5))
    args = dict(num_classes=3, distance_metric="taxicab", spacing=[2.0, 1.0])
    ours, oracle = lms.HausdorffDistance(**args), tms.HausdorffDistance(**args)
    for metric in (ours, oracle):
        metric.update(one_hot(preds, 3), one_hot(target, 3))
    ours_value, oracle_value = ours.compute(), oracle.compute()
    assert ours_value.dtype == oracle_value.dtype and ours_value.shape == oracle_value.shape
    torch.testing.assert_close(ours_value, oracle_value, rtol=1e-6, atol=1e-6)


def test_classes_absent_from_both_are_nan_and_left_out_of_the_mean() -> None:
    preds = torch.zeros(2, 3, 6, 6, dtype=torch.long)
    target = torch.zeros_like(preds)
    preds[0, 1, 1:3, 1:3] = 1
    target[0, 1, 2:4, 2:4] = 1  # class 1 of sample 0: distance sqrt(2); class 2 and sample 1: absent
    out = lmf.hausdorff_distance(preds, target, 3)
    assert out[0, 0] == pytest.approx(2**0.5) and torch.isnan(out[0, 1]) and torch.isnan(out[1]).all()
    metric = lms.HausdorffDistance(3)
    metric.update(preds, target)
    assert metric.compute().item() == pytest.approx(2**0.5)
    empty = lms.HausdorffDistance(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert torch.isnan(empty.compute())
    empty.update(torch.zeros_like(preds), torch.zeros_like(target))  # all background
    assert torch.isnan(empty.compute())


def test_spacing_must_match_the_spatial_dimensions() -> None:
    preds = torch.zeros(1, 2, 4, 4, 4, dtype=torch.long)
    with pytest.raises(ValueError, match=r"`spacing`.*3.*\[1.0, 2.0\]"):
        lmf.hausdorff_distance(preds, preds, 2, spacing=[1.0, 2.0])
    ours = lmf.hausdorff_distance(preds, preds, 2, spacing=torch.tensor([1.0, 2.0, 1.0]))
    assert ours.shape == (1, 1)
