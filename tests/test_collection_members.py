"""A member of a ``MetricCollection`` always equals that metric alone, fed exactly what the member was given.

Sharing a statistic inside a compute group is an optimisation that must never show, whatever mix of
collection-level and member-level calls, resets and copies came before. The property test runs random
operation sequences over collections of count (confusion matrix), curve (``cat`` scores) and moment
(regression) statistics and replays every operation on standalone twins of the members.
"""

from __future__ import annotations

import copy
import warnings

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import lightning_metrics as lm
from lightning_metrics.classification import (
    BinaryAUROC,
    BinaryAveragePrecision,
    MulticlassAccuracy,
    MulticlassAUROC,
    MulticlassConfusionMatrix,
    MulticlassF1Score,
    MulticlassMatthewsCorrCoef,
    MulticlassPrecision,
)
from lightning_metrics.regression import MeanSquaredError, PearsonCorrCoef, R2Score

C = 4

# each family: a constructor per member name and a batch maker (every member takes the same inputs)
FAMILIES = {
    "count": (
        {
            "acc": lambda: MulticlassAccuracy(C),
            "f1": lambda: MulticlassF1Score(C),
            "prec": lambda: MulticlassPrecision(C, average="micro"),
            "cm": lambda: MulticlassConfusionMatrix(C),
            "mcc": lambda: MulticlassMatthewsCorrCoef(C),
        },
        lambda g, n: (torch.randint(0, C, (n,), generator=g), torch.randint(0, C, (n,), generator=g)),
    ),
    "curve": (
        {
            "auroc": lambda: MulticlassAUROC(C),
            "auroc2": lambda: MulticlassAUROC(C, average="weighted"),
        },
        lambda g, n: (torch.rand(n, C, generator=g).softmax(-1), torch.randint(0, C, (n,), generator=g)),
    ),
    "binary_curve": (
        {"auroc": lambda: BinaryAUROC(), "ap": lambda: BinaryAveragePrecision()},
        lambda g, n: (torch.rand(n, generator=g), torch.randint(0, 2, (n,), generator=g)),
    ),
    "moment": (
        {"mse": lambda: MeanSquaredError(), "r2": lambda: R2Score(), "pearson": lambda: PearsonCorrCoef()},
        lambda g, n: (torch.randn(n, generator=g, dtype=torch.float64) + 3, torch.randn(n, generator=g, dtype=torch.float64)),
    ),
}

OPS = ["c.update", "c.forward", "c.compute", "c.reset", "m.update", "m.forward", "m.compute", "m.reset", "clone", "deepcopy"]


def _close(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    a, b = torch.as_tensor(a), torch.as_tensor(b)
    return a.shape == b.shape and torch.allclose(a.double(), b.double(), atol=1e-6, rtol=1e-6, equal_nan=True)


def _value(metric):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # compute before update, constant inputs: the twins warn alike
        try:
            return metric.compute()
        except ValueError as err:  # no sample yet (a curve metric), the same for both
            return f"error: {type(err).__name__}"


def _check(collection, twins) -> None:
    values = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            values = collection.compute()
        except ValueError:
            values = None
    for name, twin in twins.items():
        expected = _value(twin)
        member = _value(collection[name])
        assert isinstance(expected, str) == isinstance(member, str), (name, expected, member)
        if not isinstance(expected, str):
            assert _close(member, expected), (name, member, expected)
            if values is not None:
                assert _close(values[name], expected), (name, values[name], expected)
        assert collection[name].update_count == twin.update_count, name


def _run(family: str, names: list[str], ops: list[tuple[str, int, int]], compute_groups: bool = True) -> None:
    makers, batch = FAMILIES[family]
    g = torch.Generator().manual_seed(len(ops))
    collection = lm.MetricCollection({n: makers[n]() for n in names}, compute_groups=compute_groups)
    twins = {n: makers[n]() for n in names}
    for op, which, size in ops:
        name = names[which % len(names)]
        if op in ("c.update", "c.forward", "m.update", "m.forward"):
            args = batch(g, size)
            if op == "c.update":
                collection.update(*args)
                for twin in twins.values():
                    twin.update(*args)
            elif op == "c.forward":
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        out = collection(*args)
                    except ValueError:  # one member rejects the batch (R2 of one sample): all or nothing
                        continue
                for twin_name, twin in twins.items():
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        try:
                            expected = twin(*args)
                        except ValueError:
                            expected = None
                    if out is not None and expected is not None:
                        assert _close(out[twin_name], expected), (twin_name, out[twin_name], expected)
            elif op == "m.update":
                collection[name].update(*args)
                twins[name].update(*args)
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        got = collection[name](*args)
                    except ValueError:
                        got = None
                    try:
                        expected = twins[name](*args)
                    except ValueError:
                        expected = None
                if got is not None and expected is not None:
                    assert _close(got, expected), (name, got, expected)
        elif op == "c.compute":
            _check(collection, twins)
        elif op == "m.compute":
            assert _close_or_same(_value(collection[name]), _value(twins[name])), name
        elif op == "c.reset":
            collection.reset()
            for twin in twins.values():
                twin.reset()
        elif op == "m.reset":
            collection[name].reset()
            twins[name].reset()
        elif op == "clone":
            collection = collection.clone()
            twins = {n: t.clone() for n, t in twins.items()}
        else:
            collection = copy.deepcopy(collection)
            twins = copy.deepcopy(twins)
    _check(collection, twins)


def _close_or_same(a, b) -> bool:
    return a == b if isinstance(a, str) or isinstance(b, str) else _close(a, b)


def test_the_issue_example_counts_each_sample_once():
    c = lm.MetricCollection({"acc": MulticlassAccuracy(3), "cm": MulticlassConfusionMatrix(3)})
    p, t = torch.tensor([0, 1, 2]), torch.tensor([0, 1, 1])
    c["acc"].update(p, t)
    c["cm"].update(p, t)
    assert int(c.compute()["cm"].sum()) == 3
    assert c.compute()["acc"] == MulticlassAccuracy(3)(p, t)


def test_members_used_alone_leave_their_group_and_share_again_after_reset():
    c = lm.MetricCollection({"acc": MulticlassAccuracy(3), "cm": MulticlassConfusionMatrix(3), "f1": MulticlassF1Score(3)})
    assert c.compute_groups == {0: ["acc", "cm", "f1"]}
    p, t = torch.tensor([0, 1, 2, 2]), torch.tensor([0, 1, 1, 2])
    c.update(p, t)
    c["cm"].update(p, t)  # cm alone: it leaves, the others keep sharing
    assert c.compute_groups == {0: ["acc", "f1"], 1: ["cm"]}
    assert int(c.compute()["cm"].sum()) == 8
    c.update(p, t)
    assert int(c["cm"].compute().sum()) == 12 and c["acc"].update_count == 2
    c.reset()
    assert c.compute_groups == {0: ["acc", "cm", "f1"]}
    c.update(p, t)
    assert int(c["cm"].compute().sum()) == 4


def test_a_leader_used_alone_hands_the_group_to_the_next_member():
    c = lm.MetricCollection({"a": BinaryAUROC(), "b": BinaryAUROC(), "c": BinaryAUROC()})
    x, y = torch.tensor([0.1, 0.9, 0.4, 0.6]), torch.tensor([0, 1, 1, 0])
    c["a"].update(x, y)
    c.update(x, y)
    assert c.compute_groups == {0: ["b", "c"], 1: ["a"]}
    assert len(c["a"].preds) == 2 and len(c["b"].preds) == 1  # a: its own batch and the collection's
    c["b"].reset()
    assert c["b"].update_count == 0 and c["c"].update_count == 1


def test_members_used_alone_through_the_engine_keep_their_own_counts():
    from lightning_metrics.integration.stage_metrics import StageMetrics

    stage = StageMetrics.build(lm.MetricCollection({"acc": MulticlassAccuracy(3), "cm": MulticlassConfusionMatrix(3)}))
    p, t = torch.tensor([0, 1, 2]), torch.tensor([0, 1, 1])
    stage.update(p, t)
    stage.native["cm"].update(p, t)
    stage.update(p, t)
    values = stage.compute()
    assert int(values["cm"].sum()) == 9
    assert torch.equal(values["acc"], MulticlassAccuracy(3)(torch.cat([p, p]), torch.cat([t, t])))


@pytest.mark.parametrize("family", sorted(FAMILIES))
@settings(max_examples=60, deadline=None, derandomize=True)
@given(data=st.data())
def test_random_sequences_match_each_metric_alone(family, data):
    makers = FAMILIES[family][0]
    names = data.draw(st.lists(st.sampled_from(sorted(makers)), min_size=2, max_size=4, unique=True), label="names")
    ops = data.draw(
        st.lists(
            st.tuples(st.sampled_from(OPS), st.integers(0, 3), st.integers(1, 40)), min_size=1, max_size=12
        ),
        label="ops",
    )
    _run(family, names, ops)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_random_sequences_without_groups_agree_too(family):
    makers = FAMILIES[family][0]
    names = sorted(makers)[:3]
    ops = [("c.update", 0, 30), ("m.update", 1, 17), ("m.forward", 0, 9), ("c.forward", 0, 11), ("clone", 0, 1),
           ("m.reset", 2, 1), ("c.update", 0, 5), ("deepcopy", 0, 1), ("m.update", 2, 12), ("c.compute", 0, 1)]
    _run(family, names, ops, compute_groups=False)
    _run(family, names, ops, compute_groups=True)


def test_members_reset_one_by_one_share_again():
    """Lightning's ``self.log_dict(collection)`` idiom resets each logged member at the epoch end: once all
    members of a group are fresh, they share one state again."""
    c = lm.MetricCollection({"acc": MulticlassAccuracy(3), "cm": MulticlassConfusionMatrix(3)})
    p, t = torch.tensor([0, 1, 2, 2]), torch.tensor([0, 1, 1, 2])
    c(p, t)
    c["acc"].reset()
    assert c.compute_groups == {0: ["cm"], 1: ["acc"]}
    c["cm"].reset()
    assert c.compute_groups == {0: ["acc", "cm"]}
    c.update(p, t)
    shared = [(c["acc"].metric_state[k], c["cm"].metric_state[k]) for k in c["acc"].metric_state]
    assert shared and all(a is b for a, b in shared)  # one state again
    assert int(c["cm"].compute().sum()) == 4 and c["acc"].update_count == 1
