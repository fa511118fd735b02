"""Stateless image metrics (torchmetrics names and arguments), without downloaded models.

>>> import torch
>>> from lightning_metrics.functional.image import peak_signal_noise_ratio
>>> peak_signal_noise_ratio(torch.tensor([0.0, 0.5]), torch.tensor([0.0, 1.0]), data_range=1.0)
tensor(9.0309)

LPIPS, DISTS, ARNIQA and the perceptual path length run on the networks of
:mod:`lightning_metrics.networks` (written here, no torchvision) with the published weights, found
through :mod:`lightning_metrics.networks.weights`.
"""

from lightning_metrics import _compat
from lightning_metrics.functional.image.arniqa import arniqa
from lightning_metrics.functional.image.correlation import (
    spatial_correlation_coefficient,
    visual_information_fidelity,
)
from lightning_metrics.functional.image.gradients import image_gradients, total_variation
from lightning_metrics.functional.image.pansharpening import (
    quality_with_no_reference,
    spatial_distortion_index,
    spectral_distortion_index,
)
from lightning_metrics.functional.image.perceptual import (
    deep_image_structure_and_texture_similarity,
    learned_perceptual_image_patch_similarity,
)
from lightning_metrics.functional.image.perceptual_path_length import perceptual_path_length
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
    "arniqa",
    "deep_image_structure_and_texture_similarity",
    "error_relative_global_dimensionless_synthesis",
    "image_gradients",
    "learned_perceptual_image_patch_similarity",
    "multiscale_structural_similarity_index_measure",
    "peak_signal_noise_ratio",
    "peak_signal_noise_ratio_with_blocked_effect",
    "perceptual_path_length",
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

# torchmetrics' helpers of image.dists and image.perceptual_path_length (not in its __all__)
_HELPERS = {
    "L2pooling": "lightning_metrics.networks.dists",
    "GeneratorType": "lightning_metrics.functional.image.perceptual_path_length",
}
__getattr__ = _compat.module_getattr(__name__, own=_HELPERS)
