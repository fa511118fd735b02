"""``update(..., sample_weight=)`` of the modular regression metrics: equal to the functional form on the
concatenated batches, through ``update``, ``forward``, ``merge_state``, ``reset`` and a shared statistic in a
``MetricCollection``; a rejected weight leaves the state as it was."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import lightning_metrics.functional.regression as F
import lightning_metrics.regression as lm
from lightning_metrics import MetricCollection
from lightning_metrics.utilities.exceptions import MetricInputError
from tests.regression._weighted_cases import case, weights

pytestmark = pytest.mark.filterwarnings("ignore")

SIZES = (7, 1, 150, 0, 61)  # the first batch has only zero weights (see _batches): its shifts hold no weight


def _batches(kind: str = "real", outputs: int = 1, seed: int = 0, offset: float = 0.0):
    """``[(preds, target, weight or None), ...]``: fractional and integer weights, one unweighted batch."""
    n = sum(SIZES)
    if kind == "rows":
        rng = np.random.default_rng(seed)
        preds = torch.from_numpy(rng.uniform(0.05, 1.0, (n, 4))).float()
        target = torch.from_numpy(rng.uniform(0.05, 1.0, (n, 4))).float()
    else:
        preds, target = case(seed, n=n, outputs=outputs, offset=offset, positive=kind == "positive")
    w = torch.from_numpy(weights("fractional", n, seed=seed + 1))
    w[: SIZES[0]] = 0.0
    w[SIZES[0] + SIZES[1] + 40:] = torch.from_numpy(weights("integer", n - SIZES[0] - SIZES[1] - 40, seed=seed + 2))
    out, start = [], 0
    for i, size in enumerate(SIZES):
        sl = slice(start, start + size)
        out.append((preds[sl], target[sl], None if i == 1 else w[sl]))
        start += size
    return out


def _concat(batches):
    preds = torch.cat([p for p, _, _ in batches])
    target = torch.cat([t for _, t, _ in batches])
    w = torch.cat([torch.ones(p.shape[0], dtype=torch.float64) if w is None else w for p, _, w in batches])
    return preds, target, w


# (id, metric factory, functional(preds, target, sample_weight), data kind, outputs)
CASES = [
    ("mse", lambda: lm.MeanSquaredError(), lambda p, t, w: F.mean_squared_error(p, t, sample_weight=w), "real", 1),
    ("rmse", lambda: lm.MeanSquaredError(squared=False), lambda p, t, w: F.mean_squared_error(p, t, False, sample_weight=w), "real", 1),
    ("mse_2", lambda: lm.MeanSquaredError(num_outputs=2), lambda p, t, w: F.mean_squared_error(p, t, num_outputs=2, sample_weight=w), "real", 2),
    *[
        (f"nrmse_{n}", lambda n=n: lm.NormalizedRootMeanSquaredError(n),
         lambda p, t, w, n=n: F.normalized_root_mean_squared_error(p, t, n, sample_weight=w), "real", 1)
        for n in ("mean", "range", "std", "l2")
    ],
    ("r2", lambda: lm.R2Score(), lambda p, t, w: F.r2_score(p, t, sample_weight=w), "real", 1),
    ("r2_adjusted", lambda: lm.R2Score(adjusted=2), lambda p, t, w: F.r2_score(p, t, 2, sample_weight=w), "real", 1),
    ("r2_raw", lambda: lm.R2Score(multioutput="raw_values"), lambda p, t, w: F.r2_score(p, t, multioutput="raw_values", sample_weight=w), "real", 2),
    ("r2_varw", lambda: lm.R2Score(multioutput="variance_weighted"), lambda p, t, w: F.r2_score(p, t, multioutput="variance_weighted", sample_weight=w), "real", 2),
    ("ev", lambda: lm.ExplainedVariance(), lambda p, t, w: F.explained_variance(p, t, sample_weight=w), "real", 1),
    ("ev_raw", lambda: lm.ExplainedVariance("raw_values"), lambda p, t, w: F.explained_variance(p, t, "raw_values", sample_weight=w), "real", 2),
    ("rse", lambda: lm.RelativeSquaredError(), lambda p, t, w: F.relative_squared_error(p, t, sample_weight=w), "real", 1),
    ("pearson", lambda: lm.PearsonCorrCoef(), lambda p, t, w: F.pearson_corrcoef(p, t, sample_weight=w), "real", 1),
    ("pearson_2", lambda: lm.PearsonCorrCoef(num_outputs=2), lambda p, t, w: F.pearson_corrcoef(p, t, sample_weight=w), "real", 2),
    ("ccc", lambda: lm.ConcordanceCorrCoef(), lambda p, t, w: F.concordance_corrcoef(p, t, sample_weight=w), "real", 1),
    ("mae", lambda: lm.MeanAbsoluteError(), lambda p, t, w: F.mean_absolute_error(p, t, sample_weight=w), "real", 1),
    ("mae_2", lambda: lm.MeanAbsoluteError(num_outputs=2), lambda p, t, w: F.mean_absolute_error(p, t, 2, sample_weight=w), "real", 2),
    ("msle", lambda: lm.MeanSquaredLogError(), lambda p, t, w: F.mean_squared_log_error(p, t, sample_weight=w), "positive", 1),
    ("log_cosh", lambda: lm.LogCoshError(), lambda p, t, w: F.log_cosh_error(p, t, sample_weight=w), "real", 1),
    ("minkowski", lambda: lm.MinkowskiDistance(p=3), lambda p, t, w: F.minkowski_distance(p, t, 3, sample_weight=w), "real", 1),
    ("mape", lambda: lm.MeanAbsolutePercentageError(), lambda p, t, w: F.mean_absolute_percentage_error(p, t, sample_weight=w), "positive", 1),
    ("smape", lambda: lm.SymmetricMeanAbsolutePercentageError(), lambda p, t, w: F.symmetric_mean_absolute_percentage_error(p, t, sample_weight=w), "positive", 1),
    ("wmape", lambda: lm.WeightedMeanAbsolutePercentageError(), lambda p, t, w: F.weighted_mean_absolute_percentage_error(p, t, sample_weight=w), "positive", 1),
    ("tweedie", lambda: lm.TweedieDevianceScore(power=1.5), lambda p, t, w: F.tweedie_deviance_score(p, t, 1.5, sample_weight=w), "positive", 1),
    ("cosine", lambda: lm.CosineSimilarity(reduction="mean"), lambda p, t, w: F.cosine_similarity(p, t, "mean", sample_weight=w), "rows", 1),
    ("cosine_none", lambda: lm.CosineSimilarity(reduction="none"), lambda p, t, w: F.cosine_similarity(p, t, "none", sample_weight=w), "rows", 1),
    ("kl", lambda: lm.KLDivergence(), lambda p, t, w: F.kl_divergence(p, t, sample_weight=w), "rows", 1),
    ("js_sum", lambda: lm.JensenShannonDivergence(reduction="sum"), lambda p, t, w: F.jensen_shannon_divergence(p, t, reduction="sum", sample_weight=w), "rows", 1),
]


def _close(a, b, rtol=1e-5):
    # (shapes as torchmetrics gives them: concordance is (1,) from the functional form, a scalar from the class)
    torch.testing.assert_close(a.double().reshape(-1), b.double().reshape(-1), rtol=rtol, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize(("name", "make", "functional", "kind", "outputs"), CASES, ids=[c[0] for c in CASES])
def test_update_and_forward_equal_the_functional_form(name, make, functional, kind, outputs):
    data = _batches(kind, outputs, seed=len(name))
    metric, forwarded = make(), make()
    for preds, target, w in data:
        metric.update(preds, target, sample_weight=w)
        one_sample = name.startswith(("r2", "pearson", "ccc")) and preds.shape[0] < 3  # no variance to compare
        if preds.shape[0] and (w is None or w.sum() > 0) and not one_sample:
            _close(forwarded(preds, target, sample_weight=w), functional(preds, target, w))
        else:
            forwarded.update(preds, target, sample_weight=w)
    expected = functional(*_concat(data))
    _close(metric.compute(), expected)
    _close(forwarded.compute(), expected)


def test_a_rejected_weight_leaves_the_state_unchanged():
    data = _batches("positive", 1, seed=3)
    for name, make, _, kind, outputs in CASES:
        if kind != "positive" and kind != "real" or outputs != 1:
            continue
        metric = make()
        preds, target, w = data[2]
        metric.update(preds, target, sample_weight=w)
        before = {k: v.clone() for k, v in metric.metric_state.items() if isinstance(v, torch.Tensor)}
        bad = w.clone()
        bad[5] = -2.0
        for call in (metric.update, metric.forward):
            with pytest.raises(MetricInputError, match=r"`sample_weight` must hold finite, non-negative weights, got -2.0 at index 5"):
                call(preds, target, sample_weight=bad)
            with pytest.raises(MetricInputError, match=r"`sample_weight`.*got shape \(3,\)"):
                call(preds, target, sample_weight=torch.ones(3))
        for key, value in before.items():
            assert metric.metric_state[key].dtype == value.dtype, (name, key)
            assert torch.equal(metric.metric_state[key], value), (name, key)


def test_counts_become_float64_and_reset_returns_them_to_integers():
    metric = lm.MeanAbsoluteError()
    metric.update(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 4.0]))
    assert metric.count.dtype == torch.int64 and not metric._is_sample_weighted
    metric.update(torch.tensor([1.0, 2.0]), torch.tensor([2.0, 4.0]), sample_weight=torch.tensor([0.5, 0.0]))
    assert metric.count.dtype == torch.float64 and metric._is_sample_weighted
    assert float(metric.count) == 2.5
    _close(metric.compute(), torch.tensor(2.5 / 2.5))
    metric.reset()
    assert metric.count.dtype == torch.int64 and not metric._is_sample_weighted
    cosine = lm.CosineSimilarity()
    cosine.update(torch.eye(2), torch.eye(2), sample_weight=torch.tensor([2.0, 0.5]))
    assert cosine.total.dtype == torch.float64 and float(cosine.compute()) == 2.5


def test_merge_state_of_a_weighted_and_an_unweighted_metric():
    data = _batches("real", 1, seed=9)
    for make, functional in ((lm.MeanAbsoluteError, F.mean_absolute_error), (lm.R2Score, F.r2_score),
                             (lm.PearsonCorrCoef, F.pearson_corrcoef)):
        weighted, plain = make(), make()
        weighted.update(*data[2][:2], sample_weight=data[2][2])
        plain.update(data[4][0], data[4][1])
        plain.merge_state(weighted)
        preds, target = torch.cat([data[4][0], data[2][0]]), torch.cat([data[4][1], data[2][1]])
        w = torch.cat([torch.ones(data[4][0].shape[0], dtype=torch.float64), data[2][2]])
        _close(plain.compute(), functional(preds, target, sample_weight=w))


def test_collection_members_share_one_weighted_statistic():
    def make():
        return {
            "mse": lm.MeanSquaredError(), "rmse": lm.MeanSquaredError(squared=False), "r2": lm.R2Score(),
            "pearson": lm.PearsonCorrCoef(), "ev": lm.ExplainedVariance(), "ccc": lm.ConcordanceCorrCoef(),
            "nrmse": lm.NormalizedRootMeanSquaredError("range"), "mae": lm.MeanAbsoluteError(),
        }

    collection, singles = MetricCollection(make()), make()
    data = _batches("real", 1, seed=12, offset=1e6)
    for i, (preds, target, w) in enumerate(data):
        if i == 2:
            collection(preds, target, sample_weight=w)  # forward through the shared statistic too
        else:
            collection.update(preds, target, sample_weight=w)
        for metric in singles.values():
            metric.update(preds, target, sample_weight=w)
    moment_groups = [g for g in collection.compute_groups.values() if len(g) > 1]
    assert len(moment_groups) == 1 and len(moment_groups[0]) == 7
    values = collection.compute()
    for key, metric in singles.items():
        torch.testing.assert_close(values[key], metric.compute(), rtol=1e-6, atol=1e-7)
    # the lone metrics (each on its smallest statistic) against the functional forms, at an offset of 1e6
    preds, target, w = _concat(data)
    _close(values["r2"], F.r2_score(preds, target, sample_weight=w))
    _close(values["pearson"], F.pearson_corrcoef(preds, target, sample_weight=w))
    _close(values["ev"], F.explained_variance(preds, target, sample_weight=w))


def test_r2_of_normalised_weights_in_a_collection():
    # a total weight of 1 is no "single sample": the weighted R2 only needs a positive total
    preds, target = case(4, n=20)
    w = torch.full((20,), 0.05, dtype=torch.float64)
    collection = MetricCollection({"mse": lm.MeanSquaredError(), "r2": lm.R2Score()})
    collection.update(preds, target, sample_weight=w)
    _close(collection.compute()["r2"], F.r2_score(preds, target))
    collection.reset()
    collection.update(preds[:1], target[:1])
    with pytest.raises(ValueError, match="at least two samples"):
        collection.compute()


def test_rank_metrics_and_crps_refuse_sample_weight():
    preds, target = case(5, n=10)
    for metric, name in ((lm.SpearmanCorrCoef(), "SpearmanCorrCoef"), (lm.KendallRankCorrCoef(), "KendallRankCorrCoef")):
        with pytest.raises(MetricInputError, match=f"`sample_weight` is not supported by {name}"):
            metric.update(preds, target, sample_weight=torch.ones(10))
        assert metric.preds == []
    with pytest.raises(MetricInputError, match="`sample_weight` is not supported by ContinuousRankedProbabilityScore"):
        lm.ContinuousRankedProbabilityScore().update(preds.reshape(5, 2), target[:5], sample_weight=torch.ones(5))


def test_a_checkpoint_keeps_the_weighted_counts():
    preds, target, w = _batches("real", 1, seed=14)[2]
    for make in (lm.MeanAbsoluteError, lm.CosineSimilarity, lm.MeanSquaredError):
        if make is lm.CosineSimilarity:
            args = (preds.reshape(-1, 2)[:70], target.reshape(-1, 2)[:70], w[:70])
        else:
            args = (preds, target, w)
        metric = make()
        metric.persistent(True)
        metric.update(*args[:2], sample_weight=args[2])
        restored = make()
        restored.persistent(True)
        restored.load_state_dict(metric.state_dict())
        for key, value in metric.metric_state.items():
            assert restored.metric_state[key].dtype == value.dtype, key
        for key in restored._sample_weight_states():
            assert restored.metric_state[key].dtype == torch.float64, key
        torch.testing.assert_close(restored.compute(), metric.compute(), rtol=0, atol=0)


def test_validate_args_false_skips_the_value_check_but_not_the_shape_check():
    preds, target = case(6, n=10)
    w = torch.ones(10, dtype=torch.float64)
    w[2] = -1.0
    for make in (lm.MeanSquaredError, lm.R2Score, lm.MeanAbsoluteError, lm.TweedieDevianceScore):
        metric = make(validate_args=False)
        metric.update(preds, target, sample_weight=w)  # the caller vouches for the weights: no host read
        with pytest.raises(MetricInputError, match="finite, non-negative"):
            make().update(preds, target, sample_weight=w)
        with pytest.raises(MetricInputError, match=r"`sample_weight`.*got shape \(9,\)"):
            metric.update(preds, target, sample_weight=w[:9])
    cosine = lm.CosineSimilarity(validate_args=False)
    cosine.update(preds.reshape(5, 2), target.reshape(5, 2), sample_weight=w[:5])
    torch.testing.assert_close(
        cosine.compute(), F.cosine_similarity(preds.reshape(5, 2), target.reshape(5, 2)) - 2 * F.cosine_similarity(
            preds.reshape(5, 2)[2:3], target.reshape(5, 2)[2:3]
        ),
    )


@settings(max_examples=15, deadline=None)
@given(cuts=st.lists(st.integers(0, 60), max_size=4), seed=st.integers(0, 1000))
def test_any_split_into_batches_equals_one_functional_call(cuts, seed):
    preds, target = case(seed, n=60, dtype=torch.float64)
    w = torch.from_numpy(weights("fractional", 60, seed=seed))
    bounds = [0, *sorted(cuts), 60]
    metrics = {"r2": lm.R2Score(), "pearson": lm.PearsonCorrCoef(), "nrmse": lm.NormalizedRootMeanSquaredError("range"),
               "mae": lm.MeanAbsoluteError(), "ev": lm.ExplainedVariance()}
    collection = MetricCollection({k: type(m)(**({"normalization": "range"} if k == "nrmse" else {}))
                                   for k, m in metrics.items()})
    for a, b in itertools.pairwise(bounds):
        for metric in metrics.values():
            metric.update(preds[a:b], target[a:b], sample_weight=w[a:b])
        collection.update(preds[a:b], target[a:b], sample_weight=w[a:b])
    expected = {
        "r2": F.r2_score(preds, target, sample_weight=w),
        "pearson": F.pearson_corrcoef(preds, target, sample_weight=w),
        "nrmse": F.normalized_root_mean_squared_error(preds, target, "range", sample_weight=w),
        "mae": F.mean_absolute_error(preds, target, sample_weight=w),
        "ev": F.explained_variance(preds, target, sample_weight=w),
    }
    values = collection.compute()
    for key, value in expected.items():
        for got in (metrics[key].compute(), values[key]):
            rtol = 1e-10 if got.dtype == value.dtype else 1e-6  # a float32 result (MAE, as torchmetrics)
            torch.testing.assert_close(got.double(), value.double(), rtol=rtol, atol=1e-7)
