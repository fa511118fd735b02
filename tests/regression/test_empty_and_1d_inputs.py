"""A 1-D input of length ``num_outputs`` and empty batches for the multi-output regression metrics
(issue 36, point 9).

torchmetrics 1.9 takes ``PearsonCorrCoef(num_outputs=2).update(torch.randn(2), torch.randn(2))``: its
shape check only compares ``preds.shape[-1]`` with ``num_outputs``, then the update reads the vector
as 2 samples of one output and broadcasts that one output's statistics into both outputs' states, so
compute gives the same (2-sample, hence +-1) correlation twice. Spearman gives a scalar, Kendall
raises an IndexError: an accident, not a behaviour to copy. Ours raises a ``ValueError`` naming
``preds``, its shape and ``num_outputs``, and leaves the state untouched.
"""

from __future__ import annotations

import warnings

import pytest
import torch
import torchmetrics.regression as TR

import lightning_metrics.regression as LR

pytestmark = pytest.mark.filterwarnings("ignore:Metric `SpearmanCorrcoef` will save all:UserWarning")

STRICT = ["PearsonCorrCoef", "SpearmanCorrCoef", "ConcordanceCorrCoef", "KendallRankCorrCoef"]


@pytest.mark.parametrize("name", [*STRICT, "MeanSquaredError"])
def test_1d_input_of_length_num_outputs_raises(name: str) -> None:
    metric = getattr(LR, name)(num_outputs=2)
    gen = torch.Generator().manual_seed(0)
    x, y = torch.randn(6, 2, generator=gen), torch.randn(6, 2, generator=gen)
    metric.update(x[:3], y[:3])
    with pytest.raises(ValueError, match=r"`preds`.*num_outputs=2.*preds\.shape=\(2,\).*unsqueeze\(0\)"):
        metric.update(torch.randn(2), torch.randn(2))
    metric.update(x[3:], y[3:])  # the refused batch left no trace
    fresh = getattr(LR, name)(num_outputs=2)
    fresh.update(x, y)
    torch.testing.assert_close(metric.compute(), fresh.compute())


def test_torchmetrics_reads_1d_as_one_duplicated_output() -> None:
    # why we refuse: torchmetrics' value is the single-output correlation of the 2 values, copied
    a, b = torch.tensor([0.3, -1.2]), torch.tensor([0.5, 0.1])
    metric = TR.PearsonCorrCoef(num_outputs=2)
    metric.update(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = metric.compute()
    torch.testing.assert_close(value, torch.tensor([1.0, 1.0]))  # both fall: +1, copied


@pytest.mark.parametrize("num_outputs", [3, 5])
def test_1d_input_of_other_length_raises(num_outputs: int) -> None:
    with pytest.raises(ValueError, match=rf"num_outputs={num_outputs}.*preds\.shape=\(4,\).*num_outputs=1"):
        LR.PearsonCorrCoef(num_outputs=num_outputs).update(torch.randn(4), torch.randn(4))


def test_one_sample_as_a_row_is_accepted() -> None:
    metric = LR.PearsonCorrCoef(num_outputs=2)
    metric.update(torch.randn(1, 2), torch.randn(1, 2))
    metric.update(torch.randn(3, 2), torch.randn(3, 2))
    assert metric.compute().shape == (2,)


@pytest.mark.parametrize("name", [*STRICT, "MeanSquaredError"])
@pytest.mark.parametrize("num_outputs", [1, 2])
def test_empty_batch_in_the_middle_adds_nothing(name: str, num_outputs: int) -> None:
    gen = torch.Generator().manual_seed(1)
    shape = (9,) if num_outputs == 1 else (9, num_outputs)
    x, y = torch.randn(*shape, generator=gen), torch.randn(*shape, generator=gen)
    with_empty, real_only = getattr(LR, name)(num_outputs=num_outputs), getattr(LR, name)(num_outputs=num_outputs)
    with_empty.update(x[:4], y[:4])
    with_empty.update(x[:0], y[:0])
    with_empty.update(x[4:], y[4:])
    real_only.update(x[:4], y[:4])
    real_only.update(x[4:], y[4:])
    torch.testing.assert_close(with_empty.compute(), real_only.compute(), rtol=0, atol=0)
    oracle = getattr(TR, name)(num_outputs=num_outputs)  # the real batches only (Pearson's update raises on empty)
    oracle.update(x[:4], y[:4])
    oracle.update(x[4:], y[4:])
    torch.testing.assert_close(with_empty.compute(), oracle.compute(), rtol=1e-5, atol=1e-6)
