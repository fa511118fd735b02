"""Sample weights in the curve and score functions: scikit-learn's ``sample_weight`` as the oracle (ROC
and PR curves, AUROC with every average, average precision, hinge loss), a numpy formula for the binned
statistic and the calibration error, and the rules: zero weight == dropped, integer weights ==
repeated samples, constant weight == unweighted, bad weights rejected by name."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from sklearn import metrics as skm

import lightning_metrics.functional.classification as lmf
from lightning_metrics.functional.classification._curve_functions import curve_statistic
from lightning_metrics.utilities.exceptions import MetricInputError
from tests.classification._weighted_curve_cases import C, EDGES, GRID, IGNORE, case, onehot

SEEDS = (0, 1)


def _close(ours, expected, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(ours, dtype=np.float64), expected, rtol=rtol, atol=atol)


# ------------------------------------------------------------------------------ scikit-learn
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ignore", [False, True])
def test_binary_curves_and_areas_match_sklearn(seed, ignore):
    c = case("binary", seed, ignore=ignore)
    keep = c["t"] != IGNORE
    p, t, w = c["p"][keep], c["t"][keep], c["w"][keep]
    args = {"sample_weight": c["weight"], "ignore_index": IGNORE if ignore else None}
    fpr, tpr, thresholds = lmf.binary_roc(c["preds"], c["target"], **args)
    s_fpr, s_tpr, s_thr = skm.roc_curve(t, p, sample_weight=w, drop_intermediate=False)
    _close(fpr, s_fpr), _close(tpr, s_tpr), _close(thresholds[1:], s_thr[1:])  # sklearn's first is inf
    assert fpr.dtype == torch.float32 and thresholds.dtype == torch.float32
    precision, recall, thresholds = lmf.binary_precision_recall_curve(c["preds"], c["target"], **args)
    s_precision, s_recall, s_thr = skm.precision_recall_curve(t, p, sample_weight=w)
    _close(precision, s_precision), _close(recall, s_recall), _close(thresholds, s_thr)
    _close(lmf.binary_auroc(c["preds"], c["target"], **args), skm.roc_auc_score(t, p, sample_weight=w))
    for max_fpr in (0.2, 0.7):
        _close(lmf.binary_auroc(c["preds"], c["target"], max_fpr=max_fpr, **args),
               skm.roc_auc_score(t, p, sample_weight=w, max_fpr=max_fpr))
    _close(lmf.binary_average_precision(c["preds"], c["target"], **args),
           skm.average_precision_score(t, p, sample_weight=w))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("average", ["macro", "weighted", None])
def test_multiclass_auroc_and_ap_match_sklearn_ovr(seed, average):
    c = case("multiclass", seed)
    p, t, w = c["p"], c["t"], c["w"]
    ours = lmf.multiclass_auroc(c["preds"], c["target"], C, average=average or "none", sample_weight=c["weight"])
    expected = (
        skm.roc_auc_score(t, p, multi_class="ovr", average=average, sample_weight=w) if average
        else skm.roc_auc_score(onehot(t), p, average=None, sample_weight=w)
    )
    _close(ours, expected)
    ours = lmf.multiclass_average_precision(c["preds"], c["target"], C, average=average or "none",
                                            sample_weight=c["weight"])
    _close(ours, skm.average_precision_score(onehot(t), p, average=average, sample_weight=w))


@pytest.mark.parametrize("seed", SEEDS)
def test_multiclass_curves_per_class_and_micro_match_sklearn(seed):
    c = case("multiclass", seed, ignore=True)
    keep = c["t"] != IGNORE
    p, t, w = c["p"][keep], c["t"][keep], c["w"][keep]
    args = {"sample_weight": c["weight"], "ignore_index": IGNORE}
    fpr, tpr, _ = lmf.multiclass_roc(c["preds"], c["target"], C, **args)
    precision, recall, _ = lmf.multiclass_precision_recall_curve(c["preds"], c["target"], C, **args)
    for k in range(C):
        s_fpr, s_tpr, _ = skm.roc_curve(t == k, p[:, k], sample_weight=w, drop_intermediate=False)
        _close(fpr[k], s_fpr), _close(tpr[k], s_tpr)
        s_precision, s_recall, _ = skm.precision_recall_curve(t == k, p[:, k], sample_weight=w)
        _close(precision[k], s_precision), _close(recall[k], s_recall)
    fpr, tpr, _ = lmf.multiclass_roc(c["preds"], c["target"], C, average="micro", **args)
    s_fpr, s_tpr, _ = skm.roc_curve(onehot(t).ravel(), p.ravel(), sample_weight=np.repeat(w, C),
                                    drop_intermediate=False)
    _close(fpr, s_fpr), _close(tpr, s_tpr)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("average", ["micro", "macro", "weighted", None])
def test_multilabel_auroc_and_ap_match_sklearn(seed, average):
    c = case("multilabel", seed)
    p, t, w = c["p"], c["t"], c["w"]
    args = {"average": average or "none", "sample_weight": c["weight"]}
    _close(lmf.multilabel_auroc(c["preds"], c["target"], C, **args),
           skm.roc_auc_score(t, p, average=average, sample_weight=w))
    _close(lmf.multilabel_average_precision(c["preds"], c["target"], C, **args),
           skm.average_precision_score(t, p, average=average, sample_weight=w))


def test_multilabel_per_entry_weights_and_ignore_index_match_sklearn_per_label():
    c = case("multilabel", 3, ignore=True)
    entry_weight = np.random.default_rng(3).integers(0, 3, c["t"].shape).astype(np.float64)
    ours = lmf.multilabel_auroc(c["preds"], c["target"], C, average="none", ignore_index=IGNORE,
                                sample_weight=torch.tensor(entry_weight))
    for k in range(C):
        keep = c["t"][:, k] != IGNORE
        expected = skm.roc_auc_score(c["t"][keep, k], c["p"][keep, k], sample_weight=entry_weight[keep, k])
        _close(ours[k], expected)


@pytest.mark.parametrize("seed", SEEDS)
def test_hinge_loss_matches_sklearn(seed):
    c = case("binary", seed)
    _close(lmf.binary_hinge_loss(c["preds"], c["target"], sample_weight=c["weight"]),
           skm.hinge_loss(c["t"], c["p"], sample_weight=c["w"]))
    m = case("multiclass", seed)
    _close(lmf.multiclass_hinge_loss(m["preds"], m["target"], C, sample_weight=m["weight"]),
           skm.hinge_loss(m["t"], m["p"], labels=list(range(C)), sample_weight=m["w"]))
    # squared and one-vs-all: the weighted mean of the per-sample losses (numpy)
    margin = np.where(onehot(m["t"]) == 1, m["p"], -m["p"])
    per_class = np.clip(1 - margin, 0, None) ** 2
    _close(lmf.multiclass_hinge_loss(m["preds"], m["target"], C, squared=True, multiclass_mode="one-vs-all",
                                     sample_weight=m["weight"]),
           (per_class * m["w"][:, None]).sum(0) / m["w"].sum())


# ------------------------------------------------------------------- numpy formulas, binned path
@pytest.mark.parametrize("task", ["binary", "multiclass", "multilabel"])
def test_binned_confmat_is_the_weighted_count_at_every_threshold(task):
    c = case(task, 5, ignore=True)
    thresholds = torch.linspace(0, 1, GRID + 1)
    state = curve_statistic(
        task, 1 if task == "binary" else C, c["preds"], c["target"], GRID + 1, IGNORE, True,
        sample_weight=c["weight"],
    )[1]
    assert state.dtype == torch.float64
    p = c["preds"].numpy()  # in the scores' dtype, as the thresholds are compared to them
    p, t = (p, c["t"]) if task != "binary" else (p[:, None], c["t"][:, None])
    if task == "multiclass":
        thresholds = thresholds.double()
    w = c["w"][:, None] * np.ones(p.shape)
    if task == "multiclass":
        valid = (t != IGNORE)[:, None] * np.ones(p.shape, bool)
        positive = onehot(t) == 1
    else:
        valid, positive = t != IGNORE, t == 1
    for i, threshold in enumerate(thresholds.numpy()):
        predicted = p >= threshold
        tp = (w * valid * positive * predicted).sum(0)
        fp = (w * valid * ~positive * predicted).sum(0)
        got = state[i] if task != "binary" else state[i][None]
        _close(got[:, 1, 1], tp, rtol=1e-12), _close(got[:, 0, 1], fp, rtol=1e-12)
        _close(got[:, 1, 0], (w * valid * positive).sum(0) - tp, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("task", ["binary", "multiclass", "multilabel"])
def test_binned_areas_equal_exact_when_scores_sit_on_the_bin_edges(task):
    c = case(task, 6)
    num = {} if task == "binary" else ({"num_classes": C} if task == "multiclass" else {"num_labels": C})
    if task == "multiclass":  # scores on the grid: snap the probabilities
        c["preds"] = torch.tensor(EDGES.astype(np.float64))[(c["preds"] * GRID).floor().long()]
    for name in ("auroc", "average_precision"):
        function = getattr(lmf, f"{task}_{name}")
        exact = function(c["preds"], c["target"], **num, sample_weight=c["weight"])
        binned = function(c["preds"], c["target"], **num, thresholds=GRID + 1, sample_weight=c["weight"])
        _close(binned, exact.numpy(), rtol=1e-5)


def _calibration_numpy(confidence, correct, w, n_bins, norm):
    upper = torch.linspace(0, 1, n_bins + 1).numpy()[1:]  # float32 edges, float32 confidences (as the metric)
    index = np.searchsorted(upper, confidence.astype(np.float32), side="right")
    confidence = confidence.astype(np.float32).astype(np.float64)
    weight = np.bincount(index, w, n_bins + 1)
    gap = np.zeros(n_bins + 1)
    seen = weight > 0
    gap[seen] = (np.bincount(index, w * correct, n_bins + 1)[seen] - np.bincount(index, w * confidence,
                                                                                  n_bins + 1)[seen]) / weight[seen]
    share = weight / weight.sum()
    return {"l1": (np.abs(gap) * share).sum(), "l2": np.sqrt((gap**2 * share).sum()), "max": np.abs(gap).max()}[norm]


@pytest.mark.parametrize("norm", ["l1", "l2", "max"])
def test_calibration_error_matches_a_weighted_numpy_formula(norm):
    c = case("binary", 7)
    ours = lmf.binary_calibration_error(c["preds"], c["target"], n_bins=10, norm=norm, sample_weight=c["weight"])
    confidence = c["preds"].numpy().astype(np.float64)
    _close(ours, _calibration_numpy(confidence, c["t"], c["w"], 10, norm))
    m = case("multiclass", 7, ignore=True)
    keep = m["t"] != IGNORE
    ours = lmf.multiclass_calibration_error(m["preds"], m["target"], C, n_bins=10, norm=norm, ignore_index=IGNORE,
                                            sample_weight=m["weight"])
    confidence = m["preds"].float().numpy().max(1).astype(np.float64)[keep]
    correct = (m["p"].argmax(1) == m["t"])[keep]
    _close(ours, _calibration_numpy(confidence, correct, m["w"][keep], 10, norm))


# ------------------------------------------------------------------------------------ the rules
def _measures(task):
    """(name, function of (preds, target, **kw)) over every curve and score function of ``task``."""
    num = {} if task == "binary" else ({"num_classes": C} if task == "multiclass" else {"num_labels": C})
    out = []
    for thresholds in (None, GRID + 1):
        kw = {**num, "thresholds": thresholds}
        out += [
            (f"roc{thresholds}", getattr(lmf, f"{task}_roc"), kw),
            (f"pr{thresholds}", getattr(lmf, f"{task}_precision_recall_curve"), kw),
            (f"auroc{thresholds}", getattr(lmf, f"{task}_auroc"), kw),
            (f"ap{thresholds}", getattr(lmf, f"{task}_average_precision"), kw),
            (f"eer{thresholds}", getattr(lmf, f"{task}_eer"), kw),
            (f"logauc{thresholds}", getattr(lmf, f"{task}_logauc"), {**kw, "fpr_range": (0.05, 0.5)}),
            (f"rfp{thresholds}", getattr(lmf, f"{task}_recall_at_fixed_precision"), {**kw, "min_precision": 0.6}),
            (f"pfr{thresholds}", getattr(lmf, f"{task}_precision_at_fixed_recall"), {**kw, "min_recall": 0.5}),
            (f"sas{thresholds}", getattr(lmf, f"{task}_sensitivity_at_specificity"), {**kw, "min_specificity": 0.5}),
            (f"sas{thresholds}", getattr(lmf, f"{task}_specificity_at_sensitivity"), {**kw, "min_sensitivity": 0.5}),
        ]
    if task == "multiclass":
        out += [(f"{avg}{kind}", getattr(lmf, f"multiclass_{kind}"), {**num, "average": avg})
                for avg in ("micro", "macro") for kind in ("roc", "precision_recall_curve")]
    if task == "multilabel":
        out += [("auroc-micro", lmf.multilabel_auroc, {**num, "average": "micro"})]
    if task == "multilabel":
        out += [(name, getattr(lmf, f"multilabel_{name}"), num)
                for name in ("coverage_error", "ranking_average_precision", "ranking_loss")]
    if task != "multilabel":
        out += [("calibration", getattr(lmf, f"{task}_calibration_error"), {**num, "n_bins": 7}),
                ("hinge", getattr(lmf, f"{task}_hinge_loss"), num)]
    return out


def _assert_same(a, b, name):
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b), name
        for x, y in zip(a, b):
            _assert_same(x, y, name)
        return
    np.testing.assert_allclose(a.double().numpy(), b.double().numpy(), rtol=1e-5, atol=1e-6, err_msg=name)


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


@pytest.mark.parametrize("task", ["binary", "multiclass", "multilabel"])
def test_zero_weight_drops_integer_weight_repeats_constant_weight_is_unweighted(task):
    c = case(task, 11, n=90)
    preds, target = c["preds"], c["target"]
    weight = c["weight"].round()  # integers 0..3, zeros among them
    keep = weight > 0
    repeat = weight.long()
    for name, function, kw in _measures(task):
        weighted = _quiet(function, preds, target, sample_weight=weight, **kw)
        repeated = _quiet(function, preds.repeat_interleave(repeat, 0), target.repeat_interleave(repeat, 0), **kw)
        _assert_same(weighted, repeated, f"{name}: integer weights == repeated samples")
        dropped = _quiet(function, preds[keep], target[keep], **kw)
        zero_and_one = _quiet(function, preds, target, sample_weight=keep.double(), **kw)
        _assert_same(zero_and_one, dropped, f"{name}: zero weight == dropped")
        unweighted = _quiet(function, preds, target, **kw)
        _assert_same(_quiet(function, preds, target, sample_weight=2.5, **kw), unweighted,
                     f"{name}: constant weight == unweighted")


def test_weighted_results_keep_the_unweighted_dtypes():
    c = case("binary", 12, n=50)
    for thresholds in (None, 5):
        ours = lmf.binary_roc(c["preds"], c["target"], thresholds=thresholds, sample_weight=c["weight"])
        plain = lmf.binary_roc(c["preds"], c["target"], thresholds=thresholds)
        assert [x.dtype for x in ours] == [x.dtype for x in plain]
        ours = lmf.binary_auroc(c["preds"], c["target"], thresholds=thresholds, sample_weight=c["weight"])
        assert ours.dtype == lmf.binary_auroc(c["preds"], c["target"], thresholds=thresholds).dtype
    assert lmf.binary_hinge_loss(c["preds"], c["target"], sample_weight=c["weight"]).dtype == torch.float32


@pytest.mark.parametrize(
    ("weight", "message"),
    [
        (torch.tensor([1.0, -1.0, 1.0, 1.0]), "`sample_weight` must hold finite, non-negative weights, got -1.0 at index 1"),
        (torch.tensor([1.0, 1.0, float("nan"), 1.0]), "got nan at index 2"),
        (torch.tensor([1.0, float("inf"), 1.0, 1.0]), "got inf at index 1"),
        (torch.ones(3), r"`sample_weight` must have one weight per sample: shape \(4,\)"),
        (torch.ones(4, 2), r"got shape \(4, 2\)"),
    ],
)
def test_bad_weights_are_rejected_by_name(weight, message):
    preds, target = torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1])
    for function in (lmf.binary_roc, lmf.binary_auroc, lmf.binary_calibration_error):
        for thresholds in ((None, 5) if function is not lmf.binary_calibration_error else (None,)):
            kw = {} if function is lmf.binary_calibration_error else {"thresholds": thresholds}
            with pytest.raises(MetricInputError, match=message):
                function(preds, target, sample_weight=weight, **kw)
    with pytest.raises(MetricInputError, match=message):
        lmf.binary_hinge_loss(preds, target, sample_weight=weight, validate_args=True)


def test_task_wrappers_pass_the_weights():
    c = case("multiclass", 13, n=60)
    direct = lmf.multiclass_auroc(c["preds"], c["target"], C, sample_weight=c["weight"])
    wrapped = lmf.auroc(c["preds"], c["target"], task="multiclass", num_classes=C, sample_weight=c["weight"])
    assert torch.equal(direct, wrapped)
    assert not torch.equal(direct, lmf.auroc(c["preds"], c["target"], task="multiclass", num_classes=C))
    b = case("binary", 13, n=60)
    for name in ("roc", "precision_recall_curve", "average_precision", "calibration_error", "hinge_loss", "eer"):
        wrapped = getattr(lmf, name)(b["preds"], b["target"], task="binary", sample_weight=b["weight"])
        _assert_same(wrapped, getattr(lmf, f"binary_{name}")(b["preds"], b["target"], sample_weight=b["weight"]),
                     name)
    wrapped = lmf.recall_at_fixed_precision(b["preds"], b["target"], "binary", 0.6, sample_weight=b["weight"])
    _assert_same(wrapped, lmf.binary_recall_at_fixed_precision(b["preds"], b["target"], 0.6,
                                                               sample_weight=b["weight"]), "rfp")


@pytest.mark.parametrize("seed", SEEDS)
def test_multilabel_ranking_matches_sklearn(seed):
    c = case("multilabel", seed, n=120)
    # untied scores: torchmetrics' ranking loss orders tied labels by position, scikit-learn counts them half
    p = c["p"] + np.random.default_rng(seed).random(c["p"].shape) * 1e-3
    t, w = c["t"], c["w"]
    t[:3] = 0  # samples without a relevant label (sklearn and torchmetrics: LRAP 1, loss 0)
    preds, target = torch.tensor(p), torch.tensor(t)
    args = {"num_labels": C, "sample_weight": c["weight"]}
    _close(lmf.multilabel_coverage_error(preds, target, **args), skm.coverage_error(t, p, sample_weight=w))
    _close(lmf.multilabel_ranking_average_precision(preds, target, **args),
           skm.label_ranking_average_precision_score(t, p, sample_weight=w))
    _close(lmf.multilabel_ranking_loss(preds, target, **args), skm.label_ranking_loss(t, p, sample_weight=w))


def test_a_weight_per_sample_spreads_over_its_extra_dimensions():
    g = torch.Generator().manual_seed(14)
    weight = torch.tensor([1.0, 0.0, 2.5, 1.0, 3.0, 0.5])
    preds, target = torch.rand(6, 3, generator=g), torch.randint(0, 2, (6, 3), generator=g)
    spread = weight.repeat_interleave(3)  # one weight per position, rows of ``preds.flatten()``
    for thresholds in (None, 5):
        _assert_same(lmf.binary_auroc(preds, target, thresholds=thresholds, sample_weight=weight),
                     lmf.binary_auroc(preds.flatten(), target.flatten(), thresholds=thresholds, sample_weight=spread),
                     "binary (N, K)")
    scores, labels = torch.rand(6, C, 3, generator=g).softmax(1), torch.randint(0, C, (6, 3), generator=g)
    _assert_same(lmf.multiclass_auroc(scores, labels, C, average="none", sample_weight=weight),
                 lmf.multiclass_auroc(scores.movedim(1, -1).reshape(-1, C), labels.flatten(), C, average="none",
                                      sample_weight=spread), "multiclass (N, C, K)")
    scores, labels = torch.rand(6, C, 3, generator=g), torch.randint(0, 2, (6, C, 3), generator=g)
    _assert_same(lmf.multilabel_average_precision(scores, labels, C, average="none", sample_weight=weight),
                 lmf.multilabel_average_precision(scores.movedim(1, -1).reshape(-1, C), labels.movedim(1, -1).reshape(-1, C),
                                                  C, average="none", sample_weight=spread), "multilabel (N, L, K)")
