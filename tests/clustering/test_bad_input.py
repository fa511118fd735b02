"""Bad clustering batches, table-driven: NaN and infinite embeddings, label dtypes and shapes, labels
outside ``num_classes``. Each raises a clear error naming the argument and the value, and leaves the
metric (or collection) exactly as it was: its states, its update count and ``compute()``
(:func:`tests._bad_input.assert_rejected_untouched`).

``test_inputs.py`` runs its own tables over every label and embedding class; ``CASES`` here adds to
them (together: the clustering table).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

import lightning_metrics.clustering as lmc
from lightning_metrics import MetricCollection
from tests._bad_input import assert_rejected_untouched
from tests.clustering.test_inputs import GOOD_EMBEDDINGS, GOOD_LABELS

NAN, INF = float("nan"), float("inf")
LABELS = torch.tensor([0, 1, 2, 0, 1, 2])


def _data(index: tuple, value: float) -> tuple[torch.Tensor, torch.Tensor]:
    data = torch.randn(6, 3, generator=torch.Generator().manual_seed(3))
    data[index] = value
    return data, LABELS


def _embedding_collection() -> MetricCollection:
    return MetricCollection(
        {"dunn": lmc.DunnIndex(), "ch": lmc.CalinskiHarabaszScore(), "db": lmc.DaviesBouldinScore()}
    )


def _accuracy() -> Any:
    return lmc.ClusterAccuracy(num_classes=3)


# (id, factory, good batches, bad batch, needles of the message)
CASES: list[tuple[str, Callable[[], Any], list, tuple, tuple[str, ...]]] = [
    ("dunn-nan-data", lmc.DunnIndex, GOOD_EMBEDDINGS, _data((2, 1), NAN), ("`data`", "nan at index (2, 1)")),
    ("calinski-inf-data", lmc.CalinskiHarabaszScore, GOOD_EMBEDDINGS, _data((0, 0), INF),
     ("`data`", "finite", "inf at index (0, 0)")),
    ("davies-minus-inf-data", lmc.DaviesBouldinScore, GOOD_EMBEDDINGS, _data((5, 2), -INF),
     ("`data`", "-inf at index (5, 2)")),
    ("collection-nan-data", _embedding_collection, GOOD_EMBEDDINGS, _data((1, 1), NAN), ("`data`", "nan")),
    ("dunn-labels-2d", lmc.DunnIndex, GOOD_EMBEDDINGS, (torch.randn(6, 3), LABELS[:, None]), ("`labels`", "(6, 1)")),
    ("calinski-data-3d", lmc.CalinskiHarabaszScore, GOOD_EMBEDDINGS, (torch.randn(6, 3, 2), LABELS),
     ("`data`", "(6, 3, 2)")),
    ("davies-data-list", lmc.DaviesBouldinScore, GOOD_EMBEDDINGS, ([[0.0, 1.0]], LABELS[:1]), ("`data`", "list")),
    ("dunn-labels-float64", lmc.DunnIndex, GOOD_EMBEDDINGS, (torch.randn(6, 3), LABELS.double()),
     ("`labels`", "torch.float64")),
    ("ari-0d-preds", lmc.AdjustedRandScore, GOOD_LABELS, (torch.tensor(1), torch.tensor(1)), ("`preds`", "shape ()")),
    ("fowlkes-complex-preds", lmc.FowlkesMallowsIndex, GOOD_LABELS, (torch.tensor([1j, 0]), torch.tensor([0, 1])),
     ("`preds`", "torch.complex64")),
    ("completeness-2d-target", lmc.CompletenessScore, GOOD_LABELS,
     (torch.tensor([0, 1]), torch.zeros(2, 1, dtype=torch.long)), ("`target`", "(2, 1)")),
    ("homogeneity-target-list", lmc.HomogeneityScore, GOOD_LABELS, (torch.tensor([0, 1]), [0, 1]),
     ("`target`", "list")),
    ("accuracy-target-above", _accuracy, GOOD_LABELS, (torch.tensor([0, 1]), torch.tensor([3, 1])),
     ("`target`", "`num_classes`=3", "[3]")),
    ("accuracy-float-target", _accuracy, GOOD_LABELS, (torch.tensor([0, 1]), torch.tensor([0.0, 1.0])),
     ("`target`", "torch.float32")),
]  # fmt: skip


@pytest.mark.parametrize(("build", "good", "bad", "needles"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_batch_names_the_argument_and_leaves_the_state(build: Callable, good: list, bad: tuple,
                                                           needles: tuple) -> None:
    assert_rejected_untouched(build, good, bad, needles=needles)


@pytest.mark.parametrize("name", ["DunnIndex", "CalinskiHarabaszScore", "DaviesBouldinScore"])
def test_validate_args_false_skips_the_finiteness_check(name: str) -> None:
    """``validate_args`` is a keyword argument here (torchmetrics' clustering classes have none)."""
    metric = getattr(lmc, name)(validate_args=False)
    metric.update(*_data((2, 1), NAN))  # no check, no host read: the NaN is kept
    assert metric.update_count == 1 and bool(metric.data[0].isnan().any())
    with pytest.raises(ValueError, match="`validate_args` must be a bool, got None"):
        getattr(lmc, name)(validate_args=None)
