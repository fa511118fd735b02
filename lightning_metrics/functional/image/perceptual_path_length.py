"""Perceptual path length (Karras et al., 2019) of a generator, on our LPIPS network.

Two sets of latents are drawn with the generator's ``sample``; the second is moved a step
``epsilon`` from the first towards it (linear or spherical interpolation); both are generated,
rescaled from [0, 255] to [-1, 1] and compared by LPIPS (or any ``sim_net``); each distance is
divided by ``epsilon²``. The distances outside the ``lower_discard`` and ``upper_discard``
quantiles are dropped; the result is their mean, standard deviation and the distances kept.

The random draws are torchmetrics': the generator's ``sample`` twice, then (``conditional``) the
labels from torch's global generator, so that a seeded run gives torchmetrics' value.
"""

from __future__ import annotations

from typing import Any, Literal, Optional, Union

import torch
from torch import Tensor, nn

from lightning_metrics.functional.image.perceptual import NET_TYPES, lpips_network

INTERPOLATIONS = ("lerp", "slerp_any", "slerp_unit")


class GeneratorType(nn.Module):
    """The generator protocol: ``sample(num_samples)`` gives latents ``(num_samples, z_size)``,
    ``forward(z)`` (``forward(z, labels)`` when conditional) images ``(N, C, H, W)`` in [0, 255],
    and a conditional generator has an integer ``num_classes``. Subclass it or just match it."""

    @property
    def num_classes(self) -> int:
        """The number of classes of a conditional generator."""
        raise NotImplementedError

    def sample(self, num_samples: int) -> Tensor:
        """``num_samples`` latent points, ``(num_samples, z_size)``."""
        raise NotImplementedError


def check_generator(generator: Any, conditional: bool = False) -> None:
    """``generator`` has a callable ``sample`` and, when ``conditional``, an integer ``num_classes``."""
    if not hasattr(generator, "sample"):
        raise NotImplementedError(
            "The generator must have a `sample` method with signature `sample(num_samples: int) -> Tensor` "
            "where the"
            " returned tensor has shape `(num_samples, z_size)`."
        )
    if not callable(generator.sample):
        raise ValueError("The generator's `sample` method must be callable.")
    if conditional and not hasattr(generator, "num_classes"):
        raise AttributeError("The generator must have a `num_classes` attribute when `conditional=True`.")
    if conditional and not isinstance(generator.num_classes, int):
        raise ValueError(
            f"The generator's `num_classes` attribute must be an integer when `conditional=True`, "
            f"got {generator.num_classes!r}"
        )


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_ppl_args(
    num_samples: Any, conditional: Any, batch_size: Any, interpolation_method: Any, epsilon: Any,
    resize: Any, lower_discard: Any, upper_discard: Any, sim_net: Any,
) -> None:  # fmt: skip
    """torchmetrics' argument checks, each error naming the argument and the value."""
    if not (_is_int(num_samples) and num_samples > 0):
        raise ValueError(f"Argument `num_samples` must be a positive integer, but got {num_samples!r}.")
    if not isinstance(conditional, bool):
        raise ValueError(f"Argument `conditional` must be a boolean, but got {conditional!r}.")
    if not (_is_int(batch_size) and batch_size > 0):
        raise ValueError(f"Argument `batch_size` must be a positive integer, but got {batch_size!r}.")
    if interpolation_method not in INTERPOLATIONS:
        raise ValueError(
            f"Argument `interpolation_method` must be one of {INTERPOLATIONS}, got {interpolation_method!r}."
        )
    if not (isinstance(epsilon, float) and epsilon > 0):
        raise ValueError(f"Argument `epsilon` must be a positive float, but got {epsilon!r}.")
    if resize is not None and not (_is_int(resize) and resize > 0):
        raise ValueError(f"Argument `resize` must be a positive integer or `None`, but got {resize!r}.")
    for name, value in (("lower_discard", lower_discard), ("upper_discard", upper_discard)):
        if value is not None and not (isinstance(value, float) and 0 <= value <= 1):
            raise ValueError(
                f"Argument `{name}` must be a float between 0 and 1 or `None`, but got {value!r}."
            )
    if not isinstance(sim_net, nn.Module) and sim_net not in NET_TYPES:
        raise ValueError(f"Argument `sim_net` must be an nn.Module or one of {NET_TYPES}, got {sim_net!r}")


def interpolate(latents1: Tensor, latents2: Tensor, epsilon: float = 1e-4, method: str = "lerp") -> Tensor:
    """The point a step ``epsilon`` from ``latents1`` towards ``latents2``, per row.

    ``"slerp_any"`` follows the great circle (linear where a point is zero or both are
    collinear); ``"slerp_unit"`` then projects the result onto the unit sphere.

    >>> a, b = torch.tensor([[1.0, 0.0]]), torch.tensor([[0.0, 1.0]])
    >>> interpolate(a, b, 0.5, "slerp_any")
    tensor([[0.7071, 0.7071]])
    """
    if latents1.shape != latents2.shape:
        raise ValueError(
            f"Latents must have the same shape, got {tuple(latents1.shape)} and {tuple(latents2.shape)}"
        )
    lerp = latents1 + (latents2 - latents1) * epsilon
    if method == "lerp":
        return lerp
    if method not in INTERPOLATIONS:
        raise ValueError(f"Argument `interpolation_method` must be one of {INTERPOLATIONS}, got {method!r}")
    eps = 1e-7
    unit1 = latents1 / (latents1**2).sum(dim=-1, keepdim=True).sqrt().clamp_min(eps)
    unit2 = latents2 / (latents2**2).sum(dim=-1, keepdim=True).sqrt().clamp_min(eps)
    cosine = (unit1 * unit2).sum(dim=-1, keepdim=True)
    degenerate = (unit1.norm(dim=-1, keepdim=True) < eps) | (unit2.norm(dim=-1, keepdim=True) < eps)
    degenerate = degenerate | (cosine > 1 - eps) | (cosine < -1 + eps)
    omega = cosine.acos()
    denominator = omega.sin().clamp_min(eps)
    slerp = ((1 - epsilon) * omega).sin() / denominator * latents1 + (
        epsilon * omega
    ).sin() / denominator * latents2
    out = torch.where(degenerate, lerp, slerp)
    if method == "slerp_unit":
        out = out / (out**2).sum(dim=-1, keepdim=True).sqrt().clamp_min(eps)
    return out


def path_distances(
    generator: nn.Module, latent1: Tensor, latent2: Tensor, labels: Optional[Tensor], net: nn.Module,
    batch_size: int, epsilon: float,
) -> Tensor:  # fmt: skip
    """The distances ``D(G(z1), G(z2)) / epsilon²`` of every pair, ``batch_size`` pairs at a time."""
    distances = []
    with torch.inference_mode():
        for start in range(0, latent1.shape[0], batch_size):
            both = torch.cat((latent1[start : start + batch_size], latent2[start : start + batch_size]))
            if labels is None:
                outputs = generator(both)
            else:
                batch_labels = labels[start : start + batch_size]
                outputs = generator(both, torch.cat((batch_labels, batch_labels)))
            out1, out2 = outputs.chunk(2, dim=0)
            similarity = net(2 * (out1 / 255) - 1, 2 * (out2 / 255) - 1)  # [0, 255] -> [-1, 1]
            distances.append((similarity / epsilon**2).detach().reshape(-1))
    return torch.cat(distances)


def discard_and_summarize(
    distances: Tensor, lower_discard: Optional[float], upper_discard: Optional[float]
) -> tuple[Tensor, Tensor, Tensor]:
    """Drop the distances outside the two quantiles (torch's "lower" rule): their mean, std and the rest."""
    lower = (
        torch.quantile(distances, lower_discard, interpolation="lower") if lower_discard is not None else 0.0
    )
    keep = distances >= lower  # without lower_discard: torchmetrics still drops negative distances
    if upper_discard is not None:
        keep &= distances <= torch.quantile(distances, upper_discard, interpolation="lower")
    kept = distances[keep]
    return kept.mean(), kept.std(), kept


def perceptual_path_length(
    generator: Any,
    num_samples: int = 10_000,
    conditional: bool = False,
    batch_size: int = 64,
    interpolation_method: Literal["lerp", "slerp_any", "slerp_unit"] = "lerp",
    epsilon: float = 1e-4,
    resize: Optional[int] = 64,
    lower_discard: Optional[float] = 0.01,
    upper_discard: Optional[float] = 0.99,
    sim_net: Union[nn.Module, Literal["alex", "vgg", "squeeze"]] = "vgg",
    device: Union[str, torch.device] = "cpu",
) -> tuple[Tensor, Tensor, Tensor]:
    """Perceptual path length of ``generator``: mean and standard deviation of the kept distances, and those.

    ``generator`` follows :class:`GeneratorType` (it is moved to ``device``); ``sim_net`` is an
    LPIPS trunk name (our LPIPS network with the published weights, images resized to ``resize``)
    or any module ``sim_net(img1, img2)`` of images in [-1, 1]. Arguments as torchmetrics'.

    >>> import torch
    >>> from lightning_metrics.networks import network
    >>> class Generator(torch.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.linear = torch.nn.Linear(2, 3 * 8 * 8)
    ...     def sample(self, num_samples):
    ...         return torch.randn(num_samples, 2)
    ...     def forward(self, z):
    ...         return 255 * torch.sigmoid(self.linear(z)).reshape(-1, 3, 8, 8)
    >>> _ = torch.manual_seed(0)
    >>> net = network("lpips", net_type="squeeze", pretrained=False, resize=32)  # random weights: no download
    >>> mean, std, distances = perceptual_path_length(Generator(), num_samples=6, epsilon=0.1, sim_net=net)
    >>> distances.ndim, len(distances) <= 6, bool(std > 0)  # the discarded quantiles' distances are left out
    (1, True, True)
    """
    check_ppl_args(num_samples, conditional, batch_size, interpolation_method, epsilon, resize, lower_discard,
                   upper_discard, sim_net)  # fmt: skip
    check_generator(generator, conditional)
    generator = generator.to(device)
    latent1 = generator.sample(num_samples).to(device)
    latent2 = generator.sample(num_samples).to(device)
    latent2 = interpolate(latent1, latent2, epsilon, interpolation_method)
    labels = torch.randint(0, generator.num_classes, (num_samples,)).to(device) if conditional else None
    net = sim_net if isinstance(sim_net, nn.Module) else lpips_network(sim_net, resize)
    distances = path_distances(generator, latent1, latent2, labels, net.to(device), batch_size, epsilon)
    return discard_and_summarize(distances, lower_discard, upper_discard)


__all__ = ["GeneratorType", "perceptual_path_length"]
