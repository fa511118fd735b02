"""Translation edit rate (TER, Tercom): shifts plus word edits per reference word.

Each prediction scores its best reference (fewest edits) and the mean length of its references;
:func:`ter_statistics` reduces a batch to the summed edits (int64), the summed mean reference length
(float64) and the sentence scores. The shift search runs batched (see :mod:`._tercom`).

Two conventions (``convention``):

- ``"torchmetrics"`` (default): torchmetrics' values, which shift the *reference* towards the
  prediction (its call passes the two in the other order), allow blocks of up to 9 words, and
  count no edits against an empty prediction.
- ``"sacrebleu"``: ``sacrebleu.TER(...).corpus_score(...).score / 100``: the prediction is
  shifted, blocks of up to 10 words, an empty reference costs one edit per predicted word.

>>> preds = ["the cat is on the mat"]
>>> target = [["there is a cat on the mat", "a cat is on the mat"]]
>>> translation_edit_rate(preds, target)
tensor(0.1538)
"""

from __future__ import annotations

import re
from functools import lru_cache

import torch
from torch import Tensor

from lightning_metrics.functional.text import _tercom
from lightning_metrics.functional.text._inputs import (
    ReferencesInput,
    TextInput,
    check_bool,
    predictions_and_references,
)
from lightning_metrics.functional.text.bleu import CONVENTIONS, Convention
from lightning_metrics.utilities.checks import check_choice

_ASIAN_PUNCTUATION = r"([\u3001\u3002\u3008-\u3011\u3014-\u301f\uff61-\uff65\u30fb])"
_FULL_WIDTH_PUNCTUATION = r"([\uff0e\uff0c\uff1f\uff1a\uff1b\uff01\uff02\uff08\uff09])"
_WESTERN = [
    (r"\n-", ""), (r"\n", " "), (r"&quot;", '"'), (r"&amp;", "&"), (r"&lt;", "<"), (r"&gt;", ">"),
    (r"([{-~[-` -&(-+:-@/])", r" \1 "), (r"'s ", r" 's "), (r"'s$", r" 's"),
    (r"([^0-9])([\.,])", r"\1 \2 "), (r"([\.,])([^0-9])", r" \1 \2"), (r"([0-9])(-)", r"\1 \2 "),
]  # fmt: skip
_ASIAN = [
    (r"([\u4e00-\u9fff\u3400-\u4dbf])", r" \1 "),
    (r"([\u31c0-\u31ef\u2e80-\u2eff])", r" \1 "),
    (r"([\u3300-\u33ff\uf900-\ufaff\ufe30-\ufe4f])", r" \1 "),
    (r"([\u3200-\u3f22])", r" \1 "),
    (r"(^|^[\u3040-\u309f])([\u3040-\u309f]+)(?=$|^[\u3040-\u309f])", r"\1 \2 "),
    (r"(^|^[\u30a0-\u30ff])([\u30a0-\u30ff]+)(?=$|^[\u30a0-\u30ff])", r"\1 \2 "),
    (r"(^|^[\u31f0-\u31ff])([\u31f0-\u31ff]+)(?=$|^[\u31f0-\u31ff])", r"\1 \2 "),
    (_ASIAN_PUNCTUATION, r" \1 "),
    (_FULL_WIDTH_PUNCTUATION, r" \1 "),
]
_PUNCTUATION = re.compile(r"[\.,\?:;!\"\(\)]")
_WESTERN_RULES = [(re.compile(p), r) for p, r in _WESTERN]
_ASIAN_RULES = [(re.compile(p), r) for p, r in _ASIAN]


@lru_cache(maxsize=2**16)
def tercom_tokenize(
    sentence: str, normalize: bool, no_punctuation: bool, lowercase: bool, asian_support: bool
) -> tuple[str, ...]:
    """Tercom's tokenization of one (right-stripped) sentence, as words.

    >>> tercom_tokenize("It's 3.5 km, isn't it?", True, False, True, False)
    ('it', "'s", '3.5', 'km', ',', "isn't", 'it', '?')
    """
    sentence = sentence.rstrip()
    if not sentence:
        return ()
    if lowercase:
        sentence = sentence.lower()
    if normalize:
        sentence = f" {sentence} "
        for pattern, replacement in _WESTERN_RULES:
            sentence = pattern.sub(replacement, sentence)
        if asian_support:
            for pattern, replacement in _ASIAN_RULES:
                sentence = pattern.sub(replacement, sentence)
    if no_punctuation:
        sentence = _PUNCTUATION.sub("", sentence)
        if asian_support:
            sentence = re.sub(_FULL_WIDTH_PUNCTUATION, "", re.sub(_ASIAN_PUNCTUATION, "", sentence))
    return tuple(sentence.split())


def check_ter_args(normalize: object, no_punctuation: object, lowercase: object, asian_support: object,
                   return_sentence_level_score: object, convention: object) -> None:  # fmt: skip
    for name, value in (
        ("normalize", normalize), ("no_punctuation", no_punctuation), ("lowercase", lowercase),
        ("asian_support", asian_support), ("return_sentence_level_score", return_sentence_level_score),
    ):  # fmt: skip
        check_bool(name, value)
    check_choice("convention", convention, CONVENTIONS)


def ter_from_statistics(edits: Tensor, length: Tensor) -> Tensor:
    """Edits per reference word; 1 when there are edits but no reference words, else 0 (float32)."""
    edits, length = edits.to(torch.float64), length.to(torch.float64)
    score = torch.where(length > 0, edits / length.clamp(min=1e-300), (edits > 0).to(torch.float64))
    return torch.where(edits > 0, score, 0.0).to(torch.float32)


def ter_statistics(
    preds: TextInput,
    target: ReferencesInput,
    normalize: bool = False,
    no_punctuation: bool = False,
    lowercase: bool = True,
    asian_support: bool = False,
    convention: Convention = "torchmetrics",
) -> tuple[Tensor, Tensor, Tensor]:
    """Per prediction: fewest edits over its references (int64) and mean reference length (float64),
    and the sentence scores (float32)."""
    p, groups = predictions_and_references(preds, target, layout="single")
    options = (normalize, no_punctuation, lowercase, asian_support)
    vocab: dict[str, int] = {}

    def ids(line: str) -> list[int]:
        return [vocab.setdefault(w, len(vocab)) for w in tercom_tokenize(line, *options)]

    pred_words = [ids(line) for line in p]
    ref_words = [[ids(line) for line in group] for group in groups]
    moving, fixed, owner = [], [], []
    for i, (hyp, refs) in enumerate(zip(pred_words, ref_words)):
        for ref in refs:
            moving.append(ref if convention == "torchmetrics" else hyp)
            fixed.append(hyp if convention == "torchmetrics" else ref)
            owner.append(i)
    # against an empty fixed side there is nothing to align: torchmetrics counts 0, sacrebleu one
    # edit per moving word
    edits = [0 if convention == "torchmetrics" else len(w) for w in moving]
    todo = [k for k, f in enumerate(fixed) if f]
    if todo:
        found = _tercom.edits(
            [moving[k] for k in todo], [fixed[k] for k in todo], 9 if convention == "torchmetrics" else 10
        )
        for k, value in zip(todo, found.tolist()):
            edits[k] = value
    best = [None] * len(p)
    for k, i in enumerate(owner):
        if best[i] is None or edits[k] < best[i]:
            best[i] = edits[k]
    best_edits = torch.tensor(best, dtype=torch.int64)
    mean_length = torch.tensor(
        [sum(len(r) for r in refs) / len(refs) for refs in ref_words], dtype=torch.float64
    )
    return best_edits, mean_length, ter_from_statistics(best_edits, mean_length)


def translation_edit_rate(
    preds: TextInput,
    target: ReferencesInput,
    normalize: bool = False,
    no_punctuation: bool = False,
    lowercase: bool = True,
    asian_support: bool = False,
    return_sentence_level_score: bool = False,
    convention: Convention = "torchmetrics",
) -> Tensor | tuple[Tensor, list[Tensor]]:
    """Corpus TER; with ``return_sentence_level_score`` also a list of one-element sentence scores.

    >>> translation_edit_rate(["a b c d"], [["c d a b"]], return_sentence_level_score=True)
    (tensor(0.2500), [tensor([0.2500])])
    """
    check_ter_args(
        normalize, no_punctuation, lowercase, asian_support, return_sentence_level_score, convention
    )
    edits, length, sentence = ter_statistics(
        preds, target, normalize, no_punctuation, lowercase, asian_support, convention
    )
    score = ter_from_statistics(edits.sum(), length.sum())
    if return_sentence_level_score and sentence.numel():
        return score, list(sentence.unsqueeze(1).unbind(0))
    return score
