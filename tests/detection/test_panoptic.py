"""PanopticQuality and ModifiedPanopticQuality against torchmetrics (no torchvision needed there):
functions and metrics, every output flag, unknown categories, point clouds and volumes, streaming."""

from __future__ import annotations

import pytest
import torch
import torchmetrics.detection as tmd
import torchmetrics.functional.detection as tmf

import lightning_metrics.detection as lmd
import lightning_metrics.functional.detection as lmf

THINGS, STUFFS = {0, 1, 5}, {6, 7}


def panoptic_maps(seed: int, batch: int = 3, spatial: tuple = (8, 10), unknown: bool = False) -> tuple:
    """Blocky (category, instance) maps and a noisy copy; category 9 is unknown (void in the target)."""
    gen = torch.Generator().manual_seed(seed)
    coarse = tuple(max(1, s // 2) for s in spatial)

    def blocks(categories: list[int]) -> torch.Tensor:
        cat = torch.tensor(categories)[torch.randint(0, len(categories), (batch, *coarse), generator=gen)]
        inst = torch.randint(0, 3, (batch, *coarse), generator=gen)
        out = torch.stack([cat, inst], -1)
        for dim, size in enumerate(spatial):
            out = out.repeat_interleave(2, dim + 1)[(slice(None),) * (dim + 1) + (slice(0, size),)]
        return out

    target = blocks([0, 1, 5, 6, 7, 9])
    preds = target.clone()
    noise = blocks([0, 1, 5, 6, 7] + ([11] if unknown else []))
    where = torch.rand(preds.shape[:-1], generator=gen) < 0.3
    preds[where] = noise[where]
    if not unknown:
        preds[..., 0][preds[..., 0] == 9] = 0
    return preds, target


def _same(ours: torch.Tensor, theirs: torch.Tensor) -> None:
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype, (ours, theirs)
    torch.testing.assert_close(ours, theirs, rtol=0, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("seed", range(6))
def test_functions_match_torchmetrics(seed: int) -> None:
    unknown = bool(seed % 2)
    spatial = [(8, 10), (12,), (4, 4, 6)][seed % 3]
    preds, target = panoptic_maps(seed, spatial=spatial, unknown=unknown)
    for sq_rq in (False, True):
        for per_class in (False, True):
            _same(lmf.panoptic_quality(preds, target, THINGS, STUFFS, unknown, sq_rq, per_class),
                  tmf.panoptic_quality(preds, target, THINGS, STUFFS, unknown, sq_rq, per_class))
    _same(lmf.modified_panoptic_quality(preds, target, THINGS, STUFFS, unknown),
          tmf.modified_panoptic_quality(preds, target, THINGS, STUFFS, unknown))


@pytest.mark.parametrize("modified", [False, True])
def test_metrics_stream_like_torchmetrics(modified: bool) -> None:
    flags = {} if modified else {"return_sq_and_rq": True, "return_per_class": True}
    name = "ModifiedPanopticQuality" if modified else "PanopticQuality"
    ours = getattr(lmd, name)(things=THINGS, stuffs=STUFFS, allow_unknown_preds_category=True, **flags)
    theirs = getattr(tmd, name)(things=THINGS, stuffs=STUFFS, allow_unknown_preds_category=True, **flags)
    for seed in range(4):
        preds, target = panoptic_maps(10 + seed, batch=1 + seed % 3, unknown=True)
        _same(ours(preds, target), theirs(preds, target))
    _same(ours.compute(), theirs.compute())


def test_no_segment_at_all_gives_nan_like_torchmetrics() -> None:
    target = torch.full((1, 3, 3, 2), 9)  # only an unknown (void) category
    preds = torch.zeros_like(target)
    _same(lmf.panoptic_quality(preds, target, THINGS, STUFFS), tmf.panoptic_quality(preds, target, THINGS, STUFFS))


def test_categories_are_checked_as_torchmetrics_does() -> None:
    with pytest.warns(UserWarning, match="duplicates"):
        lmd.PanopticQuality(things=[0, 0, 1], stuffs=[6])
    with pytest.raises(ValueError, match="At least one"):
        lmd.PanopticQuality(things=set(), stuffs=set())
    with pytest.raises(ValueError, match="`allow_unknown_preds_category`"):
        lmd.PanopticQuality(things={0}, stuffs={1}, allow_unknown_preds_category=1)
    metric = lmd.PanopticQuality(things=[4, 1], stuffs=[3, 2])
    assert metric.cat_id_to_continuous_id == {1: 0, 4: 1, 2: 2, 3: 3} and metric.void_color == (5, 0)
