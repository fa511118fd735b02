"""The float64 Chan-merged moments: merging equals one pass, streaming equals one batch, and accuracy far
from zero (targets ~ 1e6 + N(0, 1)) where float32 running sums fail."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
import torchmetrics
from hypothesis import given, settings
from hypothesis import strategies as st

import lightning_metrics.regression as lm
from lightning_metrics import MetricCollection
from lightning_metrics.functional.regression import _moments as mo


def test_merge_of_parts_equals_whole():
    gen = torch.Generator().manual_seed(0)
    x, y = torch.randn(100, 3, generator=gen), torch.randn(100, 3, generator=gen)
    whole = mo.batch_moments(x, y)
    parts = [mo.batch_moments(x[a:b], y[a:b]) for a, b in ((0, 1), (1, 40), (40, 40), (40, 100))]
    torch.testing.assert_close(mo.merge_moments(torch.stack(parts)), whole, rtol=1e-12, atol=1e-12)
    pooled = mo.batch_moments(x.reshape(-1, 1), y.reshape(-1, 1))
    # pooling columns equals flattening the input (up to the order of the extremes' bookkeeping)
    torch.testing.assert_close(mo.pool_columns(whole), pooled, rtol=1e-12, atol=1e-12)


def test_empty_states_are_neutral_and_widen():
    x = torch.tensor([[1.0, 2.0], [3.0, 5.0]])
    m = mo.batch_moments(x, x + 1)
    torch.testing.assert_close(mo.merge_pair(mo.empty_moments(1), m), m)
    torch.testing.assert_close(mo.merge_pair(m, mo.empty_moments(2)), m)
    padded = torch.zeros_like(m)  # a zero-padded rank (count 0) must not disturb min/max
    torch.testing.assert_close(mo.merge_moments(torch.stack([m, padded])), m)


MOMENT_CLASSES = [
    (lm.MeanSquaredError, {}),
    (lm.R2Score, {}),
    (lm.PearsonCorrCoef, {}),
    (lm.ExplainedVariance, {}),
    (lm.ConcordanceCorrCoef, {}),
    (lm.NormalizedRootMeanSquaredError, {"normalization": "std"}),
    (lm.RelativeSquaredError, {}),
]


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    sizes=st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=6),
    offset=st.sampled_from([0.0, 1e3, 1e6]),
    seed=st.integers(min_value=0, max_value=2**16),
)
def test_streaming_equals_one_batch(sizes, offset, seed):
    gen = torch.Generator().manual_seed(seed)
    n = sum(sizes) + 2
    target = offset + torch.randn(n, generator=gen, dtype=torch.float64)
    preds = target + 0.3 * torch.randn(n, generator=gen, dtype=torch.float64)
    bounds = np.cumsum([0, 2, *sizes])
    for cls, kwargs in MOMENT_CLASSES:
        streamed, whole = cls(**kwargs), cls(**kwargs)
        for a, b in itertools.pairwise(bounds):
            streamed.update(preds[a:b], target[a:b])
        whole.update(preds, target)
        torch.testing.assert_close(streamed.compute(), whole.compute(), rtol=1e-9, atol=1e-12)
        # merge_state of two halves equals the whole as well
        left, right = cls(**kwargs), cls(**kwargs)
        left.update(preds[: n // 2], target[: n // 2])
        right.update(preds[n // 2 :], target[n // 2 :])
        left.merge_state(right)
        torch.testing.assert_close(left.compute(), whole.compute(), rtol=1e-9, atol=1e-12)


def _reference(preds: np.ndarray, target: np.ndarray) -> dict[str, float]:
    p, t = preds.astype(np.float64), target.astype(np.float64)
    resid = t - p
    tc, pc = t - t.mean(), p - p.mean()
    var_t, var_p = (tc**2).sum() / (len(t) - 1), (pc**2).sum() / (len(p) - 1)
    cov = (tc * pc).sum() / (len(t) - 1)
    pearson = cov / np.sqrt(var_t * var_p)
    return {
        "r2": 1 - (resid**2).sum() / (tc**2).sum(),
        "pearson": pearson,
        "explained_variance": 1 - ((resid - resid.mean()) ** 2).sum() / (tc**2).sum(),
        "concordance": 2 * pearson * np.sqrt(var_t * var_p) / (var_t + var_p + (p.mean() - t.mean()) ** 2),
    }


@pytest.mark.filterwarnings("ignore")
def test_stability_at_large_offset(capsys):
    """1e6 samples of 1e6 + N(0, 1) as float32 batches of 1,000: within 1e-6 of float64 NumPy."""
    gen = torch.Generator().manual_seed(1234)
    n, batch = 1_000_000, 1_000
    target64 = 1e6 + torch.randn(n, generator=gen, dtype=torch.float64)
    preds = (target64 + 0.1 * torch.randn(n, generator=gen, dtype=torch.float64)).float()
    target = target64.float()
    ref = _reference(preds.numpy(), target.numpy())

    names = {
        "r2": "R2Score",
        "pearson": "PearsonCorrCoef",
        "explained_variance": "ExplainedVariance",
        "concordance": "ConcordanceCorrCoef",
    }
    ours = MetricCollection({k: getattr(lm, v)() for k, v in names.items()})
    theirs = torchmetrics.MetricCollection(
        {k: getattr(torchmetrics.regression, v)() for k, v in names.items()}, compute_groups=False
    )
    for start in range(0, n, batch):
        p, t = preds[start : start + batch], target[start : start + batch]
        ours.update(p, t)
        theirs.update(p, t)
    got, expected = ours.compute(), theirs.compute()
    lines = ["", "stability (targets ~ 1e6 + N(0,1), preds = targets + N(0,0.1), 1e6 float32 samples):"]
    errors = {}
    for key, value in ref.items():
        ours_err = abs(float(got[key]) - value) / abs(value)
        theirs_err = (
            abs(float(expected[key]) - value) / abs(value) if torch.isfinite(expected[key]) else float("nan")
        )
        errors[key] = ours_err
        lines.append(
            f"  {key:>18}: reference {value:.9f}  ours rel.err {ours_err:.2e}  "
            f"torchmetrics {float(expected[key]):.6f} rel.err {theirs_err:.2e}"
        )
    with capsys.disabled():
        print("\n".join(lines))
    assert all(err < 1e-6 for err in errors.values()), errors
