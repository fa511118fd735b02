"""Weighted count measures against scikit-learn's ``sample_weight``, over generated cases (issue 39).

300 items per case with ties at the threshold and integer, fractional and zero weights; an ignored target
is the sample dropped (scikit-learn has no ``ignore_index``). Multilabel measures per element compare with
scikit-learn over the flattened labels, the weights repeated per label.
"""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm
import torch

import lightning_metrics.functional.classification as lmf
from tests.classification._weighted_count_cases import C, L, case, labels

SEEDS = (0, 1, 2)


def _close(got: torch.Tensor, expected, rel: float = 1e-5) -> None:  # noqa: ANN001
    np.testing.assert_allclose(got.double().numpy(), np.asarray(expected, dtype=np.float64), rtol=rel, atol=1e-6)


def _kept(task: str, preds, target, weight, ignore_index):  # noqa: ANN001, ANN202
    """numpy labels, targets and weights of the samples scikit-learn sees (ignored ones dropped)."""
    t, p, w = target.numpy(), labels(task, preds).numpy(), weight.numpy()
    if ignore_index is None:
        return t, p, w
    keep = t != ignore_index
    return t[keep], p[keep], w[keep]


# ----------------------------------------------------------------------------------------------- binary
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ignore_index", [None, -1])
def test_binary_measures_match_sklearn(seed: int, ignore_index) -> None:  # noqa: ANN001
    preds, target, weight = case("binary", seed, ignore_index=ignore_index)
    t, p, w = _kept("binary", preds, target, weight, ignore_index)
    kw = {"ignore_index": ignore_index, "sample_weight": weight}
    _close(lmf.binary_accuracy(preds, target, **kw), skm.accuracy_score(t, p, sample_weight=w))
    _close(lmf.binary_precision(preds, target, **kw), skm.precision_score(t, p, sample_weight=w))
    _close(lmf.binary_recall(preds, target, **kw), skm.recall_score(t, p, sample_weight=w))
    _close(lmf.binary_f1_score(preds, target, **kw), skm.f1_score(t, p, sample_weight=w))
    _close(lmf.binary_fbeta_score(preds, target, beta=0.5, **kw), skm.fbeta_score(t, p, beta=0.5, sample_weight=w))
    _close(lmf.binary_specificity(preds, target, **kw), skm.recall_score(t, p, pos_label=0, sample_weight=w))
    _close(lmf.binary_negative_predictive_value(preds, target, **kw),
           skm.precision_score(t, p, pos_label=0, sample_weight=w))
    _close(lmf.binary_hamming_distance(preds, target, **kw), skm.hamming_loss(t, p, sample_weight=w))
    _close(lmf.binary_jaccard_index(preds, target, **kw), skm.jaccard_score(t, p, sample_weight=w))
    _close(lmf.binary_matthews_corrcoef(preds, target, **kw), skm.matthews_corrcoef(t, p, sample_weight=w))
    for weights in (None, "linear", "quadratic"):
        _close(lmf.binary_cohen_kappa(preds, target, weights=weights, **kw),
               skm.cohen_kappa_score(t, p, weights=weights, sample_weight=w))
    for normalize in (None, "true", "pred", "all"):
        got = lmf.binary_confusion_matrix(preds, target, normalize=normalize, **kw)
        assert got.dtype == (torch.float64 if normalize is None else torch.float32)
        _close(got, skm.confusion_matrix(t, p, sample_weight=w, normalize=normalize))
    tn, fp, fn, tp = skm.confusion_matrix(t, p, sample_weight=w).ravel()
    _close(lmf.binary_stat_scores(preds, target, **kw), [tp, fp, tn, fn, tp + fn])


# ----------------------------------------------------------------------------------------------- multiclass
@pytest.mark.filterwarnings("ignore:.*NaN values found in confusion matrix")  # ignore_index=0: an empty row
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ignore_index", [None, -1, 0])
def test_multiclass_measures_match_sklearn(seed: int, ignore_index) -> None:  # noqa: ANN001
    preds, target, weight = case("multiclass", seed, ignore_index=ignore_index)
    t, p, w = _kept("multiclass", preds, target, weight, ignore_index)
    kw = {"num_classes": C, "ignore_index": ignore_index, "sample_weight": weight}
    every = list(range(C))
    for average in ("micro", "macro", "weighted", None):
        sk = {"average": average, "labels": every, "sample_weight": w, "zero_division": 0}
        _close(lmf.multiclass_precision(preds, target, average=average, **kw), skm.precision_score(t, p, **sk))
        _close(lmf.multiclass_recall(preds, target, average=average, **kw), skm.recall_score(t, p, **sk))
        _close(lmf.multiclass_f1_score(preds, target, average=average, **kw), skm.f1_score(t, p, **sk))
        _close(lmf.multiclass_fbeta_score(preds, target, beta=2.0, average=average, **kw),
               skm.fbeta_score(t, p, beta=2.0, **sk))
        # multiclass accuracy is per-class recall (torchmetrics' definition), micro: scikit-learn's accuracy
        _close(lmf.multiclass_accuracy(preds, target, average=average, **kw), skm.recall_score(t, p, **sk))
        if ignore_index != 0:  # an ignored class is left out of torchmetrics' micro/macro Jaccard
            _close(lmf.multiclass_jaccard_index(preds, target, average=average, **kw), skm.jaccard_score(t, p, **sk))
    _close(lmf.multiclass_accuracy(preds, target, average="micro", **kw), skm.accuracy_score(t, p, sample_weight=w))
    no_classes = {k: v for k, v in kw.items() if k != "num_classes"}
    _close(lmf.multiclass_accuracy(preds, target, average="micro", num_classes=None, **no_classes),
           skm.accuracy_score(t, p, sample_weight=w))
    _close(lmf.multiclass_hamming_distance(preds, target, average="micro", **kw), skm.hamming_loss(t, p, sample_weight=w))
    # exact match counts an ignored position as right (torchmetrics): an ignored sample is a match
    matched = (labels("multiclass", preds) == target) | (target == ignore_index)
    _close(lmf.multiclass_exact_match(preds, target, **kw), (weight * matched).sum() / weight.sum())
    _close(lmf.multiclass_matthews_corrcoef(preds, target, **kw), skm.matthews_corrcoef(t, p, sample_weight=w))
    for weights in (None, "linear", "quadratic"):
        _close(lmf.multiclass_cohen_kappa(preds, target, weights=weights, **kw),
               skm.cohen_kappa_score(t, p, weights=weights, sample_weight=w))
    for normalize in (None, "true", "pred", "all"):
        _close(lmf.multiclass_confusion_matrix(preds, target, normalize=normalize, **kw),
               skm.confusion_matrix(t, p, labels=every, sample_weight=w, normalize=normalize))
    mcm = skm.multilabel_confusion_matrix(t, p, labels=every, sample_weight=w)  # (C, 2, 2) [[tn, fp], [fn, tp]]
    stat = np.stack([mcm[:, 1, 1], mcm[:, 0, 1], mcm[:, 0, 0], mcm[:, 1, 0], mcm[:, 1, 1] + mcm[:, 1, 0]], -1)
    _close(lmf.multiclass_stat_scores(preds, target, average=None, **kw), stat)
    _close(lmf.multiclass_stat_scores(preds, target, average="micro", **kw), stat.sum(0))


def test_multiclass_jaccard_with_a_class_ignored_leaves_it_out() -> None:
    preds, target, weight = case("multiclass", 3, ignore_index=0)
    t, p, w = _kept("multiclass", preds, target, weight, 0)
    got = lmf.multiclass_jaccard_index(preds, target, num_classes=C, average="macro", ignore_index=0,
                                       sample_weight=weight)
    _close(got, skm.jaccard_score(t, p, labels=[1, 2, 3], average="macro", sample_weight=w))


# ----------------------------------------------------------------------------------------------- multilabel
@pytest.mark.parametrize("seed", SEEDS)
def test_multilabel_measures_match_sklearn(seed: int) -> None:
    preds, target, weight = case("multilabel", seed)
    t, p, w = target.numpy(), labels("multilabel", preds).numpy(), weight.numpy()
    kw = {"num_labels": L, "sample_weight": weight}
    for average in ("micro", "macro", "weighted", None, "samples"):
        sk = {"average": average, "sample_weight": w, "zero_division": 0}
        _close(lmf.multilabel_precision(preds, target, average=average, **kw), skm.precision_score(t, p, **sk))
        _close(lmf.multilabel_recall(preds, target, average=average, **kw), skm.recall_score(t, p, **sk))
        _close(lmf.multilabel_f1_score(preds, target, average=average, **kw), skm.f1_score(t, p, **sk))
        _close(lmf.multilabel_fbeta_score(preds, target, beta=0.5, average=average, **kw),
               skm.fbeta_score(t, p, beta=0.5, **sk))
        _close(lmf.multilabel_jaccard_index(preds, target, average=average, **kw), skm.jaccard_score(t, p, **sk))
    _close(lmf.multilabel_exact_match(preds, target, **kw), skm.accuracy_score(t, p, sample_weight=w))
    _close(lmf.multilabel_hamming_distance(preds, target, average="micro", **kw), skm.hamming_loss(t, p, sample_weight=w))
    flat_w = np.repeat(w, L)
    _close(lmf.multilabel_accuracy(preds, target, average="micro", **kw),
           skm.accuracy_score(t.ravel(), p.ravel(), sample_weight=flat_w))
    _close(lmf.multilabel_matthews_corrcoef(preds, target, **kw),
           skm.matthews_corrcoef(t.ravel(), p.ravel(), sample_weight=flat_w))
    mcm = skm.multilabel_confusion_matrix(t, p, sample_weight=w)
    _close(lmf.multilabel_confusion_matrix(preds, target, **kw), mcm)
    _close(lmf.multilabel_confusion_matrix(preds, target, normalize="true", **kw),
           mcm / mcm.sum(-1, keepdims=True))
    stat = np.stack([mcm[:, 1, 1], mcm[:, 0, 1], mcm[:, 0, 0], mcm[:, 1, 0], mcm[:, 1, 1] + mcm[:, 1, 0]], -1)
    _close(lmf.multilabel_stat_scores(preds, target, average=None, **kw), stat)
    support = stat[:, 4]
    _close(lmf.multilabel_stat_scores(preds, target, average="weighted", **kw),
           (stat * (support / support.sum())[:, None]).sum(0))


def test_multilabel_weights_per_label_are_the_per_label_binary_measures() -> None:
    """A ``(N, L)`` weight weighs each label of each sample: label l's counts are the binary ones under
    the weights ``w[:, l]``."""
    preds, target, _ = case("multilabel", 4)
    g = torch.Generator().manual_seed(4)
    per_label = torch.rand(target.shape, generator=g, dtype=torch.float64).round(decimals=1)
    got = lmf.multilabel_recall(preds, target, num_labels=L, average=None, sample_weight=per_label)
    for label in range(L):
        expected = skm.recall_score(target[:, label].numpy(), labels("multilabel", preds)[:, label].numpy(),
                                    sample_weight=per_label[:, label].numpy())
        _close(got[label], expected)


# ----------------------------------------------------------------------------------------------- task dispatch
def test_task_functions_pass_sample_weight() -> None:
    preds, target, weight = case("multiclass", 5)
    t, p, w = target.numpy(), labels("multiclass", preds).numpy(), weight.numpy()
    _close(lmf.accuracy(preds, target, task="multiclass", num_classes=C, sample_weight=weight),
           skm.accuracy_score(t, p, sample_weight=w))
    _close(lmf.f1_score(preds, target, task="multiclass", num_classes=C, average="weighted", sample_weight=weight),
           skm.f1_score(t, p, average="weighted", sample_weight=w))
    _close(lmf.confusion_matrix(preds, target, task="multiclass", num_classes=C, normalize="pred", sample_weight=weight),
           skm.confusion_matrix(t, p, normalize="pred", sample_weight=w))
    _close(lmf.cohen_kappa(preds, target, task="multiclass", num_classes=C, sample_weight=weight),
           skm.cohen_kappa_score(t, p, sample_weight=w))
    preds, target, weight = case("multilabel", 5)
    _close(lmf.exact_match(preds, target, task="multilabel", num_labels=L, sample_weight=weight),
           skm.accuracy_score(target.numpy(), labels("multilabel", preds).numpy(), sample_weight=weight.numpy()))
