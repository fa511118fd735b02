"""torchmetrics' segmentation helpers at their path (``functional.segmentation.utils``) against
torchmetrics 1.9 as the oracle: one table of calls on generated masks (2-D and 3-D blobs, thin
and border-touching shapes, empty and full masks, several dtypes), every metric, anisotropic
``spacing`` and structuring elements. Values agree to 1e-6 with the same dtype and shape; invalid
calls raise the same type. Where torchmetrics fails (non-square distance transforms, 3-D surface
distances), ours are checked against scipy and brute force.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import numpy as np
import pytest
import torch
import torchmetrics.functional.segmentation.utils as tm_utils
from scipy import ndimage

import lightning_metrics.functional.segmentation.utils as lm_utils
from tests._outcomes import assert_same_outcome, outcome
from tests._seeds import keyed_generator


def _blobs(key: str, shape: tuple[int, ...], count: int = 3) -> torch.Tensor:
    """A bool mask of a few random ellipsoids, one of them touching the border."""
    g = keyed_generator(key)
    grid = torch.stack(torch.meshgrid(*(torch.arange(n).float() for n in shape), indexing="ij"), dim=-1)
    mask = torch.zeros(shape, dtype=torch.bool)
    for k in range(count):
        centre = torch.rand(len(shape), generator=g) * torch.tensor(shape).float()
        if k == 0:
            centre[0] = 0.0
        radii = 1.5 + torch.rand(len(shape), generator=g) * torch.tensor(shape).float() / 4
        mask |= (((grid - centre) / radii) ** 2).sum(-1) <= 1
    return mask


def _masks() -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    cases = {
        "2d-blobs": (_blobs("p2", (40, 40)), _blobs("t2", (40, 40))),
        "2d-overlap": (_blobs("o2", (32, 32), 2), _blobs("o2", (32, 32), 2) | _blobs("x2", (32, 32), 1)),
        "2d-thin": (torch.eye(24, dtype=torch.bool), torch.eye(24, dtype=torch.bool).flip(0)),
        "2d-wide": (_blobs("pw", (20, 48)), _blobs("tw", (20, 48))),
        "3d-blobs": (_blobs("p3", (14, 18, 16)), _blobs("t3", (14, 18, 16))),
        "3d-cube": (torch.zeros(10, 10, 10, dtype=torch.bool), torch.zeros(10, 10, 10, dtype=torch.bool)),
    }
    cases["3d-cube"][0][2:7, 3:8, 1:6] = True
    cases["3d-cube"][1][3:9, 3:7, 2:8] = True
    empty = torch.zeros(16, 16, dtype=torch.bool)
    cases["2d-empty-preds"] = (empty, _blobs("e2", (16, 16)))
    cases["2d-empty-target"] = (_blobs("e2", (16, 16)), empty)
    cases["2d-both-empty"] = (empty, empty)
    cases["2d-full"] = (torch.ones(12, 12, dtype=torch.bool), _blobs("f2", (12, 12)))
    return cases


MASKS = _masks()
SQUARE_2D = [k for k, (p, _) in MASKS.items() if p.ndim == 2 and p.shape[0] == p.shape[1]]
Call = tuple[str, Callable[[object], object]]
CALLS: list[Call] = []

# ---------------------------------------------------------------- structures and erosion
for rank in range(5):
    for connectivity in range(5):
        CALLS.append((f"structure-{rank}-{connectivity}", lambda m, r=rank, c=connectivity: m.generate_binary_structure(r, c)))
for name, x in {
    "long": torch.tensor([0, 1, 1, 0]), "bool": torch.tensor([True, False]), "float": torch.tensor([[0.0, 1.0]]),
    "bad-two": torch.tensor([0, 2]), "bad-half": torch.tensor([0.5, 1.0]),
}.items():
    CALLS.append((f"{'bad-' if name.startswith('bad') else ''}binarized-{name}", lambda m, x=x: m.check_if_binarized(x)))

_STRUCTURES = {
    "default": None, "full-2d": torch.ones(3, 3), "square-2d": "generate(2,2)", "even-4x4": torch.ones(4, 4),
    "custom-bool": torch.tensor([[True, False, False], [True, True, False], [False, True, True]]),
}
for key in ("2d-blobs", "2d-wide", "2d-thin", "2d-full", "2d-both-empty"):
    preds, target = MASKS[key]
    image = torch.stack([preds, target]).unsqueeze(1)  # (2, 1, H, W)
    for sname, structure in _STRUCTURES.items():
        for origin in (None, (1, 1), (0, 1)):
            for border in (0, 1):
                if (origin, border) not in ((None, 0), ((1, 1), 1), ((0, 1), 0)):
                    continue
                for dtype in (torch.long, torch.bool, torch.uint8, torch.float32):
                    if dtype in (torch.bool, torch.uint8) and sname not in ("default", "custom-bool"):
                        continue
                    CALLS.append((
                        f"erosion-{key}-{sname}-{origin}-{border}-{dtype}",
                        lambda m, i=image.to(dtype), s=structure, o=origin, b=border: m.binary_erosion(
                            i, m.generate_binary_structure(2, 2) if isinstance(s, str) else s, o, b),
                    ))
for key in ("3d-blobs", "3d-cube"):
    image = torch.stack(MASKS[key]).unsqueeze(1)  # (2, 1, D, H, W)
    CALLS += [
        (f"erosion-{key}-default", lambda m, i=image.long(): m.binary_erosion(i)),
        (f"erosion-{key}-26", lambda m, i=image.long(): m.binary_erosion(i, m.generate_binary_structure(3, 3))),
        (f"erosion-{key}-border", lambda m, i=image.float(): m.binary_erosion(i, None, (1, 1, 1), 1)),
    ]
CALLS += [
    ("bad-erosion-rank3", lambda m: m.binary_erosion(torch.zeros(1, 4, 4).long())),
    ("bad-erosion-not-binary", lambda m: m.binary_erosion(torch.full((1, 1, 4, 4), 2))),
    ("bad-erosion-not-tensor", lambda m: m.binary_erosion([[0, 1]])),
]

# ---------------------------------------------------------------- distance transform
_SAMPLINGS = (None, [1, 1], [2, 1], [3, 2], [0.5, 1.7], [1.3, 0.25])
for key in SQUARE_2D:
    if key in ("2d-both-empty", "2d-empty-target"):  # no feature pixel: torchmetrics' min of nothing
        continue
    preds, target = MASKS[key]
    for metric in ("euclidean", "chessboard", "taxicab"):
        for sampling in _SAMPLINGS:
            CALLS.append((
                f"distance-{key}-{metric}-{sampling}",
                lambda m, x=(~target).long(), s=sampling, d=metric: m.distance_transform(x, s, d),
            ))
    mask = preds if preds.any() else target  # an all-ones image has no background (see below)
    CALLS += [
        (f"distance-{key}-bool", lambda m, x=~mask: m.distance_transform(x)),
        (f"distance-{key}-float", lambda m, x=(~mask).float(): m.distance_transform(x, [0.7, 0.7], "taxicab")),
        (f"distance-{key}-scipy", lambda m, x=(~target).long(): m.distance_transform(x, [1.5, 0.5], engine="scipy")),
    ]
CALLS += [
    ("bad-distance-3-values", lambda m: m.distance_transform(torch.zeros(4, 4), [1, 1, 1])),
    ("bad-distance-rank1", lambda m: m.distance_transform(torch.zeros(4))),
    ("bad-distance-metric", lambda m: m.distance_transform(torch.zeros(4, 4), metric="cosine")),
    ("bad-distance-engine", lambda m: m.distance_transform(torch.zeros(4, 4), engine="numpy")),
    ("bad-distance-not-tensor", lambda m: m.distance_transform([[0, 1]])),
]

# ---------------------------------------------------------------- edges, areas and surface distances
for key, (preds, target) in MASKS.items():
    spacings = [None, (1, 1), (2, 1), (0.5, 1.75)] if preds.ndim == 2 else [None, (1, 1, 1), (2, 1, 3), (0.6, 1.3, 0.9)]
    for crop in (True, False):
        for spacing in spacings:
            for dtype in (torch.bool, torch.long, torch.uint8):
                if spacing is not None and dtype != torch.bool:
                    continue
                CALLS.append((
                    f"edges-{key}-{crop}-{spacing}-{dtype}",
                    lambda m, p=preds.to(dtype), t=target.to(dtype), c=crop, s=spacing: m.mask_edges(p, t, c, s),
                ))
for key in SQUARE_2D:
    preds, target = MASKS[key]
    for metric in ("euclidean", "chessboard", "taxicab"):
        for spacing in (None, [1, 1], [2.5, 0.75]):
            CALLS += [
                (f"surface-{key}-{metric}-{spacing}", lambda m, p=preds, t=target, d=metric, s=spacing: m.surface_distance(p, t, d, s)),
                (f"edge-surface-{key}-{metric}-{spacing}",
                 lambda m, p=preds, t=target, d=metric, s=spacing: m.edge_surface_distance(p, t, d, s)),
                (f"edge-surface-sym-{key}-{metric}-{spacing}",
                 lambda m, p=preds, t=target, d=metric, s=spacing: m.edge_surface_distance(p, t, d, s, True)),
            ]
CALLS += [
    ("bad-edges-shapes", lambda m: m.mask_edges(torch.zeros(3, 3).bool(), torch.zeros(3, 4).bool())),
    ("bad-edges-rank4", lambda m: m.mask_edges(torch.zeros(1, 3, 3, 3).bool(), torch.zeros(1, 3, 3, 3).bool())),
    ("bad-edges-not-binary", lambda m: m.mask_edges(torch.full((3, 3), 2), torch.zeros(3, 3).long())),
    ("bad-surface-long", lambda m: m.surface_distance(torch.ones(3, 3).long(), torch.ones(3, 3).long())),
    ("table-contour-1-1", lambda m: m.table_contour_length((1, 1))),
    ("table-contour-2-2", lambda m: m.table_contour_length((2, 2))),
    ("table-contour-3-0.5", lambda m: m.table_contour_length((3, 0.5))),
    ("tables-2d", lambda m: m.get_neighbour_tables((1.5, 2))),
    ("tables-3d", lambda m: m.get_neighbour_tables((1.5, 2, 0.5))),
    ("bad-tables-4", lambda m: m.get_neighbour_tables((1, 1, 1, 1))),
    ("bad-tables-list", lambda m: m.get_neighbour_tables([1, 1])),  # unhashable: the cache refuses it
]
_rng = random.Random(0)
for spacing in [(1, 1, 1), (2, 2, 2), (1, 2, 3)] + [tuple(round(_rng.uniform(0.05, 6), 4) for _ in range(3)) for _ in range(6)]:
    CALLS.append((f"table-surface-{spacing}", lambda m, s=spacing: m.table_surface_area(s)))


@pytest.mark.parametrize(("name", "call"), CALLS, ids=[c[0] for c in CALLS])
def test_matches_torchmetrics(name: str, call: Callable) -> None:
    theirs = outcome(lambda: call(tm_utils))
    if not name.startswith("bad-"):
        assert not isinstance(theirs, Exception), f"{name}: the oracle raised {theirs!r}"
    assert_same_outcome(outcome(lambda: call(lm_utils)), theirs, name)


# ---------------------------------------------------------------- where torchmetrics fails
def _brute_force(features: torch.Tensor, spacing: tuple, metric: str) -> torch.Tensor:
    points = torch.stack(torch.meshgrid(*(torch.arange(n) for n in features.shape), indexing="ij"), -1).reshape(-1, features.ndim)
    diff = (points[:, None].double() - points[features.reshape(-1)][None].double()).abs() * torch.tensor(spacing).double()
    dist = {"euclidean": diff.pow(2).sum(-1).sqrt(), "chessboard": diff.amax(-1), "taxicab": diff.sum(-1)}[metric]
    return dist.amin(-1).reshape(features.shape)


@pytest.mark.parametrize("metric", ["euclidean", "chessboard", "taxicab"])
@pytest.mark.parametrize("key", ["2d-wide", "3d-blobs"])
def test_non_square_and_3d_distances_are_exact(key: str, metric: str) -> None:
    """torchmetrics indexes rows by the height (non-square images go wrong) and refuses 3-D masks."""
    preds, target = MASKS[key]
    spacing = (1.5, 0.5, 2.0)[: preds.ndim]
    expected = torch.where(~target, _brute_force(target, spacing, metric), 0.0).float()
    got = lm_utils.distance_transform((~target).long(), list(spacing), metric)
    torch.testing.assert_close(got, expected, rtol=1e-6, atol=1e-5)
    if metric == "euclidean":
        scipy_edt = ndimage.distance_transform_edt((~target).numpy(), sampling=spacing)
        np.testing.assert_allclose(lm_utils.distance_transform((~target).long(), list(spacing), engine="scipy"),
                                   scipy_edt, rtol=1e-6, atol=1e-5)
    edges_p, edges_t = (e.bool() for e in lm_utils.mask_edges(preds, target)[:2])
    expected = _brute_force(edges_t, spacing, metric)[edges_p].float()
    torch.testing.assert_close(lm_utils.edge_surface_distance(preds, target, metric, torch.tensor(spacing)), expected,
                               rtol=1e-6, atol=1e-5)


def test_an_image_without_background_is_infinitely_far() -> None:
    """torchmetrics raises (a minimum over no background pixel); every pixel is infinitely far here."""
    with pytest.raises(IndexError):
        tm_utils.distance_transform(torch.ones(4, 4))
    assert torch.isinf(lm_utils.distance_transform(torch.ones(3, 4))).all()


def test_the_surface_table_is_derived_not_stored() -> None:
    """The 256 codes' areas come from tracing the marching-cubes polygons (largest-area triangulation);
    torchmetrics' literal table agrees for random anisotropic spacings (above) and at a glance here."""
    from lightning_metrics.functional.segmentation import _neighbour_codes

    vectors = _neighbour_codes.area_vectors()
    assert vectors.shape == (256, 4, 3) and bool(((vectors * 8).round() == vectors * 8).all())
    table = _neighbour_codes.surface_area_table((1.0, 1.0, 1.0))
    assert table[0] == table[255] == 0 and math.isclose(float(table[15]), 1.0)
    torch.testing.assert_close(table, table[torch.arange(255, -1, -1)])  # a surface and its complement


def test_the_path_serves_our_own_objects() -> None:
    from lightning_metrics.functional.segmentation.utils import (  # noqa: F401
        binary_erosion,
        check_if_binarized,
        distance_transform,
        edge_surface_distance,
        generate_binary_structure,
        get_neighbour_tables,
        mask_edges,
        surface_distance,
        table_contour_length,
        table_surface_area,
    )

    assert mask_edges.__module__ == "lightning_metrics.functional.segmentation.utils"
    public = {n for n, v in vars(tm_utils).items() if not n.startswith("_") and callable(v)
              and getattr(v, "__module__", getattr(getattr(v, "__wrapped__", None), "__module__", "")) == tm_utils.__name__}
    assert public <= set(dir(lm_utils)), public - set(dir(lm_utils))


@pytest.mark.parametrize("rank", [2, 3])
def test_binary_erosion_of_several_channels_is_scipys(rank: int) -> None:
    """torchmetrics erodes one channel only (more fail its broadcast); each channel is eroded here."""
    g = keyed_generator(f"channels-{rank}")
    image = (torch.rand((2, 3) + (9,) * rank, generator=g) > 0.25).long()
    structure = lm_utils.generate_binary_structure(rank, 2)
    got = lm_utils.binary_erosion(image, structure, border_value=1)
    expected = np.stack([[ndimage.binary_erosion(c.numpy(), structure.numpy(), border_value=1) for c in n] for n in image])
    assert got.dtype == torch.uint8 and np.array_equal(got.bool().numpy(), expected)
