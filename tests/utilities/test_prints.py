"""Warnings name the user's line: however deep in ``update``, ``compute``, ``forward``, a collection or a
functional form a metric finds something to warn about, the warning is attributed to the caller's frame."""

from __future__ import annotations

import sys
import warnings
from functools import partial

import pytest
import torch

import lightning_metrics.classification as lmc
import lightning_metrics.functional.classification as lfc
import lightning_metrics.functional.regression as lfr
import lightning_metrics.regression as lmr
from lightning_metrics import MetricCollection
from lightning_metrics.utilities.prints import warn_at_caller


def _r2_adjusted():
    metric = lmr.R2Score(adjusted=5)
    metric.update(torch.tensor([1.0, 2.0, 4.0]), torch.tensor([1.0, 2.5, 3.0]))
    return metric.compute


def _pearson_constant():
    metric = lmr.PearsonCorrCoef()
    metric.update(torch.tensor([1.0, 2.0, 4.0]), torch.tensor([1.0, 1.0, 1.0]))
    return metric.compute


def _collection_pearson():
    metrics = MetricCollection([lmr.PearsonCorrCoef(), lmr.MeanSquaredError()])
    return partial(metrics, torch.tensor([1.0, 2.0, 4.0]), torch.tensor([1.0, 1.0, 1.0]))


def _compute_before_update():
    return lmc.BinaryAccuracy().compute


def _auroc_no_positives():
    metric = lmc.BinaryPrecisionRecallCurve()
    metric.update(torch.tensor([0.2, 0.7]), torch.tensor([0, 0]))
    return metric.compute


def _functional_no_positives():
    return partial(lfc.binary_precision_recall_curve, torch.tensor([0.2, 0.7]), torch.tensor([0, 0]))


def _functional_pearson():
    return partial(lfr.pearson_corrcoef, torch.tensor([1.0, 2.0, 4.0]), torch.tensor([1.0, 1.0, 1.0]))


def _spearman_memory():
    return lmr.SpearmanCorrCoef


CASES = {
    "r2-adjusted-compute": _r2_adjusted,
    "pearson-constant-compute": _pearson_constant,
    "pearson-in-a-collection-forward": _collection_pearson,
    "compute-before-update": _compute_before_update,
    "curve-no-positives-compute": _auroc_no_positives,
    "functional-curve-no-positives": _functional_no_positives,
    "functional-pearson-constant": _functional_pearson,
    "spearman-memory-construction": _spearman_memory,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_metric_warning_names_the_callers_line(case):
    call = CASES[case]()  # a package callable (a partial has no frame of its own): the call below is the caller
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        call()
    ours = [w for w in caught if issubclass(w.category, UserWarning)]
    assert ours, f"{case}: no warning"
    assert {(w.filename, w.lineno) for w in ours} == {(__file__, line)}, [str(w.message) for w in ours]


def test_warn_at_caller_skips_the_package_frames():
    def inside_the_package():  # a frame that is not the package's: the warning names it
        warn_at_caller("careful", RuntimeWarning)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        inside_the_package()
    assert caught[0].category is RuntimeWarning and caught[0].filename == __file__
    assert caught[0].lineno == inside_the_package.__code__.co_firstlineno + 1
