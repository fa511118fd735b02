"""The states torchmetrics users read (``PearsonCorrCoef.mean_x``, ``MeanSquaredError.total``, ...)
exist on ours as read-only views of the shared moments, with torchmetrics' values, shapes and dtypes;
and PearsonCorrCoef takes the 1-D shapes torchmetrics takes.
"""

from __future__ import annotations

import pytest
import torch
import torchmetrics

import lightning_metrics as lm

# max_abs_dev_x/y: ours is the exact largest deviation from the final mean; torchmetrics tracks it
# against the running mean of each update, so its value depends on the batching (it only feeds the
# near-zero-variance check). Shapes and dtypes are compared, values are not.
APPROXIMATE_IN_TORCHMETRICS = {"max_abs_dev_x", "max_abs_dev_y"}

_gen = torch.Generator().manual_seed(3)
ONE = [(torch.randn(9, generator=_gen), torch.randn(9, generator=_gen)) for _ in range(3)]
TWO = [(torch.randn(9, 2, generator=_gen), torch.randn(9, 2, generator=_gen)) for _ in range(3)]

CASES = [
    ("MeanSquaredError", {}, ONE),
    ("MeanSquaredError", {"num_outputs": 2}, TWO),
    ("R2Score", {}, ONE),
    ("R2Score", {"multioutput": "raw_values"}, TWO),
    ("ExplainedVariance", {}, ONE),
    ("RelativeSquaredError", {}, ONE),
    ("PearsonCorrCoef", {}, ONE),
    ("PearsonCorrCoef", {"num_outputs": 2}, TWO),
    ("ConcordanceCorrCoef", {}, ONE),
]


@pytest.mark.parametrize(("name", "kwargs", "data"), CASES, ids=[f"{n}{k or ''}" for n, k, _ in CASES])
def test_torchmetrics_state_names_read_the_same_values(name: str, kwargs: dict, data: list) -> None:
    theirs = getattr(torchmetrics.regression, name)(**kwargs)
    ours = getattr(lm.regression, name)(**kwargs)
    for preds, target in data:
        theirs.update(preds, target)
        ours.update(preds, target)
    for state in theirs._defaults:
        expected, got = getattr(theirs, state), getattr(ours, state)
        assert got.shape == expected.shape and got.dtype == expected.dtype, (
            f"{name}.{state}: {got.dtype}{tuple(got.shape)} != {expected.dtype}{tuple(expected.shape)}"
        )
        if state not in APPROXIMATE_IN_TORCHMETRICS:
            torch.testing.assert_close(got, expected, rtol=1e-4, atol=1e-5, msg=f"{name}.{state}")


def test_state_views_are_read_only_and_follow_reset() -> None:
    metric = lm.regression.PearsonCorrCoef()
    metric.update(torch.tensor([1.0, 2.0, 4.0]), torch.tensor([1.0, 3.0, 2.0]))
    assert metric.n_total.tolist() == [3.0]
    with pytest.raises(AttributeError):
        metric.mean_x = torch.zeros(1)
    metric.reset()
    assert metric.n_total.tolist() == [0.0] and metric.mean_x.tolist() == [0.0]
    assert "mean_x" not in metric.state_dict()  # views, not states: checkpoints are unchanged


@pytest.mark.parametrize("lib", [torchmetrics, lm], ids=["torchmetrics", "ours"])
def test_pearson_state_shapes_with_one_output(lib) -> None:
    """torchmetrics' own expectation: (1,) states after (N,), (1, 1) and (N, 1) updates."""
    metric = lib.regression.PearsonCorrCoef(num_outputs=1)
    for preds, target in ((torch.randn(1), torch.randn(1)), (torch.randn(1, 1), torch.randn(1, 1)), (torch.randn(10, 1), torch.randn(10, 1))):
        metric.update(preds, target)
        for state in ("mean_x", "mean_y", "max_abs_dev_x", "max_abs_dev_y", "var_x", "var_y", "corr_xy", "n_total"):
            assert getattr(metric, state).shape == (1,)


def test_pearson_one_dimensional_inputs_as_torchmetrics() -> None:
    x, y = torch.tensor([3.0, -0.5, 2.0, 7.0]), torch.tensor([2.5, 0.0, 2.0, 8.0])
    for shape in ((4,), (4, 1)):
        expected = torchmetrics.functional.regression.pearson_corrcoef(x.reshape(shape), y.reshape(shape))
        got = lm.functional.regression.pearson_corrcoef(x.reshape(shape), y.reshape(shape))
        torch.testing.assert_close(got, expected)
    # one sample per update, as in torchmetrics' single-sample test
    whole, single = lm.regression.PearsonCorrCoef(), lm.regression.PearsonCorrCoef()
    whole(x, y)
    for a, b in zip(x, y):
        single(a.reshape(1), b.reshape(1))
    torch.testing.assert_close(single.compute(), whole.compute())
    reference = torchmetrics.regression.PearsonCorrCoef()
    reference(x, y)
    torch.testing.assert_close(whole.compute(), reference.compute())
