"""Bad input raises an error naming the argument and the value, and leaves the metric state unchanged."""

from __future__ import annotations

import pytest
import torch

import lightning_metrics.functional.regression as lmf
import lightning_metrics.regression as lm

GOOD = (torch.tensor([1.0, 2.0, 3.5]), torch.tensor([1.5, 2.0, 3.0]))
GOOD3 = (torch.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(2, 3) + 0.5)

# (metric factory, good batch, bad batch, exception type, fragments the message must contain)
BAD_UPDATES = [
    (
        lambda: lm.MeanSquaredError(),
        GOOD,
        (torch.zeros(3), torch.zeros(4)),
        RuntimeError,
        ["preds.shape=(3,)", "target.shape=(4,)"],
    ),
    (lambda: lm.R2Score(), GOOD, (torch.zeros(2, 3), torch.zeros(3, 2)), RuntimeError, ["(2, 3)", "(3, 2)"]),
    (
        lambda: lm.PearsonCorrCoef(),
        GOOD,
        (torch.zeros(5, 2), torch.zeros(5, 2)),
        ValueError,
        ["num_outputs=1", "(5, 2)"],
    ),
    (
        lambda: lm.MeanSquaredError(num_outputs=3),
        GOOD3,
        (torch.zeros(4, 2), torch.zeros(4, 2)),
        ValueError,
        ["num_outputs=3", "(4, 2)"],
    ),
    (
        lambda: lm.MeanAbsoluteError(num_outputs=3),
        GOOD3,
        (torch.zeros(4, 2), torch.zeros(4, 2)),
        ValueError,
        ["num_outputs=3", "(4, 2)"],
    ),
    (
        lambda: lm.R2Score(),
        GOOD3,
        (torch.zeros(4, 2), torch.zeros(4, 2)),
        ValueError,
        ["3 output column(s)", "got 2"],
    ),
    (
        lambda: lm.PearsonCorrCoef(),
        GOOD,
        (torch.tensor([1, 2, 3]), torch.tensor([1.0, 2, 3])),
        TypeError,
        ["preds", "torch.int64"],
    ),
    (
        lambda: lm.ConcordanceCorrCoef(),
        GOOD,
        (torch.tensor([1.0, 2, 3]), torch.tensor([1, 2, 3])),
        TypeError,
        ["target", "torch.int64"],
    ),
    (
        lambda: lm.SpearmanCorrCoef(),
        GOOD,
        (torch.tensor([1, 2, 3]), torch.tensor([1.0, 2, 3])),
        TypeError,
        ["preds", "torch.int64"],
    ),
    (
        lambda: lm.MeanSquaredLogError(),
        GOOD,
        (torch.tensor([1.0, -2.0]), torch.tensor([1.0, 2.0])),
        ValueError,
        ["preds", "-2.0"],
    ),
    (
        lambda: lm.MeanSquaredLogError(),
        GOOD,
        (torch.tensor([1.0, 2.0]), torch.tensor([-0.5, 2.0])),
        ValueError,
        ["target", "-0.5"],
    ),
    (
        lambda: lm.KendallRankCorrCoef(),
        GOOD,
        (torch.zeros(3), torch.zeros(2)),
        RuntimeError,
        ["preds.shape=(3,)"],
    ),
    (
        lambda: lm.CosineSimilarity(),
        GOOD3,
        (torch.zeros(3), torch.zeros(3)),
        ValueError,
        ["preds.shape=(3,)"],
    ),
    (
        lambda: lm.KLDivergence(),
        (torch.rand(2, 3), torch.rand(2, 3)),
        (torch.rand(2, 3), torch.rand(2, 4)),
        RuntimeError,
        ["p.shape=(2, 3)", "q.shape=(2, 4)"],
    ),
    (
        lambda: lm.TweedieDevianceScore(power=2),
        (torch.ones(2), torch.ones(2)),
        (torch.tensor([1.0, -1.0]), torch.ones(2)),
        ValueError,
        ["power=2", "preds"],
    ),
    (
        lambda: lm.ContinuousRankedProbabilityScore(),
        (torch.rand(3, 4), torch.rand(3)),
        (torch.rand(3, 1), torch.rand(3)),
        ValueError,
        ["(3, 1)"],
    ),
    (
        lambda: lm.LogCoshError(),
        GOOD,
        (torch.zeros(2, 2), torch.zeros(2, 2)),
        ValueError,
        ["num_outputs=1", "(2, 2)"],
    ),
]


def _snapshot(metric):
    state = {
        k: (v.clone() if isinstance(v, torch.Tensor) else [x.clone() for x in v])
        for k, v in metric.metric_state.items()
    }
    return state, metric.update_count


def _assert_unchanged(metric, snapshot):
    state, count = snapshot
    assert metric.update_count == count
    for name, value in metric.metric_state.items():
        if isinstance(value, torch.Tensor):
            torch.testing.assert_close(value, state[name], equal_nan=True)
        else:
            assert len(value) == len(state[name])


@pytest.mark.parametrize(("factory", "good", "bad", "exc", "fragments"), BAD_UPDATES)
def test_bad_update_raises_and_keeps_state(factory, good, bad, exc, fragments):
    metric = factory()
    metric.update(*good)
    before = _snapshot(metric)
    with pytest.raises(exc) as info:
        metric.update(*bad)
    for fragment in fragments:
        assert fragment in str(info.value), (fragment, str(info.value))
    _assert_unchanged(metric, before)
    with pytest.raises(exc):
        metric(*bad)  # forward too
    _assert_unchanged(metric, before)


@pytest.mark.parametrize(
    ("factory", "fragments"),
    [
        (lambda: lm.R2Score(multioutput="average"), ["multioutput", "'average'"]),
        (lambda: lm.ExplainedVariance(multioutput="mean"), ["multioutput", "'mean'"]),
        (lambda: lm.R2Score(adjusted=-1), ["adjusted", "-1"]),
        (lambda: lm.CosineSimilarity(reduction="max"), ["reduction", "'max'"]),
        (lambda: lm.KLDivergence(reduction="avg"), ["reduction", "'avg'"]),
        (lambda: lm.JensenShannonDivergence(reduction="avg"), ["reduction", "'avg'"]),
        (lambda: lm.MeanSquaredError(num_outputs=0), ["num_outputs", "0"]),
        (lambda: lm.PearsonCorrCoef(num_outputs=1.5), ["num_outputs", "1.5"]),
        (lambda: lm.MeanSquaredError(squared="yes"), ["squared", "'yes'"]),
        (lambda: lm.NormalizedRootMeanSquaredError(normalization="max"), ["normalization", "'max'"]),
        (lambda: lm.MinkowskiDistance(p=0.5), ["`p`", "0.5"]),
        (lambda: lm.TweedieDevianceScore(power=0.5), ["power", "0.5"]),
        (lambda: lm.KendallRankCorrCoef(variant="d"), ["variant", "'d'"]),
        (lambda: lm.KendallRankCorrCoef(t_test=True, alternative=None), ["alternative", "None"]),
        (lambda: lm.KendallRankCorrCoef(t_test=1), ["t_test", "1"]),
    ],
)
def test_bad_arguments(factory, fragments):
    with pytest.raises((ValueError, TypeError)) as info:
        factory()
    for fragment in fragments:
        assert fragment in str(info.value)


def test_functional_bad_inputs():
    x = torch.tensor([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="multioutput.*'avg'"):
        lmf.r2_score(x, x, multioutput="avg")
    with pytest.raises(ValueError, match="reduction.*'avg'"):
        lmf.cosine_similarity(x.reshape(1, 3), x.reshape(1, 3), reduction="avg")
    with pytest.raises(ValueError, match="num_outputs=2"):
        lmf.mean_squared_error(x, x, num_outputs=2)
    with pytest.raises(ValueError, match="non-negative `preds`"):
        lmf.mean_squared_log_error(-x, x)
    with pytest.raises(TypeError, match="preds.dtype=torch.int64"):
        lmf.pearson_corrcoef(x.long(), x)
    with pytest.raises(ValueError, match="at least two samples"):
        lmf.r2_score(x[:1], x[:1])


def test_shared_state_checks_num_outputs_at_compute():
    from lightning_metrics import MetricCollection

    metrics = MetricCollection([lm.MeanSquaredError(), lm.PearsonCorrCoef()])
    metrics.update(torch.rand(8, 2), torch.rand(8, 2))  # MSE leads and accepts (N, 2); Pearson must not
    with pytest.raises(ValueError, match="num_outputs`=1"):
        metrics.compute()
