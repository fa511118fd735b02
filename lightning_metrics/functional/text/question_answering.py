"""SQuAD v1.1: exact match and token F1 of answers, with SQuAD's answer normalisation.

Each question scores the best over its ground-truth answers; :func:`squad_sums` reduces a batch to
the summed F1 (float64), the number of exact matches and of questions (int64).

>>> preds = [{"prediction_text": "1976", "id": "56e10a3be3433e1400422b22"}]
>>> target = [{"answers": {"answer_start": [97], "text": ["1976"]}, "id": "56e10a3be3433e1400422b22"}]
>>> squad(preds, target)
{'exact_match': tensor(100.), 'f1': tensor(100.)}
"""

from __future__ import annotations

import re
import string
from collections import Counter
from typing import Any

import torch
from torch import Tensor

from lightning_metrics.utilities.prints import warn_at_caller

Prediction = dict[str, str]
Target = dict[str, Any]
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = frozenset(string.punctuation)
_FORMAT = {"answers": {"answer_start": [1], "text": ["This is a test text"]}, "id": "1"}


class SQuADKeyError(KeyError, ValueError):
    """A prediction or target lacks a key SQuAD needs (a ``KeyError``, as in torchmetrics, and a ``ValueError``)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def normalize_answer(text: str) -> str:
    """SQuAD's normalisation: lower case, no punctuation, no articles, single spaces.

    >>> normalize_answer("The  Eiffel-Tower!")
    'eiffeltower'
    """
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def _tokens(text: str) -> list[str]:
    return normalize_answer(text).split() if text else []


def exact_match_score(prediction: str, truth: str) -> float:
    return float(normalize_answer(prediction) == normalize_answer(truth))


def f1_token_score(prediction: str, truth: str) -> float:
    """Token F1 of two answers (1 if both normalise to nothing, 0 if only one does)."""
    pred, gold = _tokens(prediction), _tokens(truth)
    if not pred or not gold:
        return float(pred == gold)
    same = sum((Counter(pred) & Counter(gold)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(gold)
    return 2 * precision * recall / (precision + recall)


def _as_list(value: Any, name: str) -> list:
    if isinstance(value, dict):
        return [value]
    if isinstance(value, (list, tuple)):
        return list(value)
    raise ValueError(f"Argument `{name}` must be a dict or a list of dicts, got {type(value).__name__}")


def check_squad_inputs(preds: Any, target: Any) -> tuple[dict[str, str], list[tuple[str, list[str]]]]:
    """Predictions by id, and each question's id with its answer texts."""
    answers_by_id: dict[str, str] = {}
    for i, pred in enumerate(_as_list(preds, "preds")):
        if not isinstance(pred, dict) or "prediction_text" not in pred or "id" not in pred:
            raise SQuADKeyError(
                f"Argument `preds`: item {i} must be a dict with the keys 'prediction_text' and 'id', got {pred!r}"
            )
        answers_by_id[pred["id"]] = pred["prediction_text"]
    questions = []
    for i, item in enumerate(_as_list(target, "target")):
        if not isinstance(item, dict) or "answers" not in item or "id" not in item:
            raise SQuADKeyError(
                f"Argument `target`: item {i} must be a dict with the keys 'answers' and 'id' (SQuAD format:"
                f" {_FORMAT}), got {item!r}"
            )
        if not isinstance(item["answers"], dict) or "text" not in item["answers"]:
            raise SQuADKeyError(
                f"Argument `target`: the 'answers' of item {i} must be a dict with the key 'text' (SQuAD format:"
                f" {_FORMAT}), got {item['answers']!r}"
            )
        questions.append((item["id"], list(item["answers"]["text"])))
    return answers_by_id, questions


def squad_sums(preds: Any, target: Any) -> tuple[Tensor, Tensor, Tensor]:
    """Summed F1 (float64), number of exact matches and of questions (int64)."""
    answers_by_id, questions = check_squad_inputs(preds, target)
    f1, exact = 0.0, 0
    for qid, truths in questions:
        if qid not in answers_by_id:
            warn_at_caller(f"Unanswered question {qid} will receive score 0.", UserWarning)
            continue
        answer = answers_by_id[qid]
        exact += int(max(exact_match_score(answer, t) for t in truths))
        f1 += max(f1_token_score(answer, t) for t in truths)
    return (
        torch.tensor(f1, dtype=torch.float64),
        torch.tensor(exact, dtype=torch.int64),
        torch.tensor(len(questions), dtype=torch.int64),
    )


def squad_from_sums(f1: Tensor, exact: Tensor, total: Tensor) -> dict[str, Tensor]:
    """Percentages: ``{"exact_match": ..., "f1": ...}`` (float32)."""
    return {
        "exact_match": (100.0 * exact / total).to(torch.float32),
        "f1": (100.0 * f1 / total).to(torch.float32),
    }


def squad(
    preds: Prediction | list[Prediction], target: Target | list[Target]
) -> dict[str, Tensor]:
    """SQuAD exact match and F1 (percentages) of predictions against the questions' answers.

    >>> squad({"prediction_text": "the Eiffel tower", "id": "q"}, {"answers": {"text": ["Eiffel Tower in Paris"]}, "id": "q"})
    {'exact_match': tensor(0.), 'f1': tensor(66.6667)}
    """
    return squad_from_sums(*squad_sums(preds, target))
