"""BootStrapper: seeded parity with torchmetrics 1.9 (same draws from the global generator), and the
distribution of the bootstrap where seeds cannot match (an own generator)."""

from __future__ import annotations

import math

import pytest
import torch
import torchmetrics.wrappers as tw

import lightning_metrics as lm
import lightning_metrics.wrappers as lw
from tests.wrappers._cases import (
    AGGREGATION_PAIRS,
    CLASSIFICATION_PAIRS,
    SCALAR_PAIRS,
    assert_same,
    multiclass_batches,
    regression_batches,
    value_batches,
)

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

OPTIONS = [
    {},
    {"raw": True, "std": False},
    {"quantile": 0.9, "mean": False},
    {"quantile": torch.tensor([0.05, 0.5, 0.95]), "raw": True},
]


def _pair(build, **options):
    ours_base, theirs_base = build()
    return lw.BootStrapper(ours_base, **options), tw.BootStrapper(theirs_base, **options)


@pytest.mark.parametrize("strategy", ["poisson", "multinomial"])
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(o) or "default")
@pytest.mark.parametrize("base", ["mse", "r2", "spearman", "mc_acc_micro", "mc_f1_macro"])
def test_seeded_update_parity(base, options, strategy):
    build = {**SCALAR_PAIRS, **CLASSIFICATION_PAIRS}[base]
    ours, theirs = _pair(build, num_bootstraps=7, sampling_strategy=strategy, **options)
    make = multiclass_batches if base.startswith("mc") else regression_batches
    for seed, batch in enumerate(make(seed=1)):
        torch.manual_seed(seed)
        ours.update(*batch)
        torch.manual_seed(seed)
        theirs.update(*batch)
    assert_same(ours.compute(), theirs.compute())


@pytest.mark.parametrize("strategy", ["poisson", "multinomial"])
@pytest.mark.parametrize("base", ["sum", "mean"])
def test_seeded_forward_parity(base, strategy):
    """The batch values of forward agree draw for draw; the accumulated state keeps every batch
    (torchmetrics' forward keeps only the last batch: a documented deviation)."""
    ours, theirs = _pair(AGGREGATION_PAIRS[base], num_bootstraps=5, sampling_strategy=strategy, raw=True)
    reference, _ = _pair(AGGREGATION_PAIRS[base], num_bootstraps=5, sampling_strategy=strategy, raw=True)
    for seed, values in enumerate(value_batches(seed=2)):
        torch.manual_seed(seed)
        batch_value = ours(values)
        torch.manual_seed(seed)
        assert_same(batch_value, theirs(values), path=f"forward[{seed}]")
        torch.manual_seed(seed)
        reference.update(values)  # the same first draws as our forward's accumulation
    assert_same(ours.compute(), reference.compute())


def test_distribution_of_the_bootstrap_mean():
    generator = torch.Generator().manual_seed(1234)
    data = torch.randn(2000, generator=torch.Generator().manual_seed(0)) * 3 + 5
    for strategy in ("poisson", "multinomial"):
        metric = lw.BootStrapper(
            lm.aggregation.MeanMetric(), num_bootstraps=200, quantile=torch.tensor([0.025, 0.5, 0.975]),
            sampling_strategy=strategy, generator=generator,
        )
        for chunk in data.split(250):
            metric.update(chunk)
        out = metric.compute()
        pooled, standard_error = data.mean(), data.std() / math.sqrt(len(data))
        assert abs(out["mean"] - pooled) < 0.5 * standard_error  # centred on the pooled value
        assert 0.75 * standard_error < out["std"] < 1.25 * standard_error  # the textbook spread
        low, mid, high = out["quantile"]
        assert low < mid < high and low < pooled < high
        assert abs((high - low) / (2 * 1.96 * standard_error) - 1) < 0.25


def test_generator_makes_runs_reproducible_without_touching_the_global_stream():
    def run():
        metric = lw.BootStrapper(lm.regression.MeanSquaredError(), num_bootstraps=4, raw=True,
                                 generator=torch.Generator().manual_seed(7))
        for batch in regression_batches(seed=3):
            metric.update(*batch)
        return metric.compute()["raw"]

    torch.manual_seed(0)
    first = run()
    after = torch.rand(1)
    torch.manual_seed(0)
    torch.testing.assert_close(run(), first)
    torch.testing.assert_close(torch.rand(1), after)  # the global generator was not used


def test_arguments_and_failed_update():
    base = lm.regression.MeanSquaredError()
    for bad in ({"num_bootstraps": 0}, {"num_bootstraps": 2.0}, {"quantile": 1.5}, {"quantile": "high"},
                {"mean": 1}, {"generator": 3}):
        with pytest.raises(ValueError, match=f"`{next(iter(bad))}`"):
            lw.BootStrapper(base, **bad)
    with pytest.raises(ValueError, match="`sampling_strategy`"):
        lw.BootStrapper(base, sampling_strategy="jackknife")
    metric = lw.BootStrapper(base, num_bootstraps=6, raw=True, sampling_strategy="multinomial")
    preds, target = regression_batches(seed=0)[0]
    metric.update(preds, target)
    before = metric.compute()["raw"].clone()
    with pytest.raises((ValueError, RuntimeError)):
        metric.update(preds, target[:-1])
    with pytest.raises(ValueError, match="tensor"):
        metric.update(1.0, 2.0)
    assert all(m.update_count == 1 for m in metric.metrics)
    torch.testing.assert_close(metric.compute()["raw"], before)
    metric.reset()
    assert all(m.update_count == 0 for m in metric.metrics)
