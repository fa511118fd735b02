"""A recommender trained with Lightning logs retrieval metrics; the PR curve reaches TensorBoard.

Its steps return ``preds``, binary ``target``, ``graded`` relevance and ``indexes`` (the user of
each scored item); the callback's ``inputs`` names the keys each metric's ``update`` reads (NDCG
the graded relevance). A second run packs the user id into a column of ``preds`` behind a
test-local adapter, the way users had to before the engine read other keys. Both check logging
under ``val/...``, values equal to the metrics fed directly, and the curve drawn in TensorBoard.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import lightning.pytorch as L
import pytest
import torch
from lightning.pytorch.loggers import TensorBoardLogger
from tensorboard.backend.event_processing import event_accumulator as ea
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import lightning_metrics as lm
import lightning_metrics.retrieval as lmr
from tests._lightning import quiet_trainer

pytestmark = [pytest.mark.timeout(240), pytest.mark.filterwarnings("ignore")]

USERS, ITEMS, CANDIDATES = 24, 30, 8


def _interactions(seed: int) -> TensorDataset:
    """Each user scores 8 candidate items, about a third of them relevant (graded 1..3)."""
    g = torch.Generator().manual_seed(seed)
    users = torch.arange(USERS).repeat_interleave(CANDIDATES)
    items = torch.randint(0, ITEMS, (USERS * CANDIDATES,), generator=g)
    relevance = torch.randint(1, 4, items.shape, generator=g) * (torch.rand(items.shape, generator=g) < 0.35)
    return TensorDataset(users * 1_000_003, users, items, relevance)  # sparse user ids for the metrics


class Recommender(L.LightningModule):
    def __init__(self, packed: bool = False) -> None:
        super().__init__()
        self.users, self.items = nn.Embedding(USERS, 4), nn.Embedding(ITEMS, 4)
        self.packed = packed

    def forward(self, users: torch.Tensor, items: torch.Tensor) -> torch.Tensor:
        return (self.users(users) * self.items(items)).sum(-1)

    def training_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
        _, users, items, relevance = batch
        return nn.functional.binary_cross_entropy_with_logits(self(users, items), (relevance > 0).float())

    def validation_step(self, batch: Any, batch_idx: int) -> dict:
        query, users, items, relevance = batch
        scores = self(users, items).sigmoid()
        if self.packed:
            return {"preds": torch.stack([scores, query.double()], 1), "target": relevance}
        return {"preds": scores, "target": (relevance > 0).long(), "graded": relevance, "indexes": query}

    def configure_optimizers(self) -> Any:
        return torch.optim.SGD(self.parameters(), lr=0.1)


def _unpacking(cls: type) -> type:
    """A test-local adapter: ``preds`` carries ``[score, query id]`` (float64 is exact for these ids)."""

    class Unpacked(cls):  # type: ignore[misc, valid-type]
        @property
        def statistic_spec(self) -> Any:  # binary and graded adapters store other targets: no sharing
            return (super().statistic_spec, self.binary)

        def update(self, preds: torch.Tensor, target: torch.Tensor) -> None:  # type: ignore[override]
            super().update(
                preds[:, 0].float(), (target > 0).long() if self.binary else target, preds[:, 1].long()
            )

    Unpacked.__name__ = cls.__name__
    return Unpacked


def _metrics(packed: bool) -> dict:
    wrap = _unpacking if packed else (lambda cls: cls)
    built = {
        "ndcg": wrap(lmr.RetrievalNormalizedDCG)(top_k=5),
        "map": wrap(lmr.RetrievalMAP)(),
        "mrr": wrap(lmr.RetrievalMRR)(),
        "pr_curve": wrap(lmr.RetrievalPrecisionRecallCurve)(max_k=CANDIDATES),
    }
    for name, metric in built.items():
        metric.binary = name != "ndcg"
    # NDCG reads graded relevance, the others binary targets: different inputs, so no shared sort
    return built if packed else lm.MetricCollection(built, compute_groups=False)


class Collect(L.Callback):
    """Keeps the validation outputs of the last epoch (the oracle feeds them to the metrics itself)."""

    def __init__(self) -> None:
        self.outputs: list = []

    def on_validation_epoch_start(self, *args: Any) -> None:
        self.outputs = []

    def on_validation_batch_end(self, trainer, module, outputs, batch, batch_idx, dataloader_idx=0) -> None:
        query, _, _, relevance = batch
        preds = outputs["preds"][:, 0].float() if outputs["preds"].ndim == 2 else outputs["preds"]
        self.outputs.append((preds.detach().clone(), relevance.clone(), query.clone()))


# which step-output keys each metric's update(preds, target, indexes) reads
INPUTS = {
    "ndcg": ("preds", "graded", "indexes"),
    **{name: ("preds", "target", "indexes") for name in ("map", "mrr", "pr_curve")},
}


def _fit(tmp_path: Path, packed: bool) -> tuple[L.Trainer, Collect, Path]:
    collect = Collect()
    logger = TensorBoardLogger(str(tmp_path), name="tb")
    trainer = quiet_trainer(
        max_epochs=2,
        logger=logger,
        callbacks=[lm.MetricsCallback(_metrics(packed), stages=("val",), inputs=None if packed else INPUTS), collect],
    )
    data = _interactions(0)
    trainer.fit(
        Recommender(packed), DataLoader(data, batch_size=32, shuffle=True), DataLoader(data, batch_size=20)
    )
    return trainer, collect, Path(logger.log_dir)


def _check(trainer: L.Trainer, collect: Collect, log_dir: Path) -> None:
    expected = {
        "ndcg": lmr.RetrievalNormalizedDCG(top_k=5),
        "map": lmr.RetrievalMAP(),
        "mrr": lmr.RetrievalMRR(),
    }
    for preds, relevance, query in collect.outputs:
        for name, metric in expected.items():
            metric.update(preds, relevance if name == "ndcg" else (relevance > 0).long(), query)
    for name, metric in expected.items():
        torch.testing.assert_close(
            trainer.callback_metrics[f"val/{name}"], metric.compute(), rtol=1e-6, atol=1e-7
        )
    events = ea.EventAccumulator(str(log_dir), size_guidance={ea.IMAGES: 0, ea.SCALARS: 0})
    events.Reload()
    assert {"val/ndcg", "val/map", "val/mrr"} <= set(events.Tags()["scalars"])
    assert "val/pr_curve" in events.Tags()["images"]
    assert len(events.Images("val/pr_curve")) == 2  # one per epoch


def test_a_recommender_logs_retrieval_metrics_through_an_adapter(tmp_path: Path) -> None:
    _check(*_fit(tmp_path, packed=True))


def test_a_recommender_logs_retrieval_metrics(tmp_path: Path) -> None:
    """The step returns preds, target and indexes: the engine gives each metric what its update takes."""
    _check(*_fit(tmp_path, packed=False))
