"""Detection metrics across 2 gloo processes equal one process over all the images, exactly: uneven
shards and a rank without any image, each metric alone and all in one collection (one fused sync)."""

from __future__ import annotations

import warnings
from typing import Optional

import pytest
import torch

from lightning_metrics import MetricCollection
from lightning_metrics.detection import IntersectionOverUnion, MeanAveragePrecision, PanopticQuality
from tests._distributed import run_distributed
from tests.detection._cases import detection_data, shard
from tests.reliability._registry import assert_identical

pytestmark = [pytest.mark.timeout(240)]


def _metrics() -> dict:
    return {
        "map": MeanAveragePrecision(class_metrics=True, extended_summary=True),
        "segm": MeanAveragePrecision(iou_type="segm", class_metrics=True),
        "iou": IntersectionOverUnion(class_metrics=True, respect_labels=False),
    }


def _panoptic_batches(seed: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    gen = torch.Generator().manual_seed(seed)
    out = []
    for n in (2, 1, 3):
        cat = torch.tensor([0, 1, 6, 7])[torch.randint(0, 4, (n, 6, 6), generator=gen)]
        inst = torch.randint(0, 2, (n, 6, 6), generator=gen)
        target = torch.stack([cat, inst], -1)
        preds = target.clone()
        noise = torch.rand(n, 6, 6, generator=gen) < 0.3
        preds[..., 0][noise] = 1
        out.append((preds, target))
    return out


def _data() -> tuple[tuple[list, list], tuple[list, list], list]:
    return detection_data(0, num_images=11), detection_data(1, num_images=7, masks=True), _panoptic_batches(2)


def _feed(metrics: dict, boxes: tuple, masks: tuple, panoptic: list, pq: PanopticQuality, batch: int = 3) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for lo in range(0, len(boxes[0]), batch):
            metrics["map"].update(boxes[0][lo : lo + batch], boxes[1][lo : lo + batch])
            metrics["iou"].update(boxes[0][lo : lo + batch], boxes[1][lo : lo + batch])
        for lo in range(0, len(masks[0]), batch):
            metrics["segm"].update(masks[0][lo : lo + batch], masks[1][lo : lo + batch])
        for preds, target in panoptic:
            pq.update(preds, target)


def _results(rank: int, world: int, idle: Optional[int], as_collection: bool) -> dict:
    boxes, masks, panoptic = _data()
    mine = (
        (shard(boxes[0], rank, world, idle), shard(boxes[1], rank, world, idle)),
        (shard(masks[0], rank, world, idle), shard(masks[1], rank, world, idle)),
        shard(panoptic, rank, world, idle),
    )
    metrics = _metrics()
    pq = PanopticQuality(things={0, 1}, stuffs={6, 7}, return_sq_and_rq=True, return_per_class=True)
    _feed(metrics, *mine, pq)
    if as_collection:
        return MetricCollection({**metrics, "pq": pq}).compute()  # every state in one fused sync
    return {**{name: m.compute() for name, m in metrics.items()}, "pq": pq.compute()}


def _ranks(rank: int, world: int) -> list[dict]:
    return [_results(rank, world, None, False), _results(rank, world, 1, False), _results(rank, world, 0, True)]


def test_two_processes_equal_one() -> None:
    boxes, masks, panoptic = _data()
    metrics = _metrics()
    pq = PanopticQuality(things={0, 1}, stuffs={6, 7}, return_sq_and_rq=True, return_per_class=True)
    _feed(metrics, boxes, masks, panoptic, pq)
    expected = {**{name: m.compute() for name, m in metrics.items()}, "pq": pq.compute()}
    for per_rank in run_distributed(_ranks):
        uneven, idle_rank, collection = per_rank
        assert_identical(uneven, expected)
        assert_identical(idle_rank, expected)
        for name, value in expected.items():  # a collection flattens dict results as "<name>_<key>"
            if isinstance(value, dict):
                for key, v in value.items():
                    assert_identical(collection[f"{name}_{key}"], v, f"{name}_{key}")
            else:
                assert_identical(collection[name], value, name)
