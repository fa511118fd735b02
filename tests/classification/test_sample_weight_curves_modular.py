"""Sample weights in the modular curve and score metrics: equal to the functions over the same weighted
samples (unweighted batches before and after weighted ones weigh 1), through ``forward``,
``merge_state``, ``reset``, a checkpoint, compute groups of a ``MetricCollection`` and a 2-process DDP
sync where one rank is weighted and the other is not (or has no batch)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import lightning_metrics.classification as lmc
import lightning_metrics.functional.classification as lmf
from lightning_metrics import MetricCollection
from lightning_metrics.utilities.exceptions import MetricInputError
from tests._distributed import run_distributed
from tests.classification._weighted_curve_cases import C, GRID, IGNORE, case

_NUM = {"binary": {}, "multiclass": {"num_classes": C}, "multilabel": {"num_labels": C}}


def _pairs(task):
    """(class, function, extra arguments) of every weighted modular metric of ``task``."""
    cap = task.capitalize()
    names = [("PrecisionRecallCurve", "precision_recall_curve", {}), ("ROC", "roc", {}), ("AUROC", "auroc", {}),
             ("AveragePrecision", "average_precision", {}), ("EER", "eer", {}),
             ("LogAUC", "logauc", {"fpr_range": (0.05, 0.5), **({} if task == "binary" else {"average": "macro"})}),
             ("RecallAtFixedPrecision", "recall_at_fixed_precision", {"min_precision": 0.6}),
             ("PrecisionAtFixedRecall", "precision_at_fixed_recall", {"min_recall": 0.5}),
             ("SensitivityAtSpecificity", "sensitivity_at_specificity", {"min_specificity": 0.5}),
             ("SpecificityAtSensitivity", "specificity_at_sensitivity", {"min_sensitivity": 0.5})]
    out = [(getattr(lmc, cap + cls), getattr(lmf, f"{task}_{fn}"), {**_NUM[task], **kw, "thresholds": th})
           for cls, fn, kw in names for th in (None, GRID + 1)]
    if task == "multilabel":
        out += [(getattr(lmc, "Multilabel" + cls), getattr(lmf, f"multilabel_{fn}"), _NUM[task]) for cls, fn in (
            ("CoverageError", "coverage_error"), ("RankingAveragePrecision", "ranking_average_precision"),
            ("RankingLoss", "ranking_loss"))]
    if task != "multilabel":
        out += [(getattr(lmc, cap + "CalibrationError"), getattr(lmf, f"{task}_calibration_error"),
                 {**_NUM[task], "n_bins": 7}),
                (getattr(lmc, cap + "HingeLoss"), getattr(lmf, f"{task}_hinge_loss"), _NUM[task])]
    return out


def _dtypes(value):
    return [_dtypes(v) for v in value] if isinstance(value, (tuple, list)) else value.dtype


def _same(a, b, name):
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b), name
        for x, y in zip(a, b):
            _same(x, y, name)
        return
    np.testing.assert_allclose(a.double().numpy(), b.double().numpy(), rtol=1e-5, atol=1e-6, err_msg=name)


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


@pytest.mark.parametrize("task", ["binary", "multiclass", "multilabel"])
def test_modular_equals_functional_across_unweighted_and_weighted_batches(task):
    c = case(task, 21, n=120, ignore=True)
    preds, target, weight = c["preds"], c["target"], c["weight"]
    cuts = (0, 30, 80, 120)  # unweighted, weighted, unweighted
    ones = weight.clone()
    ones[: cuts[1]] = 1.0
    ones[cuts[2]:] = 1.0
    for cls, function, kw in _pairs(task):
        metric = cls(**kw, ignore_index=IGNORE)
        for k, (lo, hi) in enumerate(zip(cuts[:-1], cuts[1:])):
            metric.update(preds[lo:hi], target[lo:hi], sample_weight=weight[lo:hi] if k == 1 else None)
        expected = _quiet(function, preds, target, **kw, ignore_index=IGNORE, sample_weight=ones)
        got = _quiet(metric.compute)
        _same(got, expected, cls.__name__)
        plain = cls(**kw, ignore_index=IGNORE)
        plain.update(preds, target)
        assert _dtypes(got) == _dtypes(_quiet(plain.compute)), f"{cls.__name__}: the unweighted dtypes"


@pytest.mark.parametrize("thresholds", [None, GRID + 1])
def test_forward_merge_state_reset_and_checkpoint(thresholds):
    c = case("binary", 22, n=90)
    preds, target, weight = c["preds"], c["target"], c["weight"]
    forwarded = lmc.BinaryAUROC(thresholds=thresholds)
    forwarded(preds[:30], target[:30])
    batch = forwarded(preds[30:60], target[30:60], sample_weight=weight[30:60])
    forwarded(preds[60:], target[60:])
    ones = weight.clone()
    ones[:30] = 1.0
    ones[60:] = 1.0
    _same(batch, lmf.binary_auroc(preds[30:60], target[30:60], thresholds=thresholds,
                                  sample_weight=weight[30:60]), "forward's batch value")
    expected = lmf.binary_auroc(preds, target, thresholds=thresholds, sample_weight=ones)
    _same(forwarded.compute(), expected, "forward accumulates")

    for first_weighted in (True, False):  # merge_state in both orders of weighted and unweighted
        plain, weighted = lmc.BinaryAUROC(thresholds=thresholds), lmc.BinaryAUROC(thresholds=thresholds)
        plain.update(preds[:30], target[:30])
        weighted.update(preds[30:60], target[30:60], sample_weight=weight[30:60])
        into, other = (weighted, plain) if first_weighted else (plain, weighted)
        into.merge_state(other)
        assert into._is_sample_weighted
        _same(into.compute(), lmf.binary_auroc(preds[:60], target[:60], thresholds=thresholds,
                                               sample_weight=ones[:60]), "merge_state")

    restored = lmc.BinaryAUROC(thresholds=thresholds)
    restored.persistent(True)
    forwarded.persistent(True)
    restored.load_state_dict(forwarded.state_dict())
    assert restored._is_sample_weighted
    _same(_quiet(restored.compute), expected, "checkpoint")  # (a restored metric has no update count)

    restored.set_dtype(torch.float16)  # a user's cast must not round the weights or the weighted counts
    if thresholds is None:
        assert {w.dtype for w in restored.weights} == {torch.float64}
    else:
        assert restored.confmat.dtype == torch.float64
    forwarded.reset()
    assert not forwarded._is_sample_weighted
    if thresholds is None:
        assert forwarded.weights == []
    else:
        assert forwarded.confmat.dtype == torch.long
    forwarded.update(preds, target)
    _same(forwarded.compute(), lmf.binary_auroc(preds, target, thresholds=thresholds), "unweighted after reset")


@pytest.mark.parametrize(
    ("cls", "kw"),
    [(lmc.BinaryROC, {}), (lmc.BinaryROC, {"thresholds": 5}), (lmc.BinaryCalibrationError, {}),
     (lmc.BinaryHingeLoss, {})],
)
def test_a_rejected_weight_leaves_the_state_unchanged(cls, kw):
    preds, target = torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1])
    metric = cls(**kw)
    metric.update(preds, target)
    before = {name: (list(v) if isinstance(v, list) else v.clone()) for name, v in metric.metric_state.items()}
    for bad in (torch.tensor([1.0, -2.0, 1.0, 1.0]), torch.tensor([1.0, float("nan"), 1.0, 1.0]), torch.ones(3)):
        with pytest.raises(MetricInputError, match="sample_weight"):
            metric.update(preds, target, sample_weight=bad)
        with pytest.raises(MetricInputError, match="sample_weight"):
            metric(preds, target, sample_weight=bad)
    assert not metric._is_sample_weighted
    for name, value in metric.metric_state.items():
        if isinstance(value, list):
            assert len(value) == len(before[name]) and all(a is b for a, b in zip(value, before[name])), name
        else:
            assert value.dtype == before[name].dtype and torch.equal(value, before[name]), name


@pytest.mark.parametrize("thresholds", [None, GRID + 1])
def test_collection_members_share_one_weighted_statistic(thresholds):
    c = case("multiclass", 23, n=100)
    kw = {"num_classes": C, "thresholds": thresholds}
    members = {
        "auroc": lmc.MulticlassAUROC(**kw, average="weighted"),
        "ap": lmc.MulticlassAveragePrecision(**kw),
        "roc": lmc.MulticlassROC(**kw),
        "rfp": lmc.MulticlassRecallAtFixedPrecision(**kw, min_precision=0.5),
    }
    collection = MetricCollection({k: v.clone() for k, v in members.items()})
    batches = [(0, 40, None), (40, 70, c["weight"][40:70]), (70, 100, None)]
    for lo, hi, w in batches:
        collection.update(c["preds"][lo:hi], c["target"][lo:hi], sample_weight=w)
        for metric in members.values():
            metric.update(c["preds"][lo:hi], c["target"][lo:hi], sample_weight=w)
    assert len(collection.compute_groups) == 1
    got = _quiet(collection.compute)
    for name, metric in members.items():
        _same(got[name], _quiet(metric.compute), name)
    # forward of the collection: the batch value of a weighted batch, and the same totals
    forwarded = MetricCollection({k: v.clone() for k, v in members.items()})
    for metric in members.values():
        metric.reset()
    for lo, hi, w in batches:
        values = _quiet(forwarded, c["preds"][lo:hi], c["target"][lo:hi], sample_weight=w)
        _same(values["auroc"], lmf.multiclass_auroc(c["preds"][lo:hi], c["target"][lo:hi], C, average="weighted",
                                                    thresholds=thresholds, sample_weight=w), "batch auroc")
        for metric in members.values():
            metric.update(c["preds"][lo:hi], c["target"][lo:hi], sample_weight=w)
    got = _quiet(forwarded.compute)
    for name, metric in members.items():
        _same(got[name], _quiet(metric.compute), f"forwarded {name}")


# ------------------------------------------------------------------------------------------ DDP
def _ddp_ranks(rank: int, world: int) -> dict:
    c = case("multilabel", 24, n=60, ignore=True)
    half = slice(0, 30) if rank == 0 else slice(30, 60)
    preds, target, weight = c["preds"][half], c["target"][half], c["weight"][half]
    out = {}
    for thresholds in (None, GRID + 1):
        for scenario in ("mixed", "empty_peer", "both"):
            metrics = MetricCollection({
                "auroc": lmc.MultilabelAUROC(C, average="micro", thresholds=thresholds, ignore_index=IGNORE),
                "ap": lmc.MultilabelAveragePrecision(C, thresholds=thresholds, ignore_index=IGNORE),
            })
            lone = lmc.MultilabelROC(C, thresholds=thresholds, ignore_index=IGNORE)
            for metric in (metrics, lone):
                if rank == 0 or scenario == "both":
                    metric.update(preds, target, sample_weight=weight)
                elif scenario == "mixed":
                    metric.update(preds, target)
            values = _quiet(metrics.compute)
            out[thresholds, scenario] = (values["auroc"], values["ap"], _quiet(lone.compute))
    hinge = lmc.MulticlassHingeLoss(C)
    m = case("multiclass", 24, n=60)
    if rank == 0:
        hinge.update(m["preds"][:30], m["target"][:30], sample_weight=m["weight"][:30])
    else:
        hinge.update(m["preds"][30:], m["target"][30:])
    out["hinge"] = hinge.compute()
    return out


def test_ddp_one_rank_weighted_the_other_not_or_empty():
    results = run_distributed(_ddp_ranks, timeout=180)
    c = case("multilabel", 24, n=60, ignore=True)
    for thresholds in (None, GRID + 1):
        kw = {"thresholds": thresholds, "ignore_index": IGNORE}
        for scenario in ("mixed", "empty_peer", "both"):
            weight = c["weight"].clone()
            preds, target = c["preds"], c["target"]
            if scenario == "mixed":
                weight[30:] = 1.0
            elif scenario == "empty_peer":
                preds, target, weight = preds[:30], target[:30], weight[:30]
            expected = (
                lmf.multilabel_auroc(preds, target, C, average="micro", sample_weight=weight, **kw),
                lmf.multilabel_average_precision(preds, target, C, sample_weight=weight, **kw),
                _quiet(lmf.multilabel_roc, preds, target, C, sample_weight=weight, **kw),
            )
            for rank_result in results:
                _same(rank_result[thresholds, scenario], expected, f"{thresholds} {scenario}")
    m = case("multiclass", 24, n=60)
    weight = m["weight"].clone()
    weight[30:] = 1.0
    for rank_result in results:
        _same(rank_result["hinge"], lmf.multiclass_hinge_loss(m["preds"], m["target"], C, sample_weight=weight),
              "hinge")


def test_a_state_dict_without_weights_merges_as_unweighted_samples():
    from lightning_metrics.classification import BinaryAUROC

    preds, target = torch.tensor([0.2, 0.8, 0.6, 0.3, 0.9]), torch.tensor([0, 1, 0, 1, 0])
    weight = torch.tensor([1.0, 2.0, 0.0, 1.0, 1.0])
    merged = BinaryAUROC()
    merged.update(preds[:3], target[:3], sample_weight=weight[:3])
    merged.merge_state({"preds": [preds[3:]], "target": [target[3:]]})  # torchmetrics' states: no weights
    whole = BinaryAUROC()
    whole.update(preds, target, sample_weight=weight)
    assert torch.equal(merged.compute(), whole.compute())
