"""VMAF through ``vmaf-torch`` (optional: these tests skip without it) against torchmetrics 1.9 on
small generated videos (a moving pattern and distorted copies): the per-frame scores and every
elementary feature, the function and the class over several batches; float64; the error naming
the extra; bad arguments and bad batches."""

from __future__ import annotations

import sys

import pytest
import torch

import lightning_metrics.functional.video as lmf
import lightning_metrics.video as lmv
from tests._bad_input import assert_rejected_untouched

pytest.importorskip("vmaf_torch")


def _videos(seed: int, batch: int, frames: int, height: int = 32, width: int = 32):
    """A smooth pattern drifting across frames (motion), and copies with noise and blur of growing strength."""
    gen = torch.Generator().manual_seed(seed)
    y, x = torch.meshgrid(torch.arange(height), torch.arange(width), indexing="ij")
    phase = torch.rand(batch, 3, 1, 1, 1, generator=gen) * 6.0
    shift = torch.arange(frames).view(1, 1, frames, 1, 1) * 0.7
    target = 0.5 + 0.4 * torch.sin((x + shift) / 3.0 + phase) * torch.cos((y - shift) / 4.0)
    strength = torch.linspace(0.02, 0.3, batch).view(batch, 1, 1, 1, 1)
    blurred = (target + target.roll(1, -1) + target.roll(1, -2)) / 3
    preds = (blurred + strength * torch.randn(target.shape, generator=gen)).clamp(0, 1)
    return preds, target


@pytest.mark.parametrize(("batch", "frames", "height", "width"), [(2, 4, 32, 32), (1, 3, 40, 48)])
def test_functional_equals_torchmetrics(batch, frames, height, width):
    pytest.importorskip("einops")  # torchmetrics' VMAF needs it
    tmf = pytest.importorskip("torchmetrics.functional.video")
    preds, target = _videos(batch + frames, batch, frames, height, width)
    ours, theirs = lmf.video_multi_method_assessment_fusion(preds, target), \
        tmf.video_multi_method_assessment_fusion(preds, target)
    assert ours.shape == theirs.shape == (batch, frames) and ours.dtype == theirs.dtype == torch.float32
    torch.testing.assert_close(ours, theirs, rtol=0, atol=1e-4)
    assert float(ours.min()) > 5 and float(ours.max()) < 100
    ours, theirs = lmf.video_multi_method_assessment_fusion(preds, target, features=True), \
        tmf.video_multi_method_assessment_fusion(preds, target, features=True)
    assert sorted(ours) == sorted(theirs) and len(ours) == 12
    for key, value in theirs.items():
        assert ours[key].shape == value.shape == (batch, frames), key
        torch.testing.assert_close(ours[key], value, rtol=0, atol=1e-4, msg=key)


def test_modular_streams_equal_torchmetrics():
    pytest.importorskip("einops")
    tmv = pytest.importorskip("torchmetrics.video")
    for features in (False, True):
        ours, theirs = lmv.VideoMultiMethodAssessmentFusion(features), tmv.VideoMultiMethodAssessmentFusion(features)
        for seed, batch in ((0, 2), (1, 1)):
            preds, target = _videos(10 + seed, batch, 3)
            ours.update(preds, target)
            theirs.update(preds, target)
        value, expected = ours.compute(), theirs.compute()
        if not features:
            value, expected = {"vmaf": value}, {"vmaf": expected}
        assert list(value) == list(expected)
        for key in expected:
            assert value[key].shape == (3, 3), key
            torch.testing.assert_close(value[key], expected[key], rtol=0, atol=1e-4, msg=key)


def test_float64_videos_are_scored_in_float64():
    preds, target = _videos(5, 1, 3)
    single = lmf.video_multi_method_assessment_fusion(preds, target)
    double = lmf.video_multi_method_assessment_fusion(preds.double(), target.double())
    assert double.dtype == torch.float64
    torch.testing.assert_close(double.float(), single, rtol=0, atol=1e-3)


def test_an_empty_metric_computes_an_empty_tensor():
    with pytest.warns(UserWarning, match="before the ``update``"):
        assert lmv.VideoMultiMethodAssessmentFusion().compute().shape == (0,)


def test_missing_vmaf_torch_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "vmaf_torch", None)  # import vmaf_torch -> ImportError
    preds, target = _videos(6, 1, 2)
    for call in (lambda: lmv.VideoMultiMethodAssessmentFusion(),
                 lambda: lmf.video_multi_method_assessment_fusion(preds, target)):
        with pytest.raises(ModuleNotFoundError, match=r"`vmaf-torch`.*pip install lightning_metrics\[video\]"):
            call()


def test_bad_arguments_and_batches():
    with pytest.raises(ValueError, match="`features`"):
        lmv.VideoMultiMethodAssessmentFusion(features="yes")
    preds, target = _videos(7, 1, 2)
    with pytest.raises(ValueError, match=r"`preds`.*\(batch, 3, frames, height, width\)"):
        lmf.video_multi_method_assessment_fusion(preds[:, :1], target[:, :1])
    good = [_videos(8, 1, 2), _videos(9, 1, 2)]
    nan = good[0][0].clone()
    nan[0, 0, 0, 0, 0] = float("nan")
    build = lmv.VideoMultiMethodAssessmentFusion
    assert_rejected_untouched(build, good, (nan, good[0][1]), needles=("preds", "nan"))
    assert_rejected_untouched(build, good, (good[0][0], good[0][1][..., :16]), needles=("`preds`", "`target`"))


def _vmaf_on_ranks(rank: int, world: int) -> dict:
    metric = lmv.VideoMultiMethodAssessmentFusion(features=True)
    preds, target = _videos(12, 3, 2)
    shard = slice(0, 2) if rank == 0 else slice(2, 3)  # uneven shards: 2 and 1 videos
    metric.update(preds[shard], target[shard])
    return metric.compute()


def test_two_processes_equal_one():
    from tests._distributed import run_distributed

    results = run_distributed(_vmaf_on_ranks, timeout=180)
    single = lmv.VideoMultiMethodAssessmentFusion(features=True)
    single.update(*_videos(12, 3, 2))
    expected = single.compute()
    for value in results:
        assert list(value) == list(expected)
        for key in expected:
            assert value[key].shape == (3, 2), key
            torch.testing.assert_close(value[key], expected[key], rtol=0, atol=1e-5, msg=key)


def test_the_callback_keeps_the_per_frame_scores():
    import lightning.pytorch as L
    from torch.utils.data import DataLoader, TensorDataset

    import lightning_metrics as lm
    from tests._lightning import quiet_trainer

    class Model(L.LightningModule):
        def validation_step(self, batch, batch_idx):
            return {"preds": batch[0], "target": batch[1]}

    preds, target = _videos(5, 3, 3)
    callback = lm.MetricsCallback({"vmaf": lmv.VideoMultiMethodAssessmentFusion()}, stages=("val",), plots=False)
    quiet_trainer(callbacks=[callback]).validate(Model(), DataLoader(TensorDataset(preds, target), batch_size=2))
    direct = lmv.VideoMultiMethodAssessmentFusion()
    direct.update(preds, target)
    # (videos, frames) is no scalar: not given to self.log, kept whole in the callback's results
    torch.testing.assert_close(callback.results["val/vmaf"], direct.compute())
