"""Row similarity and divergences: accuracy where the terms cancel, and finite gradients at zeros."""

from __future__ import annotations

import pytest
import torch

import lightning_metrics.functional.regression as lmf
import lightning_metrics.regression as lm

pytestmark = pytest.mark.filterwarnings("ignore")


def _kl_reference(p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    p, q = p.double(), q.double()
    p, q = p / p.sum(-1, keepdim=True), q / q.sum(-1, keepdim=True)
    return torch.xlogy(p, p / q).sum(-1).mean()


@pytest.mark.parametrize("spread", [1e-1, 1e-3, 1e-4])
def test_kl_of_nearly_equal_distributions_keeps_its_digits(spread):
    """float32 rows whose KL is as small as 4e-9: within 1e-6 of the float64 value, alone and over batches."""
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(2048, 8, generator=gen, dtype=torch.float64)
    p = torch.softmax(x, 1).float()
    q = torch.softmax(x + spread * torch.randn(2048, 8, generator=gen, dtype=torch.float64), 1).float()
    expected = _kl_reference(p, q)
    metric = lm.KLDivergence()
    for rows in (slice(0, 1000), slice(1000, None)):
        metric.update(p[rows], q[rows])
    for got in (metric.compute(), lmf.kl_divergence(p, q)):
        assert abs(got.double() - expected) / expected < 1e-6, (spread, float(got), float(expected))


def test_kl_gradients_stay_finite_where_p_is_zero():
    """One-hot ``p`` (zeros against a positive ``q``), functional and through a metric's forward."""
    q = torch.softmax(torch.randn(4, 3, generator=torch.Generator().manual_seed(1)), 1)
    p = torch.tensor([[1.0, 0, 0], [0, 1, 0], [0, 0, 1], [0.5, 0.5, 0]])
    for compute in (lmf.kl_divergence, lm.KLDivergence()):
        p_in, q_in = p.clone().requires_grad_(True), q.clone().requires_grad_(True)
        value = compute(p_in, q_in)
        value.backward()
        torch.testing.assert_close(value.detach().double(), _kl_reference(p, q))
        assert bool(torch.isfinite(p_in.grad).all()) and bool(torch.isfinite(q_in.grad).all())
    # both zero in one entry: the term is 0 and the gradient finite
    p_in = torch.tensor([[0.5, 0.5, 0.0]], requires_grad=True)
    q_in = torch.tensor([[0.25, 0.75, 0.0]], requires_grad=True)
    lmf.kl_divergence(p_in, q_in).backward()
    assert bool(torch.isfinite(p_in.grad).all()) and bool(torch.isfinite(q_in.grad).all())


def test_kl_is_infinite_where_q_is_zero_under_positive_p():
    value = lmf.kl_divergence(torch.tensor([[0.5, 0.5]]), torch.tensor([[1.0, 0.0]]))
    assert value == float("inf")


def test_cosine_similarity_in_float32_matches_float64():
    gen = torch.Generator().manual_seed(2)
    preds, target = torch.randn(512, 64, generator=gen), torch.randn(512, 64, generator=gen)
    expected = torch.nn.functional.cosine_similarity(preds.double(), target.double(), dim=1)
    got = lmf.cosine_similarity(preds, target, reduction="none")
    assert got.dtype == torch.float32
    torch.testing.assert_close(got.double(), expected, rtol=1e-6, atol=1e-6)
    metric = lm.CosineSimilarity(reduction="mean")
    metric.update(preds[:200], target[:200])
    metric.update(preds[200:], target[200:])
    torch.testing.assert_close(metric.compute().double(), expected.mean(), rtol=1e-6, atol=1e-6)
