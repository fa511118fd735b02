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

FID, KID, the Inception score and MiFID take torchmetrics' Inception-v3 (``feature=2048``, its
weights downloaded once) or any ``nn.Module`` feature extractor (:mod:`.generative`). The other
metrics that need network weights (LPIPS, DISTS, ARNIQA, perceptual path length) are not offered:
importing one says so; the torchmetrics object can be passed to ``MetricsCallback`` as it is.

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
"""

from lightning_metrics import _compat
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
    "ErrorRelativeGlobalDimensionlessSynthesis",
    "FrechetInceptionDistance",
    "InceptionScore",
    "KernelInceptionDistance",
    "MemorizationInformedFrechetInceptionDistance",
    "MultiScaleStructuralSimilarityIndexMeasure",
    "PeakSignalNoiseRatio",
    "PeakSignalNoiseRatioWithBlockedEffect",
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
