"""A rank split equals one process: 2 gloo processes with uneven shards, synced in compute."""

from __future__ import annotations

import pytest
import torch

from tests._distributed import run_distributed
from tests.regression._cases import batches, concat

pytestmark = [pytest.mark.timeout(180), pytest.mark.filterwarnings("ignore")]


def _factories(outputs: int):
    import lightning_metrics.regression as lm

    per_output = {"num_outputs": outputs}
    return {
        "mse": lambda: lm.MeanSquaredError(**per_output),
        "r2": lambda: lm.R2Score(multioutput="raw_values"),
        "pearson": lambda: lm.PearsonCorrCoef(**per_output),
        "ev": lambda: lm.ExplainedVariance(multioutput="raw_values"),
        "ccc": lambda: lm.ConcordanceCorrCoef(**per_output),
        "nrmse": lambda: lm.NormalizedRootMeanSquaredError(normalization="range", **per_output),
        "mae": lambda: lm.MeanAbsoluteError(**per_output),
        "spearman": lambda: lm.SpearmanCorrCoef(**per_output),
        "kendall": lambda: lm.KendallRankCorrCoef(**per_output),
    }


def _data(outputs: int):
    # rank 0 gets 3 batches, rank 1 gets 2 (uneven, with batches of one)
    return batches("real", outputs, seed=77 + outputs, sizes=(1, 40, 9, 1, 25))


def _worker(rank: int, world: int, outputs: int):
    from lightning_metrics import MetricCollection

    data = _data(outputs)
    shard = data[:3] if rank == 0 else data[3:]
    collection = MetricCollection({k: f() for k, f in _factories(outputs).items()})
    singles = {k: f() for k, f in _factories(outputs).items()}
    for preds, target in shard:
        collection.update(preds, target)
        for metric in singles.values():
            metric.update(preds, target)
    return {"collection": collection.compute(), "singles": {k: m.compute() for k, m in singles.items()}}


@pytest.mark.parametrize("outputs", [1, 3])
def test_rank_split_equals_one_process(outputs):
    results = run_distributed(_worker, outputs, timeout=150)
    preds, target = concat(_data(outputs))
    expected = {k: f() for k, f in _factories(outputs).items()}
    for key, metric in expected.items():
        metric.update(preds, target)
        value = metric.compute()
        for rank_result in results:
            for source in ("collection", "singles"):
                torch.testing.assert_close(rank_result[source][key], value, rtol=1e-5, atol=1e-6)
