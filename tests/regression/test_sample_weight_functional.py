"""``sample_weight`` of the functional regression measures against scikit-learn and NumPy's weighted formulas,
and its properties: zero weight == dropped, integer weights == repeated, constant weight == unweighted."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import lightning_metrics.functional.regression as F
from lightning_metrics.utilities.exceptions import MetricInputError
from tests.regression._weighted_cases import WEIGHT_KINDS, case, np64, weights

pytestmark = pytest.mark.filterwarnings("ignore")


def _avg(x, w):
    return np.average(x, weights=w, axis=0)


def _nrmse(t, p, w, normalization):
    rmse = np.sqrt(_avg((t - p) ** 2, w))
    mean = _avg(t, w)
    if normalization == "mean":
        return rmse / mean
    if normalization == "std":
        return rmse / np.sqrt(_avg((t - mean) ** 2, w))
    if normalization == "range":
        kept = t[w > 0]
        return rmse / (kept.max(axis=0) - kept.min(axis=0))
    return rmse / np.sqrt(np.sum(w * t**2, axis=0))


def _pearson(t, p, w):
    c = np.cov(p, t, aweights=w)
    return c[0, 1] / np.sqrt(c[0, 0] * c[1, 1])


def _concordance(t, p, w):
    total = w.sum()
    mx, my = _avg(p, w), _avg(t, w)
    sxy = np.sum(w * (p - mx) * (t - my)) / (total - 1)
    sxx, syy = np.sum(w * (p - mx) ** 2) / (total - 1), np.sum(w * (t - my) ** 2) / (total - 1)
    return 2 * sxy / (sxx + syy + (mx - my) ** 2)


def _rse(t, p, w):
    return np.sum(w * (t - p) ** 2) / np.sum(w * (t - _avg(t, w)) ** 2)


# (name, ours(preds, target, sample_weight), reference(target, preds, weight) on float64 numpy, positive data)
ORACLES = [
    ("mse", lambda p, t, w: F.mean_squared_error(p, t, sample_weight=w), lambda t, p, w: skm.mean_squared_error(t, p, sample_weight=w), False),
    ("rmse", lambda p, t, w: F.mean_squared_error(p, t, squared=False, sample_weight=w), lambda t, p, w: skm.root_mean_squared_error(t, p, sample_weight=w), False),
    ("mae", lambda p, t, w: F.mean_absolute_error(p, t, sample_weight=w), lambda t, p, w: skm.mean_absolute_error(t, p, sample_weight=w), False),
    ("mape", lambda p, t, w: F.mean_absolute_percentage_error(p, t, sample_weight=w), lambda t, p, w: skm.mean_absolute_percentage_error(t, p, sample_weight=w), True),
    ("smape", lambda p, t, w: F.symmetric_mean_absolute_percentage_error(p, t, sample_weight=w), lambda t, p, w: _avg(2 * np.abs(p - t) / (np.abs(t) + np.abs(p)), w), True),
    ("wmape", lambda p, t, w: F.weighted_mean_absolute_percentage_error(p, t, sample_weight=w), lambda t, p, w: np.sum(w * np.abs(p - t)) / np.sum(w * np.abs(t)), True),
    ("msle", lambda p, t, w: F.mean_squared_log_error(p, t, sample_weight=w), lambda t, p, w: skm.mean_squared_log_error(t, p, sample_weight=w), True),
    ("log_cosh", lambda p, t, w: F.log_cosh_error(p, t, sample_weight=w), lambda t, p, w: _avg(np.log(np.cosh(p - t)), w), False),
    ("minkowski", lambda p, t, w: F.minkowski_distance(p, t, 3, sample_weight=w), lambda t, p, w: np.sum(w * np.abs(p - t) ** 3) ** (1 / 3), False),
    ("tweedie0", lambda p, t, w: F.tweedie_deviance_score(p, t, 0.0, sample_weight=w), lambda t, p, w: skm.mean_tweedie_deviance(t, p, power=0, sample_weight=w), False),
    ("tweedie1", lambda p, t, w: F.tweedie_deviance_score(p, t, 1.0, sample_weight=w), lambda t, p, w: skm.mean_tweedie_deviance(t, p, power=1, sample_weight=w), True),
    ("tweedie1.5", lambda p, t, w: F.tweedie_deviance_score(p, t, 1.5, sample_weight=w), lambda t, p, w: skm.mean_tweedie_deviance(t, p, power=1.5, sample_weight=w), True),
    ("tweedie2", lambda p, t, w: F.tweedie_deviance_score(p, t, 2.0, sample_weight=w), lambda t, p, w: skm.mean_tweedie_deviance(t, p, power=2, sample_weight=w), True),
    ("tweedie3", lambda p, t, w: F.tweedie_deviance_score(p, t, 3.0, sample_weight=w), lambda t, p, w: skm.mean_tweedie_deviance(t, p, power=3, sample_weight=w), True),
    ("r2", lambda p, t, w: F.r2_score(p, t, sample_weight=w), lambda t, p, w: skm.r2_score(t, p, sample_weight=w), False),
    ("r2_adjusted", lambda p, t, w: F.r2_score(p, t, adjusted=3, sample_weight=w), lambda t, p, w: 1 - (1 - skm.r2_score(t, p, sample_weight=w)) * (w.sum() - 1) / (w.sum() - 4), False),
    ("explained_variance", lambda p, t, w: F.explained_variance(p, t, sample_weight=w), lambda t, p, w: skm.explained_variance_score(t, p, sample_weight=w), False),
    ("rse", lambda p, t, w: F.relative_squared_error(p, t, sample_weight=w), _rse, False),
    ("pearson", lambda p, t, w: F.pearson_corrcoef(p, t, sample_weight=w), _pearson, False),
    ("concordance", lambda p, t, w: F.concordance_corrcoef(p, t, sample_weight=w), _concordance, False),
    *[
        (f"nrmse_{norm}", lambda p, t, w, norm=norm: F.normalized_root_mean_squared_error(p, t, norm, sample_weight=w),
         lambda t, p, w, norm=norm: _nrmse(t, p, w, norm), False)
        for norm in ("mean", "range", "std", "l2")
    ],
]
SCALE_FREE = {"mse", "rmse", "mae", "mape", "smape", "wmape", "msle", "log_cosh", "tweedie0", "tweedie1",
              "tweedie1.5", "tweedie2", "tweedie3", "r2", "explained_variance", "rse", "pearson",
              "nrmse_mean", "nrmse_range", "nrmse_std"}


def _ids(rows):
    return [r[0] for r in rows]


@pytest.mark.parametrize(("name", "ours", "reference", "positive"), ORACLES, ids=_ids(ORACLES))
@pytest.mark.parametrize("kind", WEIGHT_KINDS)
def test_matches_the_weighted_reference(name, ours, reference, positive, kind):
    preds, target = case(seed=len(name), positive=positive)
    w = weights(kind, preds.shape[0], seed=7)
    expected = reference(np64(target), np64(preds), w)
    for weight in (torch.from_numpy(w), torch.from_numpy(w).float(), w.tolist()):
        value = ours(preds, target, weight)
        assert value.dtype == torch.float32
        np.testing.assert_allclose(value.double().numpy(), expected, rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("multioutput", ["raw_values", "uniform_average", "variance_weighted"])
def test_multioutput_r2_and_explained_variance_weigh_samples_over_outputs(multioutput):
    preds, target = case(seed=3, outputs=3)
    w = weights("fractional", preds.shape[0], seed=4)
    t, p = np64(target), np64(preds)
    for ours, ref in ((F.r2_score, skm.r2_score), (F.explained_variance, skm.explained_variance_score)):
        value = ours(preds, target, multioutput=multioutput, sample_weight=torch.from_numpy(w))
        np.testing.assert_allclose(value.double().numpy(), ref(t, p, sample_weight=w, multioutput=multioutput), rtol=2e-5)


def test_per_output_errors_take_one_weight_per_sample():
    preds, target = case(seed=5, outputs=2)
    w = weights("integer", preds.shape[0], seed=6)
    t, p = np64(target), np64(preds)
    mae = F.mean_absolute_error(preds, target, num_outputs=2, sample_weight=torch.from_numpy(w))
    np.testing.assert_allclose(mae.double().numpy(), skm.mean_absolute_error(t, p, sample_weight=w, multioutput="raw_values"), rtol=1e-5)
    mse = F.mean_squared_error(preds, target, num_outputs=2, sample_weight=torch.from_numpy(w))
    np.testing.assert_allclose(mse.double().numpy(), skm.mean_squared_error(t, p, sample_weight=w, multioutput="raw_values"), rtol=1e-5)
    # one output over (N, 2) inputs pools every element, each weighed by its sample's weight
    pooled = F.mean_squared_error(preds, target, sample_weight=torch.from_numpy(w))
    np.testing.assert_allclose(float(pooled), np.average((t - p) ** 2, weights=np.repeat(w[:, None], 2, 1)), rtol=1e-5)
    full = torch.from_numpy(np.stack([w, 2 * w], 1))  # a weight per element, where the outputs are pooled
    np.testing.assert_allclose(
        float(F.mean_squared_error(preds, target, sample_weight=full)),
        np.average((t - p) ** 2, weights=full.numpy()), rtol=1e-5,
    )
    with pytest.raises(MetricInputError, match=r"`sample_weight` must hold one weight per sample.*\(300, 2\)"):
        F.mean_absolute_error(preds, target, num_outputs=2, sample_weight=full)


def test_large_offsets_keep_their_digits():
    preds, target = case(seed=11, n=500, offset=1e6, dtype=torch.float64)
    w = weights("fractional", 500, seed=12)
    t, p = np64(target), np64(preds)
    weight = torch.from_numpy(w)
    # the references on data moved back by the offset (exact in float64): no cancellation there
    t0, p0 = t - 1e6, p - 1e6
    np.testing.assert_allclose(float(F.r2_score(preds, target, sample_weight=weight)), skm.r2_score(t0, p0, sample_weight=w), rtol=1e-10)
    np.testing.assert_allclose(
        float(F.explained_variance(preds, target, sample_weight=weight)), skm.explained_variance_score(t0, p0, sample_weight=w), rtol=1e-10
    )
    np.testing.assert_allclose(float(F.pearson_corrcoef(preds, target, sample_weight=weight)), _pearson(t0, p0, w), rtol=1e-10)
    np.testing.assert_allclose(float(F.concordance_corrcoef(preds, target, sample_weight=weight)), _concordance(t0, p0, w), rtol=1e-10)
    np.testing.assert_allclose(
        float(F.normalized_root_mean_squared_error(preds, target, "std", sample_weight=weight)), _nrmse(t0, p0, w, "std"), rtol=1e-10
    )


@pytest.mark.parametrize(("name", "ours", "reference", "positive"), ORACLES, ids=_ids(ORACLES))
def test_zero_weight_drops_and_integer_weight_repeats(name, ours, reference, positive):
    preds, target = case(seed=20 + len(name), n=120, positive=positive, dtype=torch.float64)
    w = torch.from_numpy(weights("integer", 120, seed=21))
    kept = w > 0
    weighted = ours(preds, target, w)
    repeated = ours(preds.repeat_interleave(w.long()), target.repeat_interleave(w.long()), None)
    dropped = ours(preds[kept], target[kept], w[kept])
    torch.testing.assert_close(weighted, repeated, rtol=1e-10, atol=1e-12)
    torch.testing.assert_close(weighted, dropped, rtol=1e-10, atol=1e-12)
    ones = ours(preds, target, torch.ones(120))
    torch.testing.assert_close(ones, ours(preds, target, None), rtol=1e-12, atol=1e-12)
    if name in SCALE_FREE:
        torch.testing.assert_close(ours(preds, target, 2.5), ours(preds, target, None), rtol=1e-10, atol=1e-12)


def _rows(seed, n=200):
    rng = np.random.default_rng(seed)
    p = torch.from_numpy(rng.uniform(0.05, 1.0, (n, 4)))
    return p, torch.from_numpy(rng.uniform(0.05, 1.0, (n, 4)))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_row_measures_weigh_rows(reduction):
    p, q = _rows(30)
    w = weights("fractional", 200, seed=31)
    a, b = p.numpy(), q.numpy()
    cos = np.sum(a * b, 1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    pn, qn = a / a.sum(1, keepdims=True), b / b.sum(1, keepdims=True)
    kl = np.sum(pn * np.log(pn / qn), 1)
    mix = (pn + qn) / 2
    js = 0.5 * np.sum(pn * np.log(pn / mix), 1) + 0.5 * np.sum(qn * np.log(qn / mix), 1)
    reduce = {"mean": lambda s: np.sum(w * s) / w.sum(), "sum": lambda s: np.sum(w * s), "none": lambda s: w * s}[reduction]
    weight = torch.from_numpy(w)
    np.testing.assert_allclose(F.cosine_similarity(p, q, reduction, sample_weight=weight).double().numpy(), reduce(cos), rtol=1e-5)
    np.testing.assert_allclose(F.kl_divergence(p, q, reduction=reduction, sample_weight=weight).numpy(), reduce(kl), rtol=1e-9)
    np.testing.assert_allclose(F.jensen_shannon_divergence(p, q, reduction=reduction, sample_weight=weight).numpy(), reduce(js), rtol=1e-9)


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf")])
def test_bad_weights_raise_naming_the_argument(bad):
    preds, target = case(seed=40, n=10)
    w = torch.ones(10)
    w[3] = bad
    for fn in (F.mean_squared_error, F.mean_absolute_error, F.r2_score, F.pearson_corrcoef, F.tweedie_deviance_score,
               F.mean_absolute_percentage_error, F.log_cosh_error):
        with pytest.raises(MetricInputError, match=r"`sample_weight` must hold finite, non-negative weights.* at index 3"):
            fn(preds, target, sample_weight=w)
    with pytest.raises(MetricInputError, match=r"`sample_weight` must hold finite, non-negative weights"):
        F.cosine_similarity(preds.reshape(5, 2), target.reshape(5, 2), sample_weight=w[:5].flip(0))


def test_wrong_weight_shape_names_both_shapes():
    preds, target = case(seed=41, n=10)
    with pytest.raises(MetricInputError, match=r"`sample_weight`.*target's shape \(10,\), got shape \(9,\)"):
        F.mean_squared_error(preds, target, sample_weight=torch.ones(9))
    with pytest.raises(MetricInputError, match=r"`sample_weight`.*got shape \(10, 2\)"):
        F.r2_score(preds, target, sample_weight=torch.ones(10, 2))


def test_rank_correlations_refuse_sample_weight():
    preds, target = case(seed=42, n=10)
    for fn, name in ((F.spearman_corrcoef, "spearman_corrcoef"), (F.kendall_rank_corrcoef, "kendall_rank_corrcoef")):
        with pytest.raises(MetricInputError, match=f"`sample_weight` is not supported by {name}: a rank correlation"):
            fn(preds, target, sample_weight=torch.ones(10))
        assert fn(preds, target, sample_weight=None).shape == ()


def test_r2_needs_a_positive_total_weight():
    preds, target = case(seed=43, n=10)
    with pytest.raises(ValueError, match="positive total `sample_weight`, got 0.0"):
        F.r2_score(preds, target, sample_weight=torch.zeros(10))
    # normalised weights (a total of 1) are fine
    w = torch.full((10,), 0.1, dtype=torch.float64)
    torch.testing.assert_close(F.r2_score(preds, target, sample_weight=w), F.r2_score(preds, target))


@settings(max_examples=20, deadline=None)
@given(
    values=st.lists(st.tuples(st.integers(-20, 20), st.integers(-20, 20), st.integers(0, 3)), min_size=3, max_size=40),
    scale=st.sampled_from([0.25, 1.0, 7.0]),
)
def test_integer_weights_repeat_samples_and_a_constant_changes_nothing(values, scale):
    preds = torch.tensor([float(p) for p, _, _ in values], dtype=torch.float64) / 4
    target = torch.tensor([float(t) for _, t, _ in values], dtype=torch.float64) / 4
    w = torch.tensor([float(k) for _, _, k in values], dtype=torch.float64)
    repeats = w.long()
    if int(repeats.sum()) < 3:
        return
    rp, rt = preds.repeat_interleave(repeats), target.repeat_interleave(repeats)
    for fn in (F.mean_squared_error, F.mean_absolute_error, F.log_cosh_error, F.explained_variance):
        torch.testing.assert_close(fn(preds, target, sample_weight=w), fn(rp, rt), rtol=1e-9, atol=1e-12)
        torch.testing.assert_close(fn(preds, target, sample_weight=w * scale), fn(rp, rt), rtol=1e-9, atol=1e-12)
    if float(rt.var()) > 0:  # a constant target: R2 and the correlations are degenerate
        torch.testing.assert_close(F.r2_score(preds, target, sample_weight=w * scale), F.r2_score(rp, rt), rtol=1e-9, atol=1e-12)
        torch.testing.assert_close(
            F.concordance_corrcoef(preds, target, sample_weight=w), F.concordance_corrcoef(rp, rt), rtol=1e-9, atol=1e-12,
            equal_nan=True,
        )
