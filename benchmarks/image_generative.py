"""FID with the Inception-v3 network: ``update`` at 299 x 299 and ``compute`` at 2048 features,
lightning_metrics vs torchmetrics, side by side in one process, from one weight file.

torchmetrics runs the network through torch-fidelity, which needs torchvision; run this in the
oracle venv, with the package on the path::

    PYTHONPATH=. .venv-oracle/bin/python benchmarks/image_generative.py [--repeats 3] [--threads N]

(in an environment without torch-fidelity, as ``make bench`` runs it in .venv, it says so and skips).

The weights: our network's own random initialisation, saved to a temporary file in torch-fidelity's
key layout and given to both as ``feature_extractor_weights_path`` (speed does not depend on the
values). ``update``: one batch of 32 uint8 images, 299 x 299 (no resize), the median over
``--repeats`` interleaved timed calls after one untimed warm-up each. ``compute``: both metrics get the same
states (the sums of 4096 random 2048-wide real and fake features), the median of ``--repeats`` calls.
The values of both are compared before anything is printed.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import tempfile
import time
import warnings
from pathlib import Path

import torch
import torchmetrics.image as tmi

import lightning_metrics.image as lmi
from lightning_metrics.networks.inception import FeatureExtractorInceptionV3


def weight_file(folder: Path) -> str:
    torch.manual_seed(0)
    path = folder / "weights-inception-2015-12-05-random.pth"
    torch.save(FeatureExtractorInceptionV3(["2048"], pretrained=False).state_dict(), path)
    return str(path)


def interleaved_ms(calls: dict, repeats: int) -> dict:
    """Median ms per call of each of ``calls``, the candidates taking turns (the caller warms them up)."""
    times: dict = {name: [] for name in calls}
    for _ in range(repeats):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) * 1e3 for name, t in times.items()}


def fill(metric, states: dict) -> None:
    for name, value in states.items():
        setattr(metric, name, value.clone())


def main() -> None:
    if importlib.util.find_spec("torch_fidelity") is None:  # `make bench` runs every script in .venv
        print("skipped: torchmetrics' FID network needs torch-fidelity (and torchvision); run this in the oracle venv:\n"
              "    PYTHONPATH=. .venv-oracle/bin/python benchmarks/image_generative.py")
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--samples", type=int, default=4096, help="features behind the compute states")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    with tempfile.TemporaryDirectory() as scratch, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = weight_file(Path(scratch))
        metrics = {
            "torchmetrics": tmi.FrechetInceptionDistance(feature=2048, feature_extractor_weights_path=path),
            "ours": lmi.FrechetInceptionDistance(feature=2048, feature_extractor_weights_path=path),
        }
        imgs = torch.randint(0, 256, (args.batch, 3, 299, 299), generator=torch.Generator().manual_seed(0),
                             dtype=torch.uint8)
        for metric in metrics.values():  # the warm-up of update
            metric.update(imgs, real=True)
        sums = {name: m.real_features_sum.clone() for name, m in metrics.items()}
        torch.testing.assert_close(sums["ours"], sums["torchmetrics"], rtol=1e-5, atol=1e-6)
        print("update: warmed up, timing", flush=True)
        update = interleaved_ms({name: (lambda m=m: m.update(imgs, real=False)) for name, m in metrics.items()},
                                args.repeats)

        gen = torch.Generator().manual_seed(1)
        mixing = torch.randn(2048, 2048, generator=gen, dtype=torch.float64) / 2048**0.5
        states = {}
        for side, shift in (("real", 0.0), ("fake", 0.1)):
            feats = (torch.randn(args.samples, 2048, generator=gen, dtype=torch.float64) @ mixing).relu() + shift
            states[f"{side}_features_sum"] = feats.sum(dim=0)
            states[f"{side}_features_cov_sum"] = feats.T @ feats
            states[f"{side}_features_num_samples"] = torch.tensor(args.samples)
        values = {}
        for name, metric in metrics.items():  # the warm-up of compute
            fill(metric, states)
            values[name] = metric.compute()
        torch.testing.assert_close(values["ours"], values["torchmetrics"], rtol=1e-5, atol=0)

        def computing(metric):
            def call():
                metric._computed = None
                metric.compute()
            return call

        print("compute: warmed up, timing", flush=True)
        compute = interleaved_ms({name: computing(m) for name, m in metrics.items()}, args.repeats)

    header = f"{'FID, feature=2048':<42} | {'torchmetrics':>12} | {'ours':>10} | {'ours / tm':>9}"
    print(header)
    print("-" * len(header))
    for label, times in ((f"update, {args.batch}x3x299x299 uint8 (ms)", update),
                         (f"compute, {args.samples} samples per side (ms)", compute)):
        ratio = times["ours"] / times["torchmetrics"]
        print(f"{label:<42} | {times['torchmetrics']:>12.1f} | {times['ours']:>10.1f} | {ratio:>8.2f}x")
    print(f"values: torchmetrics {float(values['torchmetrics']):.6f}, ours {float(values['ours']):.6f}")


if __name__ == "__main__":
    main()
