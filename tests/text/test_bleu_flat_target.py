"""A flat ``list[str]`` BLEU target (issue 36, point 8): read as one reference per prediction, as
chrF, TER and EED read it; torchmetrics reads each string per character, and a warning says so once."""

from __future__ import annotations

import warnings

import pytest
import torchmetrics

import lightning_metrics.functional.text.bleu as bleu_module
from lightning_metrics.text import BLEUScore, SacreBLEUScore

PREDS = ["the cat sat on the mat", "a dog ran in the park"]
FLAT = ["the cat sat on the mat", "a dog ran in a park"]


@pytest.fixture(autouse=True)
def _fresh_note(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bleu_module, "_FLAT_NOTED", False)


@pytest.mark.parametrize("cls", [BLEUScore, SacreBLEUScore], ids=lambda c: c.__name__)
def test_flat_target_is_one_reference_per_prediction_and_warns_once(cls) -> None:
    nested = cls()(PREDS, [[t] for t in FLAT])
    with pytest.warns(UserWarning, match="torchmetrics reads each string as that prediction's references, one per character"):
        flat = cls()(PREDS, FLAT)
    assert float(flat) == pytest.approx(float(nested))
    theirs = getattr(torchmetrics.text, cls.__name__)()(PREDS, FLAT)
    assert float(theirs) != pytest.approx(float(flat))  # the difference the warning names
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # said once per process
        cls()(PREDS, FLAT)


def test_nested_targets_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        BLEUScore()(PREDS, [[t] for t in FLAT])
        BLEUScore()("the cat", [["the cat"]])
