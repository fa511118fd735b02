"""Count-based metrics against scikit-learn, including the per-example ``average="samples"``."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm
import torch

import lightning_metrics.classification as lmc
import lightning_metrics.functional.classification as lmf

SAMPLES_MEASURES = {
    "precision": (lmf.multilabel_precision, skm.precision_score, {}),
    "recall": (lmf.multilabel_recall, skm.recall_score, {}),
    "f1_score": (lmf.multilabel_f1_score, skm.f1_score, {}),
    "fbeta_score": (lmf.multilabel_fbeta_score, skm.fbeta_score, {"beta": 2.0}),
    "jaccard_index": (lmf.multilabel_jaccard_index, skm.jaccard_score, {}),
}


def multilabel_data(seed: int, n: int = 40, labels: int = 5) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    target = (torch.rand(n, labels, generator=g) < 0.3).long()
    probs = torch.rand(n, labels, generator=g)
    target[:3] = 0  # rows without any true label: precision/recall/F are 0/0 there
    probs[1:4] = 0.1  # rows without any predicted label
    return probs, target


@pytest.mark.parametrize("measure", sorted(SAMPLES_MEASURES))
@pytest.mark.parametrize("zero_division", [0, 1])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_samples_average_matches_sklearn(measure: str, zero_division: int, seed: int) -> None:
    ours_fn, sk_fn, extra = SAMPLES_MEASURES[measure]
    probs, target = multilabel_data(seed)
    got = ours_fn(probs, target, num_labels=5, average="samples", zero_division=zero_division, **extra)
    expected = sk_fn(target.numpy(), (probs > 0.5).long().numpy(), average="samples", zero_division=zero_division, **extra)
    assert got.dtype == torch.float32 and got.shape == ()
    assert got.item() == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("measure", sorted(SAMPLES_MEASURES))
def test_samples_average_streams_from_constant_state(measure: str) -> None:
    probs, target = multilabel_data(7, n=50)
    cls = {"precision": lmc.MultilabelPrecision, "recall": lmc.MultilabelRecall, "f1_score": lmc.MultilabelF1Score,
           "fbeta_score": lambda **k: lmc.MultilabelFBetaScore(beta=2.0, **k),
           "jaccard_index": lmc.MultilabelJaccardIndex}[measure]
    metric = cls(num_labels=5, average="samples", zero_division=1)
    for chunk in torch.arange(50).split([7, 1, 20, 22]):
        metric.update(probs[chunk], target[chunk])
    assert all(v.numel() == 1 for v in metric.metric_state.values())  # O(1) state: sum, 0/0 count, count
    expected = SAMPLES_MEASURES[measure][1](
        target.numpy(), (probs > 0.5).long().numpy(), average="samples", zero_division=1,
        **SAMPLES_MEASURES[measure][2],
    )
    assert metric.compute().item() == pytest.approx(expected, rel=1e-6)


def test_samples_average_skips_fully_ignored_examples() -> None:
    probs, target = multilabel_data(3, n=10)
    target_ignored = target.clone()
    target_ignored[4] = -1
    keep = torch.arange(10) != 4
    got = lmf.multilabel_precision(probs, target_ignored, num_labels=5, average="samples", ignore_index=-1)
    assert got == lmf.multilabel_precision(probs[keep], target[keep], num_labels=5, average="samples")


def multiclass_data(seed: int, n: int = 60, classes: int = 4) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    target = torch.cat([torch.arange(classes), torch.randint(0, classes, (n - classes,), generator=g)])
    return torch.randn(n, classes, generator=g), target  # every class present: sklearn's macro rule agrees


@pytest.mark.parametrize("average", ["micro", "macro", "weighted"])
@pytest.mark.parametrize("seed", [0, 1])
def test_multiclass_ratios_match_sklearn(average: str, seed: int) -> None:
    logits, target = multiclass_data(seed)
    y, p = target.numpy(), logits.argmax(1).numpy()
    for ours, sk in (
        (lmf.multiclass_precision, skm.precision_score),
        (lmf.multiclass_recall, skm.recall_score),
        (lmf.multiclass_f1_score, skm.f1_score),
        (lmf.multiclass_jaccard_index, skm.jaccard_score),
    ):
        got = ours(logits, target, num_classes=4, average=average)
        assert got.item() == pytest.approx(sk(y, p, average=average, zero_division=0), rel=1e-5), ours.__name__


@pytest.mark.parametrize("seed", [0, 1])
def test_whole_matrix_measures_match_sklearn(seed: int) -> None:
    logits, target = multiclass_data(seed)
    y, p = target.numpy(), logits.argmax(1).numpy()
    assert lmf.multiclass_matthews_corrcoef(logits, target, 4).item() == pytest.approx(
        skm.matthews_corrcoef(y, p), rel=1e-5
    )
    for weights in (None, "linear", "quadratic"):
        got = lmf.multiclass_cohen_kappa(logits, target, 4, weights=weights)
        assert got.item() == pytest.approx(skm.cohen_kappa_score(y, p, weights=weights), rel=1e-5, abs=1e-6)
    for normalize in (None, "true", "pred", "all"):
        got = lmf.multiclass_confusion_matrix(logits, target, 4, normalize=normalize)
        expected = skm.confusion_matrix(y, p, labels=range(4), normalize=normalize)
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5)
    assert lmf.multiclass_accuracy(logits, target, 4, average="micro").item() == pytest.approx(
        skm.accuracy_score(y, p)
    )
    assert lmf.multiclass_recall(logits, target, 4, average="macro").item() == pytest.approx(
        skm.balanced_accuracy_score(y, p), rel=1e-5
    )


def test_multilabel_against_sklearn() -> None:
    probs, target = multilabel_data(5)
    y, p = target.numpy(), (probs > 0.5).long().numpy()
    assert lmf.multilabel_hamming_distance(probs, target, 5, average="micro").item() == pytest.approx(
        skm.hamming_loss(y, p)
    )
    assert lmf.multilabel_exact_match(probs, target, 5).item() == pytest.approx(skm.accuracy_score(y, p))
    np.testing.assert_array_equal(
        lmf.multilabel_confusion_matrix(probs, target, 5).numpy(), skm.multilabel_confusion_matrix(y, p)
    )
    for average in ("micro", "macro", "weighted"):
        got = lmf.multilabel_f1_score(probs, target, 5, average=average)
        assert got.item() == pytest.approx(skm.f1_score(y, p, average=average, zero_division=0), rel=1e-5)


def test_binary_against_sklearn() -> None:
    g = torch.Generator().manual_seed(0)
    target, probs = torch.randint(0, 2, (100,), generator=g), torch.rand(100, generator=g)
    y, p = target.numpy(), (probs > 0.5).long().numpy()
    assert lmf.binary_f1_score(probs, target).item() == pytest.approx(skm.f1_score(y, p), rel=1e-5)
    assert lmf.binary_matthews_corrcoef(probs, target).item() == pytest.approx(skm.matthews_corrcoef(y, p), rel=1e-5)
    assert lmf.binary_cohen_kappa(probs, target).item() == pytest.approx(skm.cohen_kappa_score(y, p), rel=1e-5)
    assert lmf.binary_jaccard_index(probs, target).item() == pytest.approx(skm.jaccard_score(y, p), rel=1e-5)
