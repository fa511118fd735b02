"""LPIPS and DISTS (functional and modular) equal torchmetrics 1.9 on random weights written in
the real files' layouts and loaded through the real offline path; torchmetrics' values come from
``tests/networks/fixtures/perceptual_reference.json`` (made in the oracle environment)."""

from __future__ import annotations

import pytest
import torch

from lightning_metrics.functional.image import (
    deep_image_structure_and_texture_similarity,
    learned_perceptual_image_patch_similarity,
)
from lightning_metrics.image import (
    DeepImageStructureAndTextureSimilarity,
    LearnedPerceptualImagePatchSimilarity,
)
from lightning_metrics.networks import network
from tests._distributed import run_distributed
from tests.networks import _random_weights as rw
from tests.networks._weight_fixtures import *  # noqa: F403  (the fixtures)

pytestmark = [pytest.mark.timeout(300)]
TOL = {"rtol": 1e-5, "atol": 1e-5}


def _pair(case: dict, low: float = -1.0, high: float = 1.0):
    both = torch.from_numpy(
        rw.images(case["seed"], (2, *case["shape"]), case.get("low", low), case.get("high", high))
    )
    return both[0], both[1]


@pytest.mark.parametrize("net_type", ["alex", "vgg", "squeeze"])
def test_lpips_function_equals_torchmetrics(net_type, offline_weights, perceptual_reference):
    for case in perceptual_reference["lpips"][net_type]["pairs"]:
        img1, img2 = _pair(case)
        expected = torch.tensor(case["torchmetrics"])
        for reduction, value in (
            ("none", expected),
            (None, expected),
            ("mean", expected.mean()),
            ("sum", expected.sum()),
        ):
            got = learned_perceptual_image_patch_similarity(
                img1, img2, net_type, reduction, case["normalize"]
            )
            torch.testing.assert_close(got, value, **TOL)


@pytest.mark.parametrize("net_type", ["alex", "squeeze"])
def test_lpips_metric_equals_torchmetrics(net_type, offline_weights, perceptual_reference):
    reference = perceptual_reference["lpips"][net_type]
    cases = reference["pairs"][:2]  # in [-1, 1]
    for reduction in ("mean", "sum", "none"):
        metric = LearnedPerceptualImagePatchSimilarity(net_type=net_type, reduction=reduction)
        for case in cases:
            metric.update(*_pair(case))
        expected = reference["modular_first_two"].get(reduction)
        if reduction == "none":
            expected = [v for case in cases for v in case["torchmetrics"]]
        torch.testing.assert_close(metric.compute(), torch.tensor(expected), **TOL)
    # normalize=True: images in [0, 1], through forward (the batch value)
    case = reference["pairs"][2]
    metric = LearnedPerceptualImagePatchSimilarity(net_type=net_type, normalize=True)
    torch.testing.assert_close(metric(*_pair(case)), torch.tensor(case["torchmetrics"]).mean(), **TOL)


def test_the_functions_build_each_network_once(offline_weights):
    from lightning_metrics.functional.image.perceptual import dists_network, lpips_network

    first = lpips_network("squeeze")
    assert dists_network() is dists_network()  # LPIPS and DISTS in one loop: both kept
    assert lpips_network("squeeze") is first and lpips_network("squeeze", resize=64) is not first
    assert not first.training and not any(p.requires_grad for p in first.parameters())


def test_lpips_one_pair_is_squeezed_as_torchmetrics_does(offline_weights, perceptual_reference):
    case = perceptual_reference["lpips"]["squeeze"]["pairs"][0]
    img1, img2 = _pair(case)
    got = learned_perceptual_image_patch_similarity(img1[:1], img2[:1], "squeeze", reduction="none")
    assert got.shape == ()
    torch.testing.assert_close(got, torch.tensor(case["torchmetrics"][0]), **TOL)


def test_dists_function_and_metric_equal_torchmetrics(offline_weights, perceptual_reference):
    reference = perceptual_reference["dists"]
    pairs = [(_pair(case, 0.0, 1.0), torch.tensor(case["torchmetrics"])) for case in reference["pairs"]]
    for (x, y), expected in pairs:
        got = deep_image_structure_and_texture_similarity(x, y)  # torchmetrics' default: no reduction
        torch.testing.assert_close(got, expected.squeeze(), **TOL)
        torch.testing.assert_close(
            deep_image_structure_and_texture_similarity(x, y, "mean"), expected.mean(), **TOL
        )
        torch.testing.assert_close(
            deep_image_structure_and_texture_similarity(x, y, "sum"), expected.sum(), **TOL
        )
    for reduction in ("mean", "sum"):
        metric = DeepImageStructureAndTextureSimilarity(reduction=reduction)
        for (x, y), _ in pairs:
            metric.update(x, y)
        torch.testing.assert_close(metric.compute(), torch.tensor(reference["modular_all"][reduction]), **TOL)


@pytest.mark.parametrize("net_type", ["alex", "vgg", "squeeze"])
def test_lpips_module_checkpoints_have_torchmetrics_keys_and_load_back(net_type, perceptual_reference):
    """A module checkpoint that holds torchmetrics' LPIPS loads into one with ours (strict), and back."""
    torch.manual_seed(0)
    metric = LearnedPerceptualImagePatchSimilarity(
        net_type, net=network("lpips", net_type=net_type, pretrained=False)
    )
    state = metric.state_dict()
    assert sorted(state) == sorted(perceptual_reference["lpips"][net_type]["state_dict_keys"])
    torch.manual_seed(1)
    other = LearnedPerceptualImagePatchSimilarity(
        net_type, net=network("lpips", net_type=net_type, pretrained=False)
    )
    other.load_state_dict(state, strict=True)
    assert all(torch.equal(a, b) for a, b in zip(metric.net.parameters(), other.net.parameters()))


def test_dists_module_checkpoints_hold_no_network_as_torchmetrics(perceptual_reference):
    metric = DeepImageStructureAndTextureSimilarity(net=network("dists", pretrained=False))
    assert list(metric.state_dict()) == perceptual_reference["dists"]["state_dict_keys"] == []
    alpha = metric.net.alpha.clone()
    metric.load_state_dict({}, strict=True)  # a torchmetrics checkpoint: the network stays as it is
    assert torch.equal(metric.net.alpha, alpha)


def _squeeze_lpips():
    torch.manual_seed(0)
    return network("lpips", net_type="squeeze", pretrained=False)


@pytest.mark.parametrize(
    ("img1", "img2", "normalize", "match"),
    [
        (
            torch.full((2, 3, 32, 32), -1.5),
            torch.zeros(2, 3, 32, 32),
            False,
            r"`img1` must hold values in \[-1, 1\].*-1.5",
        ),
        (
            torch.zeros(2, 3, 32, 32),
            torch.full((2, 3, 32, 32), 1.5),
            True,
            r"`img2` must hold values in \[0, 1\].*1.5",
        ),
        (
            torch.zeros(2, 1, 32, 32),
            torch.zeros(2, 1, 32, 32),
            False,
            r"`img1` must have shape \(N, 3, H, W\), got \(2, 1",
        ),
        (
            torch.zeros(2, 3, 32, 32),
            torch.zeros(3, 3, 32, 32),
            False,
            r"same shape, got \(2, 3, 32, 32\) and \(3, 3",
        ),
        (
            torch.zeros(2, 3, 32, 32, dtype=torch.long),
            torch.zeros(2, 3, 32, 32),
            False,
            "floating point tensor",
        ),
    ],
)
def test_lpips_bad_input_raises_naming_it_and_leaves_the_state(img1, img2, normalize, match):
    net = _squeeze_lpips()
    good = torch.rand(2, 3, 32, 32) if normalize else torch.rand(2, 3, 32, 32) * 2 - 1
    metric = LearnedPerceptualImagePatchSimilarity("squeeze", normalize=normalize, net=net)
    metric.update(good, good.flip(-1))
    before = {k: v.clone() for k, v in metric.metric_state.items()}
    with pytest.raises(ValueError, match=match):
        metric.update(img1, img2)
    assert all(torch.equal(before[k], v) for k, v in metric.metric_state.items())
    with pytest.raises(ValueError, match=match):
        learned_perceptual_image_patch_similarity(img1, img2, "squeeze", normalize=normalize, net=net)


def test_bad_arguments_raise_naming_them():
    net = _squeeze_lpips()
    with pytest.raises(ValueError, match="Argument `net_type` must be one of .* got 'resnet'"):
        LearnedPerceptualImagePatchSimilarity(net_type="resnet", net=net)
    with pytest.raises(ValueError, match="Argument `reduction` must be one of .* got 'max'"):
        LearnedPerceptualImagePatchSimilarity(net_type="squeeze", reduction="max", net=net)
    with pytest.raises(ValueError, match="LPIPS network of net_type='squeeze', but `net_type` is"):
        LearnedPerceptualImagePatchSimilarity(net_type="alex", net=net)
    with pytest.raises(ValueError, match="Argument `normalize`"):
        LearnedPerceptualImagePatchSimilarity(net_type="squeeze", normalize=1, net=net)
    with pytest.raises(
        ValueError, match=r"Argument `reduction` must be one of \('mean', 'sum'\), got 'none'"
    ):
        DeepImageStructureAndTextureSimilarity(reduction="none", net=net)
    dists = DeepImageStructureAndTextureSimilarity(net=network("dists", pretrained=False))
    with pytest.raises(ValueError, match=r"`preds` and `target` must have the same shape"):
        dists.update(torch.rand(2, 3, 32, 32), torch.rand(2, 3, 16, 12))
    assert int(dists.count) == 0


def test_the_network_stays_frozen_in_a_training_module(offline_weights):
    metric = LearnedPerceptualImagePatchSimilarity("squeeze")
    holder = torch.nn.ModuleDict({"metric": metric}).train()
    assert not metric.net.training and not any(p.requires_grad for p in metric.net.parameters())
    assert holder["metric"].net is metric.net


def _distributed_worker(rank: int, world: int) -> dict:
    torch.set_num_threads(1)
    torch.manual_seed(0)
    lpips_net = network("lpips", net_type="squeeze", pretrained=False)
    dists_net = network("dists", pretrained=False)
    gen = torch.Generator().manual_seed(1)
    batches = [torch.rand(2, n, 3, 24, 24, generator=gen) for n in (3, 1, 2, 4)]
    lpips = LearnedPerceptualImagePatchSimilarity
    metrics = {f"lpips_{r}": lpips("squeeze", r, normalize=True, net=lpips_net)
               for r in ("mean", "sum", "none")}  # fmt: skip
    metrics["dists"] = DeepImageStructureAndTextureSimilarity(net=dists_net)
    out = {}
    for name, metric in metrics.items():
        for batch in batches[rank::world]:
            metric.update(batch[0], batch[1])
        out[name] = metric.compute()
    return out


def test_two_processes_equal_one_process():
    """LPIPS (sum and count states; ``"none"``: the values) and DISTS over 2 gloo processes."""
    results = run_distributed(_distributed_worker, world_size=2, timeout=240)
    expected = _distributed_worker(0, 1)
    order = [0, 2, 1, 3]  # the gathered values come back rank by rank
    for rank_result in results:
        for name, value in expected.items():
            got = rank_result[name]
            if name == "lpips_none":
                sizes = [3, 1, 2, 4]
                chunks = list(value.split(sizes))
                value = torch.cat([chunks[i] for i in order])
            torch.testing.assert_close(got, value, rtol=1e-6, atol=1e-7)
