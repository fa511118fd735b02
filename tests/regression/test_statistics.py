"""The lattice of regression statistics: a lone metric keeps the smallest sufficient statistic, a collection
shares the one that covers its members, and both give the same values, accurate at large offsets."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import lightning_metrics.regression as lm
from lightning_metrics import MetricCollection
from lightning_metrics.functional.regression import _statistics as st

pytestmark = pytest.mark.filterwarnings("ignore")

LONE = {
    "mse": (lambda: lm.MeanSquaredError(), "sse"),
    "rmse": (lambda: lm.MeanSquaredError(squared=False), "sse"),
    "mae": (lambda: lm.MeanAbsoluteError(), None),
    "r2": (lambda: lm.R2Score(), "target_sums"),
    "rse": (lambda: lm.RelativeSquaredError(), "target_sums"),
    "ev": (lambda: lm.ExplainedVariance(), "target_residual_sums"),
    "pearson": (lambda: lm.PearsonCorrCoef(), "moments"),
    "ccc": (lambda: lm.ConcordanceCorrCoef(), "moments"),
    "nrmse": (lambda: lm.NormalizedRootMeanSquaredError(), "target_sums"),
    "nrmse_std": (lambda: lm.NormalizedRootMeanSquaredError(normalization="std"), "target_sums"),
    "nrmse_l2": (lambda: lm.NormalizedRootMeanSquaredError(normalization="l2"), "target_sums"),
    "nrmse_range": (lambda: lm.NormalizedRootMeanSquaredError(normalization="range"), "moments"),
}


def _level_name(metric) -> str | None:
    spec = metric.statistic_spec
    return None if spec is None else spec[0].removeprefix("regression_")


def test_each_metric_alone_keeps_its_smallest_statistic():
    for name, (make, level) in LONE.items():
        assert _level_name(make()) == level, name
    assert lm.MeanSquaredError().moments.shape == (2, 1)  # count and sum of squared errors


def test_a_collection_widens_to_the_statistic_covering_its_members():
    pair = MetricCollection({"mse": lm.MeanSquaredError(), "r2": lm.R2Score()})
    assert list(pair.compute_groups.values()) == [["mse", "r2"]]
    assert _level_name(pair["mse"]) == "target_sums"
    full = MetricCollection({"mse": lm.MeanSquaredError(), "r2": lm.R2Score(), "pearson": lm.PearsonCorrCoef()})
    assert len(full.compute_groups) == 1 and _level_name(full["mse"]) == "moments"
    explicit = MetricCollection(
        {"mse": lm.MeanSquaredError(), "ev": lm.ExplainedVariance()}, compute_groups=[["mse", "ev"]]
    )
    assert _level_name(explicit["mse"]) == "target_residual_sums"
    apart = MetricCollection({"mse": lm.MeanSquaredError(), "r2": lm.R2Score()}, compute_groups=False)
    assert _level_name(apart["mse"]) == "sse"


def test_an_updated_metric_keeps_its_statistic_and_stays_apart():
    mse = lm.MeanSquaredError()
    mse.update(torch.tensor([1.0, 2.0]), torch.tensor([1.5, 2.0]))
    collection = MetricCollection({"mse": mse, "r2": lm.R2Score()})
    assert sorted(collection.compute_groups.values()) == [["mse"], ["r2"]]
    collection.update(torch.tensor([3.0, 1.0]), torch.tensor([2.0, 1.0]))
    torch.testing.assert_close(collection.compute()["mse"], torch.tensor(1.25 / 4))


@settings(max_examples=20, deadline=None, derandomize=True)
@given(
    sizes=hs.lists(hs.integers(min_value=1, max_value=30), min_size=1, max_size=5),
    offset=hs.sampled_from([0.0, 1e3, 1e6]),
    bias=hs.sampled_from([0.0, 50.0]),
    columns=hs.sampled_from([0, 3]),
    seed=hs.integers(min_value=0, max_value=2**16),
)
def test_lone_metrics_equal_the_shared_statistic(sizes, offset, bias, columns, seed):
    """Lone MSE, MAE, R2, RSE, explained variance, Pearson, concordance: the values of the same metrics
    in one collection (one shared moment statistic), batch by batch, and after forward."""
    gen = torch.Generator().manual_seed(seed)
    shape = (sum(sizes) + 2,) if columns == 0 else (sum(sizes) + 2, columns)
    target = offset + torch.randn(shape, generator=gen, dtype=torch.float64)
    preds = (target + bias + 0.3 * torch.randn(shape, generator=gen, dtype=torch.float64)).float()
    target = target.float()
    bounds = np.cumsum([0, 2, *sizes])
    kwargs = {} if columns == 0 else {"num_outputs": columns}
    makers = {
        "mse": lambda: lm.MeanSquaredError(**kwargs),
        "mae": lambda: lm.MeanAbsoluteError(**kwargs),
        "r2": lambda: lm.R2Score(multioutput="raw_values"),
        "ev": lambda: lm.ExplainedVariance(multioutput="raw_values"),
        "pearson": lambda: lm.PearsonCorrCoef(**kwargs),
        "ccc": lambda: lm.ConcordanceCorrCoef(**kwargs),
        **{
            f"nrmse_{norm}": (lambda norm=norm: lm.NormalizedRootMeanSquaredError(norm, **kwargs))
            for norm in ("mean", "range", "std", "l2")
        },
    }
    if columns == 0:
        makers["rse"] = lambda: lm.RelativeSquaredError()
    lone = {k: make() for k, make in makers.items()}
    shared = MetricCollection({k: make() for k, make in makers.items()})
    if columns == 0:  # all but MAE share one moment statistic (R2 and EV infer their width: 1 at first)
        assert sorted(len(g) for g in shared.compute_groups.values()) == [1, len(makers) - 1]
    for a, b in zip(bounds[:-1], bounds[1:]):
        shared.update(preds[a:b], target[a:b])
        for metric in lone.values():
            metric.update(preds[a:b], target[a:b])
    together = shared.compute()
    for name, metric in lone.items():
        torch.testing.assert_close(metric.compute(), together[name], rtol=1e-6, atol=1e-6, msg=name)
    batch = shared(preds[:5], target[:5])
    for name, make in makers.items():
        fresh = make()
        fresh.update(preds[:5], target[:5])
        torch.testing.assert_close(lone[name](preds[:5], target[:5]), fresh.compute(), rtol=1e-6, atol=1e-6)
        torch.testing.assert_close(batch[name], fresh.compute(), rtol=1e-6, atol=1e-6, msg=name)


@pytest.mark.parametrize("order", ["shuffled", "sorted"])
def test_lone_statistics_are_accurate_at_a_large_offset(order):
    """2e5 float32 samples of 1e6 + N(0, 1) in batches of 1,000 (sorted: the data drift away from the first
    observation, the shift): within 1e-6 of float64 NumPy, alone and after a merge of two halves."""
    gen = torch.Generator().manual_seed(7)
    n = 200_000
    target64 = 1e6 + torch.randn(n, generator=gen, dtype=torch.float64)
    if order == "sorted":
        target64 = target64.sort().values
    preds = (target64 + 0.1 * torch.randn(n, generator=gen, dtype=torch.float64)).float()
    target = target64.float()
    t, p = target.double().numpy(), preds.double().numpy()
    resid = t - p
    sst = ((t - t.mean()) ** 2).sum()
    ref = {
        lm.MeanSquaredError: (resid**2).mean(),
        lm.R2Score: 1 - (resid**2).sum() / sst,
        lm.ExplainedVariance: 1 - ((resid - resid.mean()) ** 2).sum() / sst,
        lm.RelativeSquaredError: (resid**2).sum() / sst,
        lm.PearsonCorrCoef: np.corrcoef(p, t)[0, 1],
        # Lin's concordance with unbiased variances, as torchmetrics
        lm.ConcordanceCorrCoef: 2 * np.cov(p, t)[0, 1] / (p.var(ddof=1) + t.var(ddof=1) + (p.mean() - t.mean()) ** 2),
        lm.NormalizedRootMeanSquaredError: np.sqrt((resid**2).mean()) / t.mean(),
    }
    for cls, value in ref.items():
        metric, left, right = cls(), cls(), cls()
        for start in range(0, n, 1_000):
            metric.update(preds[start : start + 1_000], target[start : start + 1_000])
            (left if start < n // 2 else right).update(preds[start : start + 1_000], target[start : start + 1_000])
        left.merge_state(right)
        for got in (metric.compute(), left.compute()):
            assert abs(float(got) - value) / abs(value) < 1e-6, (cls.__name__, float(got), value)


def test_merging_shifted_sums_with_empty_and_distant_sides():
    """The dist_reduce_fx of the shifted sums: sides with other shifts, and sides without data, merge to
    the statistic of all the data."""
    gen = torch.Generator().manual_seed(3)
    parts = [1e6 + torch.randn(50, 2, generator=gen, dtype=torch.float64) * s for s in (1.0, 3.0)]
    parts.insert(1, torch.empty(0, 2, dtype=torch.float64))
    for level in (st.R2, st.TARGET_RESIDUAL, st.MOMENTS):
        states = [level.update(level.empty(2), x - 0.5, x) for x in parts]
        merged = st.lift(level.merge(torch.stack(states)), level)
        whole = torch.cat(parts)
        expected = st.lift(level.update(level.empty(2), whole - 0.5, whole), level)
        torch.testing.assert_close(merged, expected, rtol=1e-9, atol=1e-6)


@settings(max_examples=40, deadline=None)
@given(
    level=hs.sampled_from([st.SSE, st.R2, st.TARGET_RESIDUAL]),
    n=hs.integers(0, 20),
    columns=hs.integers(1, 3),
    offset=hs.sampled_from([0.0, 1e6]),
    float64=hs.booleans(),
    seed=hs.integers(0, 2**16),
)
def test_moment_rows_equal_the_lifted_layout(level, n, columns, offset, float64, seed):
    """``compute`` of a lone metric reads its statistic row by row (``MomentRows``): every row, the sum of
    squared errors and the pooled columns are those of the whole lifted layout, to the bit."""
    from lightning_metrics.functional.regression import _moments as mo

    gen = torch.Generator().manual_seed(seed)
    dtype = torch.float64 if float64 else torch.float32
    target = offset + torch.randn(n, columns, generator=gen, dtype=dtype)
    preds = target + torch.randn(n, columns, generator=gen, dtype=dtype)
    state = level.update(level.empty(columns), preds, target)
    rows, layout = st.MomentRows(state, level), st.lift(state, level)
    for i in range(mo.NUM_ROWS):
        assert torch.equal(rows[i], layout[i]), (level.name, i)
    assert rows.shape == layout.shape
    assert torch.equal(mo.sum_squared_error(rows), mo.sum_squared_error(layout))
    assert mo.saw_float64(rows) == mo.saw_float64(layout) and mo.was_flattened(rows) == mo.was_flattened(layout)
    pooled_rows, pooled = mo.pool_columns(rows), mo.pool_columns(layout)
    for reader in (mo.count, mo.sum_squared_error):
        torch.testing.assert_close(reader(pooled_rows), reader(pooled), rtol=1e-12, atol=0)
