"""FID, KID, IS and MiFID: torchmetrics' values with a small seeded feature extractor (uint8 and
``normalize=True`` inputs, several batches, ``reset_real_features`` both ways, seeded subsets and
shuffles), the float64 Fréchet distance against scipy, two processes against one, constant-size FID
states, forward, checkpoints, argument and input errors, and the wiring of the Inception network (a
stand-in module: the network's numbers are tested with the network).

torchmetrics computes KID and IS in the features' dtype; ours sums in float64. With float64 features
the two agree to 1e-12; with float32 features the means agree to 1e-5 and the standard deviations,
small differences of nearly equal float32 values in torchmetrics, to 1e-4.
"""

from __future__ import annotations

import sys
import types
import warnings
from typing import ClassVar

import pytest
import torch
from torch import nn

import lightning_metrics.image as lmi
from lightning_metrics.functional.image import _generative as gen
from tests._distributed import run_distributed

tm_fid = pytest.importorskip("torchmetrics.image.fid")
tm_kid = pytest.importorskip("torchmetrics.image.kid")
tm_is = pytest.importorskip("torchmetrics.image.inception")
tm_mifid = pytest.importorskip("torchmetrics.image.mifid")


class Net(nn.Module):
    """A seeded conv + pool + linear extractor: uint8 or float images (N, 3, 16, 16) -> (N, 32)."""

    def __init__(self, out: int = 32, double: bool = False) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.conv = nn.Conv2d(3, 16, 3, stride=2)
        self.fc = nn.Linear(64, out)
        self.double_out = double
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.randn(p.shape, generator=g) * 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x if x.is_floating_point() else x.float() / 255
        x = nn.functional.adaptive_avg_pool2d(torch.relu(self.conv(x)), 2).flatten(1)
        out = self.fc(x)
        return out.double() if self.double_out else out


def _images(seed: int, sizes: tuple, high: int = 256) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return [torch.randint(0, high, (n, 3, 16, 16), generator=g, dtype=torch.uint8) for n in sizes]


REAL = _images(1, (64, 50, 90, 40))  # 244 images
FAKE = _images(2, (70, 33, 100, 30), high=200)  # 233 images
MEMORIZED = [(r.int() + 3).clamp(max=255).to(torch.uint8) for r in REAL]  # near copies: MiFID memorized


def _feed(metric, real, fake, convert) -> None:
    for batch in real:
        metric.update(convert(batch), real=True)
    for batch in fake:
        metric.update(convert(batch), real=False)


def _pair(name: str, **kwargs):
    classes = {
        "fid": (tm_fid.FrechetInceptionDistance, lmi.FrechetInceptionDistance),
        "kid": (tm_kid.KernelInceptionDistance, lmi.KernelInceptionDistance),
        "is": (tm_is.InceptionScore, lmi.InceptionScore),
        "mifid": (tm_mifid.MemorizationInformedFrechetInceptionDistance,
                  lmi.MemorizationInformedFrechetInceptionDistance),
    }[name]
    double = kwargs.pop("double", False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [cls(feature=Net(double=double), **kwargs) for cls in classes]


def _run(metric, name: str, convert, fake=FAKE):
    if name == "is":
        for batch in fake:
            metric.update(convert(batch))
    else:
        _feed(metric, REAL, fake, convert)
    torch.manual_seed(7)
    return metric.compute()


def _close(ours, theirs, rtol: float, std_rtol: float) -> None:
    if isinstance(theirs, tuple):
        assert ours[0].dtype == theirs[0].dtype
        torch.testing.assert_close(ours[0], theirs[0], rtol=rtol, atol=0)
        torch.testing.assert_close(ours[1], theirs[1], rtol=std_rtol, atol=0)
    else:
        assert ours.dtype == theirs.dtype
        torch.testing.assert_close(ours, theirs, rtol=rtol, atol=0)


CASES = [
    ("fid", {}, None),
    ("mifid", {}, None),
    ("mifid", {"cosine_distance_eps": 0.5}, MEMORIZED),
    ("kid", {"subsets": 6, "subset_size": 80}, None),
    ("kid", {"subsets": 4, "subset_size": 200, "degree": 2, "gamma": 0.3, "coef": 0.5}, None),
    ("is", {"splits": 4}, None),
    ("is", {"splits": 7}, None),
]


@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize(("name", "kwargs", "fake"), CASES)
def test_values_equal_torchmetrics(name, kwargs, fake, normalize):
    """float32 features: FID/MiFID to 1e-6, means to 1e-5; float64 features: everything to 1e-12."""
    # (IS turns float images into bytes for a custom extractor too, as torchmetrics does)
    convert = (lambda x: x.float() / 255) if normalize else (lambda x: x)
    fake = fake or FAKE
    theirs, ours = _pair(name, normalize=normalize, **kwargs)
    rtol = 1e-6 if name in ("fid", "mifid") else 1e-5
    _close(_run(ours, name, convert, fake), _run(theirs, name, convert, fake), rtol, 1e-4)
    theirs, ours = _pair(name, normalize=normalize, double=True, **kwargs)
    _close(_run(ours, name, convert, fake), _run(theirs, name, convert, fake), 1e-12, 1e-12)


@pytest.mark.parametrize("reset_real_features", [False, True])
@pytest.mark.parametrize("name", ["fid", "kid", "mifid"])
def test_reset_real_features_as_torchmetrics(name, reset_real_features):
    kwargs = {"subsets": 3, "subset_size": 50} if name == "kid" else {}
    results = []
    for metric in _pair(name, reset_real_features=reset_real_features, **kwargs):
        _feed(metric, REAL[:2], FAKE[:2], lambda x: x)
        metric.reset()
        _feed(metric, [], FAKE[2:], lambda x: x)
        torch.manual_seed(3)
        try:
            results.append(metric.compute())
        except (RuntimeError, ValueError):
            results.append(None)
    theirs, ours = results
    assert (ours is None) == (theirs is None) == reset_real_features
    if ours is not None:
        _close(ours, theirs, 1e-5, 1e-4)


def _scipy_fid(mu1, s1, mu2, s2) -> float:
    import numpy as np
    import scipy.linalg

    root = scipy.linalg.sqrtm(s1.numpy() @ s2.numpy())
    return float((mu1 - mu2).square().sum() + s1.trace() + s2.trace() - 2 * np.trace(root).real)


@pytest.mark.parametrize(("n", "d"), [(300, 24), (120, 8), (5, 16), (10, 64)])
def test_frechet_distance_against_scipy(n, d):
    """1e-6 relative on well-conditioned covariances; finite (and close) with fewer samples than features."""
    g = torch.Generator().manual_seed(n + d)
    f1 = torch.randn(n, d, generator=g, dtype=torch.float64)
    f2 = torch.randn(n, d, generator=g, dtype=torch.float64) * 1.3 + 0.2
    args = (f1.mean(0), torch.cov(f1.T), f2.mean(0), torch.cov(f2.T))
    ours = gen.frechet_distance(*args)
    assert ours.dtype == torch.float64 and torch.isfinite(ours)
    rtol = 1e-6 if n > d else 1e-5
    assert abs(float(ours) - _scipy_fid(*args)) <= rtol * abs(_scipy_fid(*args))


def test_frechet_distance_finite_when_singular():
    g = torch.Generator().manual_seed(0)
    basis = torch.randn(3, 32, generator=g, dtype=torch.float64)
    f1 = torch.randn(40, 3, generator=g, dtype=torch.float64) @ basis  # rank 3 of 32
    f2 = torch.randn(40, 3, generator=g, dtype=torch.float64) @ basis.flip(0)
    value = gen.frechet_distance(f1.mean(0), torch.cov(f1.T), f2.mean(0), torch.cov(f2.T))
    assert torch.isfinite(value) and value >= 0
    same = gen.frechet_distance(f1.mean(0), torch.cov(f1.T), f1.mean(0), torch.cov(f1.T))
    assert abs(float(same)) < 1e-10 * float(torch.cov(f1.T).trace())


def test_fid_state_size_does_not_grow():
    metric = lmi.FrechetInceptionDistance(feature=Net())

    def size() -> int:
        return sum(v.numel() for v in metric.metric_state.values())

    metric.update(REAL[0], real=True)
    first = size()
    for _ in range(9):
        metric.update(REAL[1], real=True)
        metric.update(FAKE[1], real=False)
    assert size() == first == 2 * (32 + 32 * 32 + 1)
    assert {str(v.dtype) for k, v in metric.metric_state.items() if "num" not in k} == {"torch.float64"}


# ------------------------------------------------------------------------------------ two processes
def _shard_metrics():
    return {
        "fid": lmi.FrechetInceptionDistance(feature=Net()),
        "kid": lmi.KernelInceptionDistance(feature=Net(), subsets=5, subset_size=60),
        "is": lmi.InceptionScore(feature=Net(), splits=3),
        "mifid": lmi.MemorizationInformedFrechetInceptionDistance(feature=Net()),
    }


def _values(real: list, fake: list) -> dict:
    out = {}
    for name, metric in _shard_metrics().items():
        if name == "is":
            for batch in fake:
                metric.update(batch)
        else:
            _feed(metric, real, fake, lambda x: x)
        torch.manual_seed(11)
        out[name] = metric.compute()
    return out


def _ddp_worker(rank: int, world: int) -> dict:
    torch.set_num_threads(1)
    return _values(REAL[rank::world], FAKE[rank::world])  # uneven shards


def test_two_processes_equal_one_process():
    results = run_distributed(_ddp_worker, world_size=2, timeout=200)
    expected = _values(REAL[0::2] + REAL[1::2], FAKE[0::2] + FAKE[1::2])  # the gathered order
    for got in results:
        for name, value in expected.items():
            _close(got[name], value, 1e-12, 1e-12)


# ----------------------------------------------------------------------------- forward, checkpoints
def test_forward_batch_values():
    metric = lmi.InceptionScore(feature=Net(), splits=2)
    for batch in FAKE[:2]:
        torch.manual_seed(5)
        value = metric(batch)
        alone = lmi.InceptionScore(feature=Net(), splits=2)
        alone.update(batch)
        torch.manual_seed(5)
        _close(value, alone.compute(), 0, 0)
    reference = lmi.InceptionScore(feature=Net(), splits=2)
    for batch in FAKE[:2]:
        reference.update(batch)
    torch.manual_seed(1)
    ours = metric.compute()
    torch.manual_seed(1)
    _close(ours, reference.compute(), 0, 0)


def test_fid_forward_against_kept_real_features_adds_nothing_twice():
    metric = lmi.FrechetInceptionDistance(feature=Net(), reset_real_features=False)
    for batch in REAL:
        metric.update(batch, real=True)
    value = metric(FAKE[0], real=False)
    alone = lmi.FrechetInceptionDistance(feature=Net())
    _feed(alone, REAL, FAKE[:1], lambda x: x)
    _close(value, alone.compute(), 1e-12, 0)
    metric.update(FAKE[1], real=False)
    _feed(alone, [], FAKE[1:2], lambda x: x)
    _close(metric.compute(), alone.compute(), 1e-12, 0)
    assert int(metric.real_features_num_samples) == sum(len(b) for b in REAL)


@pytest.mark.parametrize("name", ["fid", "kid", "mifid"])
def test_forward_with_kept_real_features_equals_torchmetrics_batch_value(name):
    kwargs = {"subsets": 3, "subset_size": 50} if name == "kid" else {}
    values = []
    for metric in _pair(name, reset_real_features=False, **kwargs):
        for batch in REAL:
            metric.update(batch, real=True)
        torch.manual_seed(4)
        values.append(metric(FAKE[0], real=False))
    theirs, ours = values
    _close(ours, theirs, 1e-5, 1e-4)


def test_forward_of_one_distribution_raises_and_keeps_the_state():
    metric = lmi.FrechetInceptionDistance(feature=Net())
    metric.update(REAL[0], real=True)
    before = {k: v.clone() for k, v in metric.metric_state.items()}
    with pytest.raises(RuntimeError, match="More than one sample"):
        metric(FAKE[0], real=False)
    assert metric.update_count == 1
    assert all(torch.equal(before[k], v) for k, v in metric.metric_state.items())


@pytest.mark.parametrize("name", ["fid", "kid", "is", "mifid"])
def test_checkpoint_round_trip(name):
    kwargs = {"subsets": 3, "subset_size": 40} if name == "kid" else {}
    _, metric = _pair(name, **kwargs)
    _, restored = _pair(name, **kwargs)
    metric.persistent(True)
    restored.persistent(True)
    expected = _run(metric, name, lambda x: x)  # seeded with 7
    restored.load_state_dict(metric.state_dict())
    torch.manual_seed(7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no update on the restored metric: states loaded
        _close(restored.compute(), expected, 0, 0)


def test_scripted_metrics_keep_their_states(fake_network):
    import io

    for metric in (*_shard_metrics().values(), lmi.FrechetInceptionDistance(feature=64)):
        if isinstance(metric, lmi.InceptionScore):
            metric.update(REAL[0])
        else:
            _feed(metric, REAL[:1], FAKE[:1], lambda x: x)
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch.jit.save/load are deprecated in torch 2.13
            torch.jit.save(torch.jit.script(metric), buffer)
            buffer.seek(0)
            loaded = torch.jit.load(buffer)
        for name, value in metric.metric_state.items():
            theirs = getattr(loaded, name)
            assert torch.equal(torch.cat(value) if isinstance(value, list) else value,
                               torch.cat(theirs) if isinstance(theirs, list) else theirs)


# ------------------------------------------------------------------------------------------- errors
def test_argument_errors():
    with pytest.raises(ValueError, match="`feature`.*100"):
        lmi.FrechetInceptionDistance(feature=100)
    with pytest.raises(ValueError, match="`feature`.*'logits'"):
        lmi.KernelInceptionDistance(feature="logits")
    with pytest.raises(TypeError, match="`feature`"):
        lmi.InceptionScore(feature=1.5)
    with pytest.raises(ValueError, match="`normalize`.*'yes'"):
        lmi.FrechetInceptionDistance(feature=Net(), normalize="yes")
    with pytest.raises(ValueError, match="`reset_real_features`.*1"):
        lmi.MemorizationInformedFrechetInceptionDistance(feature=Net(), reset_real_features=1)
    bad = [({"subsets": 0}, "subsets"), ({"subset_size": -2}, "subset_size"), ({"degree": 1.5}, "degree"),
           ({"gamma": -1.0}, "gamma"), ({"coef": 0.0}, "coef")]
    for kwargs, arg in bad:
        with pytest.raises(ValueError, match=f"`{arg}`"):
            lmi.KernelInceptionDistance(feature=Net(), **kwargs)
    with pytest.raises(ValueError, match="`splits`.*0"):
        lmi.InceptionScore(feature=Net(), splits=0)
    with pytest.raises(ValueError, match="`cosine_distance_eps`.*2"):
        lmi.MemorizationInformedFrechetInceptionDistance(feature=Net(), cosine_distance_eps=2.0)


def _unchanged(metric, update) -> None:
    before = {k: v.clone() if isinstance(v, torch.Tensor) else list(v)
              for k, v in metric.metric_state.items()}
    count = metric.update_count
    with pytest.raises((ValueError, RuntimeError, TypeError)) as caught:
        update()
    after = metric.metric_state
    assert metric.update_count == count
    for k, v in before.items():
        assert torch.equal(v, after[k]) if isinstance(v, torch.Tensor) else len(v) == len(after[k])
    return caught.value


def test_input_errors_leave_the_state_as_it_was():
    fid = lmi.FrechetInceptionDistance(feature=Net())
    fid.update(REAL[0], real=True)
    assert "batch dimension" in str(_unchanged(fid, lambda: fid.update(torch.tensor(1.0), real=True)))
    err = _unchanged(fid, lambda: fid.update(REAL[0], real="yes"))
    assert "`real`" in str(err)
    other = lmi.FrechetInceptionDistance(feature=Net(out=8))
    other.update(REAL[0], real=True)
    other.inception = Net(out=16)  # an extractor that changed its width
    assert "16 features" in str(_unchanged(other, lambda: other.update(REAL[1], real=True)))

    class NaNNet(Net):
        def forward(self, x):
            out = super().forward(x)
            out[1, 0] = float("nan")
            return out

    nan = lmi.KernelInceptionDistance(feature=NaNNet(), subset_size=2)
    assert "image 1" in str(_unchanged(nan, lambda: nan.update(REAL[0], real=True)))
    with pytest.raises(RuntimeError, match="at least|More than one"):
        fid.compute()  # no fake images


def test_kid_subset_size_larger_than_the_samples():
    kid = lmi.KernelInceptionDistance(feature=Net(), subset_size=100)
    _feed(kid, REAL[:1], FAKE[:1], lambda x: x)  # 64 real, 70 fake
    with pytest.raises(ValueError, match=r"`subset_size` \(100\).*real samples \(64\)"):
        kid.compute()
    with pytest.raises(RuntimeError, match="no real images"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # compute before update
        lmi.KernelInceptionDistance(feature=Net()).compute()


# ------------------------------------------------------------------- the Inception network's wiring
class FakeInception(nn.Module):
    """Stands in for lightning_metrics.networks.inception.FeatureExtractorInceptionV3."""

    built: ClassVar[list] = []
    seen: ClassVar[list] = []

    def __init__(self, features_list, weights_path=None):
        super().__init__()
        FakeInception.built.append((list(features_list), weights_path))
        self.features_list = features_list
        self.Conv2d_1a_3x3 = nn.Conv2d(3, 2, 1)
        self.register_buffer("scale", torch.tensor(0.5))

    def forward(self, x):
        assert x.dtype == torch.uint8
        FakeInception.seen.append(x)
        base = self.Conv2d_1a_3x3(x.float() / 255).mean(dim=(2, 3)) * self.scale
        widths = [1008 if f == "logits_unbiased" else int(f) for f in self.features_list]
        return tuple(base.repeat(1, 1100)[:, :w] + torch.arange(4.0).repeat(275)[:w] for w in widths)


@pytest.fixture
def fake_network(monkeypatch):
    module = types.ModuleType("lightning_metrics.networks.inception")
    module.FeatureExtractorInceptionV3 = FakeInception
    monkeypatch.setitem(sys.modules, "lightning_metrics.networks.inception", module)
    FakeInception.built.clear()
    FakeInception.seen.clear()
    return FakeInception


def test_integer_feature_builds_the_frozen_network(fake_network):
    with pytest.raises(ValueError, match="`feature`.*100"):
        lmi.FrechetInceptionDistance(feature=100)
    assert not fake_network.built  # checked before the network is touched
    fid = lmi.FrechetInceptionDistance(feature=64, feature_extractor_weights_path="w.pth", normalize=True)
    assert fake_network.built == [(["64"], "w.pth")]
    assert isinstance(fid.inception, lmi.NoTrainInceptionV3) and not fid.used_custom_model
    fid.train()
    assert not fid.inception.training and not any(p.requires_grad for p in fid.inception.parameters())
    assert {"inception.Conv2d_1a_3x3.weight", "inception.scale"} <= set(fid.state_dict())
    imgs = torch.rand(6, 3, 20, 20)
    fid.update(imgs, real=True)
    assert torch.equal(fake_network.seen[-1], (imgs * 255).byte())
    assert fid.real_features_sum.shape == (64,)
    _unchanged(fid, lambda: fid.update(imgs * 2, real=False))  # outside [0, 1]
    _unchanged(fid, lambda: fid.update(imgs[:, :1], real=False))  # not (N, 3, H, W)
    fid.set_dtype(torch.float64)
    assert fid.inception._net.scale.dtype == torch.float64 and fid.real_features_sum.dtype == torch.float64

    plain = lmi.FrechetInceptionDistance(feature=192)
    assert "uint8" in str(_unchanged(plain, lambda: plain.update(imgs, real=True)))
    plain.update((imgs * 255).byte(), real=True)
    plain.update((imgs.flip(0) * 255).byte(), real=False)
    assert torch.isfinite(plain.compute())  # 6 images, 192 features: singular covariances

    lmi.KernelInceptionDistance(feature="logits_unbiased")
    lmi.InceptionScore()
    lmi.MemorizationInformedFrechetInceptionDistance(feature=768)
    assert [b[0] for b in fake_network.built[-3:]] == [["logits_unbiased"], ["logits_unbiased"], ["768"]]
