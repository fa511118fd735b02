"""Several count-ratio measures evaluated together (``reduce_measures``, what a collection's forward uses)
equal each measure evaluated alone (``reduce_measure``), for every measure, average, zero division and
count shape; and the members of a collection get equal values from forward either way."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import lightning_metrics.classification as lmc
from lightning_metrics import MetricCollection
from lightning_metrics.functional.classification._measures import (
    MEASURES,
    Counts,
    MeasureRequest,
    reduce_measure,
    reduce_measures,
)

_AVERAGES = ["micro", "macro", "weighted", "none", None]
_requests = st.lists(
    st.builds(
        MeasureRequest,
        name=st.sampled_from(sorted(MEASURES)),
        average=st.sampled_from(_AVERAGES),
        zero_division=st.sampled_from([0.0, 1.0]),
        beta=st.sampled_from([1.0, 0.5, 2.0]),
    ),
    min_size=1,
    max_size=8,
)


def _counts(data: st.DataObject, shape: tuple[int, ...]) -> Counts:
    # small counts with many zeros: the 0/0 and weightless cases come up often
    size = 4 * math.prod(shape)
    values = data.draw(st.lists(st.integers(0, 3), min_size=size, max_size=size))
    return Counts(*torch.tensor(values, dtype=torch.long).view((4, *shape)).unbind(0))


@settings(max_examples=150, deadline=None)
@given(data=st.data(), requests=_requests, multiclass=st.booleans(), top_k=st.sampled_from([1, 2]),
       shape=st.sampled_from([(1,), (3,), (6,), (2, 4)]))
def test_together_equals_one_by_one(data: st.DataObject, requests: list, multiclass: bool, top_k: int,
                                    shape: tuple) -> None:
    counts = _counts(data, shape)
    together = reduce_measures(counts, requests, multiclass=multiclass, top_k=top_k)
    for request, value in zip(requests, together):
        alone = reduce_measure(request.name, counts, request.average, multiclass=multiclass, top_k=top_k,
                               zero_division=request.zero_division, beta=request.beta)
        assert value.dtype == alone.dtype and value.shape == alone.shape, request
        torch.testing.assert_close(value, alone, rtol=1e-6, atol=1e-7, equal_nan=True, msg=str(request))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), requests=_requests, shape=st.sampled_from([(), (5,)]))
def test_together_equals_one_by_one_binary(data: st.DataObject, requests: list, shape: tuple) -> None:
    counts = _counts(data, shape)
    requests = [r._replace(average="binary") for r in requests]
    together = reduce_measures(counts, requests)
    for request, value in zip(requests, together):
        alone = reduce_measure(request.name, counts, "binary", zero_division=request.zero_division, beta=request.beta)
        assert value.shape == alone.shape, request
        torch.testing.assert_close(value, alone, rtol=1e-6, atol=1e-7, equal_nan=True, msg=str(request))


def _forward_equals_fresh_metrics(build: dict, num_classes: int, sizes: tuple, ignore_index, seed: int):
    """The members of one compute group, forwarded batch by batch, each give the value of a fresh metric on
    that batch (a share of each batch's targets set to ``ignore_index``); the collection and its last batch."""
    collection = MetricCollection({name: make() for name, make in build.items()})
    assert len(collection.compute_groups) == 1
    g = torch.Generator().manual_seed(seed)
    for n in sizes:
        preds = torch.randn(n, num_classes, generator=g)
        target = torch.randint(0, num_classes, (n,), generator=g)
        if ignore_index is not None:
            target[: n // 3] = ignore_index
        got = collection(preds, target)
        for name, make in build.items():
            fresh = make()
            fresh.update(preds, target)
            torch.testing.assert_close(got[name], fresh.compute(), equal_nan=True, msg=name)
    return collection, (preds, target)


@pytest.mark.parametrize("kw", [{"top_k": 2}, {"ignore_index": 1}, {"ignore_index": 9}])
def test_collection_forward_reads_the_ratio_measures_together(kw: dict) -> None:
    """Members of one statistic with every average, with ``top_k`` 2 (support weights) or an ``ignore_index``
    (in range, the Jaccard index drops that class, which the joint pass leaves to the measure alone)."""
    kw = {"num_classes": 4, **kw}
    build = {
        "acc": lambda: lmc.MulticlassAccuracy(**kw),
        "prec_w": lambda: lmc.MulticlassPrecision(average="weighted", **kw),
        "rec_none": lambda: lmc.MulticlassRecall(average="none", **kw),
        "f2": lambda: lmc.MulticlassFBetaScore(beta=2.0, average="micro", **kw),
        "spec": lambda: lmc.MulticlassSpecificity(**kw),
        "npv": lambda: lmc.MulticlassNegativePredictiveValue(zero_division=1.0, **kw),
        "hamming": lambda: lmc.MulticlassHammingDistance(**kw),
    }
    if "top_k" not in kw:
        build["jaccard"] = lambda: lmc.MulticlassJaccardIndex(**kw)
        build["jaccard_none"] = lambda: lmc.MulticlassJaccardIndex(average="none", **kw)
    _forward_equals_fresh_metrics(build, 4, (9, 1, 17), kw.get("ignore_index"), seed=7)


@pytest.mark.parametrize("ignore_index", [None, 3])
@pytest.mark.parametrize("matrix_reader", [None, "confmat", "kappa_linear"])
def test_forward_of_a_large_matrix_reads_its_marginals_off_the_batch(monkeypatch, ignore_index, matrix_reader) -> None:
    """A confusion matrix far larger than its batch (C^2 bins, few samples): forward counts the row and column
    sums (and, when no member reads the matrix itself, its diagonal) from the batch's codes instead of summing
    the matrix, with the same values as fresh metrics; the C^2 bins of the batch are made only for a member
    that reads them (the confusion matrix itself, a weighted kappa)."""
    import lightning_metrics.functional.classification._matrix_measures as measures
    from lightning_metrics.functional.classification._counts import Codes

    summed, made = [], []
    summary = measures._summary
    monkeypatch.setattr(measures, "_summary", lambda confmat: summed.append(1) or summary(confmat))
    dense_confmat = Codes.dense_confmat
    monkeypatch.setattr(Codes, "dense_confmat", lambda self: made.append(1) or dense_confmat(self))
    kw = {"num_classes": 40, "ignore_index": ignore_index}
    build = {
        "acc": lambda: lmc.MulticlassAccuracy(**kw),
        "prec": lambda: lmc.MulticlassPrecision(**kw),
        "rec_w": lambda: lmc.MulticlassRecall(average="weighted", **kw),
        "spec": lambda: lmc.MulticlassSpecificity(**kw),
        "mcc": lambda: lmc.MulticlassMatthewsCorrCoef(**kw),
        "kappa": lambda: lmc.MulticlassCohenKappa(**kw),
    }
    if ignore_index is None:  # with an ignore_index in range, the Jaccard index reads per-class counts
        build["jaccard"] = lambda: lmc.MulticlassJaccardIndex(**kw)
    if matrix_reader == "confmat":
        build["confmat"] = lambda: lmc.MulticlassConfusionMatrix(**kw)
    elif matrix_reader == "kappa_linear":
        build["kappa_linear"] = lambda: lmc.MulticlassCohenKappa(weights="linear", **kw)
    collection, (preds, target) = _forward_equals_fresh_metrics(build, 40, (7, 1, 13), ignore_index, seed=3)
    summed.clear()
    made.clear()
    collection(preds, target)
    assert summed == []  # the batch's summary came from its codes, not from sums over the matrix
    assert made == ([1] if matrix_reader else [])  # the batch's matrix is made only for a reader of its bins
    collection.compute()
    assert summed == [1]  # the accumulated matrix is summed once for all the members


@settings(max_examples=40, deadline=None)
@given(data=st.data(), requests=_requests, num_classes=st.sampled_from([1, 2, 5, 24, 25, 31]))
def test_measures_off_a_matrix_summary_equal_the_counts(data: st.DataObject, requests: list, num_classes: int) -> None:
    """Off a confusion matrix's summary (a 0/1 selection product up to 24 classes, sums above), every measure
    equals the one of the matrix's per-class counts, and the summary is the same either way."""
    from lightning_metrics.functional.classification import _matrix_measures as matrix
    from lightning_metrics.functional.classification import _measures as measures

    cells = num_classes * num_classes
    confmat = torch.tensor(data.draw(st.lists(st.integers(0, 5), min_size=cells, max_size=cells))).view(num_classes, -1)
    basis, gram = matrix._summary(confmat)
    f64 = torch.float64
    by_sums = matrix.summary_of(confmat.diagonal().to(f64), confmat.sum(1, dtype=f64), confmat.sum(0, dtype=f64))
    assert torch.equal(basis, by_sums[0]) and torch.equal(gram, by_sums[1])
    counts = Counts.from_confmat(confmat)
    for request, value in zip(requests, measures.confmat_measures(confmat, requests)):
        alone = reduce_measure(request.name, counts, request.average, multiclass=True,
                               zero_division=request.zero_division, beta=request.beta)
        torch.testing.assert_close(value, alone, rtol=1e-6, atol=1e-7, equal_nan=True, msg=str(request))
