"""Sharing of the moment statistic inside a MetricCollection, and parity with scikit-learn / SciPy."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
import sklearn.metrics as skm
import torch

import lightning_metrics.functional.regression as lmf
import lightning_metrics.regression as lm
from lightning_metrics import MetricCollection
from lightning_metrics.functional.regression import _statistics as st
from tests.regression._cases import batches, concat

pytestmark = pytest.mark.filterwarnings("ignore")


def test_collection_updates_the_moments_once_per_batch():
    make = lambda: {
        "mse": lm.MeanSquaredError(),
        "rmse": lm.MeanSquaredError(squared=False),
        "r2": lm.R2Score(),
        "pearson": lm.PearsonCorrCoef(),
        "ev": lm.ExplainedVariance(),
        "ccc": lm.ConcordanceCorrCoef(),
        "nrmse": lm.NormalizedRootMeanSquaredError(),
        "rse": lm.RelativeSquaredError(),
    }
    collection = MetricCollection(make())
    assert len(collection.compute_groups) == 1
    calls = []
    data = batches("real", 1, seed=9)
    singles = make()

    def counted(statistic):
        return statistic._replace(update=lambda *a, **k: calls.append(1) or statistic.update(*a, **k))

    for metric in [*collection.values(), *singles.values()]:
        if metric._statistic is st.MOMENTS:
            metric._statistic = counted(metric._statistic)
    for preds, target in data:
        collection.update(preds, target)
        for metric in singles.values():
            metric.update(preds, target)
    # once per batch for the whole collection, and once for each lone metric that needs the moments
    # (alone, MSE, R2, RSE, explained variance and NRMSE by the mean keep smaller statistics)
    alone_on_moments = sum(m.statistic_spec[0] == "regression_moments" for m in singles.values())
    assert alone_on_moments == 2
    assert len(calls) == len(data) * (1 + alone_on_moments)
    shared = collection.compute()
    for name, metric in singles.items():
        torch.testing.assert_close(shared[name], metric.compute())
    forward_values = collection(*data[2])
    assert set(forward_values) == set(singles)


def test_multioutput_metrics_share_by_width():
    collection = MetricCollection(
        [
            lm.MeanSquaredError(num_outputs=3),
            lm.PearsonCorrCoef(num_outputs=3),
            lm.R2Score(multioutput="raw_values"),
        ]
    )
    groups = sorted(len(g) for g in collection.compute_groups.values())
    assert groups == [1, 2]  # R2 infers its width (starts at 1), the other two are declared 3-wide
    preds, target = concat(batches("real", 3, seed=4))
    collection.update(preds, target)
    out = collection.compute()
    torch.testing.assert_close(out["R2Score"], lmf.r2_score(preds, target, multioutput="raw_values"))
    torch.testing.assert_close(out["PearsonCorrCoef"], lmf.pearson_corrcoef(preds, target))


@pytest.mark.parametrize("outputs", [1, 3])
def test_matches_sklearn(outputs):
    preds, target = concat(batches("positive", outputs, seed=21))
    p, t = preds.double(), target.double()
    pn, tn = p.numpy(), t.numpy()
    multi = "raw_values" if outputs > 1 else "uniform_average"
    checks = [
        (lmf.r2_score(p, t, multioutput=multi), skm.r2_score(tn, pn, multioutput=multi)),
        (
            lmf.explained_variance(p, t, multioutput=multi),
            skm.explained_variance_score(tn, pn, multioutput=multi),
        ),
        (
            lmf.mean_squared_error(p, t, num_outputs=outputs),
            skm.mean_squared_error(tn, pn, multioutput=multi),
        ),
        (
            lmf.mean_absolute_error(p, t, num_outputs=outputs),
            skm.mean_absolute_error(tn, pn, multioutput=multi),
        ),
        (lmf.mean_squared_log_error(p, t), skm.mean_squared_log_error(tn.ravel(), pn.ravel())),
        (
            lmf.mean_absolute_percentage_error(p, t),
            skm.mean_absolute_percentage_error(tn.ravel(), pn.ravel()),
        ),
        (
            lmf.tweedie_deviance_score(p, t, power=1.5),
            skm.mean_tweedie_deviance(tn.ravel(), pn.ravel(), power=1.5),
        ),
        (
            lmf.tweedie_deviance_score(p, t, power=-1.0),
            skm.mean_tweedie_deviance(tn.ravel(), pn.ravel(), power=-1.0),
        ),
    ]
    for ours, expected in checks:
        np.testing.assert_allclose(ours.numpy(), expected, rtol=1e-10)


@pytest.mark.parametrize("kind", ["real", "ties"])
def test_matches_scipy(kind):
    preds, target = concat(batches(kind, 3, seed=33))
    p, t = preds.double(), target.double()
    for col in range(3):
        pn, tn = p[:, col].numpy(), t[:, col].numpy()
        np.testing.assert_allclose(
            lmf.pearson_corrcoef(p, t)[col], scipy.stats.pearsonr(pn, tn)[0], rtol=1e-10
        )
        rho = scipy.stats.spearmanr(pn, tn)[0]
        np.testing.assert_allclose(lmf.spearman_corrcoef(p, t)[col], rho, rtol=1e-5)
        for variant in ("b", "c"):
            tau, p_value = lmf.kendall_rank_corrcoef(p, t, variant=variant, t_test=True)
            ref = scipy.stats.kendalltau(pn, tn, variant=variant, method="asymptotic")
            np.testing.assert_allclose(tau[col], ref.statistic, rtol=1e-5)
            if variant == "b":
                np.testing.assert_allclose(p_value[col], ref.pvalue, rtol=1e-4, atol=1e-7)
