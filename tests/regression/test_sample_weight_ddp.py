"""Weighted regression metrics under DDP (2 gloo processes): a weighted rank beside an unweighted one, and a
weighted rank beside one without any batch, equal one process on all the data."""

from __future__ import annotations

import pytest
import torch

from tests._distributed import run_distributed

pytestmark = [pytest.mark.timeout(180), pytest.mark.filterwarnings("ignore")]


def _factories():
    import lightning_metrics.regression as lm

    return {
        "mse": lambda: lm.MeanSquaredError(),
        "r2": lambda: lm.R2Score(),
        "pearson": lambda: lm.PearsonCorrCoef(),
        "nrmse": lambda: lm.NormalizedRootMeanSquaredError("range"),
        "ccc": lambda: lm.ConcordanceCorrCoef(),
        "mae": lambda: lm.MeanAbsoluteError(),
        "tweedie": lambda: lm.TweedieDevianceScore(power=0.0),
    }


def _data():
    from tests.regression._weighted_cases import case, weights

    preds, target = case(31, n=120)
    w = torch.from_numpy(weights("fractional", 120, seed=32))
    # rank 0: two weighted batches; rank 1: one unweighted batch (scenario "mixed") or nothing ("empty")
    return [(preds[:50], target[:50], w[:50]), (preds[50:80], target[50:80], w[50:80]), (preds[80:], target[80:], None)]


def _worker(rank: int, world: int):
    from lightning_metrics import MetricCollection

    data = _data()
    out = {}
    for scenario in ("mixed", "empty"):
        shard = data[:2] if rank == 0 else (data[2:] if scenario == "mixed" else [])
        collection = MetricCollection({k: f() for k, f in _factories().items()})
        singles = {k: f() for k, f in _factories().items()}
        for preds, target, w in shard:
            collection.update(preds, target, sample_weight=w)
            for metric in singles.values():
                metric.update(preds, target, sample_weight=w)
        out[scenario] = {"collection": collection.compute(), "singles": {k: m.compute() for k, m in singles.items()}}
    return out


def _reference(scenario: str):
    data = _data() if scenario == "mixed" else _data()[:2]
    metrics = {k: f() for k, f in _factories().items()}
    for preds, target, w in data:
        for metric in metrics.values():
            metric.update(preds, target, sample_weight=w)
    return {k: m.compute() for k, m in metrics.items()}


def test_weighted_and_unweighted_ranks_equal_one_process():
    results = run_distributed(_worker, timeout=150)
    for scenario in ("mixed", "empty"):
        expected = _reference(scenario)
        for rank_result in results:
            for kind in ("collection", "singles"):
                got = rank_result[scenario][kind]
                for key, value in expected.items():
                    torch.testing.assert_close(got[key], value, rtol=1e-6, atol=1e-7, msg=f"{scenario} {kind} {key}")
