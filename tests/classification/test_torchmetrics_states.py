"""torchmetrics' state names on count-based metrics (``metric.tp``, ``metric.confmat``): code written
for torchmetrics reads them; ours serves them as views of its own statistic, with torchmetrics'
values, shapes and dtypes (samplewise counts as one tensor where torchmetrics keeps a list).
"""

from __future__ import annotations

import pytest
import torch
import torchmetrics

import lightning_metrics as lm
from tests.reliability._registry import ENTRIES, batches

COUNT_STATES = ("tp", "fp", "tn", "fn", "confmat")
KINDS = ("binary", "multiclass", "multilabel", "multiclass_2d")
EXTRA = {
    "MulticlassAccuracy[micro]": ("MulticlassAccuracy", "multiclass", dict(num_classes=3, average="micro")),
    "MulticlassAccuracy[micro, top_k=2]": (
        "MulticlassAccuracy",
        "multiclass",
        dict(num_classes=3, average="micro", top_k=2),
    ),
    "MulticlassHammingDistance[micro]": ("MulticlassHammingDistance", "multiclass", dict(num_classes=3, average="micro")),
    "MultilabelF1Score[micro]": ("MultilabelF1Score", "multilabel", dict(num_labels=3, average="micro")),
    "BinaryRecall[samplewise]": ("BinaryRecall", "binary_2d", dict(multidim_average="samplewise")),
}


def _cases() -> dict[str, tuple]:
    out = {}
    for key, entry in ENTRIES.items():
        if entry.kind in KINDS and entry.package == "classification":
            out[key] = (lambda lib, e=entry: e.build(lib), entry.kind)
    for key, (name, kind, kwargs) in EXTRA.items():
        out[key] = (lambda lib, n=name, k=kwargs: getattr(lib.classification, n)(**k), kind)
    # the classes whose torchmetrics twin keeps tp/fp/tn/fn or a confusion matrix
    return {k: v for k, v in out.items() if set(COUNT_STATES) & set(v[0](torchmetrics)._defaults)}


CASES = _cases()


def test_the_table_covers_the_count_metrics() -> None:
    assert len(CASES) > 50


def _batches(kind: str) -> list[tuple]:
    if kind == "binary_2d":
        gen = torch.Generator().manual_seed(2)
        return [(torch.rand(5, 4, generator=gen), torch.randint(0, 2, (5, 4), generator=gen)) for _ in range(2)]
    return batches(kind, (7, 5), seed=1)


@pytest.mark.parametrize("key", sorted(CASES))
def test_count_states_read_as_in_torchmetrics(key: str) -> None:
    build, kind = CASES[key]
    theirs, ours = build(torchmetrics), build(lm)
    for batch in _batches(kind):
        theirs.update(*batch)
        ours.update(*batch)
    for name in [n for n in COUNT_STATES if n in theirs._defaults]:
        expected = getattr(theirs, name)
        expected = torch.cat(expected) if isinstance(expected, list) else expected
        got = getattr(ours, name)
        assert got.shape == expected.shape and got.dtype == expected.dtype, f"{key}.{name}"
        assert torch.equal(got, expected), f"{key}.{name}: {got} != {expected}"


def test_count_views_are_not_states() -> None:
    metric = lm.classification.BinaryAccuracy()
    metric.update(torch.tensor([0.2, 0.8]), torch.tensor([0, 1]))
    assert metric.tp.tolist() == [1]
    assert "tp" not in metric.metric_state and "tp" not in metric.state_dict()
    with pytest.raises(AttributeError):
        metric.not_a_state  # noqa: B018 (other names still fail as usual)
