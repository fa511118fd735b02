"""Bad nominal batches, table-driven: infinite or out-of-range categories, shapes, negative rater counts
and NaN rater scores. Each raises a clear error naming the argument and the value (the value given:
an infinite category is shown as ``inf``, not as the integer it would wrap to), and leaves the metric
(or collection) exactly as it was: its states, its update count and ``compute()``
(:func:`tests._bad_input.assert_rejected_untouched`).

``BAD`` in ``test_modular.py`` and ``CASES`` here make the nominal table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

import lightning_metrics.nominal as lmn
from lightning_metrics import MetricCollection
from tests._bad_input import assert_rejected_untouched

NAN, INF = float("nan"), float("inf")
GOOD = [
    (torch.tensor([0, 1, 2, 2, 1]), torch.tensor([0, 1, 1, 2, 2])),
    (torch.tensor([1.0, 0.0, 2.0]), torch.tensor([1, 0, 0])),
]
GOOD_COUNTS = [torch.tensor([[3, 0, 1], [0, 4, 0], [2, 1, 1]]), torch.tensor([[1, 1, 2], [4, 0, 0]])]
GOOD_PROBS = [torch.rand(4, 3, 5, generator=torch.Generator().manual_seed(s)).softmax(1) for s in (0, 1)]


def _association(name: str, **kwargs: Any) -> Callable[[], Any]:
    return lambda: getattr(lmn, name)(num_classes=3, **kwargs)


def _collection() -> MetricCollection:
    return MetricCollection({"v": lmn.CramersV(num_classes=3), "u": lmn.TheilsU(num_classes=3)})


def _with(values: torch.Tensor, index: tuple, value: float) -> torch.Tensor:
    out = values.clone()
    out[index] = value
    return out


# (id, factory, good batches (tuples), bad batch, needles of the message)
CASES: list[tuple[str, Callable[[], Any], list, tuple, tuple[str, ...]]] = [
    ("cramers-inf-preds", _association("CramersV"), GOOD, (torch.tensor([0.0, INF]), torch.tensor([0, 1])),
     ("`preds`", "`num_classes`=3", "[inf]")),
    ("theils-minus-inf-target", _association("TheilsU"), GOOD, (torch.tensor([0, 1]), torch.tensor([-INF, 1.0])),
     ("`target`", "[-inf]")),
    ("tschuprow-float-above", _association("TschuprowsT"), GOOD, (torch.tensor([0.0, 3.5]), torch.tensor([0, 1])),
     ("`preds`", "[3]")),
    ("pearson-negative-float", _association("PearsonsContingencyCoefficient"), GOOD,
     (torch.tensor([-1.0, 1.0]), torch.tensor([0, 1])), ("`preds`", "[-1]")),
    ("cramers-scores-too-wide", _association("CramersV"), GOOD,
     (torch.tensor([[0.0, 0.0, 0.0, 9.0], [1.0, 0.0, 0.0, 0.0]]), torch.tensor([0, 1])), ("`preds`", "[3]")),
    ("theils-target-3d", _association("TheilsU"), GOOD, (torch.tensor([0, 1]), torch.zeros(2, 1, 1)),
     ("`target`", "(2, 1, 1)")),
    ("tschuprow-scores-longer", _association("TschuprowsT"), GOOD, (torch.rand(3, 3), torch.tensor([0, 1])),
     ("`preds`", "`target`", "3 and 2")),
    ("pearson-drop-keeps-inf", _association("PearsonsContingencyCoefficient", nan_strategy="drop"), GOOD,
     (torch.tensor([NAN, INF, 1.0]), torch.tensor([0, 1, 2])), ("`preds`", "[inf]")),
    ("collection-inf-target", _collection, GOOD, (torch.tensor([0, 1]), torch.tensor([1.0, INF])),
     ("`target`", "[inf]")),
    ("fleiss-negative-count", lmn.FleissKappa, [(c,) for c in GOOD_COUNTS], (torch.tensor([[2, -1, 1], [1, 1, 0]]),),
     ("`ratings`", "non-negative", "-1 at index (0, 1)")),
    ("fleiss-nan-score", lambda: lmn.FleissKappa(mode="probs"), [(p,) for p in GOOD_PROBS],
     (_with(GOOD_PROBS[0], (2, 1, 4), NAN),), ("`ratings`", "NaN", "nan at index (2, 1, 4)")),
    ("fleiss-counts-1d", lmn.FleissKappa, [(c,) for c in GOOD_COUNTS], (torch.tensor([3, 1, 0]),),
     ("`ratings`", "(3,)", "'counts'")),
    ("fleiss-probs-2d", lambda: lmn.FleissKappa(mode="probs"), [(p,) for p in GOOD_PROBS], (torch.rand(4, 3),),
     ("`ratings`", "(4, 3)", "'probs'")),
    ("fleiss-other-categories", lmn.FleissKappa, [(c,) for c in GOOD_COUNTS], (torch.tensor([[1, 2], [3, 0]]),),
     ("`ratings`", "3 categories", "got 2")),
]  # fmt: skip


@pytest.mark.parametrize(("build", "good", "bad", "needles"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_batch_names_the_argument_and_leaves_the_state(build: Callable, good: list, bad: tuple,
                                                           needles: tuple) -> None:
    assert_rejected_untouched(build, good, bad, needles=needles)


def test_infinite_scores_choose_a_category() -> None:
    """In ``probs`` mode the scores are argmax-ed: an infinite one is a (sure) choice, not an error."""
    ratings = _with(GOOD_PROBS[0], (0, 2, 1), INF)
    metric = lmn.FleissKappa(mode="probs")
    metric.update(ratings)
    assert torch.isfinite(metric.compute())


def test_fleiss_validate_args_false_skips_the_value_checks() -> None:
    """``validate_args`` is a keyword argument here (torchmetrics' ``FleissKappa`` has none)."""
    metric = lmn.FleissKappa(validate_args=False)
    metric.update(torch.tensor([[2, -1, 1], [1, 1, 0]]))  # no check, no host read
    assert metric.update_count == 1
    lmn.FleissKappa(mode="probs", validate_args=False).update(_with(GOOD_PROBS[0], (0, 0, 0), NAN))
    with pytest.raises(ValueError, match="`validate_args` must be a bool, got 'yes'"):
        lmn.FleissKappa(validate_args="yes")
