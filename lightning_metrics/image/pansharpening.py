"""Modular D-lambda, D-s and QNR: per band pair / band UQI sums (torchmetrics keeps every image).

The indices are functions of UQI values averaged over every image and pixel seen, so the state is
one float64 sum per band pair (D-lambda) or band (D-s) and the pixel counts: its size depends on
the number of bands only.
"""

from __future__ import annotations

from typing import Any, Optional

import torch
from torch import Tensor

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics.functional.image._checks import check_positive_int, check_reduction
from lightning_metrics.functional.image.pansharpening import (
    PANSHARPENING_REDUCTIONS,
    band_pair_uqi_sums,
    band_uqi_sums,
    check_d_lambda_inputs,
    check_d_s_args,
    check_d_s_inputs,
    check_qnr_args,
    d_lambda_from_means,
    d_s_from_sums,
)
from lightning_metrics.image._grown import GrownSumMetric
from lightning_metrics.utilities.distributed import reduce


def _unpack(target: Any) -> tuple[Tensor, Tensor, Optional[Tensor]]:
    if not isinstance(target, dict):
        raise TypeError(f"Argument `target` must be a dict with keys 'ms', 'pan' (and 'pan_lr'), got {type(target).__name__}")
    for key in ("ms", "pan"):
        if key not in target:
            raise ValueError(f"Argument `target` must have the key {key!r}, got keys {sorted(target)}")
    return target["ms"], target["pan"], target.get("pan_lr")


class _PansharpeningMetric(GrownSumMetric):
    plot = _plot_methods.plot_value
    is_differentiable = True
    full_state_update = False
    additive_update = True
    plot_lower_bound: Optional[float] = 0.0
    plot_upper_bound: Optional[float] = 1.0
    exact_dtype_states = ("target_pairs", "preds_pairs", "low_sums", "high_sums")

    def _add_d_lambda_states(self) -> None:
        self._add_grown_state("target_pairs")
        self._add_grown_state("preds_pairs")
        self.add_state("target_pixels", torch.zeros((), dtype=torch.int64), dist_reduce_fx="sum")
        self.add_state("preds_pixels", torch.zeros((), dtype=torch.int64), dist_reduce_fx="sum")

    def _add_d_s_states(self) -> None:
        self._add_grown_state("low_sums")
        self._add_grown_state("high_sums")
        self.add_state("low_pixels", torch.zeros((), dtype=torch.int64), dist_reduce_fx="sum")
        self.add_state("high_pixels", torch.zeros((), dtype=torch.int64), dist_reduce_fx="sum")

    def _d_lambda_update(self, preds: Tensor, target: Tensor) -> dict[str, Any]:
        target_sums, target_pixels = band_pair_uqi_sums(target)
        preds_sums, preds_pixels = band_pair_uqi_sums(preds)
        return {"target_pairs": target_sums, "preds_pairs": preds_sums,
                "target_pixels": target_pixels, "preds_pixels": preds_pixels}

    def _d_s_update(self, preds: Tensor, ms: Tensor, pan: Tensor, pan_lr: Optional[Tensor]) -> dict[str, Any]:
        low, high, low_pixels, high_pixels = band_uqi_sums(preds, ms, pan, pan_lr, self.window_size)
        return {"low_sums": low, "high_sums": high, "low_pixels": low_pixels, "high_pixels": high_pixels}

    def _check_d_s_args(self) -> None:
        """Check the D-s window arguments and the reduction (the dict-target metrics' shared checks)."""
        check_d_s_args(self.norm_order, self.window_size)
        check_reduction(self.reduction, PANSHARPENING_REDUCTIONS)

    def _update_from_dict(self, preds: Tensor, target: Any, with_d_lambda: bool) -> None:
        """Check one batch whose ``target`` is the ``ms``/``pan``/``pan_lr`` dict and add its per-band
        UQI sums, after its band-pair sums against ``ms`` where ``with_d_lambda``."""
        ms, pan, pan_lr = _unpack(target)
        if with_d_lambda:
            check_d_lambda_inputs(preds, ms)
        check_d_s_inputs(preds, ms, pan, pan_lr, self.window_size)
        self._check_finite(
            ("preds", preds), ("target['ms']", ms), ("target['pan']", pan), ("target['pan_lr']", pan_lr)
        )
        if preds.shape[0]:
            d_lambda_parts = self._d_lambda_update(preds, ms) if with_d_lambda else {}
            self._add({**d_lambda_parts, **self._d_s_update(preds, ms, pan, pan_lr)})

    def _add(self, parts: dict[str, Any]) -> None:
        """Add one batch's sums (grown ones checked against earlier batches first) and counts."""
        self._grow(**{k: v for k, v in parts.items() if k in self._grown_states})
        for name, value in parts.items():
            if name not in self._grown_states:
                setattr(self, name, getattr(self, name) + value)

    def _d_lambda(self, p: int) -> Tensor:
        return d_lambda_from_means(self.target_pairs / self.target_pixels, self.preds_pairs / self.preds_pixels, p)

    def _d_s(self) -> Tensor:
        return d_s_from_sums(self.low_sums, self.high_sums, self.low_pixels, self.high_pixels, self.norm_order,
                             self.reduction)


class SpectralDistortionIndex(_PansharpeningMetric):
    """Spectral distortion index D-lambda of fused ``preds`` against multispectral ``target``
    (see :func:`~lightning_metrics.functional.image.spectral_distortion_index`).

    >>> import torch
    >>> from lightning_metrics.image import SpectralDistortionIndex
    >>> g = torch.arange(16.0)
    >>> base = (g.sin()[:, None] * (0.7 * g).cos()[None, :]).reshape(1, 1, 16, 16)
    >>> target = torch.cat([base, base.flip(-1), base.transpose(-1, -2)], dim=1) + 2
    >>> preds = torch.cat([target[:, :1].flip(-1), target[:, 1:]], dim=1)  # one band mirrored
    >>> SpectralDistortionIndex()(preds, target)
    tensor(0.5908)
    """

    higher_is_better = True

    def __init__(self, p: int = 1, reduction: Optional[str] = "elementwise_mean", **kwargs: Any) -> None:
        self._configure(locals())

    def _build(self) -> None:
        check_positive_int("p", self.p)
        check_reduction(self.reduction, PANSHARPENING_REDUCTIONS)
        self._add_d_lambda_states()

    def update(self, preds: Tensor, target: Tensor) -> None:
        """Add the band-pair UQI sums of one batch."""
        self._check_finite(("preds", preds), ("target", target))
        check_d_lambda_inputs(preds, target)
        if preds.shape[0]:
            self._add(self._d_lambda_update(preds, target))

    def compute(self) -> Tensor:
        """D-lambda of everything seen."""
        return reduce(self._d_lambda(self.p), self.reduction)


class SpatialDistortionIndex(_PansharpeningMetric):
    """Spatial distortion index D-s of fused ``preds``; ``target`` is a dict with ``"ms"``,
    ``"pan"`` and optionally ``"pan_lr"`` (see
    :func:`~lightning_metrics.functional.image.spatial_distortion_index`).

    >>> import torch
    >>> from lightning_metrics.image import SpatialDistortionIndex
    >>> base = torch.linspace(0, 1, 32 * 32).reshape(1, 1, 32, 32)
    >>> preds = torch.cat([base, base.flip(-1)], dim=1)
    >>> pan = torch.cat([base.transpose(-1, -2), base.transpose(-1, -2)], dim=1)
    >>> target = {"ms": preds[..., ::2, ::2], "pan": pan, "pan_lr": pan[..., ::2, ::2]}
    >>> SpatialDistortionIndex()(preds, target)
    tensor(0.0030)
    """

    higher_is_better = False

    def __init__(
        self,
        norm_order: int = 1,
        window_size: int = 7,
        reduction: Optional[str] = "elementwise_mean",
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _build(self) -> None:
        self._check_d_s_args()
        self._add_d_s_states()

    def update(self, preds: Tensor, target: dict[str, Tensor]) -> None:
        """Add the per-band UQI sums of one batch at both resolutions."""
        self._update_from_dict(preds, target, with_d_lambda=False)

    def compute(self) -> Tensor:
        """D-s of everything seen."""
        return self._d_s()


class QualityWithNoReference(_PansharpeningMetric):
    """Quality with no reference ``(1 - D_lambda)^alpha (1 - D_s)^beta``; ``target`` as for
    :class:`SpatialDistortionIndex` (see
    :func:`~lightning_metrics.functional.image.quality_with_no_reference`).

    >>> import torch
    >>> from lightning_metrics.image import QualityWithNoReference
    >>> base = torch.linspace(0, 1, 32 * 32).reshape(1, 1, 32, 32)
    >>> preds = torch.cat([base, base.flip(-1)], dim=1)
    >>> pan = torch.cat([base.transpose(-1, -2), base.transpose(-1, -2)], dim=1)
    >>> target = {"ms": preds[..., ::2, ::2], "pan": pan, "pan_lr": pan[..., ::2, ::2]}
    >>> QualityWithNoReference()(preds, target)
    tensor(0.9965)
    """

    higher_is_better = True

    def __init__(
        self,
        alpha: float = 1,
        beta: float = 1,
        norm_order: int = 1,
        window_size: int = 7,
        reduction: Optional[str] = "elementwise_mean",
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _build(self) -> None:
        check_qnr_args(self.alpha, self.beta)
        self._check_d_s_args()
        self._add_d_lambda_states()
        self._add_d_s_states()

    def update(self, preds: Tensor, target: dict[str, Tensor]) -> None:
        """Add the band-pair and per-band UQI sums of one batch."""
        self._update_from_dict(preds, target, with_d_lambda=True)

    def compute(self) -> Tensor:
        """QNR of everything seen."""
        d_lambda = reduce(self._d_lambda(self.norm_order), self.reduction)
        return (1 - d_lambda) ** self.alpha * (1 - self._d_s()) ** self.beta
