"""Modular LPIPS, DISTS and perceptual path length, over the networks of :mod:`lightning_metrics.networks`.

LPIPS and DISTS keep a float64 sum and a count of the per-pair values (the values only for
LPIPS' ``reduction="none"``): torchmetrics' LPIPS keeps every value. Each metric builds its
network when it is built, with the published weights, as torchmetrics does (torch.hub's cache,
the folder named by ``LIGHTNING_METRICS_WEIGHTS``, or a download); ours: the keyword argument
``net`` gives a network to use instead (e.g. one built with ``pretrained=False``).
"""

from __future__ import annotations

from typing import Any, Literal, Optional, Union

from torch import Tensor, nn

from lightning_metrics._per_sample import PerSampleMetric
from lightning_metrics.functional.image.perceptual import (
    check_dists_images,
    check_lpips_args,
    check_lpips_images,
    dists_values,
    lpips_values,
)
from lightning_metrics.functional.image.perceptual_path_length import (
    check_generator,
    check_ppl_args,
    perceptual_path_length,
)
from lightning_metrics.metric import Metric
from lightning_metrics.utilities.checks import check_choice


def _network_dtype(net: nn.Module, default: Any) -> Any:
    parameter = next(net.parameters(), None)
    return default if parameter is None else parameter.dtype


class LearnedPerceptualImagePatchSimilarity(PerSampleMetric):
    """LPIPS between pairs of images ``(N, 3, H, W)`` (lower: more alike), arguments as in
    :func:`~lightning_metrics.functional.image.learned_perceptual_image_patch_similarity`.

    Images are in [-1, 1] (``normalize=True``: in [0, 1]); an image out of range, of another
    shape than ``(N, 3, H, W)`` or than its pair raises before any state changes.

    >>> import torch
    >>> from lightning_metrics.networks import network
    >>> net = network("lpips", net_type="squeeze", pretrained=False)  # random weights: no download here
    >>> metric = LearnedPerceptualImagePatchSimilarity(net_type="squeeze", net=net)
    >>> img = torch.rand(2, 3, 32, 32) * 2 - 1
    >>> metric.update(img, img)
    >>> metric.compute()
    tensor(0.)
    """

    higher_is_better = False
    plot_lower_bound = 0.0
    plot_upper_bound = 1.0
    feature_network = "net"
    _mean_reductions = ("mean",)
    _keyword_arguments = {"validate_args": True, "net": None}

    def __init__(
        self,
        net_type: Literal["vgg", "alex", "squeeze"] = "alex",
        reduction: Optional[Literal["sum", "mean", "none"]] = "mean",
        normalize: bool = False,
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _check_args(self) -> None:
        check_lpips_args(self.net_type, self.reduction, self.normalize)

    def _add_states(self) -> None:
        if self.net is None:
            from lightning_metrics.networks import network

            self.net = network("lpips", net_type=self.net_type)
        elif getattr(self.net, "net_type", self.net_type) != self.net_type:
            raise ValueError(
                f"Argument `net` is an LPIPS network of net_type={self.net.net_type!r}, "
                f"but `net_type` is {self.net_type!r}"
            )

    def update(self, img1: Tensor, img2: Tensor) -> None:  # type: ignore[override]
        """Add the distances of a batch of pairs (checked before any state changes)."""
        check_lpips_images(img1, img2, self.normalize)
        self._check_finite(("img1", img1), ("img2", img2))
        dtype = _network_dtype(self.net, img1.dtype)
        self._accumulate(lpips_values(img1.to(dtype), img2.to(dtype), self.net, self.normalize))


class DeepImageStructureAndTextureSimilarity(PerSampleMetric):
    """DISTS between pairs of images ``(N, 3, H, W)`` in [0, 1] (lower: more alike): the mean
    (``reduction="mean"``) or the sum over the pairs, arguments as in
    :func:`~lightning_metrics.functional.image.deep_image_structure_and_texture_similarity`.

    >>> import torch
    >>> from lightning_metrics.networks import network
    >>> metric = DeepImageStructureAndTextureSimilarity(net=network("dists", pretrained=False))  # no download
    >>> img = torch.rand(2, 3, 32, 32)
    >>> metric(img, img)
    tensor(0.)
    """

    higher_is_better = False
    plot_lower_bound = 0.0
    feature_network = "net"
    _mean_reductions = ("mean",)
    _keyword_arguments = {"validate_args": True, "net": None}

    def __init__(self, reduction: Optional[Literal["mean", "sum"]] = "mean", **kwargs: Any) -> None:
        self._configure(locals())

    def _check_args(self) -> None:
        check_choice("reduction", self.reduction, ("mean", "sum"))

    def _add_states(self) -> None:
        if self.net is None:
            from lightning_metrics.networks import network

            self.net = network("dists")
        # torchmetrics' DISTS holds no network (it builds one per batch): neither does a checkpoint here
        self._register_state_dict_hook(_drop_network_keys)
        self._register_load_state_dict_pre_hook(self._keep_network)

    def _keep_network(self, state_dict: dict, prefix: str, *args: Any) -> None:
        """A checkpoint without the network (torchmetrics' or ours) keeps the network's weights."""
        for key, value in self.net.state_dict().items():
            state_dict.setdefault(f"{prefix}net.{key}", value)

    def update(self, preds: Tensor, target: Tensor) -> None:
        """Add the scores of a batch of pairs (checked before any state changes)."""
        check_dists_images(preds, target)
        self._check_finite(("preds", preds), ("target", target))
        dtype = _network_dtype(self.net, preds.dtype)
        self._accumulate(dists_values(preds.to(dtype), target.to(dtype), self.net))


def _drop_network_keys(module: nn.Module, state_dict: dict, prefix: str, local_metadata: Any) -> None:
    for key in [k for k in state_dict if k.startswith(f"{prefix}net.")]:
        del state_dict[key]


class PerceptualPathLength(Metric):
    """Perceptual path length of a generator, arguments as in
    :func:`~lightning_metrics.functional.image.perceptual_path_length`.

    ``update(generator)`` records the generator (checked: ``sample``, and ``num_classes`` when
    ``conditional``); ``compute`` draws the latents and returns the mean, the standard deviation
    and the distances kept. ``sim_net`` as a name builds our LPIPS network (the published weights,
    images resized to ``resize``) when the metric is built, as torchmetrics does. No state is
    synchronized: each process measures the generator it was given.

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
    >>> ppl = PerceptualPathLength(num_samples=6, epsilon=0.1, sim_net=net)
    >>> ppl.update(Generator())
    >>> mean, std, distances = ppl.compute()
    >>> distances.ndim, len(distances) <= 6, bool(std > 0)  # the discarded quantiles' distances are left out
    (1, True, True)
    """

    is_differentiable = False
    higher_is_better: Optional[bool] = True
    full_state_update = True
    feature_network = "net"

    def __init__(
        self,
        num_samples: int = 10_000,
        conditional: bool = False,
        batch_size: int = 128,
        interpolation_method: Literal["lerp", "slerp_any", "slerp_unit"] = "lerp",
        epsilon: float = 1e-4,
        resize: Optional[int] = 64,
        lower_discard: Optional[float] = 0.01,
        upper_discard: Optional[float] = 0.99,
        sim_net: Union[nn.Module, Literal["alex", "vgg", "squeeze"]] = "vgg",
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _build(self) -> None:
        check_ppl_args(
            self.num_samples, self.conditional, self.batch_size, self.interpolation_method,
            self.epsilon, self.resize, self.lower_discard, self.upper_discard, self.sim_net,
        )  # fmt: skip
        if isinstance(self.sim_net, nn.Module):
            self.net = self.sim_net
            # one submodule, ``net``, as in torchmetrics (a module checkpoint has its keys once)
            del self._modules["sim_net"]
            object.__setattr__(self, "sim_net", self.net)
        else:
            from lightning_metrics.networks import network

            self.net = network("lpips", net_type=self.sim_net, resize=self.resize)
        self.generator: Any = None

    def update(self, generator: Any) -> None:
        """Record the generator to measure (it replaces the one given before)."""
        check_generator(generator, self.conditional)
        self.generator = generator

    def compute(self) -> tuple[Tensor, Tensor, Tensor]:
        """The mean and standard deviation of the kept distances, and those distances."""
        if self.generator is None:
            raise RuntimeError(
                "PerceptualPathLength.compute() needs a generator: call `update(generator)` first"
            )
        return perceptual_path_length(
            self.generator, self.num_samples, self.conditional, self.batch_size, self.interpolation_method,
            self.epsilon, self.resize, self.lower_discard, self.upper_discard, self.net, self.device,
        )  # fmt: skip


__all__ = [
    "DeepImageStructureAndTextureSimilarity",
    "LearnedPerceptualImagePatchSimilarity",
    "PerceptualPathLength",
]
