"""Table-driven parity with torchmetrics 1.9 (values, dtypes, shapes), modular and functional.

Modular metrics are fed batches of varied sizes (including batches of one) through ``forward`` and
compared batch by batch and at the end; functional forms are compared on the concatenated data.
"""

from __future__ import annotations

import math

import pytest
import torch
import torchmetrics
import torchmetrics.functional.regression as tmf

import lightning_metrics.functional.regression as lmf
import lightning_metrics.regression as lm
from tests.regression._cases import batches, concat

pytestmark = pytest.mark.filterwarnings("ignore")

# (class name, functional name, constructor kwargs, functional kwargs, data kind, outputs, num_outputs argument)
CASES = [
    ("MeanSquaredError", "mean_squared_error", {}, {}, "real", (1, 3), True),
    ("MeanSquaredError", "mean_squared_error", {"squared": False}, {"squared": False}, "real", (1, 3), True),
    ("MeanAbsoluteError", "mean_absolute_error", {}, {}, "real", (1, 3), True),
    ("MeanSquaredLogError", "mean_squared_log_error", {}, {}, "positive", (1, 3), False),
    ("LogCoshError", "log_cosh_error", {}, {}, "real", (1, 3), True),
    ("MinkowskiDistance", "minkowski_distance", {"p": 3}, {"p": 3}, "real", (1, 3), False),
    ("MinkowskiDistance", "minkowski_distance", {"p": 1.5}, {"p": 1.5}, "real", (1,), False),
    *[
        (
            "NormalizedRootMeanSquaredError",
            "normalized_root_mean_squared_error",
            {"normalization": n},
            {"normalization": n},
            "real",
            (1, 3),
            True,
        )
        for n in ("mean", "range", "std", "l2")
    ],
    ("MeanAbsolutePercentageError", "mean_absolute_percentage_error", {}, {}, "positive", (1, 3), False),
    (
        "SymmetricMeanAbsolutePercentageError",
        "symmetric_mean_absolute_percentage_error",
        {},
        {},
        "positive",
        (1, 3),
        False,
    ),
    (
        "WeightedMeanAbsolutePercentageError",
        "weighted_mean_absolute_percentage_error",
        {},
        {},
        "positive",
        (1, 3),
        False,
    ),
    *[
        ("R2Score", "r2_score", kw, kw, "real", (1, 3), False)
        for kw in ({}, {"adjusted": 2}, {"multioutput": "raw_values"}, {"multioutput": "variance_weighted"})
    ],
    *[
        ("ExplainedVariance", "explained_variance", kw, kw, "real", (1, 3), False)
        for kw in ({}, {"multioutput": "raw_values"}, {"multioutput": "variance_weighted"})
    ],
    ("RelativeSquaredError", "relative_squared_error", {}, {}, "real", (1, 3), True),
    (
        "RelativeSquaredError",
        "relative_squared_error",
        {"squared": False},
        {"squared": False},
        "real",
        (1, 3),
        True,
    ),
    ("PearsonCorrCoef", "pearson_corrcoef", {}, {}, "real", (1, 3), True),
    ("ConcordanceCorrCoef", "concordance_corrcoef", {}, {}, "real", (1, 3), True),
    ("SpearmanCorrCoef", "spearman_corrcoef", {}, {}, "real", (1, 3), True),
    ("SpearmanCorrCoef", "spearman_corrcoef", {}, {}, "ties", (1, 3), True),
    *[
        ("KendallRankCorrCoef", "kendall_rank_corrcoef", {"variant": v}, {"variant": v}, kind, (1, 3), True)
        for v in ("a", "b", "c")
        for kind in ("real", "ties")
    ],
    *[
        (
            "KendallRankCorrCoef",
            "kendall_rank_corrcoef",
            {"variant": v, "t_test": True, "alternative": alt},
            {"variant": v, "t_test": True, "alternative": alt},
            "ties",
            (1, 3),
            True,
        )
        for v, alt in (("a", "two-sided"), ("b", "less"), ("c", "greater"), ("b", "two-sided"))
    ],
    *[
        ("CosineSimilarity", "cosine_similarity", {"reduction": r}, {"reduction": r}, "rows", (1,), False)
        for r in ("sum", "mean", "none")
    ],
    *[
        (
            cls,
            fn,
            {"log_prob": lp, "reduction": r},
            {"log_prob": lp, "reduction": r},
            "logprob" if lp else "prob",
            (1,),
            False,
        )
        for cls, fn in (
            ("KLDivergence", "kl_divergence"),
            ("JensenShannonDivergence", "jensen_shannon_divergence"),
        )
        for lp in (False, True)
        for r in ("mean", "sum", "none")
    ],
    *[
        (
            "TweedieDevianceScore",
            "tweedie_deviance_score",
            {"power": p},
            {"power": p},
            "positive",
            (1, 3),
            False,
        )
        for p in (0.0, 1.0, 1.5, 2.0, 3.0, -1.0)
    ],
    (
        "CriticalSuccessIndex",
        "critical_success_index",
        {"threshold": 2.0},
        {"threshold": 2.0},
        "real",
        (1, 3),
        False,
    ),
    (
        "CriticalSuccessIndex",
        "critical_success_index",
        {"threshold": 2.0, "keep_sequence_dim": 1},
        {"threshold": 2.0, "keep_sequence_dim": 1},
        "real",
        (3,),
        False,
    ),
    (
        "ContinuousRankedProbabilityScore",
        "continuous_ranked_probability_score",
        {},
        {},
        "ensemble",
        (1,),
        False,
    ),
]

PARAMS = [
    pytest.param(cls, fn, ckw, fkw, kind, outputs, has_num_outputs, id=f"{cls}-{i}-{outputs}out")
    for i, (cls, fn, ckw, fkw, kind, outs, has_num_outputs) in enumerate(CASES)
    for outputs in outs
]


def assert_same(ours, theirs, atol: float = 1e-6) -> None:
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert_same(
                a, b, atol=max(atol, 1e-5)
            )  # p-values: torchmetrics' float32 cdf is coarse in the tails
        return
    assert ours.shape == theirs.shape, (ours.shape, theirs.shape)
    assert ours.dtype == theirs.dtype, (ours.dtype, theirs.dtype)
    torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=atol, equal_nan=True)


def _outcome(fn, *args):
    try:
        return fn(*args), None
    except Exception as err:  # noqa: BLE001 - both libraries must reject the same batches
        return None, err


@pytest.mark.parametrize(("cls", "fn", "ckw", "fkw", "kind", "outputs", "has_num_outputs"), PARAMS)
def test_modular_matches_torchmetrics(cls, fn, ckw, fkw, kind, outputs, has_num_outputs):
    kwargs = dict(ckw, **({"num_outputs": outputs} if has_num_outputs else {}))
    ours, theirs = getattr(lm, cls)(**kwargs), getattr(torchmetrics.regression, cls)(**kwargs)
    data = batches(kind, outputs, seed=outputs * 7 + len(cls))
    for preds, target in data:
        # the batch value from a fresh torchmetrics metric (its forward loses the state when compute raises)
        expected, their_err = _outcome(getattr(torchmetrics.regression, cls)(**kwargs), preds, target)
        got, our_err = _outcome(ours, preds, target)
        theirs.update(preds, target)
        if their_err is not None:  # e.g. R2 on a batch of one
            assert our_err is not None, f"torchmetrics raised {their_err!r}, we returned {got}"
            ours.update(preds, target)  # our forward rolled the batch back: accumulate it
            continue
        assert our_err is None, our_err
        assert_same(got, expected)
    assert_same(ours.compute(), theirs.compute())


@pytest.mark.parametrize(("cls", "fn", "ckw", "fkw", "kind", "outputs", "has_num_outputs"), PARAMS)
def test_functional_matches_torchmetrics(cls, fn, ckw, fkw, kind, outputs, has_num_outputs):
    if cls == "CriticalSuccessIndex" or fn in (
        "mean_squared_error",
        "mean_absolute_error",
        "normalized_root_mean_squared_error",
    ):
        fkw = dict(fkw, **({"num_outputs": outputs} if has_num_outputs else {}))
    preds, target = concat(batches(kind, outputs, seed=outputs * 11 + len(fn)))
    for p, t in ((preds, target), (preds.double(), target.double())):
        assert_same(getattr(lmf, fn)(p, t, **fkw), getattr(tmf, fn)(p, t, **fkw))


@pytest.mark.parametrize("outputs", [1, 3])
def test_float64_inputs_keep_torchmetrics_dtypes(outputs):
    data = [(p.double(), t.double()) for p, t in batches("real", outputs, seed=3)]
    cases = [
        ("MeanSquaredError", {}),
        ("R2Score", {}),
        ("PearsonCorrCoef", {}),
        ("ExplainedVariance", {}),
        ("ConcordanceCorrCoef", {}),
        ("RelativeSquaredError", {}),
        ("KendallRankCorrCoef", {"variant": "c"}),
        *[("NormalizedRootMeanSquaredError", {"normalization": n}) for n in ("mean", "range", "std", "l2")],
    ]
    for cls, kwargs in cases:
        if cls not in ("R2Score", "ExplainedVariance"):
            kwargs = dict(kwargs, num_outputs=outputs)
        ours, theirs = getattr(lm, cls)(**kwargs), getattr(torchmetrics.regression, cls)(**kwargs)
        for p, t in data:
            ours.update(p, t)
            theirs.update(p, t)
        assert_same(ours.compute(), theirs.compute())


def test_single_column_2d_inputs():
    preds, target = concat(batches("real", 1, seed=5))
    p2, t2 = preds.unsqueeze(1), target.unsqueeze(1)
    for fn in (
        "r2_score",
        "explained_variance",
        "pearson_corrcoef",
        "concordance_corrcoef",
        "spearman_corrcoef",
    ):
        kw = {"multioutput": "raw_values"} if fn in ("r2_score", "explained_variance") else {}
        assert_same(getattr(lmf, fn)(p2, t2, **kw), getattr(tmf, fn)(p2, t2, **kw))


def test_edge_cases_match():
    const = torch.full((6,), 3.0)
    x = torch.arange(6.0)
    # constant target: R2 0, explained variance 0, Pearson NaN; perfect fit: R2 1
    assert_same(lmf.r2_score(x, const), tmf.r2_score(x, const))
    assert_same(lmf.r2_score(x, x), tmf.r2_score(x, x))
    assert_same(lmf.explained_variance(x, const), tmf.explained_variance(x, const))
    assert_same(lmf.pearson_corrcoef(x, const), tmf.pearson_corrcoef(x, const))
    assert_same(lmf.concordance_corrcoef(const, const), tmf.concordance_corrcoef(const, const))
    assert_same(lmf.mean_squared_log_error(x, x), tmf.mean_squared_log_error(x, x))
    zero = torch.zeros(4)
    assert_same(
        lmf.weighted_mean_absolute_percentage_error(zero, zero),
        tmf.weighted_mean_absolute_percentage_error(zero, zero),
    )
    assert_same(lmf.critical_success_index(zero, zero, 0.5), tmf.critical_success_index(zero, zero, 0.5))
    big = torch.tensor([0.0, 200.0])  # log-cosh of a large error: torchmetrics overflows to inf in exp
    # log cosh(400) = 400 - log 2 + log1p(e^-800), the last term far below float32's resolution
    assert lmf.log_cosh_error(big, -big).item() == pytest.approx((400 - math.log(2)) / 2, rel=1e-7)
    tiny = torch.tensor([1e-4, -3e-4])  # log cosh(d) = d^2 / 2 - d^4 / 12 + ...: no cancellation left
    expected = sum(float(d) ** 2 / 2 - float(d) ** 4 / 12 for d in tiny) / 2
    assert lmf.log_cosh_error(tiny, torch.zeros(2)).item() == pytest.approx(expected, rel=1e-6)
