"""Video Multi-Method Assessment Fusion (VMAF) through the ``vmaf-torch`` package, as torchmetrics
computes it: Netflix's elementary features (ADM, VIF at four scales, motion) and its default SVM
model, written in torch by vmaf-torch (the model's parameters ship inside that package: nothing is
downloaded). ``vmaf-torch`` is optional (``pip install lightning_metrics[video]``); this module
imports it on first use only.
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from typing import Any

import torch
from torch import Tensor

from lightning_metrics.utilities.checks import check_bool

_INSTALL = "pip install lightning_metrics[video]"
# the columns of vmaf-torch's table (the names of the vmaf tool's csv), in its order, "vmaf" last
FEATURES = (
    "integer_motion2", "integer_motion", "integer_adm2", "integer_adm_scale0", "integer_adm_scale1",
    "integer_adm_scale2", "integer_adm_scale3", "integer_vif_scale0", "integer_vif_scale1", "integer_vif_scale2",
    "integer_vif_scale3", "vmaf",
)


def require_vmaf_torch(name: str = "video_multi_method_assessment_fusion") -> Any:
    """The ``vmaf_torch`` module, or a ``ModuleNotFoundError`` that names the extra."""
    try:
        return importlib.import_module("vmaf_torch")
    except ImportError as err:
        raise ModuleNotFoundError(
            f"{name} needs the `vmaf-torch` package (VMAF's features and model in torch): `{_INSTALL}` or "
            "`pip install vmaf-torch`",
            name="vmaf_torch",
        ) from err


def calculate_luma(video: Tensor) -> Tensor:
    """The luma (BT.601 weights) of RGB videos ``(batch, 3, frames, height, width)`` in ``[0, 1]``,
    scaled to ``[0, 255]``: shape ``(batch, 1, frames, height, width)``.

    >>> import torch
    >>> calculate_luma(torch.ones(1, 3, 2, 4, 4)).shape
    torch.Size([1, 1, 2, 4, 4])
    """
    red, green, blue = video[:, 0], video[:, 1], video[:, 2]
    return (0.299 * red + 0.587 * green + 0.114 * blue).unsqueeze(1) * 255


def check_videos(preds: Any, target: Any) -> None:
    """Both tensors of RGB videos ``(batch, 3, frames, height, width)`` of the same shape."""
    for name, value in (("preds", preds), ("target", target)):
        if not isinstance(value, Tensor) or value.ndim != 5 or value.shape[1] != 3:
            shape = tuple(value.shape) if isinstance(value, Tensor) else type(value).__name__
            raise ValueError(f"Argument `{name}` must be RGB videos (batch, 3, frames, height, width), got {shape}")
    if preds.shape != target.shape:
        raise ValueError(f"Arguments `preds` and `target` must have the same shape, got {tuple(preds.shape)} and "
                         f"{tuple(target.shape)}")


@lru_cache(maxsize=4)
def _model(device: torch.device, dtype: torch.dtype) -> torch.nn.Module:
    return require_vmaf_torch().VMAF().to(device=device, dtype=dtype).eval()


def vmaf_values(preds: Tensor, target: Tensor, features: bool) -> Tensor | dict[str, Tensor]:
    """Per-frame VMAF ``(batch, frames)`` (or every feature of :data:`FEATURES`, each ``(batch,
    frames)``) of checked videos, in the inputs' dtype. Videos are scored one by one (motion runs
    along each video's frames); float64 videos are scored in float64, others in float32."""
    work = torch.float64 if preds.dtype == torch.float64 else torch.float32
    model = _model(preds.device, work)
    reference, distorted = calculate_luma(target.to(work)), calculate_luma(preds.to(work))
    rows = []
    with torch.no_grad():
        for ref, dist in zip(reference.transpose(1, 2), distorted.transpose(1, 2)):  # (frames, 1, h, w) each
            if not features:
                rows.append(model.compute_vmaf_score(ref, dist)[:, 0])
                continue
            adm_features, adm = model.compute_adm_features_and_score(ref, dist)
            motion2 = model.compute_motion2(ref)
            vif = model.compute_vif_features(ref, dist)
            score = model.predict(adm, motion2, vif)
            rows.append(torch.cat([motion2, model.compute_motion(ref), adm, adm_features, vif, score], dim=-1))
    stacked = torch.stack(rows).to(preds.dtype)
    if not features:
        return stacked
    return {name: stacked[..., column] for column, name in enumerate(FEATURES)}


def video_multi_method_assessment_fusion(
    preds: Tensor,
    target: Tensor,
    features: bool = False,
) -> Tensor | dict[str, Tensor]:
    """VMAF of the distorted videos ``preds`` against the reference videos ``target``, RGB
    ``(batch, 3, frames, height, width)`` in ``[0, 1]``: the score of each frame, ``(batch,
    frames)`` (0 to about 100, higher is better), or with ``features`` a dict of every elementary
    feature and ``"vmaf"``, each ``(batch, frames)`` (the columns of the vmaf tool's csv).

    Needs ``vmaf-torch`` (``pip install lightning_metrics[video]``); runs on the inputs' device.
    Differences: float64 videos are scored in float64 (torchmetrics fails on them); bad shapes
    raise naming the argument.

    >>> import torch
    >>> from lightning_metrics.functional.video import video_multi_method_assessment_fusion
    >>> preds = torch.rand(2, 3, 10, 32, 32, generator=torch.manual_seed(42))
    >>> target = torch.rand(2, 3, 10, 32, 32, generator=torch.manual_seed(43))
    >>> video_multi_method_assessment_fusion(preds, target)[:, :4].round(decimals=2)
    tensor([[ 9.9900, 15.9000, 14.2600, 16.6100],
            [ 6.2500, 11.3000, 17.3000, 11.4600]])
    >>> video_multi_method_assessment_fusion(preds, target, features=True)["integer_adm2"][:, :4].round(decimals=2)
    tensor([[0.4500, 0.4500, 0.3600, 0.4700],
            [0.4200, 0.3900, 0.4400, 0.3700]])
    """
    require_vmaf_torch()
    check_bool("features", features)
    check_videos(preds, target)
    return vmaf_values(preds, target, features)
