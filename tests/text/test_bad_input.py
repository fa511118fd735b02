"""Bad text batches, table-driven: non-string items, mismatched lengths, malformed SQuAD dicts, NaN
logits and bad token ids. Each raises a clear error naming the argument and the value, and leaves the
metric exactly as it was: its states, its update count and ``compute()``
(:func:`tests._bad_input.assert_rejected_untouched`).

``BAD_UPDATES`` in ``test_states.py`` and ``CASES`` here make the text table.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import pytest
import torch

import lightning_metrics.text as M
from tests._bad_input import assert_rejected_untouched

NAN = float("nan")
SINGLE = [(["the cat sat", "a dog"], ["the cat sat down", "a dog ran"]), (["hello there"], ["hello world"])]
MULTI = [(["the cat sat", "a dog"], [["the cat sat down"], ["a dog ran", "dogs"]]), (["hello there"], [["hello"]])]
SQUAD = [
    ([{"prediction_text": "a cat", "id": "1"}], [{"answers": {"answer_start": [0], "text": ["a cat"]}, "id": "1"}]),
    ([{"prediction_text": "dog", "id": "2"}], [{"answers": {"answer_start": [0], "text": ["a dog"]}, "id": "2"}]),
]


def _logits(seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(2, 3, 5, generator=gen), torch.randint(5, (2, 3), generator=gen)


def _nan_logit(index: tuple, target: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    preds, good_target = _logits(9)
    preds[index] = NAN
    return preds, good_target if target is None else target


PERPLEXITY = [_logits(0), _logits(1)]

# (id, factory, good batches, bad batch, needles of the message)
CASES: list[tuple[str, Callable, list, tuple, tuple[str, ...]]] = [
    ("mer-none-item", M.MatchErrorRate, SINGLE, ([None, "b"], ["a", "b"]), ("`preds`", "None", "index 0")),
    ("wil-lengths", M.WordInfoLost, SINGLE, (["a", "b", "c"], ["a", "b"]), ("`preds`", "`target`", "3 and 2")),
    ("wip-bytes-item", M.WordInfoPreserved, SINGLE, (["a", b"b"], ["a", "b"]), ("`preds`", "b'b'", "index 1")),
    ("cer-list-item", M.CharErrorRate, SINGLE, (["a", "b"], ["a", ["b"]]), ("`target`", "['b']", "index 1")),
    ("wer-int-target", M.WordErrorRate, SINGLE, (["a", "b"], ["a", 5]), ("`target`", "5", "index 1")),
    ("wer-empty-preds", M.WordErrorRate, SINGLE, ([], ["a"]), ("`preds`", "`target`", "0 and 1")),
    ("wer-dict", M.WordErrorRate, SINGLE, ({"a": 1}, ["a"]), ("`preds`", "{'a': 1}", "dict")),
    ("edit-int-item", M.EditDistance, SINGLE, ([1], ["a"]), ("`preds`", "1 (int)", "index 0")),
    ("edit-lengths", lambda: M.EditDistance(reduction="none"), SINGLE, (["a"], ["a", "b"]),
     ("`preds`", "`target`", "1 and 2")),
    ("bleu-int-item", M.BLEUScore, MULTI, ([3], [["a"]]), ("`preds`", "3 (int)", "index 0")),
    ("sacrebleu-lengths", M.SacreBLEUScore, MULTI, (["a", "b"], [["a"]]), ("`preds`", "`target`", "2 and 1")),
    ("chrf-int-reference", M.CHRFScore, MULTI, (["a"], [[1]]), ("`target`", "1 (int)", "[0][0]")),
    ("ter-none-item", M.TranslationEditRate, MULTI, ([None], [["a"]]), ("`preds`", "None", "index 0")),
    ("rouge-int-item", lambda: M.ROUGEScore(rouge_keys="rouge1"), MULTI, ([1], [["a"]]), ("`preds`", "1 (int)")),
    ("eed-float-reference", M.ExtendedEditDistance, MULTI, (["a"], [[1.5]]), ("`target`", "1.5", "[0][0]")),
    ("squad-no-id", M.SQuAD, SQUAD, ([{"prediction_text": "a"}], SQUAD[0][1]), ("`preds`", "'id'", "item 0")),
    ("squad-no-answers", M.SQuAD, SQUAD, (SQUAD[0][0], [{"id": "1"}]), ("`target`", "'answers'", "item 0")),
    ("perplexity-nan-logit", M.Perplexity, PERPLEXITY, _nan_logit((1, 2, 4)),
     ("`preds`", "NaN", "nan at index (1, 2, 4)")),
    ("perplexity-nan-counted", lambda: M.Perplexity(ignore_index=-100), PERPLEXITY,
     _nan_logit((0, 1, 0), torch.tensor([[1, 2, -100], [0, 0, 0]])), ("`preds`", "nan at index (0, 1, 0)")),
    ("perplexity-float-target", M.Perplexity, PERPLEXITY, (_logits(3)[0], _logits(3)[1].float()),
     ("`target`", "int64", "float32")),
    ("perplexity-seq-mismatch", M.Perplexity, PERPLEXITY, (torch.zeros(2, 3, 5), torch.zeros(2, 4, dtype=torch.long)),
     ("`preds`", "`target`", "(2, 3) and (2, 4)")),
    ("perplexity-negative-token", M.Perplexity, PERPLEXITY,
     (torch.zeros(2, 3, 5), torch.tensor([[0, -1, 2], [0, 0, 0]])), ("`target`", "-1", "[0, 5)")),
]  # fmt: skip


@pytest.mark.parametrize(
    ("factory", "good", "bad", "needles"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_bad_batch_names_the_argument_and_leaves_the_state(
    factory: Callable, good: list, bad: tuple, needles: tuple
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_rejected_untouched(factory, good, bad, needles=needles)


def test_a_nan_logit_of_an_ignored_token_is_not_read() -> None:
    """Only the counted tokens' logits are checked (and summed): as torchmetrics, which masks them out."""
    preds, target = _logits(4)
    target[1, 2] = -100
    poisoned = preds.clone()
    poisoned[1, 2, 3] = NAN
    metric, clean = M.Perplexity(ignore_index=-100), M.Perplexity(ignore_index=-100)
    metric.update(poisoned, target)
    clean.update(preds, target)
    assert torch.equal(metric.compute(), clean.compute())
