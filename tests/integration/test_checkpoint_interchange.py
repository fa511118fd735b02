"""A LightningModule checkpoint written with torchmetrics metrics loads with ``strict=True`` into the
same module with our metrics, and the other way round: by default no metric state is in a
``state_dict`` (torchmetrics' rule), wrappers included. Every public class of the registry rides in
one module, so a new class is covered as soon as it has a registry entry (those torchmetrics cannot
build on this machine, for a package it lacks here such as ``torch_linear_assignment`` or
``torchvision``, ride on our side only through the other tests).
"""

from __future__ import annotations

import importlib
from pathlib import Path

import lightning.pytorch as L
import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from tests.reliability._registry import ENTRIES, batches

pytestmark = pytest.mark.timeout(300)


def _torchmetrics_builds(entry) -> bool:
    import torchmetrics

    try:
        entry.build(torchmetrics)
    except (ImportError, AttributeError, RuntimeError):
        return False  # a package torchmetrics needs for it is not installed here
    except (TypeError, ValueError):
        return False  # an argument of ours that torchmetrics lacks (an extension)
    return True


SHARED = {key: entry for key, entry in ENTRIES.items() if _torchmetrics_builds(entry)}


class Model(L.LightningModule):
    def __init__(self, library: str = "lightning_metrics") -> None:
        super().__init__()
        self.save_hyperparameters()
        lib = importlib.import_module(library)
        self.layer = nn.Linear(2, 1)
        self.metrics = nn.ModuleDict({key.replace(".", "_").replace("[", "_").replace("]", "").replace("=", "_")
                                      .replace("-", "m"): entry.build(lib) for key, entry in SHARED.items()})

    def training_step(self, batch, batch_idx):
        for (key, entry), metric in zip(SHARED.items(), self.metrics.values()):
            for args in batches(entry.kind, (6,), seed=1):
                metric.update(*args)
        return self.layer(batch[0]).sum()

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


def _checkpoint(tmp_path: Path, library: str) -> Path:
    trainer = L.Trainer(accelerator="cpu", max_steps=1, logger=False, enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False, default_root_dir=tmp_path)
    trainer.fit(Model(library), DataLoader(TensorDataset(torch.randn(4, 2)), batch_size=4))
    path = tmp_path / f"{library}.ckpt"
    trainer.save_checkpoint(path)
    return path


@pytest.mark.parametrize(("written", "read"), [("torchmetrics", "lightning_metrics"), ("lightning_metrics", "torchmetrics")])
def test_module_checkpoints_interchange_with_torchmetrics(tmp_path: Path, written: str, read: str) -> None:
    path = _checkpoint(tmp_path, written)
    state = torch.load(path, weights_only=False)["state_dict"]
    assert sorted(state) == ["layer.bias", "layer.weight"], sorted(state)  # no metric state by default
    model = Model.load_from_checkpoint(path, library=read, strict=True)
    assert all(type(m).__module__.startswith(read) for m in model.metrics.values())
    assert len(SHARED) > 0.8 * len(ENTRIES), sorted(set(ENTRIES) - set(SHARED))
