"""The shared contingency core against scipy and scikit-learn: tables, pair counts, chi-squared,
entropies and the expected mutual information (including its chunked evaluation)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy.stats import chi2_contingency, entropy
from sklearn.metrics.cluster import contingency_matrix, pair_confusion_matrix
from sklearn.metrics.cluster._expected_mutual_info_fast import expected_mutual_information

from lightning_metrics.functional import _contingency
from lightning_metrics.functional._contingency import TableStats, dense_table, expected_mutual_info, fixed_table


def _labels(seed: int, n: int, kp: int, kt: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    target = torch.randint(0, kt, (n,), generator=g)
    return torch.where(torch.rand(n, generator=g) < 0.5, target % kp, torch.randint(0, kp, (n,), generator=g)), target


CASES = [(0, 50, 3, 4), (1, 400, 7, 5), (2, 2000, 2, 2), (3, 300, 30, 25), (4, 5, 5, 1)]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_table_and_statistics_match_scipy_and_sklearn(case: tuple) -> None:
    preds, target = _labels(*case)
    table = dense_table(preds, target)
    expected = contingency_matrix(target.numpy(), preds.numpy())
    assert table.dtype == torch.int64 and np.array_equal(table.numpy(), expected)
    stats = TableStats(table)
    (tn, fp), (fn, tp) = pair_confusion_matrix(target.numpy(), preds.numpy())
    # ordered pairs of distinct samples; torchmetrics' naming: "fp" are together in the target only,
    # which scikit-learn (labels_true first) calls false negatives
    assert stats.pair_counts == (tn, fn, fp, tp)
    assert sum(stats.pair_counts) == len(preds) * (len(preds) - 1)
    assert float(stats.entropy_target) == pytest.approx(entropy(expected.sum(1)), abs=1e-12)
    assert float(stats.entropy_preds) == pytest.approx(entropy(expected.sum(0)), abs=1e-12)
    if min(expected.shape) > 1:
        for yates in (False, True):
            chi2 = chi2_contingency(expected, correction=yates)[0]
            assert float(stats.chi_squared(yates)) == pytest.approx(chi2, rel=1e-10)
        emi = expected_mutual_information(contingency_matrix(target.numpy(), preds.numpy(), sparse=True), len(preds))
        assert float(stats.expected_mutual_info) == pytest.approx(emi, rel=1e-9, abs=1e-15)


def test_fixed_table_drops_nothing_and_stats_drop_empty_rows_and_columns() -> None:
    table = fixed_table(torch.tensor([0, 2, 2]), torch.tensor([3, 3, 0]), 5)
    assert table.shape == (5, 5) and int(table.sum()) == 3
    assert TableStats(table).shape == (2, 2)


def test_expected_mutual_info_in_many_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    preds, target = _labels(5, 3000, 9, 6)
    whole = float(TableStats(dense_table(preds, target)).expected_mutual_info)
    monkeypatch.setattr(_contingency, "_EMI_CHUNK", 7)  # far fewer terms than one cell holds
    sizes = TableStats(dense_table(preds, target))
    chunked = float(expected_mutual_info(sizes.target_sizes, sizes.preds_sizes))
    assert chunked == pytest.approx(whole, rel=1e-12)


def test_the_tail_cut_keeps_the_value() -> None:
    """Counts whose probability is below exp(-60) change nothing visible: compare with every count."""
    preds, target = _labels(6, 20_000, 4, 3)
    stats = TableStats(dense_table(preds, target))
    emi = expected_mutual_information(contingency_matrix(target.numpy(), preds.numpy(), sparse=True), 20_000)
    assert float(stats.expected_mutual_info) == pytest.approx(emi, rel=1e-9)
