"""FID, KID, Inception score and MiFID: torchmetrics' classes, arguments and values.

``feature`` is an Inception-v3 output (torchmetrics' FID network, built on first use from
:mod:`lightning_metrics.networks.inception` with its downloaded weights) or any ``nn.Module`` that
maps a batch of images to ``(N, d)`` features. The math lives in
:mod:`lightning_metrics.functional.image._generative`.

- FID keeps, per distribution, a float64 feature sum, a float64 sum of outer products and a count:
  constant memory, one fused sum across processes. The Fréchet distance is taken in float64 through
  a symmetric eigendecomposition, finite also with fewer images than features.
- KID, MiFID and IS keep the features (``cat`` states, gathered in rank order across processes);
  KID's subsets and IS's shuffle are drawn with torch's global CPU generator exactly as torchmetrics
  draws them, so a seeded ``compute`` gives torchmetrics' value. Their sums run in float64.
- ``update`` checks the images (for the Inception network: ``(N, 3, H, W)``, uint8, or floats in
  [0, 1] with ``normalize=True``) and the features (shape, width, and with the keyword argument
  ``validate_args`` (default ``True``) finite) before any state changes.
- ``forward`` gives the value of the batch alone (against the real features kept across resets when
  ``reset_real_features=False``, as torchmetrics means it, without adding them twice); one batch holds
  one distribution, so FID, KID and MiFID raise there unless the real features are kept.
"""

from __future__ import annotations

from typing import Any, Optional, Union

import torch
from torch import Tensor, nn

from lightning_metrics.functional.image import _generative as gen
from lightning_metrics.metric import Metric
from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics.utilities.checks import check_bool, may_hold_nonfinite
from lightning_metrics.utilities.exceptions import MetricInputError


def _positive(name: str, value: Any, kind: tuple = (int,)) -> None:
    if isinstance(value, bool) or not isinstance(value, kind) or not value > 0:
        names = " or ".join(t.__name__ for t in kind)
        raise ValueError(f"Argument `{name}` must be a positive {names}, got {value!r}")


def _side(real: Any) -> str:
    if isinstance(real, Tensor) and real.numel() == 1:
        return "real" if bool(real) else "fake"
    if not isinstance(real, Tensor) and real in (True, False):
        return "real" if real else "fake"
    raise MetricInputError(f"Argument `real` must be a bool, got {real!r}")


class _GenerativeMetric(Metric):
    """Feature extraction, checks, forward's batch states and ``reset_real_features`` for the four classes."""

    is_differentiable = False
    full_state_update = False
    feature_network: str = "inception"
    _real_states: tuple[str, ...] = ()
    _bytes_for_custom = False  # IS turns float images into bytes for a custom extractor too (torchmetrics)

    def __init__(self, normalize: bool, **kwargs: Any) -> None:
        validate_args = kwargs.pop("validate_args", True)
        super().__init__(**kwargs)
        check_bool("validate_args", validate_args)
        check_bool("normalize", normalize)
        self.validate_args = validate_args
        self.normalize = normalize

    def _check_reset_real_features(self, reset_real_features: Any) -> None:
        check_bool("reset_real_features", reset_real_features)
        self.reset_real_features = reset_real_features

    def _features(self, imgs: Tensor, width: Optional[int]) -> Tensor:
        """The checked features ``(N, d)`` of a batch of images."""
        gen.check_images(imgs, not self.used_custom_model, self.normalize)
        if self.normalize and (not self.used_custom_model or self._bytes_for_custom):
            imgs = gen.to_bytes(imgs, self.validate_args and imgs.is_floating_point())
        with torch.no_grad():
            features = gen.check_features(self.inception(imgs), imgs.shape[0], width)
        if self.validate_args:
            flag = may_hold_nonfinite(features)
            if flag is not None and bool(flag) and not bool(torch.isfinite(features).all()):
                row = int((~torch.isfinite(features)).any(dim=1).nonzero()[0])
                raise MetricInputError(
                    f"The features of `imgs` hold NaN or infinity (image {row} of the batch): "
                    "check the images and the feature extractor"
                )
        self.__dict__["_result_dtype"] = features.dtype
        return features.detach()

    def _width(self, *names: str) -> Optional[int]:
        """The feature count of what the list states ``names`` hold so far (``None`` when empty)."""
        for name in names:
            value = getattr(self, name)
            if isinstance(value, Tensor):
                return value.shape[1] if value.ndim == 2 else None
            if value:
                return value[0].shape[1]
        return None

    def _out_dtype(self) -> torch.dtype:
        return self.__dict__.get("_result_dtype") or self.dtype

    def _additions(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """What a batch adds to each state it changes (checked, nothing changed yet)."""
        raise NotImplementedError

    def _plus(self, name: str, base: Any, add: Any) -> Any:
        if isinstance(base, list):
            return [*base, add]
        if self._reduction_kinds[name] == "cat":
            return torch.cat([base, add])
        return base + add

    def _add(self, additions: dict[str, Any]) -> None:
        for name, add in additions.items():
            current = getattr(self, name)
            if isinstance(current, list):
                current.append(add)
            else:
                setattr(self, name, self._plus(name, current, add))

    def _prepared_update(self, *args: Any, **kwargs: Any) -> Any:
        if self.__dict__["_is_synced"]:
            return None
        additions = self._additions(*args, **kwargs)
        return self._committer(lambda: self._add(additions))

    def _prepared_batch(self, *args: Any, **kwargs: Any) -> Any:
        """The states of the batch alone (with the kept real states under ``reset_real_features=False``)."""
        if self.__dict__["_is_synced"]:
            return None
        additions = self._additions(*args, **kwargs)
        keep = () if getattr(self, "reset_real_features", True) else self._real_states
        batch = {}
        for name, default in self._defaults.items():
            if name in keep:
                base = getattr(self, name)
            else:
                base = default.to(self.device, copy=True) if isinstance(default, Tensor) else []
            batch[name] = self._plus(name, base, additions[name]) if name in additions else base
        return batch, self._committer(lambda: self._add(additions))

    def reset(self) -> None:
        """Reset the states; with ``reset_real_features=False`` the real ones are kept."""
        if getattr(self, "reset_real_features", True):
            super().reset()
            return
        kept = {}
        for name in self._real_states:
            value = getattr(self, name)
            kept[name] = value if isinstance(value, Tensor) else list(value)
        super().reset()
        for name, value in kept.items():
            setattr(self, name, value)

    def _samples(self, name: str) -> Tensor:
        value = getattr(self, name)
        if isinstance(value, list) and not value:
            side = "generated" if name == "features" else name.split("_")[0]
            hint = f"update(imgs, real={side == 'real'})" if side in ("real", "fake") else "update(imgs)"
            raise RuntimeError(f"{type(self).__name__} has no {side} images: call {hint} before compute")
        return torch.cat(value) if isinstance(value, list) else value

    plot = _plot_methods.plot_value


class FrechetInceptionDistance(_GenerativeMetric):
    """Fréchet inception distance between the features of real and generated images (lower is better).

    ``feature`` is 64, 192, 768 or 2048 (an output of torchmetrics' Inception-v3, its weights
    downloaded once; ``feature_extractor_weights_path`` names a local file instead) or an ``nn.Module``
    (its ``num_features``, else the width of its output on one random image of ``input_img_size``,
    float in [0, 1) with ``normalize`` else uint8). ``update(imgs, real)`` adds a batch to one
    distribution; ``reset_real_features=False`` keeps the real statistics across ``reset``. State per
    distribution: a float64 feature sum, a float64 sum of outer products and a count, whatever the
    number of images. The result has the features' dtype.

    >>> import torch
    >>> from torch import nn
    >>> from lightning_metrics.image import FrechetInceptionDistance
    >>> _ = torch.manual_seed(0)
    >>> net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))
    >>> fid = FrechetInceptionDistance(feature=net, normalize=True, input_img_size=(3, 16, 16))
    >>> fid.update(torch.rand(40, 3, 16, 16), real=True)
    >>> fid.update(torch.rand(40, 3, 16, 16) * 0.5, real=False)
    >>> fid.compute()
    tensor(0.0018)
    """

    higher_is_better = False
    plot_lower_bound = 0.0
    exact_dtype_states = (
        "real_features_sum", "real_features_cov_sum", "fake_features_sum", "fake_features_cov_sum"
    )
    _real_states = ("real_features_sum", "real_features_cov_sum", "real_features_num_samples")

    def __init__(
        self,
        feature: Union[int, nn.Module] = 2048,
        reset_real_features: bool = True,
        normalize: bool = False,
        input_img_size: tuple[int, int, int] = (3, 299, 299),
        feature_extractor_weights_path: Optional[str] = None,
        antialias: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(normalize, **kwargs)
        self._check_reset_real_features(reset_real_features)
        check_bool("antialias", antialias)
        if isinstance(feature, str):  # torchmetrics' FID takes ints only
            raise TypeError(
                f"Argument `feature` must be one of {gen.INCEPTION_FEATURES} or an nn.Module, got {feature!r}"
            )
        self.inception, self.used_custom_model = gen.build_extractor(
            feature, gen.INCEPTION_FEATURES, feature_extractor_weights_path, antialias
        )
        if self.used_custom_model:
            num_features = gen.infer_num_features(self.inception, normalize, input_img_size)
        else:
            num_features = int(feature)  # type: ignore[arg-type]
        for side in ("real", "fake"):
            zeros = torch.zeros(num_features, dtype=torch.float64)
            self.add_state(f"{side}_features_sum", zeros, dist_reduce_fx="sum")
            self.add_state(f"{side}_features_cov_sum", torch.outer(zeros, zeros), dist_reduce_fx="sum")
            self.add_state(f"{side}_features_num_samples", torch.tensor(0), dist_reduce_fx="sum")

    def _additions(self, imgs: Tensor, real: bool) -> dict[str, Any]:
        side = _side(real)
        features = self._features(imgs, self.real_features_sum.shape[0]).to(torch.float64)
        return {
            f"{side}_features_sum": features.sum(dim=0),
            f"{side}_features_cov_sum": features.T @ features,
            f"{side}_features_num_samples": features.shape[0],
        }

    def update(self, imgs: Tensor, real: bool) -> None:
        """Add the features of a batch of images to the real (``real=True``) or the fake statistics."""
        self._add(self._additions(imgs, real))

    def compute(self) -> Tensor:
        """The Fréchet distance of the two Gaussians of the features (float64, then the features' dtype)."""
        n_real, n_fake = int(self.real_features_num_samples), int(self.fake_features_num_samples)
        if n_real < 2 or n_fake < 2:
            raise RuntimeError(
                "More than one sample is required for both the real and fake distributions to compute FID: "
                f"got {n_real} real and {n_fake} fake images"
            )
        mean_real, cov_real = gen.covariance_from_sums(
            self.real_features_sum, self.real_features_cov_sum, self.real_features_num_samples
        )
        mean_fake, cov_fake = gen.covariance_from_sums(
            self.fake_features_sum, self.fake_features_cov_sum, self.fake_features_num_samples
        )
        return gen.frechet_distance(mean_real, cov_real, mean_fake, cov_fake).to(self._out_dtype())


class KernelInceptionDistance(_GenerativeMetric):
    """Kernel inception distance: mean and standard deviation over ``subsets`` random subsets of
    ``subset_size`` real and fake images of the polynomial-kernel MMD
    ``k(x, y) = (gamma x.y + coef) ** degree`` (``gamma`` 1 / number of features by default).

    ``feature``: ``"logits_unbiased"``, 64, 192, 768, 2048 or an ``nn.Module``. The subsets are drawn
    with ``torch.randperm`` on torch's global generator exactly as torchmetrics draws them (seed it
    before ``compute`` to fix them); the kernels are summed in float64. State: the features of every
    image (``cat``).

    >>> import torch
    >>> from torch import nn
    >>> from lightning_metrics.image import KernelInceptionDistance
    >>> _ = torch.manual_seed(0)
    >>> net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))
    >>> kid = KernelInceptionDistance(feature=net, subsets=3, subset_size=20)
    >>> kid.update(torch.rand(40, 3, 16, 16), real=True)
    >>> kid.update(torch.rand(40, 3, 16, 16) * 0.5, real=False)
    >>> kid.compute()
    (tensor(0.0018), tensor(0.0001))
    """

    higher_is_better = False
    plot_lower_bound = 0.0
    plot_upper_bound = 1.0
    result_names = ("mean", "std")
    _real_states = ("real_features",)

    def __init__(
        self,
        feature: Union[str, int, nn.Module] = 2048,
        subsets: int = 100,
        subset_size: int = 1000,
        degree: int = 3,
        gamma: Optional[float] = None,
        coef: float = 1.0,
        reset_real_features: bool = True,
        normalize: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(normalize, **kwargs)
        for name, value in (("subsets", subsets), ("subset_size", subset_size), ("degree", degree)):
            _positive(name, value)
        if gamma is not None:
            _positive("gamma", gamma, (float, int))
        _positive("coef", coef, (float, int))
        self._check_reset_real_features(reset_real_features)
        self.subsets, self.subset_size, self.degree = subsets, subset_size, degree
        self.gamma, self.coef = gamma, coef
        self.inception, self.used_custom_model = gen.build_extractor(feature, gen.INCEPTION_OUTPUTS)
        self.add_state("real_features", [], dist_reduce_fx="cat")
        self.add_state("fake_features", [], dist_reduce_fx="cat")

    def _additions(self, imgs: Tensor, real: bool) -> dict[str, Any]:
        side = _side(real)
        return {f"{side}_features": self._features(imgs, self._width("real_features", "fake_features"))}

    def update(self, imgs: Tensor, real: bool) -> None:
        """Add the features of a batch of images to the real (``real=True``) or the fake ones."""
        self._add(self._additions(imgs, real))

    def compute(self) -> tuple[Tensor, Tensor]:
        """Mean and (biased) standard deviation of the subsets' KID, in the features' dtype."""
        real, fake = self._samples("real_features"), self._samples("fake_features")
        scores = gen.kid_scores(
            real, fake, self.subsets, self.subset_size, self.degree, self.gamma, self.coef
        )
        return scores.mean().to(real.dtype), scores.std(unbiased=False).to(real.dtype)

    def plot(self, val: Any = None, ax: Any = None) -> Any:
        """Draw the mean KID (default ``compute()[0]``) or a sequence of them; ``(fig, ax)``."""
        return _plot_methods.plot_value(self, self.compute()[0] if val is None else val, ax)


class InceptionScore(_GenerativeMetric):
    """Inception score of generated images: ``exp(E[KL(p(y|x) || p(y))])`` over ``splits`` chunks of the
    shuffled images, mean and standard deviation (higher is better).

    ``feature``: ``"logits_unbiased"`` (default), 64, 192, 768, 2048 or an ``nn.Module`` returning logits.
    With ``normalize=True`` float images in [0, 1] are turned into uint8 first, also for a custom
    module (as torchmetrics does). The shuffle is ``torch.randperm`` on torch's global generator, as
    torchmetrics draws it. State: the logits of every image (``cat``).

    >>> import torch
    >>> from torch import nn
    >>> from lightning_metrics.image import InceptionScore
    >>> _ = torch.manual_seed(0)
    >>> net = nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, 10))
    >>> inception = InceptionScore(feature=net, splits=2)
    >>> inception.update(torch.rand(30, 3, 8, 8))
    >>> inception.compute()
    (tensor(1.0116), tensor(0.0003))
    """

    higher_is_better = True
    plot_lower_bound = 0.0
    result_names = ("mean", "std")
    _bytes_for_custom = True

    def __init__(
        self,
        feature: Union[str, int, nn.Module] = "logits_unbiased",
        splits: int = 10,
        normalize: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(normalize, **kwargs)
        _positive("splits", splits)
        self.splits = splits
        self.inception, self.used_custom_model = gen.build_extractor(feature, gen.INCEPTION_OUTPUTS)
        self.add_state("features", [], dist_reduce_fx="cat")

    def _additions(self, imgs: Tensor) -> dict[str, Any]:
        return {"features": self._features(imgs, self._width("features"))}

    def update(self, imgs: Tensor) -> None:
        """Add the logits of a batch of generated images."""
        self._add(self._additions(imgs))

    def compute(self) -> tuple[Tensor, Tensor]:
        """Mean and (unbiased) standard deviation over the splits, in the features' dtype."""
        features = self._samples("features")
        mean, std = gen.inception_score(features, self.splits)
        return mean.to(features.dtype), std.to(features.dtype)

    def plot(self, val: Any = None, ax: Any = None) -> Any:
        """Draw the mean score (default ``compute()[0]``) or a sequence of them; ``(fig, ax)``."""
        return _plot_methods.plot_value(self, self.compute()[0] if val is None else val, ax)


class MemorizationInformedFrechetInceptionDistance(_GenerativeMetric):
    """MiFID: the FID divided by a memorization distance, the mean over real images of the smallest
    ``1 - |cos|`` to a fake image when it is below ``cosine_distance_eps`` (else 1).

    ``feature``: 64, 192, 768, 2048 or an ``nn.Module``. State: the float64 features of every image
    (``cat``); the cosine distances are taken in row blocks (memory bounded whatever the counts).

    >>> import torch
    >>> from torch import nn
    >>> from lightning_metrics.image import MemorizationInformedFrechetInceptionDistance
    >>> _ = torch.manual_seed(0)
    >>> net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))
    >>> mifid = MemorizationInformedFrechetInceptionDistance(feature=net, normalize=True)
    >>> mifid.update(torch.rand(40, 3, 16, 16), real=True)
    >>> mifid.update(torch.rand(40, 3, 16, 16) * 0.5, real=False)
    >>> mifid.compute()
    tensor(3.4040)
    """

    higher_is_better = False
    _real_states = ("real_features",)

    def __init__(
        self,
        feature: Union[int, nn.Module] = 2048,
        reset_real_features: bool = True,
        normalize: bool = False,
        cosine_distance_eps: float = 0.1,
        **kwargs: Any,
    ) -> None:
        super().__init__(normalize, **kwargs)
        self._check_reset_real_features(reset_real_features)
        eps = cosine_distance_eps
        if isinstance(eps, bool) or not isinstance(eps, (float, int)) or not 0 < eps <= 1:
            raise ValueError(f"Argument `cosine_distance_eps` must be a float in (0, 1], got {eps!r}")
        self.cosine_distance_eps = cosine_distance_eps
        if isinstance(feature, str):  # torchmetrics' MiFID takes ints only
            raise TypeError(
                f"Argument `feature` must be one of {gen.INCEPTION_FEATURES} or an nn.Module, got {feature!r}"
            )
        self.inception, self.used_custom_model = gen.build_extractor(feature, gen.INCEPTION_FEATURES)
        self.add_state("real_features", [], dist_reduce_fx="cat")
        self.add_state("fake_features", [], dist_reduce_fx="cat")

    def _additions(self, imgs: Tensor, real: bool) -> dict[str, Any]:
        side = _side(real)
        features = self._features(imgs, self._width("real_features", "fake_features"))
        return {f"{side}_features": features.to(torch.float64)}

    def update(self, imgs: Tensor, real: bool) -> None:
        """Add the features of a batch of images to the real (``real=True``) or the fake ones."""
        self._add(self._additions(imgs, real))

    def compute(self) -> Tensor:
        """The MiFID (float64, then the features' dtype)."""
        real, fake = self._samples("real_features"), self._samples("fake_features")
        if real.shape[0] < 2 or fake.shape[0] < 2:
            raise RuntimeError(
                "More than one sample is required for both the real and fake distributions to compute MiFID: "
                f"got {real.shape[0]} real and {fake.shape[0]} fake images"
            )
        return gen.mifid(real, fake, self.cosine_distance_eps).to(self._out_dtype())
