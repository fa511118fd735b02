"""A GAN-style generator validated with FID and KID through ``MetricsCallback``, logged every epoch.

    python examples/gan_fid.py                   # the FID Inception-v3 (feature=2048), weights downloaded once
    python examples/gan_fid.py --small           # a small random feature network: nothing downloaded
    python examples/gan_fid.py --small --devices 2   # 2 CPU processes (ddp_spawn, gloo)

The Inception weights (torch-fidelity's ``weights-inception-2015-12-05-6726825d.pth``) come from the
folder named by ``LIGHTNING_METRICS_WEIGHTS`` (an offline copy), torch.hub's cache (a machine that
ran torchmetrics has it) or one download. ``LM_EXAMPLE_FAST=1`` (the tests) means ``--small`` and a
tinier run.

Each validation sample is a real image and a latent vector; the step returns both the real images
and the generator's images of the latents. torchmetrics' FID and KID take one side per call,
``update(imgs, real=True/False)``, and a step's output is one call, so :class:`RealAndFake` (a
wrapper of a few lines) takes both keys of the output, ``update(real_imgs, fake_imgs)``, and passes
each side on. The callback drops the ``DistributedSampler``'s padding from both inputs: the logged
values on 2 processes are the metrics over every image exactly once. The run ends by computing both
metrics directly over the whole validation set with the final weights and printing them next to the
logged ones.

KID draws random subsets of ``subset_size`` images; here a subset is the whole validation set (each
draw is then the same set, in another order), so the value does not depend on the order in which
the processes' features are gathered. With more images, use torchmetrics' ``subset_size=1000``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import lightning.pytorch as L
import torch
from lightning.pytorch.loggers import CSVLogger
from torch import nn
from torch.utils.data import DataLoader, Dataset

import lightning_metrics as lm
from lightning_metrics.image import FrechetInceptionDistance, KernelInceptionDistance
from lightning_metrics.wrappers import WrapperMetric

LATENT = 8
SIZE = 32  # CIFAR-sized images; the Inception network resizes them to 299 x 299


class RealAndFake(WrapperMetric):
    """Feeds a metric of ``update(imgs, real)`` (FID, KID, MiFID) a step's real and generated images
    in one call: ``update(real_imgs, fake_imgs)``.

    >>> import torch
    >>> from torch import nn
    >>> net = nn.Sequential(nn.Flatten(), nn.Linear(12, 3))
    >>> fid = RealAndFake(FrechetInceptionDistance(feature=net, normalize=True, input_img_size=(3, 2, 2)))
    >>> fid.update(torch.rand(8, 3, 2, 2), torch.rand(8, 3, 2, 2))
    >>> int(fid.metric.real_features_num_samples), int(fid.metric.fake_features_num_samples)
    (8, 8)
    """

    def __init__(self, metric: lm.Metric) -> None:
        super().__init__()
        self.metric = metric
        self.result_names = getattr(metric, "result_names", None)  # KID's (mean, std)

    def update(self, real_imgs: torch.Tensor, fake_imgs: torch.Tensor) -> None:
        self.metric.update(real_imgs, real=True)
        self.metric.update(fake_imgs, real=False)

    def compute(self) -> Any:
        return self.metric.compute()

    def reset(self) -> None:
        super().reset()
        self.metric.reset()


class RealImages(Dataset):
    """``n`` seeded real images (smooth colour blobs in [0, 1]) with one latent vector each."""

    def __init__(self, n: int, seed: int = 0) -> None:
        gen = torch.Generator().manual_seed(seed)
        coarse = torch.rand(n, 3, 4, 4, generator=gen)
        self.images = nn.functional.interpolate(coarse, size=(SIZE, SIZE), mode="bilinear", align_corners=False)
        self.latents = torch.randn(n, LATENT, generator=gen)

    def __len__(self) -> int:
        return len(self.images)

    def __getitem__(self, i: int) -> tuple[torch.Tensor, torch.Tensor]:
        return self.images[i], self.latents[i]


class Generator(L.LightningModule):
    """A tiny generator trained to match the real images' per-pixel mean and spread (a stand-in for the
    adversarial loss; the metrics do not care how it was trained)."""

    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(LATENT, 64), nn.ReLU(), nn.Linear(64, 3 * SIZE * SIZE), nn.Sigmoid())

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return self.net(z).view(-1, 3, SIZE, SIZE)

    def training_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
        real, z = batch
        fake = self(z)
        loss = (fake.mean(0) - real.mean(0)).square().mean() + (fake.std(0) - real.std(0)).square().mean()
        self.log("train/loss", loss)
        return loss

    def validation_step(self, batch: Any, batch_idx: int) -> dict[str, torch.Tensor]:
        real, z = batch
        return {"real": real, "fake": self(z)}

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.Adam(self.parameters(), lr=1e-2)


def small_features() -> nn.Module:
    """A small frozen random feature network (16 features) for runs without the Inception weights."""
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
    return net.requires_grad_(False).eval()


def metrics(small: bool, val_size: int) -> dict[str, lm.Metric]:
    """FID and KID, fed ``(real, fake)`` from the step's output."""
    if small:
        fid = FrechetInceptionDistance(feature=small_features(), normalize=True)
        kid = KernelInceptionDistance(feature=small_features(), subset_size=val_size, subsets=3, normalize=True)
    else:
        fid = FrechetInceptionDistance(feature=2048, normalize=True)
        kid = KernelInceptionDistance(feature=2048, subset_size=val_size, subsets=3, normalize=True)
    return {"fid": RealAndFake(fid), "kid": RealAndFake(kid)}


def direct(model: Generator, data: Dataset, small: bool) -> dict[str, float]:
    """FID and KID computed directly over every validation image, in this process."""
    values = {}
    real = torch.stack([data[i][0] for i in range(len(data))])
    with torch.no_grad():
        fake = model(torch.stack([data[i][1] for i in range(len(data))]))
    for name, metric in metrics(small, len(data)).items():
        metric.update(real, fake)
        result = metric.compute()
        values.update({"fid": float(result)} if name == "fid" else {"kid_mean": float(result[0])})
    return values


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="a small random feature network instead of Inception")
    parser.add_argument("--devices", type=int, default=1, help="CPU processes (2: ddp_spawn with gloo)")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--val-size", type=int, default=37, help="odd: 2 processes need a padded sample")
    parser.add_argument("--logdir", default="lightning_logs")
    args = parser.parse_args(argv)
    fast = os.environ.get("LM_EXAMPLE_FAST") == "1"
    small = args.small or fast
    epochs = 2 if fast else args.epochs

    L.seed_everything(0, verbose=False)
    train, val = RealImages(64, seed=1), RealImages(args.val_size, seed=2)
    model = Generator()
    logger = CSVLogger(args.logdir, name="gan_fid", version=f"{args.devices}_process")
    trainer = L.Trainer(
        max_epochs=epochs,
        accelerator="cpu",
        devices=args.devices,
        strategy="ddp_spawn" if args.devices > 1 else "auto",
        callbacks=[
            lm.MetricsCallback(
                metrics(small, len(val)), stages=("val",), inputs=("real", "fake")
            )
        ],
        logger=logger,
        log_every_n_steps=1,
        enable_progress_bar=False,
        enable_model_summary=False,
        enable_checkpointing=False,
    )
    trainer.fit(model, DataLoader(train, batch_size=16, shuffle=True), DataLoader(val, batch_size=8))
    logged = {key: float(value) for key, value in trainer.callback_metrics.items() if key.startswith("val/")}
    reference = direct(model, val, small)

    csv = Path(logger.log_dir) / "metrics.csv"
    print(f"\nFID and KID per epoch ({'small features' if small else 'Inception-v3, 2048 features'}, "
          f"{args.devices} process(es), {len(val)} validation images), from {csv}:")
    if csv.is_file():
        import csv as csv_module

        with open(csv) as handle:
            for row in csv_module.DictReader(handle):
                if row.get("val/fid"):
                    print(f"  epoch {row['epoch']}: val/fid {float(row['val/fid']):.6f}  "
                          f"val/kid {float(row['val/kid']):.6f}")
    # KID's mean is logged as val/kid, its standard deviation as val/kid/std
    print(f"\n{'':<28}{'fid':>16}{'kid mean':>16}")
    print(f"{'logged (last epoch)':<28}{logged['val/fid']:>16.9e}{logged['val/kid']:>16.9e}")
    print(f"{'direct, every image once':<28}{reference['fid']:>16.9e}{reference['kid_mean']:>16.9e}")
    return {"logged": logged, "direct": reference}


if __name__ == "__main__":
    main(sys.argv[1:])
