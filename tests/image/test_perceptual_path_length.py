"""Perceptual path length (functional and modular) equals torchmetrics 1.9 for a tiny seeded
generator, on our LPIPS with random weights in the real layouts (loaded through the offline path);
torchmetrics' values come from ``tests/networks/fixtures/perceptual_reference.json``."""

from __future__ import annotations

import pytest
import torch

from lightning_metrics.functional.image import perceptual_path_length
from lightning_metrics.functional.image.perceptual_path_length import interpolate
from lightning_metrics.image import PerceptualPathLength
from lightning_metrics.networks import network
from tests.image._ppl_generator import TinyGenerator
from tests.networks._weight_fixtures import *  # noqa: F403  (the fixtures)

pytestmark = [pytest.mark.timeout(300)]


def _tolerance(kwargs: dict) -> dict:
    # torchmetrics' epsilon=1e-4 divides the float32 rounding of two near images' LPIPS by 1e-8:
    # equal here, but another CPU's kernels may round otherwise, which then shows at ~1e-3
    return {"rtol": 1e-5, "atol": 1e-5} if "epsilon" in kwargs else {"rtol": 2e-2, "atol": 1e-3}


def test_perceptual_path_length_equals_torchmetrics(offline_weights, perceptual_reference):
    for case in perceptual_reference["ppl"]:
        kwargs, tol = case["kwargs"], _tolerance(case["kwargs"])
        torch.manual_seed(7)  # the conditional labels come from torch's global generator, after the latents
        mean, std, distances = perceptual_path_length(TinyGenerator(**case["generator"]), **kwargs)
        assert distances.shape == (len(case["distances"]),), kwargs
        torch.testing.assert_close(distances, torch.tensor(case["distances"]), **tol)
        torch.testing.assert_close(mean, torch.tensor(case["mean"]), **tol)
        torch.testing.assert_close(std, torch.tensor(case["std"]), **tol)


@pytest.mark.parametrize("index", [0, 1])
def test_the_metric_equals_torchmetrics(index, offline_weights, perceptual_reference):
    case = perceptual_reference["ppl"][index]
    metric = PerceptualPathLength(**case["kwargs"])
    # torchmetrics' PerceptualPathLength holds the LPIPS network as ``net`` (and, once given, the generator)
    assert all(key.startswith("net.") for key in metric.state_dict())
    assert "net.lin0.model.1.weight" in metric.state_dict()
    torch.manual_seed(7)
    metric.update(TinyGenerator(**case["generator"]))
    mean, std, distances = metric.compute()
    torch.testing.assert_close(mean, torch.tensor(case["modular_mean"]), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(distances, torch.tensor(case["distances"]), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(std, torch.tensor(case["std"]), rtol=1e-5, atol=1e-5)


def test_interpolation_methods():
    a, b = torch.tensor([[3.0, 0.0], [1.0, 1.0]]), torch.tensor([[0.0, 2.0], [2.0, 2.0]])
    torch.testing.assert_close(interpolate(a, b, 0.25), torch.tensor([[2.25, 0.5], [1.25, 1.25]]))
    slerp = interpolate(a, b, 0.5, "slerp_any")
    # row 0: orthogonal, sin(45°)/sin(90°) of each point (the norms are kept); row 1: collinear -> linear
    torch.testing.assert_close(slerp, torch.tensor([[3 * 0.5**0.5, 2 * 0.5**0.5], [1.5, 1.5]]))
    torch.testing.assert_close(interpolate(a, b, 0.5, "slerp_unit").norm(dim=1), torch.ones(2))


class _NoSample(torch.nn.Module):
    pass


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"num_samples": 0}, "`num_samples` must be a positive integer, but got 0"),
        ({"batch_size": 2.0}, "`batch_size` must be a positive integer, but got 2.0"),
        ({"interpolation_method": "cubic"}, "`interpolation_method` must be one of .* got 'cubic'"),
        ({"epsilon": 1}, "`epsilon` must be a positive float, but got 1"),
        ({"resize": -3}, "`resize` must be a positive integer or `None`, but got -3"),
        ({"lower_discard": 1.5}, "`lower_discard` must be a float between 0 and 1 or `None`, but got 1.5"),
        ({"upper_discard": 1}, "`upper_discard` must be a float between 0 and 1 or `None`, but got 1"),
        ({"conditional": "yes"}, "`conditional` must be a boolean, but got 'yes'"),
        ({"sim_net": "resnet"}, "`sim_net` must be an nn.Module or one of .* got 'resnet'"),
    ],
)
def test_bad_arguments_raise_naming_them(kwargs, match):
    with pytest.raises(ValueError, match=match):
        perceptual_path_length(TinyGenerator(), **kwargs)
    with pytest.raises(ValueError, match=match):
        PerceptualPathLength(**kwargs)


def test_bad_generators_raise():
    net = network("lpips", net_type="squeeze", pretrained=False, resize=32)
    metric = PerceptualPathLength(num_samples=4, epsilon=0.1, sim_net=net, conditional=True)
    with pytest.raises(NotImplementedError, match="must have a `sample` method"):
        metric.update(_NoSample())
    with pytest.raises(AttributeError, match="must have a `num_classes` attribute when `conditional=True`"):
        metric.update(TinyGenerator())
    generator = TinyGenerator()
    generator.num_classes = 2.5
    with pytest.raises(ValueError, match="`num_classes` attribute must be an integer .* got 2.5"):
        metric.update(generator)
    with (
        pytest.raises(RuntimeError, match="needs a generator"),
        pytest.warns(UserWarning, match="before the"),
    ):
        metric.compute()
