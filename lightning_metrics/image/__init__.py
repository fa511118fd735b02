"""Modular image metrics (torchmetrics names and arguments), without downloaded models.

Where the result is a mean or a sum over images (PSNR, SSIM, MS-SSIM, UQI, ERGAS, SAM, VIF, ...)
the state is a few sums whose size does not grow with the number of batches; per-image values are
kept only when asked for (``reduction="none"``, ``return_full_image``). A batch with a NaN or
infinite pixel raises, naming the argument and the value, and leaves the state as it was; the
keyword argument ``validate_args=False`` (ours: torchmetrics' classes have none) skips that check
and its host read.

>>> import torch
>>> from lightning_metrics.image import PeakSignalNoiseRatio
>>> psnr = PeakSignalNoiseRatio(data_range=1.0)
>>> psnr.update(torch.tensor([0.0, 0.5]), torch.tensor([0.0, 1.0]))
>>> psnr.compute()
tensor(9.0309)

FID, KID, the Inception score and MiFID take torchmetrics' Inception-v3 (``feature=2048``: the FID
Inception of :mod:`lightning_metrics.networks.inception`, written here, with torch-fidelity's weight
file from ``feature_extractor_weights_path``, ``LIGHTNING_METRICS_WEIGHTS``, torch.hub's cache or one
download) or any ``nn.Module`` feature extractor (:mod:`.generative`). LPIPS
(``net_type`` alex / vgg / squeeze), DISTS and the perceptual path length (:mod:`.perceptual`) run on
the AlexNet, VGG16 and SqueezeNet trunks, LPIPS heads and DISTS network of
:mod:`lightning_metrics.networks` (written here, no torchvision), with torchvision's, LPIPS' and
DISTS' published weight files (torch.hub's cache, the folder named by ``LIGHTNING_METRICS_WEIGHTS``,
or a download); the keyword argument ``net`` (ours) passes a network instead. ARNIQA
(:mod:`.arniqa`) runs a ResNet-50 written here and the release's regressor (``regressor_dataset``
koniq10k / kadid10k), its weight files found the same way; the keyword argument ``model`` (ours)
passes a network instead.

Notes and differences from torchmetrics (image)
-----------------------------------------------

Every metric whose value is a mean or a sum over images keeps a few float64 sums and a count,
whatever the number of batches; per-image values are kept only when asked for (``reduction="none"``,
``return_full_image``, ``return_contrast_sensitivity``). torchmetrics keeps every image or value for
ERGAS, RASE, RMSE-SW, SAM, SCC, VIF, D-lambda, D-s, QNR and PSNR with ``dim`` (its memory grows with
the epoch; ours does not, with the same values). Gaussian and uniform windows (2-D and 3-D) are
separable convolutions built once on the metric's device and dtype. ``data_range=None`` reads the
range of the data seen from min/max states that merge exactly across batches and ranks. SSIM pads
the borders before filtering, as torchmetrics does, so it differs from scikit-image's
``structural_similarity`` by a few 1e-4 on the mean (the tests match torchmetrics and check
scikit-image within that). Integer images are read as float32. FID keeps float64 sums (a feature
sum, a sum of outer products, a count per distribution) and takes the Fréchet distance through a
symmetric eigendecomposition in float64 (torchmetrics: eigenvalues of the non-symmetric product);
KID, IS and MiFID keep the features and draw their random subsets and shuffles as torchmetrics does.
ARNIQA keeps a float64 sum and a count (``reduction="none"`` of the class returns the sum, as
torchmetrics'); its half-scale image is torchvision's antialiased bilinear ``Resize``, done by
``interpolate``; its regressor's TorchScript file is read without running TorchScript; values equal
torchmetrics' on the same weight files to 1e-5.
"""

from lightning_metrics import _compat
from lightning_metrics.image.arniqa import ARNIQA
from lightning_metrics.image.correlation import (
    SpatialCorrelationCoefficient,
    TotalVariation,
    VisualInformationFidelity,
)
from lightning_metrics.image.generative import (
    FrechetInceptionDistance,
    InceptionScore,
    KernelInceptionDistance,
    MemorizationInformedFrechetInceptionDistance,
)
from lightning_metrics.image.pansharpening import (
    QualityWithNoReference,
    SpatialDistortionIndex,
    SpectralDistortionIndex,
)
from lightning_metrics.image.perceptual import (
    DeepImageStructureAndTextureSimilarity,
    LearnedPerceptualImagePatchSimilarity,
    PerceptualPathLength,
)
from lightning_metrics.image.psnr import PeakSignalNoiseRatio, PeakSignalNoiseRatioWithBlockedEffect
from lightning_metrics.image.spectral import (
    ErrorRelativeGlobalDimensionlessSynthesis,
    RelativeAverageSpectralError,
    RootMeanSquaredErrorUsingSlidingWindow,
    SpectralAngleMapper,
)
from lightning_metrics.image.structural import (
    MultiScaleStructuralSimilarityIndexMeasure,
    StructuralSimilarityIndexMeasure,
    UniversalImageQualityIndex,
)

__all__ = [
    "ARNIQA",
    "DeepImageStructureAndTextureSimilarity",
    "ErrorRelativeGlobalDimensionlessSynthesis",
    "FrechetInceptionDistance",
    "InceptionScore",
    "KernelInceptionDistance",
    "LearnedPerceptualImagePatchSimilarity",
    "MemorizationInformedFrechetInceptionDistance",
    "MultiScaleStructuralSimilarityIndexMeasure",
    "PeakSignalNoiseRatio",
    "PeakSignalNoiseRatioWithBlockedEffect",
    "PerceptualPathLength",
    "QualityWithNoReference",
    "RelativeAverageSpectralError",
    "RootMeanSquaredErrorUsingSlidingWindow",
    "SpatialCorrelationCoefficient",
    "SpatialDistortionIndex",
    "SpectralAngleMapper",
    "SpectralDistortionIndex",
    "StructuralSimilarityIndexMeasure",
    "TotalVariation",
    "UniversalImageQualityIndex",
    "VisualInformationFidelity",
]

# torchmetrics' helpers of image.fid and image.kid (not in its __all__), served from the generative math
_GENERATIVE = "lightning_metrics.functional.image._generative"
_HELPERS = ("NoTrainInceptionV3", "maximum_mean_discrepancy", "poly_kernel", "poly_mmd")
__getattr__ = _compat.module_getattr(__name__, own=dict.fromkeys(_HELPERS, _GENERATIVE))
