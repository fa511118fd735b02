"""Both Lightning packages, pip-installed and from a checkout on ``sys.path``: ``self.log(name,
metric)``, ``self.log_dict(collection)``, the callback and the mixin, with values equal to torchmetrics'.

Each mode runs in one subprocess that fits with ``lightning.pytorch`` and with the standalone
``pytorch_lightning`` in turn (real Trainers, no mocks).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.integration.integration_helpers import ROOT

pytest.importorskip("pytorch_lightning")
pytestmark = pytest.mark.timeout(600)

SCRIPT = textwrap.dedent(
    '''
    import importlib, importlib.metadata, sys, warnings
    if "--no-install" in sys.argv:  # as if never pip-installed: only sys.path can find the package
        sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
    warnings.filterwarnings("ignore")
    import torch, torchmetrics
    import lightning_metrics as lm
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset

    assert not any(m in sys.modules for m in ("lightning", "pytorch_lightning")), "imported a Lightning package"
    print("package:", lm.__file__)

    def data(n, seed):
        g = torch.Generator().manual_seed(seed)
        x = torch.randn(n, 6, generator=g)
        return DataLoader(TensorDataset(x, (x[:, 0] > 0).long() + (x[:, 1] > 0).long()), batch_size=16)

    def fit(pl, model, **kwargs):
        trainer = pl.Trainer(accelerator="cpu", max_epochs=1, logger=False, enable_checkpointing=False,
                             enable_progress_bar=False, enable_model_summary=False, **kwargs)
        trainer.fit(model, data(96, 0), data(50, 1))
        return {k: float(v) for k, v in trainer.callback_metrics.items()}

    def metrics_of(library):
        return library.MetricCollection({"acc": library.classification.MulticlassAccuracy(3),
                                         "f1": library.classification.MulticlassF1Score(3)})

    def idiom(pl, library):
        class Model(pl.LightningModule):
            def __init__(self):
                super().__init__()
                torch.manual_seed(0)
                self.net = nn.Linear(6, 3)
                self.acc = library.classification.MulticlassAccuracy(3)
                self.collection = metrics_of(library)
            def training_step(self, batch, i):
                x, y = batch
                logits = self.net(x)
                self.acc(logits, y)
                self.log("train_acc", self.acc, on_step=False, on_epoch=True)
                return nn.functional.cross_entropy(logits, y)
            def validation_step(self, batch, i):
                x, y = batch
                self.collection.update(self.net(x), y)
                self.log_dict(self.collection)
            def configure_optimizers(self):
                return torch.optim.SGD(self.parameters(), lr=0.1)
        return Model()

    def reference(model):  # torchmetrics on the last validation pass (the final weights)
        metric = metrics_of(torchmetrics)
        with torch.no_grad():
            for x, y in data(50, 1):
                metric.update(model.net(x), y)
        return {k: float(v) for k, v in metric.compute().items()}

    def plain(pl, mixin=False):
        bases = (lm.MetricsMixin, pl.LightningModule) if mixin else (pl.LightningModule,)
        class Model(*bases):
            def __init__(self):
                super().__init__()
                torch.manual_seed(0)
                self.net = nn.Linear(6, 3)
            def configure_metrics(self):
                return metrics_of(lm)
            def training_step(self, batch, i):
                x, y = batch
                logits = self.net(x)
                return {"loss": nn.functional.cross_entropy(logits, y), "preds": logits, "target": y}
            def validation_step(self, batch, i):
                x, y = batch
                return {"preds": self.net(x), "target": y}
            def configure_optimizers(self):
                return torch.optim.SGD(self.parameters(), lr=0.1)
        return Model()

    for name in ("lightning.pytorch", "pytorch_lightning"):
        pl = importlib.import_module(name)
        ours, theirs = fit(pl, idiom(pl, lm)), fit(pl, idiom(pl, torchmetrics))
        assert ours.keys() == theirs.keys() == {"train_acc", "acc", "f1"}, (ours, theirs)
        assert all(abs(ours[k] - theirs[k]) < 1e-6 for k in ours), (name, ours, theirs)
        for door in ("callback", "mixin"):
            model = plain(pl, mixin=door == "mixin")
            logged = fit(pl, model, callbacks=[lm.MetricsCallback(metrics_of(lm))] if door == "callback" else [])
            expected = reference(model)
            assert all(abs(logged[f"val/{k}"] - v) < 1e-6 for k, v in expected.items()), (name, door, logged, expected)
        print(name, "ok")
    '''
)


def _run(tmp_path: Path, *, installed: bool) -> str:
    script = tmp_path / "fit_both_packages.py"
    script.write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    args = [sys.executable, str(script)]
    if not installed:  # a copy of the checkout, found through sys.path alone
        checkout = tmp_path / "checkout"
        shutil.copytree(ROOT / "lightning_metrics", checkout / "lightning_metrics",
                        ignore=shutil.ignore_patterns("__pycache__"))
        env["PYTHONPATH"] = str(checkout)
        args.append("--no-install")
    out = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=540)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-6000:]
    return out.stdout


@pytest.mark.parametrize("installed", [True, False], ids=["pip-installed", "checkout-on-sys-path"])
def test_both_lightning_packages_log_our_metrics_like_torchmetrics(tmp_path: Path, installed: bool) -> None:
    stdout = _run(tmp_path, installed=installed)
    assert "lightning.pytorch ok" in stdout and "pytorch_lightning ok" in stdout, stdout
    where = stdout.splitlines()[0]
    assert (str(tmp_path / "checkout") in where) != installed, where
