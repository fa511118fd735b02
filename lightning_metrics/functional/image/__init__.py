"""Stateless image metrics (torchmetrics names and arguments), without downloaded models.

>>> import torch
>>> from lightning_metrics.functional.image import peak_signal_noise_ratio
>>> peak_signal_noise_ratio(torch.tensor([0.0, 0.5]), torch.tensor([0.0, 1.0]), data_range=1.0)
tensor(9.0309)

The metrics that need network weights (FID, KID, IS, LPIPS, DISTS, ARNIQA, perceptual path
length, ...) are not offered: importing one says so.
"""

from lightning_metrics import _compat
from lightning_metrics.functional.image.correlation import spatial_correlation_coefficient, visual_information_fidelity
from lightning_metrics.functional.image.gradients import image_gradients, total_variation
from lightning_metrics.functional.image.pansharpening import (
    quality_with_no_reference,
    spatial_distortion_index,
    spectral_distortion_index,
)
from lightning_metrics.functional.image.psnr import (
    peak_signal_noise_ratio,
    peak_signal_noise_ratio_with_blocked_effect,
)
from lightning_metrics.functional.image.sliding_window import (
    relative_average_spectral_error,
    root_mean_squared_error_using_sliding_window,
)
from lightning_metrics.functional.image.spectral import (
    error_relative_global_dimensionless_synthesis,
    spectral_angle_mapper,
)
from lightning_metrics.functional.image.structural import (
    multiscale_structural_similarity_index_measure,
    structural_similarity_index_measure,
    universal_image_quality_index,
)

__all__ = [
    "error_relative_global_dimensionless_synthesis",
    "image_gradients",
    "multiscale_structural_similarity_index_measure",
    "peak_signal_noise_ratio",
    "peak_signal_noise_ratio_with_blocked_effect",
    "quality_with_no_reference",
    "relative_average_spectral_error",
    "root_mean_squared_error_using_sliding_window",
    "spatial_correlation_coefficient",
    "spatial_distortion_index",
    "spectral_angle_mapper",
    "spectral_distortion_index",
    "structural_similarity_index_measure",
    "total_variation",
    "universal_image_quality_index",
    "visual_information_fidelity",
]

__getattr__ = _compat.module_getattr(__name__)
