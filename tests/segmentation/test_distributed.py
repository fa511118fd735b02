"""Segmentation metrics across 2 gloo processes equal one process over all the data, exactly: every
metric, as a collection (one fused sync) and alone, with a rank that got no batch at all."""

from __future__ import annotations

import pytest
import torch

import lightning_metrics.segmentation as lms
from lightning_metrics import MetricCollection
from tests._distributed import run_distributed
from tests.segmentation._cases import batch, masks_with_presence, with_void

pytestmark = [pytest.mark.timeout(240)]

C = 4


def _metrics() -> dict:
    index = {"num_classes": C, "input_format": "index"}
    return {
        "miou": lms.MeanIoU(**index, ignore_index=255),
        "miou_class": lms.MeanIoU(**index, per_class=True, ignore_index=255),
        "dice": lms.DiceScore(**index, average="weighted", ignore_index=255),
        "dice_global": lms.DiceScore(**index, average="none", aggregation_level="global", ignore_index=255),
        "gds": lms.GeneralizedDiceScore(**index, per_class=True, ignore_index=255),
    }


def _one_hot_metrics() -> dict:
    return {
        "miou_inferred": lms.MeanIoU(per_class=True),  # classes read from the first batch
        "dice_micro": lms.DiceScore(C, average="micro", include_background=False),
        "hd": lms.HausdorffDistance(C, distance_metric="taxicab", spacing=[0.5, 2.0]),
    }


def _batches(seed: int) -> tuple[list[tuple], list[tuple]]:
    """Index batches with void pixels, and bool one-hot batches, in their single-process order."""
    gen = torch.Generator().manual_seed(seed)
    index, one_hot = [], []
    for n in (3, 5, 2, 4):
        preds, target, _ = batch("index", gen, n, C)
        index.append((preds, with_void(target, gen, 255, 0.2)))
        one_hot.append(batch("one-hot-bool", gen, n, C)[:2])
    index.append(masks_with_presence(gen, 2, C, (6, 7)))  # every class present: finite distances
    return index, one_hot


def _shard(batches: list[tuple], rank: int, world: int, idle_rank: bool) -> list[tuple]:
    """Round-robin over the ranks, or everything on rank 0 (the other ranks get no batch)."""
    if idle_rank:
        return batches if rank == 0 else []
    return batches[rank::world]


def _run(batches: list[tuple], metrics: dict, as_collection: bool) -> dict:
    if as_collection:
        collection = MetricCollection(metrics)
        for preds, target in batches:
            collection.update(preds, target)
        return collection.compute()
    out = {}
    for name, metric in metrics.items():
        for preds, target in batches:
            metric.update(preds, target)
        out[name] = metric.compute()
    return out


CONFIGS = [(idle, collection) for idle in (False, True) for collection in (True, False)]


def _worker(rank: int, world: int) -> dict:
    torch.set_num_threads(1)
    index, one_hot = _batches(0)
    out = {}
    for idle, as_collection in CONFIGS:
        out[("index", idle, as_collection)] = _run(
            _shard(index, rank, world, idle), _metrics(), as_collection
        )
        out[("one-hot", idle, as_collection)] = _run(
            _shard(one_hot, rank, world, idle), _one_hot_metrics(), as_collection
        )
    return out


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a.nan_to_num(9.5), b.nan_to_num(9.5))


def test_two_processes_equal_one_process_exactly() -> None:
    """Round-robin shards (the ranks' rows concatenate in another order than one process sees them)
    and a rank without any batch; as a collection (one fused sync) and metric by metric."""
    results = run_distributed(_worker, world_size=2, timeout=180)
    index, one_hot = _batches(0)
    for idle, as_collection in CONFIGS:
        expected = {
            ("index", idle, as_collection): _run(index, _metrics(), as_collection),
            ("one-hot", idle, as_collection): _run(one_hot, _one_hot_metrics(), as_collection),
        }
        for rank_result in results:
            for key, values in expected.items():
                for name, value in values.items():
                    assert _same(rank_result[key][name], value), (key, name, rank_result[key][name], value)
