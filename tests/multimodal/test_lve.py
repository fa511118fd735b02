"""Lip vertex error against torchmetrics 1.9: sequences of face meshes with different frame counts,
lip maps with repeated and negative indices, streamed updates, dtypes, and bad input."""

from __future__ import annotations

import pytest
import torch

from lightning_metrics.functional.multimodal import lip_vertex_error
from lightning_metrics.multimodal import LipVertexError
from tests._bad_input import assert_rejected_untouched

NAN = float("nan")
MOUTH = [3, 17, 18, 40, 41, 42, 99, 17]


def _meshes(seed: int, frames: int = 30, gt_frames: int = 30, vertices: int = 120, dtype=torch.float32):
    """A talking head's vertices ``(T, V, 3)``: a ground truth that moves and a noisy prediction."""
    gen = torch.Generator().manual_seed(seed)
    rest = torch.randn(vertices, 3, generator=gen, dtype=torch.float64)
    motion = torch.sin(torch.arange(max(frames, gt_frames), dtype=torch.float64) / 3).reshape(-1, 1, 1)
    gt = rest + 0.1 * motion * torch.randn(1, vertices, 3, generator=gen, dtype=torch.float64)
    pred = gt + 0.02 * torch.randn(gt.shape, generator=gen, dtype=torch.float64)
    return pred[:frames].to(dtype), gt[:gt_frames].to(dtype)


@pytest.mark.parametrize(("frames", "gt_frames", "mouth", "dtype"), [
    (30, 30, MOUTH, torch.float32), (25, 30, [0, 1, 2], torch.float64), (30, 12, [-1, 5, -120], torch.float32)])
def test_equals_torchmetrics(frames, gt_frames, mouth, dtype):
    tm = pytest.importorskip("torchmetrics.functional.multimodal")
    pred, gt = _meshes(frames + gt_frames, frames, gt_frames, dtype=dtype)
    ours, theirs = lip_vertex_error(pred, gt, mouth), tm.lip_vertex_error(pred, gt, mouth)
    assert ours.dtype == theirs.dtype == dtype and ours.shape == ()
    torch.testing.assert_close(ours, theirs, rtol=1e-6, atol=0)


def test_modular_streams_equal_torchmetrics():
    tm = pytest.importorskip("torchmetrics.multimodal.lve")
    ours, theirs = LipVertexError(MOUTH), tm.LipVertexError(MOUTH)
    for seed, (frames, gt_frames) in enumerate([(30, 30), (20, 26), (14, 9)]):
        batch = _meshes(seed, frames, gt_frames)
        torch.testing.assert_close(ours(*batch), theirs(*batch), rtol=1e-6, atol=0)
    value, expected = ours.compute(), theirs.compute()
    assert value.dtype == expected.dtype == torch.float32 and int(ours.count) == 30 + 20 + 9
    torch.testing.assert_close(value, expected, rtol=1e-6, atol=0)
    doubles = LipVertexError(MOUTH)
    doubles.update(*_meshes(5, dtype=torch.float64))
    assert doubles.compute().dtype == torch.float64


def _poisoned(index, value, where=0):
    batch = [t.clone() for t in _meshes(60, frames=10, gt_frames=10)]
    batch[where][index] = value
    return tuple(batch)


BAD_BATCHES = [
    (_poisoned((4, 17, 2), NAN), ValueError, r"`vertices_pred` must be finite.*nan.*\(4, 17, 2\)"),
    (_poisoned((9, 0, 0), float("inf"), where=1), ValueError, r"`vertices_gt` must be finite.*inf.*\(9, 0, 0\)"),
    ((torch.rand(10, 120), torch.rand(10, 120, 3)), ValueError, r"`vertices_pred`.*\(frames, vertices.*\(10, 120\)"),
    ((torch.rand(10, 120, 3), torch.rand(10, 121, 3)), ValueError, r"same numbers of vertices.*\(10, 121, 3\)"),
    ((torch.rand(10, 50, 3), torch.rand(10, 50, 3)), ValueError, "`mouth_map`.*index 99.*50 vertices"),
]


@pytest.mark.parametrize("case", BAD_BATCHES, ids=lambda c: c[2][:40])
def test_bad_batch_leaves_the_state_untouched(case):
    bad, error, message = case
    good = [_meshes(70 + seed, frames=10, gt_frames=10) for seed in range(2)]
    assert_rejected_untouched(lambda: LipVertexError(MOUTH), good, bad, errors=error, match=message)


@pytest.mark.parametrize(("mouth", "message"), [([], "non-empty"), ([1, 2.5], "integer.*2.5"), ("12", "non-empty")])
def test_bad_mouth_map(mouth, message):
    with pytest.raises(ValueError, match=f"`mouth_map`.*{message}"):
        LipVertexError(mouth)
    with pytest.raises(ValueError, match=f"`mouth_map`.*{message}"):
        lip_vertex_error(*_meshes(80, frames=3, gt_frames=3), mouth)


def test_validate_args_false_skips_the_checks():
    pred, gt = _poisoned((0, 3, 0), NAN)
    metric = LipVertexError(MOUTH, validate_args=False)
    metric.update(pred, gt)
    assert metric.compute().isnan()
    assert lip_vertex_error(pred, gt, MOUTH, validate_args=False).isnan()
