"""Update time and state size of SSIM, MS-SSIM, PSNR and SI-SDR, lightning_metrics vs torchmetrics,
side by side in one process.

Inputs (the issue's): 16x3x256x256 float32 image batches (SSIM, MS-SSIM, PSNR; ``data_range=1.0``)
and 16x2x16000 float32 signals (SI-SDR). Time: the median wall time of one ``update`` after
warm-up. State: the bytes of every state after 1 and after 100 updates (torchmetrics' SSIM family
keeps a running sum too; its ``reduction="none"``, ERGAS, RASE, D-lambda, D-s, QNR and VIF keep
every value or image, shown by ERGAS; ours keep sums except for ``"none"``). SSIM and MS-SSIM
reach their 100 updates by ``merge_state`` of an updated copy (the same states an update adds,
without 100 slow updates). The values of both are compared before anything is printed.

Run: ``python benchmarks/image_audio.py [--repeats 7] [--threads N] [--updates 100]``
"""

from __future__ import annotations

import argparse
import warnings
from typing import Any, Callable

import torch
import torchmetrics.audio as tma
import torchmetrics.image as tmi
from _common import per_call_ms

import lightning_metrics.audio as lma
import lightning_metrics.image as lmi


def state_bytes(metric: Any) -> int:
    total = 0
    for name in metric._defaults:
        value = getattr(metric, name)
        for tensor in value if isinstance(value, list) else [value]:
            total += tensor.numel() * tensor.element_size()
    return total


def cases() -> list[tuple[str, Callable[[Any], Any], tuple]]:
    gen = torch.Generator().manual_seed(0)
    target = torch.rand(16, 3, 256, 256, generator=gen)
    preds = (0.8 * target + 0.2 * torch.rand(target.shape, generator=gen)).clamp(0, 1)
    small = torch.rand(4, 3, 64, 64, generator=gen)
    clean = torch.randn(16, 2, 16000, generator=gen)
    noisy = clean + 0.3 * torch.randn(clean.shape, generator=gen)
    return [
        ("SSIM", lambda lib: lib.StructuralSimilarityIndexMeasure(data_range=1.0), (preds, target)),
        ("MS-SSIM", lambda lib: lib.MultiScaleStructuralSimilarityIndexMeasure(data_range=1.0), (preds, target)),
        ("PSNR", lambda lib: lib.PeakSignalNoiseRatio(data_range=1.0), (preds, target)),
        ("SI-SDR", lambda lib: lib.ScaleInvariantSignalDistortionRatio(), (noisy, clean)),
        # torchmetrics keeps every image of ERGAS (4x3x64x64 here, to keep its 100 batches in memory)
        ("ERGAS", lambda lib: lib.ErrorRelativeGlobalDimensionlessSynthesis(), (small * 0.9 + 0.05, small + 0.05)),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--updates", type=int, default=100, help="updates before the state is measured")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; state after 1 and {args.updates} updates")
    header = (f"{'metric':<8} {'lib':<13} | {'ms/update':>9} {'speed-up':>8} | "
              f"{'state B (1)':>11} {f'state B ({args.updates})':>13}")
    print(header)
    print("-" * len(header))
    for name, build, batch in cases():
        rows = []
        for label, image_lib, audio_lib in (("torchmetrics", tmi, tma), ("ours", lmi, lma)):
            lib = audio_lib if name == "SI-SDR" else image_lib
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                metric = build(lib)
                ms = per_call_ms(lambda: metric.update(*batch), args.repeats)
                metric.reset()
                metric.update(*batch)
                first = state_bytes(metric)
                for _ in range(args.updates - 1):
                    if name in ("SSIM", "MS-SSIM"):
                        metric.merge_state(_one(build, lib, batch))
                    else:
                        metric.update(*batch)
                rows.append((label, ms, first, state_bytes(metric), metric.compute()))
        (_, base, *_), reference = rows[0], rows[0][4]
        for label, ms, first, last, value in rows:
            assert torch.allclose(value.double(), reference.double(), rtol=1e-4, atol=1e-5), (name, label)
            print(f"{name:<8} {label:<13} | {ms:>9.1f} {base / ms:>7.2f}x | {first:>11} {last:>13}")


_CACHE: dict = {}


def _one(build: Callable[[Any], Any], lib: Any, batch: tuple) -> Any:
    """One updated metric, reused as the incoming state (the state after N updates without N
    slow SSIM updates: merge_state adds the same states an update would)."""
    key = (id(build), lib.__name__)
    if key not in _CACHE:
        metric = build(lib)
        metric.update(*batch)
        _CACHE[key] = metric
    return _CACHE[key]


if __name__ == "__main__":
    main()
