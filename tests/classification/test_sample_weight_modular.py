"""Modular count metrics with ``sample_weight`` (issue 39): streaming equals the function, ``forward``'s batch
value, the switch to float64 states and back on ``reset``, a rejected batch, checkpoints, ``merge_state``,
the task wrappers, ``ClasswiseWrapper``, collections sharing one weighted statistic, and two-process DDP."""

from __future__ import annotations

import warnings

import pytest
import torch

import lightning_metrics.classification as lmc
from lightning_metrics import MetricCollection
from lightning_metrics.utilities.exceptions import MetricInputError
from lightning_metrics.wrappers import ClasswiseWrapper
from tests._distributed import run_distributed
from tests.classification._weighted_count_cases import C, L, call_id, case, family_calls, function

_CLASS_NAMES = {
    "stat_scores": "StatScores", "accuracy": "Accuracy", "precision": "Precision", "recall": "Recall",
    "f1_score": "F1Score", "fbeta_score": "FBetaScore", "specificity": "Specificity",
    "negative_predictive_value": "NegativePredictiveValue", "hamming_distance": "HammingDistance",
    "jaccard_index": "JaccardIndex", "exact_match": "ExactMatch", "matthews_corrcoef": "MatthewsCorrCoef",
    "cohen_kappa": "CohenKappa", "confusion_matrix": "ConfusionMatrix",
}
CALLS = family_calls()


def metric_class(family: str, task: str) -> type:
    return getattr(lmc, task.capitalize() + _CLASS_NAMES[family])


def _equal(got: torch.Tensor, expected: torch.Tensor) -> None:
    assert got.dtype == expected.dtype and got.shape == expected.shape
    torch.testing.assert_close(got, expected, rtol=1e-6, atol=1e-7, equal_nan=True)


@pytest.mark.filterwarnings("ignore:.*NaN values found in confusion matrix")
@pytest.mark.parametrize("call", CALLS, ids=call_id)
def test_modular_streams_to_the_function_and_forward_gives_the_batch_value(call: tuple) -> None:
    family, task, args = call
    fn, metric = function(family, task), metric_class(family, task)(**args, ignore_index=-1)
    preds, target, weight = case(task, 3, n=90, ignore_index=-1)
    assert metric(preds[:30], target[:30], sample_weight=weight[:30]).dtype == fn(
        preds[:30], target[:30], ignore_index=-1, sample_weight=weight[:30], **args).dtype
    metric.update(preds[30:50], target[30:50])  # an unweighted batch in the weighted epoch weighs 1 per sample
    _equal(metric(preds[50:], target[50:], sample_weight=weight[50:]),
           fn(preds[50:], target[50:], ignore_index=-1, sample_weight=weight[50:], **args))
    assert metric._is_sample_weighted
    streamed = torch.cat([weight[:30], torch.ones(20, dtype=torch.float64), weight[50:]])
    _equal(metric.compute(), fn(preds, target, ignore_index=-1, sample_weight=streamed, **args))
    metric.reset()
    assert not metric._is_sample_weighted
    assert all(not v.is_floating_point() for n, v in metric.metric_state.items() if n != "sample_sum")
    metric.update(preds, target)
    _equal(metric.compute(), fn(preds, target, ignore_index=-1, **args))


def test_samplewise_metric_mixes_weighted_and_unweighted_batches() -> None:
    preds, target, weight = case("multiclass", 4, n=40, extra=(5,), weight_kind="integer")
    metric = lmc.MulticlassStatScores(num_classes=C, average=None, multidim_average="samplewise")
    metric.update(preds[:10], target[:10])
    metric.update(preds[10:], target[10:], sample_weight=weight[10:])
    plain = lmc.MulticlassStatScores(num_classes=C, average=None, multidim_average="samplewise")
    plain.update(preds, target)
    factor = torch.cat([torch.ones(10, dtype=torch.float64), weight[10:]]).view(-1, 1, 1)
    _equal(metric.compute(), plain.compute() * factor)


def test_rejected_weighted_batch_leaves_the_state_as_it_was() -> None:
    preds, target, weight = case("multiclass", 5, n=30)
    metric = lmc.MulticlassF1Score(num_classes=C, average="weighted")
    metric.update(preds[:10], target[:10])
    before = {k: v.clone() for k, v in metric.metric_state.items()}
    bad = weight[10:].clone()
    bad[4] = -2.0
    for wrong in (bad, torch.ones(7), torch.full((20,), float("nan"))):
        with pytest.raises(MetricInputError, match="`sample_weight`"):
            metric.update(preds[10:], target[10:], sample_weight=wrong)
        with pytest.raises(MetricInputError, match="`sample_weight`"):
            metric(preds[10:], target[10:], sample_weight=wrong)
    assert metric._update_count == 1 and not metric._is_sample_weighted
    for name, value in metric.metric_state.items():
        assert value.dtype == before[name].dtype and torch.equal(value, before[name])


def test_checkpoint_and_merge_state_keep_the_weighted_counts() -> None:
    preds, target, weight = case("binary", 6, n=60)
    metric = lmc.BinaryMatthewsCorrCoef()
    metric.update(preds[:30], target[:30], sample_weight=weight[:30])
    metric.persistent(True)
    restored = lmc.BinaryMatthewsCorrCoef()
    restored.persistent(True)
    restored.load_state_dict(metric.state_dict())
    assert restored._is_sample_weighted
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a restored state has no update count (as torchmetrics)
        _equal(restored.compute(), metric.compute())
    other = lmc.BinaryMatthewsCorrCoef()
    other.update(preds[30:], target[30:])  # unweighted: weight 1 each
    metric.merge_state(other)
    expected = function("matthews_corrcoef", "binary")(
        preds, target, sample_weight=torch.cat([weight[:30], torch.ones(30, dtype=torch.float64)]))
    _equal(metric.compute(), expected)


def test_task_wrappers_and_classwise_wrapper_take_weights() -> None:
    preds, target, weight = case("multiclass", 7, n=50)
    fn = function("recall", "multiclass")
    metric = lmc.Recall(task="multiclass", num_classes=C, average=None)
    metric.update(preds, target, sample_weight=weight)
    _equal(metric.compute(), fn(preds, target, num_classes=C, average=None, sample_weight=weight))
    wrapped = ClasswiseWrapper(lmc.MulticlassRecall(num_classes=C, average=None), labels=list("abcd"))
    batch = wrapped(preds[:20], target[:20], sample_weight=weight[:20])
    expected = fn(preds[:20], target[:20], num_classes=C, average=None, sample_weight=weight[:20])
    assert list(batch) == ["multiclassrecall_a", "multiclassrecall_b", "multiclassrecall_c", "multiclassrecall_d"]
    _equal(torch.stack(list(batch.values())), expected)
    wrapped.update(preds[20:], target[20:], sample_weight=weight[20:])
    _equal(torch.stack(list(wrapped.compute().values())), fn(preds, target, num_classes=C, average=None,
                                                              sample_weight=weight))


def _members() -> dict:
    kw = {"num_classes": C, "ignore_index": -1}
    return {
        "acc": lmc.MulticlassAccuracy(**kw),
        "acc_micro": lmc.MulticlassAccuracy(**kw, average="micro"),
        "f1": lmc.MulticlassF1Score(**kw, average="weighted"),
        "precision": lmc.MulticlassPrecision(**kw, average=None),
        "jaccard": lmc.MulticlassJaccardIndex(**kw),
        "mcc": lmc.MulticlassMatthewsCorrCoef(**kw),
        "kappa": lmc.MulticlassCohenKappa(**kw, weights="linear"),
        "confmat": lmc.MulticlassConfusionMatrix(**kw),
        "confmat_true": lmc.MulticlassConfusionMatrix(**kw, normalize="true"),
        "top2": lmc.MulticlassRecall(**kw, top_k=2),
        "exact": lmc.MulticlassExactMatch(**kw),
        "stat": lmc.MulticlassStatScores(**kw, average="weighted"),
    }


@pytest.mark.parametrize("compute_groups", [True, False])
def test_collection_shares_one_weighted_statistic_and_equals_the_lone_metrics(compute_groups: bool) -> None:
    preds, target, weight = case("multiclass", 8, n=120, ignore_index=-1)
    collection = MetricCollection(_members(), compute_groups=compute_groups)
    lone = _members()
    for chunk, kind in zip(torch.arange(120).split([40, 30, 50]), ("weighted", "plain", "weighted")):
        w = weight[chunk] if kind == "weighted" else None
        values = collection(preds[chunk], target[chunk], sample_weight=w)
        for name, metric in lone.items():
            _equal(values[name], metric(preds[chunk], target[chunk], sample_weight=w))
    if compute_groups:
        assert len(collection.compute_groups) < len(lone)  # members share statistics
    collection.update(preds[:25], target[:25], sample_weight=weight[:25])
    computed = collection.compute()
    for name, metric in lone.items():
        metric.update(preds[:25], target[:25], sample_weight=weight[:25])
        _equal(computed[name], metric.compute())
    collection.reset()
    assert not any(m._is_sample_weighted for m in collection.values())


def test_multilabel_collection_with_samples_average_and_exact_match() -> None:
    preds, target, weight = case("multilabel", 9, n=80)
    members = lambda: {  # noqa: E731
        "f1_samples": lmc.MultilabelF1Score(num_labels=L, average="samples"),
        "f1": lmc.MultilabelF1Score(num_labels=L, average="micro"),
        "hamming": lmc.MultilabelHammingDistance(num_labels=L),
        "exact": lmc.MultilabelExactMatch(num_labels=L),
        "confmat": lmc.MultilabelConfusionMatrix(num_labels=L),
    }
    collection, lone = MetricCollection(members()), members()
    collection.update(preds, target, sample_weight=weight)
    computed = collection.compute()
    for name, metric in lone.items():
        metric.update(preds, target, sample_weight=weight)
        _equal(computed[name], metric.compute())


# ----------------------------------------------------------------------------------------------- DDP
def _ddp_ranks(rank: int, world: int) -> dict:
    preds, target, weight = case("multiclass", 11, n=61, ignore_index=-1)
    ml_preds, ml_target, ml_weight = case("multilabel", 11, n=61)
    own = torch.arange(61)[rank::world]  # 31 and 30 items
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # rank 0 weighted, rank 1 not (weight 1 there): the fused sync agrees on the weighted layout
        collection = MetricCollection(_members())
        rank_weight = weight[own] if rank == 0 else None
        collection.update(preds[own], target[own], sample_weight=rank_weight)
        out["collection"] = {k: v for k, v in collection.compute().items()}
        samples = lmc.MultilabelPrecision(num_labels=L, average="samples")
        samples.update(ml_preds[own], ml_target[own], sample_weight=ml_weight[own] if rank == 1 else None)
        out["samples"] = samples.compute()
        samplewise = lmc.MulticlassAccuracy(num_classes=C, multidim_average="samplewise")
        sw_preds, sw_target, sw_weight = case("multiclass", 12, n=8, extra=(3,))
        if rank == 0:
            samplewise.update(sw_preds, sw_target, sample_weight=sw_weight)
        out["samplewise"] = samplewise.compute()
        lone_rank = lmc.MulticlassF1Score(num_classes=C, ignore_index=-1)  # rank 1 has no batch at all
        if rank == 0:
            lone_rank.update(preds[own], target[own], sample_weight=weight[own])
        out["no_batch_peer"] = lone_rank.compute()
    return out


def test_two_processes_one_weighted_equal_one_process() -> None:
    results = run_distributed(_ddp_ranks, timeout=180)
    preds, target, weight = case("multiclass", 11, n=61, ignore_index=-1)
    order = torch.cat([torch.arange(61)[0::2], torch.arange(61)[1::2]])
    full_weight = weight.clone()
    full_weight[1::2] = 1.0
    lone = _members()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, metric in lone.items():
            metric.update(preds[order], target[order], sample_weight=full_weight[order])
            expected = metric.compute()
            for res in results:
                _equal(res["collection"][name], expected)
    ml_preds, ml_target, ml_weight = case("multilabel", 11, n=61)
    ml_full = ml_weight.clone()
    ml_full[0::2] = 1.0
    expected = function("precision", "multilabel")(ml_preds, ml_target, num_labels=L, average="samples",
                                                   sample_weight=ml_full)
    sw_preds, sw_target, sw_weight = case("multiclass", 12, n=8, extra=(3,))
    sw_expected = function("accuracy", "multiclass")(sw_preds, sw_target, num_classes=C,
                                                     multidim_average="samplewise", sample_weight=sw_weight)
    own = torch.arange(61)[0::2]
    f1 = function("f1_score", "multiclass")(preds[own], target[own], num_classes=C, ignore_index=-1,
                                            sample_weight=weight[own])
    for res in results:
        _equal(res["samples"], expected)
        _equal(res["samplewise"], sw_expected)
        _equal(res["no_batch_peer"], f1)


@pytest.mark.parametrize("with_matrix", [False, True])
def test_collection_forward_of_a_matrix_much_larger_than_its_batch(with_matrix: bool) -> None:
    """C^2 bins against 20 samples: the batch summary is counted from the weighted codes (and the matrix is made
    only for a member that reads it)."""
    classes, g = 100, torch.Generator().manual_seed(13)
    preds, target = torch.randn(20, classes, generator=g), torch.randint(0, classes, (20,), generator=g)
    target[::3] = preds.argmax(1)[::3]
    weight = torch.rand(20, generator=g, dtype=torch.float64)
    members = {
        "f1": lmc.MulticlassF1Score(num_classes=classes, average="micro"),
        "acc": lmc.MulticlassAccuracy(num_classes=classes, average="weighted"),
        "mcc": lmc.MulticlassMatthewsCorrCoef(num_classes=classes),
        "kappa": lmc.MulticlassCohenKappa(num_classes=classes),
    }
    if with_matrix:
        members["confmat"] = lmc.MulticlassConfusionMatrix(num_classes=classes)
    values = MetricCollection(members)(preds, target, sample_weight=weight)
    arguments = {"f1": {"average": "micro"}, "acc": {"average": "weighted"}}
    families = {"f1": "f1_score", "acc": "accuracy", "mcc": "matthews_corrcoef", "kappa": "cohen_kappa",
                "confmat": "confusion_matrix"}
    for name, value in values.items():
        expected = function(families[name], "multiclass")(preds, target, num_classes=classes, sample_weight=weight,
                                                          **arguments.get(name, {}))
        _equal(value, expected)
