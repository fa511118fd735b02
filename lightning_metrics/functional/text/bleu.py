"""BLEU and SacreBLEU as sacrebleu splits them: sufficient statistics per batch, then a score.

The statistics (:func:`bleu_statistics`) are one int64 vector that adds up over batches and ranks:
``[prediction length, reference length, matches per order..., prediction n-grams per order...]``.
Matches are clipped by the largest count of the n-gram over the references; the reference
length of a prediction is that of its closest reference.

Two conventions, chosen with ``convention``:

- ``"torchmetrics"`` (default): torchmetrics' values. Lowercasing after tokenization; of two
  equally close references the first listed sets the length; the score is 0 as soon as one order
  has no match; ``smooth=True`` adds one to the matches and counts of orders 2 and up.
- ``"sacrebleu"``: ``sacrebleu.corpus_bleu(...).score / 100``. Lowercasing before tokenization
  and trailing whitespace removed; of two equally close references the shorter sets the length;
  the score is 0 only when nothing matches; ``smooth`` may name sacrebleu's methods (``"none"``,
  ``"floor"``, ``"add-k"``, ``"exp"``, its default); ``True`` is ``"add-k"``, ``False`` ``"none"``.

>>> preds = ["the cat is on the mat"]
>>> target = [["there is a cat on the mat", "a cat is on the mat"]]
>>> bleu_score(preds, target)
tensor(0.7598)
>>> sacre_bleu_score(preds, target)
tensor(0.7598)
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Literal

import torch
from torch import Tensor

from lightning_metrics.functional.text._encoding import lengths_of, rank_within, segment_ids, word_ids
from lightning_metrics.functional.text._inputs import (
    ReferencesInput,
    TextInput,
    check_bool,
    check_positive_int,
    predictions_and_references,
)
from lightning_metrics.functional.text._ngrams import clipped_matches, document_ngrams, tally
from lightning_metrics.functional.text._sacrebleu_tokenize import TokenizeName, check_tokenize, tokenizer
from lightning_metrics.utilities.checks import check_choice

Convention = Literal["torchmetrics", "sacrebleu"]
CONVENTIONS = ("torchmetrics", "sacrebleu")
SACREBLEU_SMOOTHING = {"none": None, "floor": 0.1, "add-k": 1.0, "exp": None}
_NO_MATCH_LOG = -9999999999.0  # sacrebleu's log of a zero precision


def check_bleu_args(
    n_gram: object, smooth: object, weights: object, convention: object = "torchmetrics"
) -> list[float]:
    """Check the arguments shared by BLEU and SacreBLEU; return the weights (uniform by default)."""
    check_positive_int("n_gram", n_gram)
    check_choice("convention", convention, CONVENTIONS)
    if convention == "sacrebleu" and isinstance(smooth, str):
        check_choice("smooth", smooth, tuple(SACREBLEU_SMOOTHING))
    else:
        check_bool("smooth", smooth)
    if weights is None:
        return [1.0 / n_gram] * n_gram  # type: ignore[operator]
    if not isinstance(weights, Sequence) or isinstance(weights, str) or len(weights) != n_gram:
        raise ValueError(
            f"Argument `weights` must be a sequence of `n_gram`={n_gram} floats, got {weights!r}"
        )
    return [float(w) for w in weights]


def _split(line: str) -> list[str]:
    return line.split()


def word_tokenizer(
    tokenize: str | None, lowercase: bool, convention: Convention
) -> Callable[[str], list[str]]:
    """A line to its tokens; ``tokenize=None`` is BLEU's whitespace split."""
    if tokenize is None:
        return _split
    fn = tokenizer(tokenize)
    if convention == "sacrebleu":
        if lowercase:
            return lambda line: fn(line.lower().rstrip()).split()
        return lambda line: fn(line.rstrip()).split()
    if lowercase:
        return lambda line: fn(line).lower().split()
    return lambda line: fn(line).split()


_FLAT_NOTED = False


def _note_flat_references(target: Any) -> None:
    """Warn once per process that a flat ``list[str]`` target reads here as one reference per
    prediction (as chrF, TER and EED read it), while torchmetrics' BLEU reads each string as that
    prediction's references, one per character (``BLEUScore()(["the cat"], ["the cat"])`` is 0.0 there)."""
    global _FLAT_NOTED
    if _FLAT_NOTED or isinstance(target, str) or not isinstance(target, Sequence) or not target:
        return
    if all(isinstance(t, str) for t in target):
        _FLAT_NOTED = True
        warnings.warn(
            "BLEU got `target` as a flat list of strings: it is read as one reference per prediction. "
            "torchmetrics reads each string as that prediction's references, one per character, so its "
            "value differs (often 0.0); give `target` as a list of lists of references to mean the same in both.",
            UserWarning,
            stacklevel=3,
        )


def bleu_statistics(
    preds: TextInput,
    target: ReferencesInput,
    n_gram: int = 4,
    tokenize: str | None = None,
    lowercase: bool = False,
    convention: Convention = "torchmetrics",
) -> Tensor:
    """``[prediction length, reference length, matches (n_gram), n-grams (n_gram)]``, int64.

    >>> bleu_statistics(["a b c"], [["a b d", "a b"]], n_gram=2).tolist()
    [3, 3, 2, 1, 3, 2]
    """
    p, groups = predictions_and_references(preds, target, layout="item")
    _note_flat_references(target)
    split = word_tokenizer(tokenize, lowercase, convention)
    num_refs = [len(g) for g in groups]
    docs = [split(line) for line in p] + [split(line) for group in groups for line in group]
    ids, lengths = word_ids(docs)
    num_preds = len(p)
    pred_len, ref_len = lengths[:num_preds], lengths[num_preds:]
    refs = lengths_of(groups)
    sample = torch.cat([torch.arange(num_preds), segment_ids(refs)])
    source = torch.cat([torch.zeros(num_preds, dtype=torch.int64), rank_within(refs) + 1])
    doc, gram, order = document_ngrams(ids, lengths, n_gram)
    counts = tally(doc, gram, order, sample, source, max(num_refs, default=0) + 1)
    matches = clipped_matches(counts, n_gram)
    totals = (pred_len[:, None] - torch.arange(n_gram)).clamp(min=0).sum(0)
    closest = _closest_reference_lengths(pred_len, ref_len, refs, shortest_on_tie=convention == "sacrebleu")
    return torch.cat([torch.stack([pred_len.sum(), closest.sum()]), matches, totals])


def _closest_reference_lengths(
    pred_len: Tensor, ref_len: Tensor, refs: Tensor, shortest_on_tie: bool
) -> Tensor:
    """The length of each prediction's closest reference (first listed, or shortest, on a tie)."""
    if not pred_len.numel():
        return torch.zeros(0, dtype=torch.int64)
    width = int(refs.max())
    rank = rank_within(refs)
    row = segment_ids(refs)
    lengths = torch.full((refs.numel(), width), -1, dtype=torch.int64)
    lengths.view(-1).index_put_((row * width + rank,), ref_len)
    gap = (lengths - pred_len[:, None]).abs()
    key = gap * (int(ref_len.max()) + 1) + lengths if shortest_on_tie else gap
    key = torch.where(lengths >= 0, key, torch.iinfo(torch.int64).max)
    best = key.argmin(1, keepdim=True)  # the first of equal keys
    return lengths.gather(1, best)[:, 0]


def bleu_from_statistics(
    stats: Tensor,
    n_gram: int,
    weights: Sequence[float],
    smooth: bool | str = False,
    convention: Convention = "torchmetrics",
) -> Tensor:
    """The corpus BLEU (float32) of accumulated statistics, in either convention."""
    if convention == "sacrebleu":
        return _sacrebleu_score(stats, n_gram, weights, smooth)
    device = stats.device
    values = stats.to(torch.float32)
    preds_len, target_len = values[0], values[1]
    numerator, denominator = values[2 : 2 + n_gram], values[2 + n_gram :]
    if bool((numerator == 0).any()):
        return torch.tensor(0.0, device=device)
    if smooth:
        precision = (numerator + 1) / (denominator + 1)
        precision[0] = numerator[0] / denominator[0]
    else:
        precision = numerator / denominator
    geometric_mean = torch.exp(torch.sum(torch.tensor(weights, device=device) * torch.log(precision)))
    brevity = (
        torch.tensor(1.0, device=device) if preds_len > target_len else torch.exp(1 - target_len / preds_len)
    )
    return brevity * geometric_mean


def _sacrebleu_score(
    stats: Tensor, n_gram: int, weights: Sequence[float], smooth: bool | str
) -> Tensor:
    method = ("add-k" if smooth else "none") if isinstance(smooth, bool) else smooth
    value = SACREBLEU_SMOOTHING[method]
    sys_len, ref_len, *rest = (int(v) for v in stats.tolist())
    correct, total = [float(c) for c in rest[:n_gram]], [float(t) for t in rest[n_gram:]]
    device = stats.device
    if not any(correct):
        return torch.tensor(0.0, device=device)
    brevity = 1.0 if sys_len >= ref_len else (math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0)
    precisions = [0.0] * n_gram
    halvings = 1.0
    for k in range(n_gram):
        if method == "add-k" and k > 0:
            correct[k] += value  # type: ignore[operator]
            total[k] += value  # type: ignore[operator]
        if total[k] == 0:
            break
        if correct[k] == 0:
            if method == "exp":
                halvings *= 2
                precisions[k] = 1.0 / (halvings * total[k])
            elif method == "floor":
                precisions[k] = value / total[k]  # type: ignore[operator]
        else:
            precisions[k] = correct[k] / total[k]
    logs = [math.log(p) if p > 0 else _NO_MATCH_LOG for p in precisions]
    score = brevity * math.exp(sum(w * lg for w, lg in zip(weights, logs)))
    return torch.tensor(score, dtype=torch.float32, device=device)


def bleu_score(
    preds: TextInput,
    target: ReferencesInput,
    n_gram: int = 4,
    smooth: bool = False,
    weights: Sequence[float] | None = None,
) -> Tensor:
    """BLEU of whitespace-tokenized predictions against one or more references each.

    >>> bleu_score(["the squirrel is eating the nut"], [["the squirrel is eating a tasty nut"]], n_gram=2)
    tensor(0.5986)
    """
    weights = check_bleu_args(n_gram, smooth, weights)
    stats = bleu_statistics(preds, target, n_gram)
    return bleu_from_statistics(stats, n_gram, weights, smooth)


def sacre_bleu_score(
    preds: TextInput,
    target: ReferencesInput,
    n_gram: int = 4,
    smooth: bool | str = False,
    tokenize: TokenizeName = "13a",
    lowercase: bool = False,
    weights: Sequence[float] | None = None,
    convention: Convention = "torchmetrics",
) -> Tensor:
    """BLEU with sacrebleu's tokenizers; ``convention="sacrebleu"`` gives sacrebleu's value.

    >>> preds = ["The cat, it's on the mat."]
    >>> target = [["The cat is on the mat.", "There's a cat on the mat."]]
    >>> sacre_bleu_score(preds, target, n_gram=2)
    tensor(0.6547)
    >>> sacre_bleu_score(preds, target, smooth="exp", convention="sacrebleu")
    tensor(0.4111)
    """
    weights = check_bleu_args(n_gram, smooth, weights, convention)
    check_tokenize(tokenize)
    check_bool("lowercase", lowercase)
    stats = bleu_statistics(preds, target, n_gram, tokenize, lowercase, convention)
    return bleu_from_statistics(stats, n_gram, weights, smooth, convention)
