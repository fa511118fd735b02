"""Label-based clustering scores against torchmetrics 1.9, scikit-learn and scipy, over generated cases.

Every function and class with every option value on every case: values (float32 results compared
at float32 resolution), dtypes and shapes as torchmetrics; the same scores against scikit-learn's
``sklearn.metrics.cluster`` in float64, where the few degenerate cases in which torchmetrics and
scikit-learn disagree are pinned to torchmetrics' value; ClusterAccuracy against scipy's
``linear_sum_assignment`` on the confusion matrix.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics.cluster as skc
import torch
import torchmetrics.clustering as tmc
import torchmetrics.functional.clustering as tmf
from scipy.optimize import linear_sum_assignment

import lightning_metrics.clustering as lmc
import lightning_metrics.functional.clustering as lmf
from tests.clustering._cases import LABEL_SCORES, LabelCase, label_cases, option_sets

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CASES = label_cases()
SCORES = [(cls, fn, opts) for cls, (fn, grid) in LABEL_SCORES.items() for opts in option_sets(grid)]
# torchmetrics computes in float32; its expected mutual information sums thousands of float32 terms
ATOL = {"adjusted_mutual_info_score": 2e-5}
# AMI is 0/0 when MI = E[MI] = the normaliser: one labeling is all singletons and the other too, or the
# other has several clusters and the normaliser is the smaller entropy ("min"). torchmetrics returns its
# float32 rounding noise there (0.0 at n=2, 1.0 at n=12); ours is 1.0, as scikit-learn.


def _degenerate(fn: str, case: LabelCase, opts: dict) -> bool:
    if fn != "adjusted_mutual_info_score":
        return False
    n = case.preds.numel()
    sizes = (case.preds.unique().numel(), case.target.unique().numel())
    if n < 2 or n not in sizes:
        return False
    return sizes == (n, n) or (min(sizes) > 1 and opts.get("average_method") == "min")


def _close(ours: torch.Tensor, oracle: torch.Tensor, fn: str, what: str) -> None:
    assert ours.dtype == oracle.dtype and ours.shape == oracle.shape, f"{what}: {ours!r} vs {oracle!r}"
    torch.testing.assert_close(ours, oracle, rtol=1e-5, atol=ATOL.get(fn, 1e-6), equal_nan=True, msg=what)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_functions_match_torchmetrics(case: LabelCase) -> None:
    for _, fn, opts in SCORES:
        ours = getattr(lmf, fn)(case.preds, case.target, **opts)
        oracle = getattr(tmf, fn)(case.preds, case.target, **opts)
        if _degenerate(fn, case, opts):
            oracle = torch.ones_like(oracle)
        _close(ours, oracle, fn, f"{fn}({opts}) on {case.id}")


@pytest.mark.parametrize("case", CASES[::2], ids=lambda c: c.id)
def test_classes_match_torchmetrics_over_batches(case: LabelCase) -> None:
    for cls, fn, opts in SCORES:
        ours, oracle = getattr(lmc, cls)(**opts), getattr(tmc, cls)(**opts)
        for preds, target in case.batches():
            ours.update(preds, target)
            oracle.update(preds, target)
        expected = oracle.compute()
        if _degenerate(fn, case, opts):
            expected = torch.ones_like(expected)
        _close(ours.compute(), expected, fn, f"{cls}({opts}) on {case.id}")


# ------------------------------------------------------------------ scikit-learn
def _sklearn(fn: str, opts: dict, case: LabelCase) -> float:
    truth, pred = case.target.numpy(), case.preds.numpy()
    if fn == "fowlkes_mallows_index":
        return skc.fowlkes_mallows_score(truth, pred)
    oracle = getattr(skc, fn)
    return oracle(truth, pred, **opts)


def _torchmetrics_convention(fn: str, case: LabelCase) -> float | None:
    """Our (torchmetrics') value where scikit-learn chose another limit, else None."""
    both_single = case.preds.unique().numel() == 1 and case.target.unique().numel() == 1
    if fn == "normalized_mutual_info_score" and both_single:
        return 0.0  # the zero mutual information itself; scikit-learn: 1.0
    if fn == "adjusted_mutual_info_score" and both_single:
        return 0.0  # MI = E[MI] = 0 exactly, over the epsilon guard; scikit-learn: 1.0
    if fn == "v_measure_score":
        h = skc.homogeneity_score(case.target.numpy(), case.preds.numpy())
        c = skc.completeness_score(case.target.numpy(), case.preds.numpy())
        if h + c == 0:
            return 1.0  # scikit-learn: 0.0
    return None


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_functions_match_scikit_learn(case: LabelCase) -> None:
    for _, fn, opts in SCORES:
        ours = getattr(lmf, fn)(case.preds, case.target, **opts).item()
        expected = _torchmetrics_convention(fn, case)
        if expected is None:
            expected = _sklearn(fn, opts, case)
        assert ours == pytest.approx(expected, rel=2e-6, abs=1e-6), f"{fn}({opts}) on {case.id}"


def test_large_sample_matches_scikit_learn_in_float64_terms() -> None:
    """100k samples in 50 clusters: every measure of one table within float32 resolution of scikit-learn.

    torchmetrics' float32 pair counts and expected mutual information drift at this size; ours do not.
    """
    from lightning_metrics.functional._contingency import TableStats, dense_table
    from lightning_metrics.functional._contingency_measures import MEASURES

    g = torch.Generator().manual_seed(3)
    target = torch.randint(0, 50, (100_000,), generator=g)
    preds = torch.where(
        torch.rand(100_000, generator=g) < 0.4, target, torch.randint(0, 50, (100_000,), generator=g)
    )
    case = LabelCase("large", preds, target)
    stats = TableStats(dense_table(preds, target))
    for _, fn, opts in [(c, f, o) for c, (f, grid) in LABEL_SCORES.items() for o in option_sets(grid)[-1:]]:
        ours = MEASURES[fn](stats, **opts).item()
        assert ours == pytest.approx(_sklearn(fn, opts, case), rel=1e-6, abs=1e-7), f"{fn}({opts})"


def test_adjusted_rand_does_not_overflow_at_300k_samples() -> None:
    """Pair counts near n**2 = 1e11 multiply to 1e21: exact integers here, where int64 would wrap."""
    g = torch.Generator().manual_seed(4)
    target = torch.randint(0, 3, (300_000,), generator=g)
    preds = torch.where(
        torch.rand(300_000, generator=g) < 0.7, target, torch.randint(0, 3, (300_000,), generator=g)
    )
    expected = skc.adjusted_rand_score(target.numpy(), preds.numpy())
    assert lmf.adjusted_rand_score(preds, target).item() == pytest.approx(expected, rel=1e-6)


# ------------------------------------------------------------------ cluster accuracy
def _dense(labels: torch.Tensor) -> torch.Tensor:
    return torch.unique(labels, return_inverse=True)[1]


def _scipy_accuracy(preds: torch.Tensor, target: torch.Tensor, num_classes: int) -> float:
    table = np.zeros((num_classes, num_classes), dtype=np.int64)
    np.add.at(table, (target.numpy(), preds.numpy()), 1)
    rows, cols = linear_sum_assignment(table, maximize=True)
    return table[rows, cols].sum() / max(len(preds), 1)


ACCURACY_CASES = [(c.id, _dense(c.preds), _dense(c.target)) for c in CASES] + [
    ("tied-matchings", torch.tensor([0, 0, 1, 1, 0, 1, 0, 1]), torch.tensor([0, 0, 0, 0, 1, 1, 1, 1])),
    ("more-classes-than-used", torch.tensor([4, 4, 1, 1, 1]), torch.tensor([2, 2, 2, 0, 0])),
]


@pytest.mark.parametrize(("key", "preds", "target"), ACCURACY_CASES, ids=[c[0] for c in ACCURACY_CASES])
def test_cluster_accuracy_matches_scipy(key: str, preds: torch.Tensor, target: torch.Tensor) -> None:
    num_classes = int(max(preds.max(), target.max())) + 1 + (key == "more-classes-than-used")
    expected = _scipy_accuracy(preds, target, num_classes)
    value = lmf.cluster_accuracy(preds, target, num_classes=num_classes)
    assert value.dtype == torch.float32 and value.shape == ()
    assert value.item() == pytest.approx(expected, rel=1e-6)
    metric = lmc.ClusterAccuracy(num_classes=num_classes)
    for a, b in LabelCase(key, preds, target).batches():
        metric.update(a, b)
    torch.testing.assert_close(metric.compute(), value, rtol=0, atol=0)


def test_cluster_accuracy_without_samples_is_nan_with_a_warning() -> None:
    metric = lmc.ClusterAccuracy(num_classes=3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert torch.isnan(metric.compute())
    assert any("before the ``update``" in str(w.message) for w in caught)
