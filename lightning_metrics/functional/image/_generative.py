"""The math and the feature extraction of the generative image metrics (FID, KID, IS, MiFID).

- :class:`NoTrainInceptionV3`: torchmetrics' frozen FID Inception-v3 (``image.fid``), built on
  :class:`lightning_metrics.networks.inception.FeatureExtractorInceptionV3` (imported when an
  integer ``feature`` asks for it, never before): evaluation mode that ``.train()`` keeps, no gradients.
- :func:`frechet_distance`: the Fréchet distance of two Gaussians in float64, through the
  eigenvalues of the symmetric matrix ``sqrt(S1) S2 sqrt(S1)`` (finite when a covariance is singular,
  as it is with fewer images than features).
- :func:`covariance_from_sums`: mean and covariance from a feature sum, a sum of outer products and a
  count (FID's constant-size state).
- :func:`poly_kernel`, :func:`maximum_mean_discrepancy`, :func:`poly_mmd` (torchmetrics' ``image.kid``
  helpers) and :func:`kid_scores`, the KID of random subsets drawn as torchmetrics draws them.
- :func:`inception_score` and :func:`cosine_distance` (MiFID's memorization term, row block by row block).
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any, Optional, Union

import torch
from torch import Tensor, nn

from lightning_metrics.utilities.exceptions import MetricInputError

INCEPTION_FEATURES = (64, 192, 768, 2048)
INCEPTION_OUTPUTS = ("logits_unbiased", 64, 192, 768, 2048)
# MiFID's cosine distances are taken this many (real x fake) entries at a time
_BLOCK_ENTRIES = 1 << 24


class NoTrainInceptionV3(nn.Module):
    """torchmetrics' FID Inception-v3 feature extractor: one output of ``features_list`` per image.

    Holds the layers of :class:`~lightning_metrics.networks.inception.FeatureExtractorInceptionV3`
    under their own names (so a checkpoint's keys are torchmetrics'), stays in evaluation mode
    (``.train()`` does not leave it) and keeps no gradients. ``forward`` takes uint8 images
    ``(N, 3, H, W)`` and returns the first feature of ``features_list`` as ``(N, d)``.
    """

    def __init__(
        self,
        name: str,
        features_list: list[str],
        feature_extractor_weights_path: Optional[str] = None,
        antialias: bool = True,
    ) -> None:
        super().__init__()
        if name != "inception-v3-compat":
            raise ValueError(f"Argument `name` must be 'inception-v3-compat', got {name!r}")
        try:
            from lightning_metrics.networks.inception import FeatureExtractorInceptionV3
        except ModuleNotFoundError:
            raise NotImplementedError(
                f"feature={features_list[0]}: the FID Inception-v3 network is not in lightning_metrics yet; pass "
                "`feature=` an nn.Module feature extractor, or give torchmetrics' metric to MetricsCallback as it is"
            ) from None

        kwargs: dict[str, Any] = {"weights_path": feature_extractor_weights_path}
        if "antialias" in inspect.signature(FeatureExtractorInceptionV3).parameters:
            kwargs["antialias"] = antialias
        net = FeatureExtractorInceptionV3(list(features_list), **kwargs)
        net.use_antialias = antialias  # torchmetrics' attribute name for the resize mode
        self.features_list = list(features_list)
        self.use_antialias = antialias
        # the network's layers, parameters and buffers become this module's (torchmetrics' key names)
        object.__setattr__(self, "_net", net)
        for child_name, child in net.named_children():
            self.add_module(child_name, child)
        self._adopted = (tuple(net._parameters), tuple(net._buffers))
        for key, param in net._parameters.items():
            self.register_parameter(key, param)
        for key, buf in net._buffers.items():
            self.register_buffer(key, buf, persistent=key not in net._non_persistent_buffers_set)
        self.requires_grad_(False)
        net.eval()
        self.eval()

    def train(self, mode: bool = True) -> NoTrainInceptionV3:
        """Stay in evaluation mode whatever ``mode`` says."""
        return super().train(False)

    def _apply(self, fn: Any, recurse: bool = True) -> NoTrainInceptionV3:
        super()._apply(fn, recurse)
        params, buffers = self._adopted
        for key in params:  # a conversion may replace a parameter or buffer: the network reads the new one
            self._net._parameters[key] = self._parameters[key]
        for key in buffers:
            self._net._buffers[key] = self._buffers[key]
        return self

    @torch.jit.unused  # runs in Python: a scripted metric is a container of its states
    def forward(self, x: Tensor) -> Tensor:
        """The first feature of ``features_list`` of uint8 images ``x``, as ``(N, d)``."""
        with torch.no_grad():
            out = self._net(x)
        first = out[0] if isinstance(out, (tuple, list)) else out
        return first.reshape(x.shape[0], -1)


def build_extractor(
    feature: Union[str, int, nn.Module],
    valid: Sequence[Union[str, int]],
    weights_path: Optional[str] = None,
    antialias: bool = True,
) -> tuple[nn.Module, bool]:
    """The feature extractor of a metric's ``feature`` argument and whether it is the user's own.

    A ``feature`` among ``valid`` builds :class:`NoTrainInceptionV3` with that output (checked first:
    a wrong value never touches the network); an ``nn.Module`` is used as it is.

    >>> build_extractor(100, INCEPTION_FEATURES)
    Traceback (most recent call last):
    ...
    ValueError: Argument `feature` must be one of (64, 192, 768, 2048) or an nn.Module, got 100
    """
    if isinstance(feature, nn.Module):
        return feature, True
    if isinstance(feature, (str, int)) and not isinstance(feature, bool):
        if feature not in tuple(valid):
            raise ValueError(
                f"Argument `feature` must be one of {tuple(valid)} or an nn.Module, got {feature!r}"
            )
        extractor = NoTrainInceptionV3("inception-v3-compat", [str(feature)], weights_path, antialias)
        return extractor, False
    raise TypeError(
        f"Argument `feature` must be one of {tuple(valid)} or an nn.Module, "
        f"got {feature!r} ({type(feature).__name__})"
    )


def infer_num_features(module: nn.Module, normalize: bool, input_img_size: Sequence[int]) -> int:
    """The feature count of a custom extractor, as torchmetrics' FID reads it: its ``num_features``
    attribute, else the width of its output on one random image of ``input_img_size`` (float32 in
    [0, 1) with ``normalize``, else uint8; drawn from torch's global generator as torchmetrics draws it)."""
    if hasattr(module, "num_features"):
        value = module.num_features
        if isinstance(value, Tensor):
            return int(value.item())
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise TypeError(
            f"Attribute `num_features` of the `feature` module must be an int or a Tensor, got {value!r}"
        )
    size = tuple(input_img_size)
    if not size or not all(isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in size):
        raise ValueError(
            f"Argument `input_img_size` must be a tuple of positive integers, got {input_img_size!r}"
        )
    if normalize:
        dummy = torch.rand(1, *size, dtype=torch.float32)
    else:
        dummy = torch.randint(0, 255, (1, *size), dtype=torch.uint8)
    with torch.no_grad():
        return int(module(dummy).shape[-1])


def check_images(imgs: Any, inception: bool, normalize: bool) -> None:
    """``imgs`` must be a batch tensor; for the Inception network ``(N, 3, H, W)``, uint8 (or floating
    with ``normalize``)."""
    if not isinstance(imgs, Tensor):
        raise MetricInputError(f"Argument `imgs` must be a tensor of images, got {type(imgs).__name__}")
    if imgs.ndim == 0:
        raise MetricInputError("Argument `imgs` must have a batch dimension, got a 0-d tensor")
    if not inception:
        return
    if imgs.ndim != 4 or imgs.shape[1] != 3:
        raise MetricInputError(f"Argument `imgs` must have shape (N, 3, H, W), got {tuple(imgs.shape)}")
    if normalize and not imgs.is_floating_point():
        raise MetricInputError(
            f"Argument `imgs` must be floating in [0, 1] with `normalize=True`, got {imgs.dtype}"
        )
    if not normalize and imgs.dtype != torch.uint8:
        raise MetricInputError(
            f"Argument `imgs` must be uint8 in [0, 255] with `normalize=False`, got {imgs.dtype} "
            "(pass `normalize=True` for float images in [0, 1])"
        )


def to_bytes(imgs: Tensor, validate: bool) -> Tensor:
    """Float images in [0, 1] as uint8, as torchmetrics converts them (``(imgs * 255).byte()``)."""
    if validate and imgs.numel():
        low, high = torch.aminmax(imgs)
        if not (bool(low >= 0) and bool(high <= 1)):
            raise MetricInputError(
                "Argument `imgs` must lie in [0, 1] with `normalize=True`, "
                f"got values in [{float(low)}, {float(high)}]"
            )
    return (imgs * 255).byte()


def check_features(features: Any, batch: int, width: Optional[int]) -> Tensor:
    """The extractor's output as ``(N, d)`` floating features (one image may come as ``(d,)``), of
    ``width`` columns when known."""
    if not isinstance(features, Tensor) or not features.is_floating_point():
        what = features.dtype if isinstance(features, Tensor) else type(features).__name__
        raise MetricInputError(f"The feature extractor must return floating features (N, d), got {what}")
    if features.ndim == 1 and batch == 1:
        features = features.unsqueeze(0)
    if features.ndim != 2 or features.shape[0] != batch:
        raise MetricInputError(
            f"The feature extractor must return features of shape (N, d) = ({batch}, d) for {batch} images, "
            f"got {tuple(features.shape)}"
        )
    if width is not None and features.shape[1] != width:
        raise MetricInputError(
            f"The feature extractor returned {features.shape[1]} features per image, "
            f"expected {width} as before"
        )
    return features


# ------------------------------------------------------------------------------------------ FID
def covariance_from_sums(total: Tensor, outer: Tensor, count: Tensor) -> tuple[Tensor, Tensor]:
    """Mean and unbiased covariance (float64) from ``sum x``, ``sum x x^T`` and the sample count."""
    n = count.to(torch.float64)
    mean = total.to(torch.float64) / n
    cov = (outer.to(torch.float64) - n * torch.outer(mean, mean)) / (n - 1)
    return mean, cov


def _sym(matrix: Tensor) -> Tensor:
    return (matrix + matrix.transpose(-1, -2)) / 2


def trace_sqrt_product(sigma1: Tensor, sigma2: Tensor) -> Tensor:
    """``tr(sqrtm(sigma1 @ sigma2))`` of two PSD matrices, in float64: the sum of the square roots of
    the eigenvalues of the symmetric PSD matrix ``sqrt(sigma1) sigma2 sqrt(sigma1)`` (same spectrum as
    ``sigma1 @ sigma2``); eigenvalues below 0 by rounding count as 0.

    >>> s1 = torch.diag(torch.tensor([4.0, 9.0], dtype=torch.float64))
    >>> trace_sqrt_product(s1, torch.eye(2, dtype=torch.float64))
    tensor(5., dtype=torch.float64)
    """
    sigma1, sigma2 = _sym(sigma1.to(torch.float64)), _sym(sigma2.to(torch.float64))
    values, vectors = torch.linalg.eigh(sigma1)
    root = (vectors * _denoised(values).sqrt()) @ vectors.transpose(-1, -2)
    inner = _sym(root @ sigma2 @ root)
    return _denoised(torch.linalg.eigvalsh(inner)).sqrt().sum(dim=-1)


def _denoised(values: Tensor) -> Tensor:
    """Eigenvalues of a PSD matrix with those at rounding level (below ``d * eps * max``, negative ones
    included) set to 0: their square roots would add noise far above their size (singular covariances)."""
    tol = values.amax(dim=-1, keepdim=True).clamp(min=0) * values.shape[-1] * torch.finfo(values.dtype).eps
    return torch.where(values > tol, values, torch.zeros_like(values))


def frechet_distance(mu1: Tensor, sigma1: Tensor, mu2: Tensor, sigma2: Tensor) -> Tensor:
    """``|mu1 - mu2|^2 + tr(sigma1) + tr(sigma2) - 2 tr(sqrtm(sigma1 sigma2))`` in float64.

    >>> eye = torch.eye(3, dtype=torch.float64)
    >>> frechet_distance(torch.zeros(3), eye, torch.ones(3), 4 * eye)
    tensor(6., dtype=torch.float64)
    """
    mu1, mu2 = mu1.to(torch.float64), mu2.to(torch.float64)
    sigma1, sigma2 = sigma1.to(torch.float64), sigma2.to(torch.float64)
    mean_term = (mu1 - mu2).square().sum(dim=-1)
    return mean_term + sigma1.trace() + sigma2.trace() - 2 * trace_sqrt_product(sigma1, sigma2)


# ------------------------------------------------------------------------------------------ KID
def maximum_mean_discrepancy(k_xx: Tensor, k_xy: Tensor, k_yy: Tensor) -> Tensor:
    """The unbiased squared MMD of two samples of one size from their kernel matrices (torchmetrics' helper).

    >>> k = torch.ones(3, 3)
    >>> maximum_mean_discrepancy(k, k, k)
    tensor(0.)
    """
    m = k_xx.shape[0]
    within = (k_xx.sum() - k_xx.diagonal().sum()) + (k_yy.sum() - k_yy.diagonal().sum())
    return within / (m * (m - 1)) - 2 * k_xy.sum() / (m**2)


def poly_kernel(
    f1: Tensor, f2: Tensor, degree: int = 3, gamma: Optional[float] = None, coef: float = 1.0
) -> Tensor:
    """``(gamma f1 f2^T + coef) ** degree``, ``gamma`` 1 / number of features by default
    (torchmetrics' helper).

    >>> poly_kernel(torch.ones(1, 2), torch.ones(1, 2))
    tensor([[8.]])
    """
    if gamma is None:
        gamma = 1.0 / f1.shape[1]
    return (f1 @ f2.T * gamma + coef) ** degree


def poly_mmd(
    f_real: Tensor, f_fake: Tensor, degree: int = 3, gamma: Optional[float] = None, coef: float = 1.0
) -> Tensor:
    """The squared MMD of two feature samples under :func:`poly_kernel` (torchmetrics' helper)."""
    k_11 = poly_kernel(f_real, f_real, degree, gamma, coef)
    k_22 = poly_kernel(f_fake, f_fake, degree, gamma, coef)
    k_12 = poly_kernel(f_real, f_fake, degree, gamma, coef)
    return maximum_mean_discrepancy(k_11, k_12, k_22)


def kid_scores(
    real: Tensor,
    fake: Tensor,
    subsets: int,
    subset_size: int,
    degree: int,
    gamma: Optional[float],
    coef: float,
) -> Tensor:
    """The polynomial-kernel MMD of ``subsets`` random pairs of subsets, float64, shape ``(subsets,)``.

    Each subset is drawn as torchmetrics draws it (``torch.randperm`` of the real, then of the fake
    samples, on torch's global CPU generator), so a seeded run picks torchmetrics' subsets. The kernel
    products run in the features' dtype, the kernels and their sums in float64.
    """
    for kind, n in (("real", real.shape[0]), ("fake", fake.shape[0])):
        if n < subset_size:
            raise ValueError(
                f"Argument `subset_size` ({subset_size}) must not exceed the number of {kind} samples ({n}): "
                "lower it or add images"
            )
    gamma = 1.0 / real.shape[1] if gamma is None else gamma

    def kernel(a: Tensor, b: Tensor) -> Tensor:
        return ((a @ b.T).to(torch.float64) * gamma + coef) ** degree

    scores = []
    for _ in range(subsets):
        f_real = real[torch.randperm(real.shape[0])[:subset_size].to(real.device)]
        f_fake = fake[torch.randperm(fake.shape[0])[:subset_size].to(fake.device)]
        k_xx, k_xy, k_yy = kernel(f_real, f_real), kernel(f_real, f_fake), kernel(f_fake, f_fake)
        scores.append(maximum_mean_discrepancy(k_xx, k_xy, k_yy))
    return torch.stack(scores)


# ------------------------------------------------------------------------------------------- IS
def inception_score(logits: Tensor, splits: int) -> tuple[Tensor, Tensor]:
    """Mean and standard deviation over ``splits`` chunks of ``exp(E[KL(p(y|x) || p(y))])``, float64.

    The samples are shuffled first with ``torch.randperm`` on torch's global CPU generator and
    chunked with ``torch.chunk``, as torchmetrics does.
    """
    logits = logits[torch.randperm(logits.shape[0]).to(logits.device)].to(torch.float64)
    prob = logits.softmax(dim=1).chunk(splits, dim=0)
    log_prob = logits.log_softmax(dim=1).chunk(splits, dim=0)
    scores = []
    for p, log_p in zip(prob, log_prob):
        mean_p = p.mean(dim=0, keepdim=True)
        scores.append((p * (log_p - mean_p.log())).sum(dim=1).mean().exp())
    values = torch.stack(scores)
    return values.mean(), values.std()


# ----------------------------------------------------------------------------------------- MiFID
def cosine_distance(features1: Tensor, features2: Tensor, cosine_distance_eps: float = 0.1) -> Tensor:
    """Mean over ``features1`` of the smallest ``1 - |cos|`` to ``features2`` (rows summing to 0 left out),
    or 1 when that mean is not below ``cosine_distance_eps``; computed in row blocks, so the memory does
    not grow with the product of the two counts."""
    f1 = features1[features1.sum(dim=1) != 0]
    f2 = features2[features2.sum(dim=1) != 0]
    f1 = f1 / f1.norm(dim=1, keepdim=True)
    f2 = f2 / f2.norm(dim=1, keepdim=True)
    rows = max(1, _BLOCK_ENTRIES // max(f2.shape[0], 1))
    blocks = f1.split(rows) if f2.shape[0] else ()
    closest = [(1.0 - (block @ f2.T).abs()).min(dim=1).values for block in blocks]
    mean_min = torch.cat(closest).mean() if closest else f1.new_tensor(float("nan")).mean()
    return mean_min if mean_min < cosine_distance_eps else torch.ones_like(mean_min)


def mifid(real: Tensor, fake: Tensor, cosine_distance_eps: float) -> Tensor:
    """MiFID of two float64 feature sets: their FID divided by the memorization distance (0 when the
    FID is)."""
    d = real.shape[1]
    cov_real, cov_fake = torch.cov(real.T).reshape(d, d), torch.cov(fake.T).reshape(d, d)
    fid = frechet_distance(real.mean(dim=0), cov_real, fake.mean(dim=0), cov_fake)
    distance = cosine_distance(real, fake, cosine_distance_eps)
    return fid / (distance + 10e-15) if fid > 1e-8 else torch.zeros_like(fid)
