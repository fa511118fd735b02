"""Independent oracles: a brute-force loop from the definitions (ties across targets included),
scikit-learn per query, and invariance of every value to the order documents arrive in."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
import torch
from sklearn.metrics import average_precision_score, ndcg_score, roc_auc_score

import lightning_metrics.functional.retrieval as lm_functional
import lightning_metrics.retrieval as lm_retrieval
from tests.reliability._registry import assert_close
from tests.retrieval import _oracle
from tests.retrieval._cases import (
    CLASS_ARGUMENTS,
    GRADED,
    class_cases,
    concat,
    draw_class_case,
    make_documents,
)

CASES_PER_CLASS = 16


def _compute(name: str, kwargs: dict, batches: list):
    metric = getattr(lm_retrieval, name)(**kwargs)
    for batch in batches:
        metric.update(*batch)
    try:
        return metric.compute()
    except ValueError:
        return None


@pytest.mark.parametrize(("name", "case"), class_cases(CASES_PER_CLASS))
def test_class_matches_brute_force_with_any_ties(name: str, case: int) -> None:
    rng = random.Random(f"oracle-{name}-{case}")
    kwargs, docs = draw_class_case(name, rng, 10, [4, 12], ties="any")
    batches = docs.batches(rng.randint(1, 3), seed=case)
    ours = _compute(name, kwargs, batches)
    expected = _oracle.metric(name, kwargs, docs.preds, docs.target, docs.indexes)
    assert (ours is None) == (expected is None), f"{name}({kwargs}): ours {ours}, oracle {expected}"
    if ours is not None:
        # one-element results are scalars, as every metric's (torchmetrics squeezes them too)
        expected = (
            tuple(torch.tensor(e).squeeze() for e in expected)
            if isinstance(expected, tuple)
            else torch.tensor(expected)
        )
        assert_close(ours, expected, rtol=1e-5, atol=1e-6, path=f"{name}({kwargs})")


FUNCTIONS = {
    "retrieval_average_precision": lambda d, k: _oracle.average_precision(d, k),
    "retrieval_reciprocal_rank": lambda d, k: _oracle.reciprocal_rank(d, k),
    "retrieval_precision": lambda d, k: _oracle.precision(d, k, False),
    "retrieval_recall": lambda d, k: _oracle.recall(d, k),
    "retrieval_fall_out": lambda d, k: _oracle.fall_out(d, k),
    "retrieval_hit_rate": lambda d, k: _oracle.hit_rate(d, k),
    "retrieval_normalized_dcg": lambda d, k: _oracle.ndcg(d, k),
    "retrieval_auroc": lambda d, k: _oracle.auroc(d, k, None),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_function_matches_brute_force_with_any_ties(name: str) -> None:
    rng = random.Random(name)
    for case in range(30):
        docs = make_documents(
            case, num_queries=1, max_docs=12, ties="any", graded=name in GRADED, logits=case % 3 == 0
        )
        k = rng.choice([None, 1, 2, 5, 40])
        pairs = list(zip(docs.preds.tolist(), docs.target.tolist()))
        ours = getattr(lm_functional, name)(docs.preds, docs.target, top_k=k)
        assert ours.item() == pytest.approx(FUNCTIONS[name](pairs, k), rel=1e-5, abs=1e-6), (name, k, pairs)


def test_r_precision_and_curve_match_brute_force_with_any_ties() -> None:
    for case in range(30):
        docs = make_documents(case, num_queries=1, max_docs=10, ties="any")
        pairs = list(zip(docs.preds.tolist(), docs.target.tolist()))
        assert lm_functional.retrieval_r_precision(docs.preds, docs.target).item() == pytest.approx(
            _oracle.r_precision(pairs), abs=1e-6
        )
        for adaptive in (False, True):
            precision, recall, _ = lm_functional.retrieval_precision_recall_curve(
                docs.preds, docs.target, max_k=12, adaptive_k=adaptive
            )
            expected = _oracle.pr_curve(pairs, 12, adaptive)
            assert precision.tolist() == pytest.approx(expected[0], abs=1e-6)
            assert recall.tolist() == pytest.approx(expected[1], abs=1e-6)


# ------------------------------------------------------------------------------ scikit-learn
def _per_query(docs, min_size: int = 2):
    preds, target, indexes = docs.preds.numpy(), docs.target.numpy(), docs.indexes.numpy()
    for query in np.unique(indexes):
        mask = indexes == query
        if mask.sum() >= min_size:
            yield preds[mask], target[mask]


@pytest.mark.parametrize("graded", [True, "wide", "float"])
def test_ndcg_matches_sklearn_per_query(graded) -> None:
    """Graded targets and ties across grades: sklearn averages tied gains, as we do."""
    docs = make_documents(3, num_queries=150, max_docs=15, ties="any", graded=graded)
    for k in (None, 1, 3, 10):
        for preds, target in _per_query(docs):
            ours = lm_functional.retrieval_normalized_dcg(
                torch.from_numpy(preds), torch.from_numpy(target), top_k=k
            )
            expected = ndcg_score(target[None], preds[None], k=k)
            assert ours.item() == pytest.approx(expected, rel=1e-5, abs=1e-6)


def test_average_precision_matches_sklearn_per_query() -> None:
    """Distinct positive scores (sklearn groups ties, and torchmetrics drops scores <= 0)."""
    docs = make_documents(4, num_queries=150, max_docs=15, ties="none")
    checked = 0
    for preds, target in _per_query(docs, min_size=1):
        if target.sum() == 0:
            continue
        ours = lm_functional.retrieval_average_precision(torch.from_numpy(preds), torch.from_numpy(target))
        assert ours.item() == pytest.approx(average_precision_score(target, preds), rel=1e-5)
        checked += 1
    assert checked > 50


@pytest.mark.parametrize("max_fpr", [None, 0.25, 0.6])
def test_auroc_matches_sklearn_per_query(max_fpr) -> None:
    """Ties across targets count as half in both; sklearn's partial AUC is McClish-standardised too."""
    docs = make_documents(5, num_queries=150, max_docs=15, ties="any")
    checked = 0
    for preds, target in _per_query(docs):
        if 0 < target.sum() < len(target):
            ours = lm_functional.retrieval_auroc(
                torch.from_numpy(preds), torch.from_numpy(target), max_fpr=max_fpr
            )
            assert ours.item() == pytest.approx(
                roc_auc_score(target, preds, max_fpr=max_fpr), rel=1e-5, abs=1e-6
            )
            checked += 1
    assert checked > 50


def test_modular_means_of_sklearn_values() -> None:
    """The modular metrics are the means of sklearn's per-query values (every query has both classes)."""
    gen = torch.Generator().manual_seed(6)
    preds, target, indexes, rows = [], [], [], []
    for query in range(120):
        n = int(torch.randint(2, 12, (1,), generator=gen))
        grades = torch.randint(0, 4, (n,), generator=gen)
        grades[0], grades[1] = 0, 1 + grades[1] % 3  # both classes
        scores = (torch.rand(n, generator=gen) * 4).round() / 4  # ties across grades
        preds.append(scores), target.append(grades), indexes.append(torch.full((n,), 10**15 * query))
        rows.append((scores.numpy(), grades.numpy()))
    preds, target, indexes = torch.cat(preds), torch.cat(target), torch.cat(indexes)
    auroc, ndcg = lm_retrieval.RetrievalAUROC(), lm_retrieval.RetrievalNormalizedDCG(top_k=5)
    auroc.update(preds, target > 0, indexes=indexes)
    ndcg.update(preds, target, indexes=indexes)
    assert auroc.compute().item() == pytest.approx(
        np.mean([roc_auc_score(t > 0, p) for p, t in rows]), rel=1e-5
    )
    assert ndcg.compute().item() == pytest.approx(
        np.mean([ndcg_score(t[None], p[None], k=5) for p, t in rows]), rel=1e-5
    )


# ------------------------------------------------------------------------------ order invariance
@pytest.mark.parametrize("name", sorted(CLASS_ARGUMENTS))
def test_values_do_not_depend_on_arrival_order(name: str) -> None:
    """Ties across targets, any permutation and batching of the documents: bit-identical values."""
    docs = make_documents(11, num_queries=40, max_docs=12, ties="any", graded=name in GRADED)
    kwargs = {"top_k": 3} if "top_k" in CLASS_ARGUMENTS[name] else {}
    results = []
    for seed in range(4):
        metric = getattr(lm_retrieval, name)(**kwargs)
        for batch in docs.batches(1 + seed, seed=seed):
            metric.update(*batch)
        results.append(metric.compute())
    for other in results[1:]:
        for a, b in zip(*(r if isinstance(r, tuple) else (r,) for r in (results[0], other))):
            assert torch.equal(a, b), (name, results[0], other)


def test_one_big_batch_equals_the_stream() -> None:
    docs = make_documents(12, num_queries=60, max_docs=10, ties="any")
    batches = docs.batches(6, seed=3)
    streamed, whole = lm_retrieval.RetrievalMAP(top_k=4), lm_retrieval.RetrievalMAP(top_k=4)
    for batch in batches:
        streamed.update(*batch)
    whole.update(*concat(batches))
    assert torch.equal(streamed.compute(), whole.compute())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning on the way
        streamed.compute()
