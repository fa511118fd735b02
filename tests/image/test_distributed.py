"""Image and audio metrics across 2 gloo processes equal one process over all the data: every
class (mean- and sum-reduced, per-value ``"none"``, grown per-band sums, min/max ranges), as one
collection (one fused sync) and metric by metric, with uneven batches and with a rank that got
no batch at all. One distributed run covers both domains (each run costs two interpreters).

Counts and kept values are exact; float64 sums are added in another order across ranks than in
one process, so they agree to rounding (1e-12 relative), which is below every result's dtype.
"""

from __future__ import annotations

import pytest
import torch

from lightning_metrics import MetricCollection
from tests._distributed import run_distributed

pytestmark = [pytest.mark.timeout(240)]


def _image_metrics() -> dict:
    import lightning_metrics.image as lmi

    return {
        "psnr": lmi.PeakSignalNoiseRatio(data_range=1.0),
        "psnr_range": lmi.PeakSignalNoiseRatio(data_range=None),
        "psnr_dim": lmi.PeakSignalNoiseRatio(data_range=1.0, dim=(1, 2, 3), reduction="none"),
        "psnrb": lmi.PeakSignalNoiseRatioWithBlockedEffect(data_range=1.0),
        "ssim": lmi.StructuralSimilarityIndexMeasure(data_range=1.0),
        "ssim_none": lmi.StructuralSimilarityIndexMeasure(reduction="none", return_contrast_sensitivity=True),
        "ms_ssim": lmi.MultiScaleStructuralSimilarityIndexMeasure(data_range=1.0, betas=(0.5, 0.5)),
        "uqi": lmi.UniversalImageQualityIndex(kernel_size=(5, 5), sigma=(1.0, 1.0)),
        "ergas": lmi.ErrorRelativeGlobalDimensionlessSynthesis(),
        "sam": lmi.SpectralAngleMapper(),
        "rase": lmi.RelativeAverageSpectralError(window_size=4),
        "rmse_sw": lmi.RootMeanSquaredErrorUsingSlidingWindow(window_size=4),
        "scc": lmi.SpatialCorrelationCoefficient(window_size=4),
        "d_lambda": lmi.SpectralDistortionIndex(),
        "tv": lmi.TotalVariation(reduction="mean"),
    }


def _audio_metrics() -> dict:
    import lightning_metrics.audio as lma
    import lightning_metrics.functional.audio as lmf

    return {
        "snr": lma.SignalNoiseRatio(),
        "si_snr": lma.ScaleInvariantSignalNoiseRatio(),
        "si_sdr": lma.ScaleInvariantSignalDistortionRatio(zero_mean=True),
        "sdr": lma.SignalDistortionRatio(filter_length=16),
        "sa_sdr": lma.SourceAggregatedSignalDistortionRatio(),
        "pit": lma.PermutationInvariantTraining(lmf.scale_invariant_signal_distortion_ratio),
    }


def _pan_metrics() -> dict:
    import lightning_metrics.image as lmi

    return {"d_s": lmi.SpatialDistortionIndex(), "qnr": lmi.QualityWithNoReference(reduction="none")}


def _batches(seed: int) -> dict[str, list[tuple]]:
    gen = torch.Generator().manual_seed(seed)
    images, audio, pan = [], [], []
    for n in (3, 1, 2, 4):  # uneven
        target = torch.rand(n, 3, 16, 18, generator=gen, dtype=torch.float64)
        images.append(((0.8 * target + 0.2 * torch.rand(target.shape, generator=gen, dtype=torch.float64))[:, :1]
                       .expand(-1, 3, -1, -1).contiguous(), target))
        clean = torch.randn(n, 2, 120, generator=gen, dtype=torch.float64)
        audio.append((clean.flip(1) + 0.3 * torch.randn(clean.shape, generator=gen, dtype=torch.float64), clean))
        fused = torch.rand(n, 2, 24, 24, generator=gen, dtype=torch.float64)
        pan_image = torch.rand(n, 2, 24, 24, generator=gen, dtype=torch.float64)
        pan.append((fused, {"ms": fused[..., ::2, ::2] * 0.9, "pan": pan_image, "pan_lr": pan_image[..., ::2, ::2]}))
    return {"image": images, "audio": audio, "pan": pan}


_FACTORIES = {"image": _image_metrics, "audio": _audio_metrics, "pan": _pan_metrics}


def _shard(batches: list, rank: int, world: int, idle_rank: bool) -> list:
    if idle_rank:
        return batches if rank == 0 else []
    return batches[rank::world]


def _run(domain: str, batches: list, as_collection: bool) -> dict:
    metrics = _FACTORIES[domain]()
    # PSNR-B takes grayscale images, TV one image argument: fed apart
    apart = {name: metrics.pop(name) for name in ("psnrb", "tv") if name in metrics}
    out = {}
    if as_collection:
        collection = MetricCollection(metrics)
        for batch in batches:
            collection.update(*batch)
        out.update(collection.compute())
    else:
        for name, metric in metrics.items():
            for batch in batches:
                metric.update(*batch)
            out[name] = metric.compute()
    for name, metric in apart.items():
        for preds, target in batches:
            metric.update(preds[:, :1], target[:, :1]) if name == "psnrb" else metric.update(preds)
        out[name] = metric.compute()
    return out


CONFIGS = [(idle, collection) for idle in (False, True) for collection in (True, False)]


def _worker(rank: int, world: int) -> dict:
    torch.set_num_threads(1)
    data = _batches(0)
    return {(domain, idle, collection): _run(domain, _shard(batches, rank, world, idle), collection)
            for domain, batches in data.items() for idle, collection in CONFIGS}


def _close(a, b) -> bool:
    if isinstance(a, tuple):
        return all(_close(x, y) for x, y in zip(a, b))
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    return bool(torch.allclose(a.double(), b.double(), rtol=1e-12, atol=1e-12, equal_nan=True))


def test_two_processes_equal_one_process():
    """Round-robin shards (rank 0's batches then rank 1's, as the gathered values come back) and a
    rank without any batch; as a collection (one fused sync) and metric by metric."""
    results = run_distributed(_worker, world_size=2, timeout=200)
    data = _batches(0)
    for domain, batches in data.items():
        for idle, collection in CONFIGS:
            order = batches if idle else batches[0::2] + batches[1::2]
            expected = _run(domain, order, collection)
            for rank_result in results:
                got = rank_result[(domain, idle, collection)]
                assert set(got) == set(expected)
                for name, value in expected.items():
                    assert _close(got[name], value), (domain, idle, collection, name, got[name], value)
