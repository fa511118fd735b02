"""Streaming, sharing and bad-input properties of the count-based metrics."""

from __future__ import annotations

import warnings

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import lightning_metrics.classification as lmc
from lightning_metrics import MetricCollection
from lightning_metrics.functional.classification._counts import CountSpec

C = 5


def eight_metrics(**kw) -> dict:  # noqa: ANN003
    return {
        "acc": lmc.MulticlassAccuracy(num_classes=C, **kw),
        "precision": lmc.MulticlassPrecision(num_classes=C, average="weighted", **kw),
        "recall": lmc.MulticlassRecall(num_classes=C, **kw),
        "f1": lmc.MulticlassF1Score(num_classes=C, average="micro", **kw),
        "mcc": lmc.MulticlassMatthewsCorrCoef(num_classes=C, **kw),
        "jaccard": lmc.MulticlassJaccardIndex(num_classes=C, **kw),
        "kappa": lmc.MulticlassCohenKappa(num_classes=C, weights="quadratic", **kw),
        "confmat": lmc.MulticlassConfusionMatrix(num_classes=C, normalize="true", **kw),
    }


def batches(seed: int, sizes: list[int], ignore_index=None) -> list[tuple[torch.Tensor, torch.Tensor]]:  # noqa: ANN001
    g = torch.Generator().manual_seed(seed)
    out = []
    for n in sizes:
        target = torch.randint(0, C, (n,), generator=g)
        if ignore_index is not None:
            target[torch.rand(n, generator=g) < 0.3] = ignore_index
        out.append((torch.randn(n, C, generator=g), target))
    return out


def assert_results_equal(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k in a:
        torch.testing.assert_close(a[k], b[k], equal_nan=True, msg=k)


@pytest.mark.filterwarnings("ignore:.*NaN values found in confusion matrix")
def test_eight_metric_collection_does_one_update_per_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    original = CountSpec.batch
    monkeypatch.setattr(CountSpec, "batch", lambda self, p, t, **kw: calls.append(self) or original(self, p, t, **kw))
    collection = MetricCollection(eight_metrics(ignore_index=0))
    assert len(collection.compute_groups) == 1
    data = batches(0, [16, 9, 30], ignore_index=0)
    for preds, target in data:
        collection.update(preds, target)
    assert len(calls) == len(data)
    collection(*data[0])  # forward: one more shared update for the batch value
    assert len(calls) == len(data) + 1
    # and the values are those of standalone metrics fed the same batches
    standalone = eight_metrics(ignore_index=0)
    for m in standalone.values():
        for preds, target in data + data[:1]:
            m.update(preds, target)
    assert_results_equal(collection.compute(), {k: m.compute() for k, m in standalone.items()})


def test_specs_split_what_changes_the_state() -> None:
    collection = MetricCollection({
        "a": lmc.BinaryAccuracy(threshold=0.3),
        "b": lmc.BinaryPrecision(threshold=0.3, zero_division=1),
        "c": lmc.BinaryAccuracy(threshold=0.7),
        "d": lmc.MulticlassAccuracy(num_classes=C, top_k=2),
        "e": lmc.MulticlassRecall(num_classes=C, top_k=2, average="micro"),
        "f": lmc.MulticlassAccuracy(num_classes=C, validate_args=False),
        "g": lmc.MulticlassAccuracy(num_classes=C),
    })
    groups = sorted(sorted(g) for g in collection.compute_groups.values())
    assert groups == [["a", "b"], ["c"], ["d", "e"], ["f"], ["g"]]


CONFIGS = {
    "multiclass_f1_macro": lambda: lmc.MulticlassF1Score(num_classes=C, ignore_index=1),
    "multiclass_top2_precision": lambda: lmc.MulticlassPrecision(num_classes=C, top_k=2, average="weighted"),
    "multiclass_samplewise_recall": lambda: lmc.MulticlassRecall(num_classes=C, multidim_average="samplewise"),
    "multiclass_exact_match": lambda: lmc.MulticlassExactMatch(num_classes=C, multidim_average="samplewise"),
    "binary_stat_scores": lambda: lmc.BinaryStatScores(ignore_index=-1),
    "multilabel_samples_f1": lambda: lmc.MultilabelF1Score(num_labels=C, average="samples", zero_division=1),
    "multilabel_mcc": lambda: lmc.MultilabelMatthewsCorrCoef(num_labels=C),
    "multilabel_confmat": lambda: lmc.MultilabelConfusionMatrix(num_labels=C, ignore_index=-1),
}


def inputs_for(name: str, n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    if name.startswith("multiclass"):
        extra = (3,) if "samplewise" in name or "exact" in name else ()
        return torch.randn(n, C, *extra, generator=g), torch.randint(0, C, (n, *extra), generator=g)
    if name.startswith("binary"):
        return torch.randn(n, generator=g), torch.randint(-1, 2, (n,), generator=g)
    target = torch.randint(0, 2, (n, C), generator=g)
    if "confmat" in name:
        target[torch.rand(n, C, generator=g) < 0.2] = -1
    return torch.rand(n, C, generator=g), target


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    name=st.sampled_from(sorted(CONFIGS)),
    cuts=st.lists(st.integers(0, 40), max_size=5),
    seed=st.integers(0, 2**16),
)
def test_streaming_over_random_splits_equals_one_batch(name: str, cuts: list[int], seed: int) -> None:
    preds, target = inputs_for(name, 40, seed)
    one = CONFIGS[name]()
    one.update(preds, target)
    streamed = CONFIGS[name]()
    bounds = sorted({0, 40, *cuts})
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        streamed.update(preds[lo:hi], target[lo:hi])
    torch.testing.assert_close(streamed.compute(), one.compute(), equal_nan=True)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(sizes=st.lists(st.integers(1, 30), min_size=1, max_size=4), seed=st.integers(0, 2**16),
       ignore=st.sampled_from([None, 0, -1]))
def test_collection_equals_standalone_metrics(sizes: list[int], seed: int, ignore) -> None:  # noqa: ANN001
    collection = MetricCollection(eight_metrics(ignore_index=ignore))
    standalone = eight_metrics(ignore_index=ignore)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NaN -> 0 in normalized confusion matrices
        for preds, target in batches(seed, sizes, ignore):
            batch_values = collection(preds, target)
            for k, m in standalone.items():
                torch.testing.assert_close(batch_values[k], m(preds, target), equal_nan=True, msg=k)
        assert_results_equal(collection.compute(), {k: m.compute() for k, m in standalone.items()})


# ------------------------------------------------------------------ bad input
def snapshot(metric) -> dict:  # noqa: ANN001
    return {k: [t.clone() for t in v] if isinstance(v, list) else v.clone() for k, v in metric.metric_state.items()}


GOOD_MC = (torch.tensor([0, 1]), torch.tensor([0, 1]))
BAD_UPDATES = [
    # (case, factory, a good batch, bad preds, bad target, error, message pattern)
    ("label >= num_classes", lambda: lmc.MulticlassAccuracy(num_classes=3), GOOD_MC, torch.tensor([0, 1]),
     torch.tensor([0, 3]), ValueError, r"`target`.*\[3\]"),
    ("negative label not ignored", lambda: lmc.MulticlassF1Score(num_classes=3, ignore_index=-1), GOOD_MC,
     torch.tensor([0, 1]), torch.tensor([-2, 1]), ValueError, r"`target`.*\[-2\]"),
    ("pred label >= num_classes", lambda: lmc.MulticlassConfusionMatrix(num_classes=3), GOOD_MC,
     torch.tensor([0, 7]), torch.tensor([0, 1]), ValueError, r"`preds`.*\[7\]"),
    ("fractional float target", lambda: lmc.BinaryPrecision(), GOOD_MC, torch.tensor([0.2, 0.8]),
     torch.tensor([0.0, 0.5]), ValueError, r"`target`.*whole numbers.*0\.5"),
    ("shape mismatch", lambda: lmc.MultilabelRecall(num_labels=2), (torch.rand(4, 2), torch.ones(4, 2).long()),
     torch.rand(4, 2), torch.randint(0, 2, (4, 3)), ValueError, r"`preds` and `target`.*\(4, 2\).*\(4, 3\)"),
    ("NaN score", lambda: lmc.BinaryAccuracy(), GOOD_MC, torch.tensor([0.2, float("nan")]), torch.tensor([0, 1]),
     ValueError, r"`preds`.*NaN"),
    ("NaN multiclass score", lambda: lmc.MulticlassAccuracy(num_classes=2), GOOD_MC,
     torch.tensor([[0.2, float("nan")], [0.1, 0.3]]), torch.tensor([0, 1]), ValueError, r"`preds`.*NaN"),
    ("binary target 2", lambda: lmc.BinaryStatScores(), GOOD_MC, torch.tensor([0, 1]), torch.tensor([2, 1]),
     ValueError, r"`target`.*\[2\]"),
    ("top_k on labels", lambda: lmc.MulticlassAccuracy(num_classes=3, top_k=2), (torch.rand(2, 3), GOOD_MC[1]),
     torch.tensor([0, 1]), torch.tensor([0, 1]), ValueError, r"`top_k`=2"),
    ("class dim mismatch", lambda: lmc.MulticlassAccuracy(num_classes=3), GOOD_MC, torch.rand(4, 4),
     torch.tensor([0, 1, 2, 0]), ValueError, r"`preds`.*\(N, 3"),
]


@pytest.mark.parametrize(
    ("case", "factory", "good", "preds", "target", "error", "match"), BAD_UPDATES, ids=[c[0] for c in BAD_UPDATES]
)
def test_bad_update_raises_and_leaves_state(case, factory, good, preds, target, error, match) -> None:  # noqa: ANN001
    metric = factory()
    metric.update(*good)
    before, count = snapshot(metric), metric.update_count
    with pytest.raises(error, match=match):
        metric.update(preds, target)
    after = snapshot(metric)
    assert metric.update_count == count
    for k in before:
        torch.testing.assert_close(after[k], before[k])


BAD_ARGUMENTS = [
    (lambda: lmc.MulticlassAccuracy(num_classes=3, top_k=4), ValueError, r"`top_k`.*4"),
    (lambda: lmc.MulticlassAccuracy(num_classes=3, average="mean"), ValueError, r"`average`.*'mean'"),
    (lambda: lmc.MulticlassAccuracy(num_classes=3, average="samples"), ValueError, r"`average`.*'samples'"),
    (lambda: lmc.BinaryAccuracy(threshold=1.5), ValueError, r"`threshold`.*1.5"),
    (lambda: lmc.MultilabelPrecision(num_labels=3, threshold=-0.1), ValueError, r"`threshold`.*-0.1"),
    (lambda: lmc.MulticlassPrecision(num_classes=1), ValueError, r"`num_classes`.*1"),
    (lambda: lmc.BinaryF1Score(multidim_average="perclass"), ValueError, r"`multidim_average`.*'perclass'"),
    (lambda: lmc.BinaryRecall(ignore_index=0.5), ValueError, r"`ignore_index`.*0.5"),
    (lambda: lmc.BinaryPrecision(zero_division=0.5), ValueError, r"`zero_division`.*0.5"),
    (lambda: lmc.BinaryFBetaScore(beta=-1.0), ValueError, r"`beta`.*-1.0"),
    (lambda: lmc.MulticlassConfusionMatrix(num_classes=3, normalize="rows"), ValueError, r"`normalize`.*'rows'"),
    (lambda: lmc.MulticlassCohenKappa(num_classes=3, weights="cubic"), ValueError, r"`weights`.*'cubic'"),
    (lambda: lmc.MultilabelF1Score(num_labels=3, average="samples", multidim_average="samplewise"), ValueError,
     r"`average`='samples'"),
]


@pytest.mark.parametrize(("factory", "error", "match"), BAD_ARGUMENTS)
def test_bad_arguments_raise_naming_them(factory, error, match) -> None:  # noqa: ANN001
    with pytest.raises(error, match=match):
        factory()


def test_no_validation_means_no_host_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """With validate_args=False, update never reads a tensor value back (item/tolist/bool/nonzero)."""
    def forbid(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise AssertionError("host read in update")

    metrics = [
        *eight_metrics(validate_args=False, ignore_index=0).values(),
        lmc.MulticlassRecall(num_classes=C, top_k=2, validate_args=False, ignore_index=-1),
        lmc.MulticlassAccuracy(num_classes=C, multidim_average="samplewise", validate_args=False),
        lmc.MultilabelPrecision(num_labels=C, average="samples", validate_args=False, ignore_index=-1),
        lmc.MultilabelExactMatch(num_labels=C, validate_args=False),
    ]
    preds_mc, target_mc = torch.randn(8, C, 3), torch.randint(0, C, (8, 3))
    preds_ml, target_ml = torch.rand(8, C), torch.randint(0, 2, (8, C))
    for name in ("item", "tolist", "__bool__", "nonzero", "unique"):
        monkeypatch.setattr(torch.Tensor, name, forbid)
    for m in metrics:
        spec = m.statistic_spec
        if spec.task == "multilabel":
            m.update(preds_ml, target_ml)
        elif spec.samplewise:
            m.update(preds_mc, target_mc)
        else:
            m.update(preds_mc[..., 0], target_mc[..., 0])
