"""chrF and chrF++: F-scores of character (and word) n-grams, from count statistics.

:func:`chrf_statistics` reduces a batch to an int64 ``(3, n_char_order + n_word_order)`` table —
prediction n-grams, reference n-grams and matches per order, summed over the batch with the best
reference of each prediction — plus the sentence scores, so a modular metric keeps a few integers.

Two conventions (``convention``):

- ``"torchmetrics"`` (default): the mean over orders of the per-order F-scores; a prediction's
  best reference is the first with the highest positive sentence score, and when no reference
  scores above 0 the prediction's reference n-grams are not counted at all; ``whitespace=False``
  removes spaces only.
- ``"sacrebleu"``: ``sacrebleu.CHRF(...).corpus_score(...).score / 100``: the F-score of the
  precision and recall averaged over the orders present; the first highest-scoring reference
  always counts; all whitespace is removed; a prediction's n-grams of an order count only where
  the reference has n-grams of that order.

>>> preds = ["the cat is on the mat"]
>>> target = [["there is a cat on the mat", "a cat is on the mat"]]
>>> chrf_score(preds, target)
tensor(0.8640)
>>> chrf_score(preds, target, convention="sacrebleu")
tensor(0.8648)
"""

from __future__ import annotations

from itertools import chain

import torch
from torch import Tensor

from lightning_metrics.functional.text._encoding import (
    char_ids,
    lengths_of,
    rank_within,
    segment_ids,
    word_ids,
)
from lightning_metrics.functional.text._inputs import (
    ReferencesInput,
    TextInput,
    check_bool,
    check_positive_int,
    predictions_and_references,
)
from lightning_metrics.functional.text._ngrams import document_ngrams, matches_per_source, order_totals, tally
from lightning_metrics.functional.text.bleu import CONVENTIONS, Convention
from lightning_metrics.utilities.checks import check_choice

PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_EPS = 1e-16
HYP, REF, MATCH = range(3)


def check_chrf_args(n_char_order: object, n_word_order: object, beta: object, convention: object,
                    lowercase: object, whitespace: object) -> None:  # fmt: skip
    """The arguments :func:`chrf_score` and ``CHRFScore`` share."""
    check_positive_int("n_char_order", n_char_order, 1)
    check_positive_int("n_word_order", n_word_order, 0)
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or beta < 0:
        raise ValueError(f"Argument `beta` must be a non-negative number, got {beta!r}")
    check_choice("convention", convention, CONVENTIONS)
    check_bool("lowercase", lowercase)
    check_bool("whitespace", whitespace)


def _words(sentence: str) -> list[str]:
    """Whitespace words with one leading or trailing punctuation mark split off."""
    out: list[str] = []
    for word in sentence.split():
        if len(word) > 1 and word[-1] in PUNCTUATION:
            out += (word[:-1], word[-1])
        elif len(word) > 1 and word[0] in PUNCTUATION:
            out += (word[0], word[1:])
        else:
            out.append(word)
    return out


def _characters(sentence: str, whitespace: bool, convention: str) -> str:
    if whitespace:
        return sentence
    if convention == "sacrebleu":
        return "".join(sentence.split())
    return sentence.strip().replace(" ", "")


def _fscores(matches: Tensor, hyp: Tensor, ref: Tensor, beta: float) -> Tensor:
    """torchmetrics' per-order F-scores (float32, evaluated as it does)."""
    precision = torch.where(hyp > 0, matches / hyp, 0.0)
    recall = torch.where(ref > 0, matches / ref, 0.0)
    denominator = torch.clamp(beta**2 * precision + recall, min=_EPS)
    return (1 + beta**2) * precision * recall / denominator


def _mean_fscore(stats: Tensor, n_char_order: int, beta: float) -> Tensor:
    """The mean of the per-order F-scores over the last dim of ``stats[..., 3, orders]``."""
    values = stats.to(torch.float32)
    f = _fscores(values[..., MATCH, :], values[..., HYP, :], values[..., REF, :], beta)
    orders = f.shape[-1]
    char_sum: int | Tensor = 0
    word_sum: int | Tensor = 0
    for k in range(orders):  # summed in order, as torchmetrics does
        if k < n_char_order:
            char_sum = char_sum + f[..., k]
        else:
            word_sum = word_sum + f[..., k]
    return (char_sum + word_sum) / torch.tensor(float(orders))


def _sacrebleu_fscore(stats: Tensor, beta: float) -> Tensor:
    """sacrebleu's chrF (0-1) of ``stats[..., 3, orders]``, in float64."""
    values = stats.to(torch.float64)
    hyp, ref, match = values[..., HYP, :], values[..., REF, :], values[..., MATCH, :]
    present = (hyp > 0) & (ref > 0)
    precision = torch.where(hyp > 0, match / hyp, _EPS)
    recall = torch.where(ref > 0, match / ref, _EPS)
    effective = present.sum(-1)
    avg_p = torch.where(present, precision, 0.0).sum(-1) / effective.clamp(min=1)
    avg_r = torch.where(present, recall, 0.0).sum(-1) / effective.clamp(min=1)
    factor = beta**2
    total = avg_p + avg_r
    score = (1 + factor) * avg_p * avg_r / torch.where(total > 0, factor * avg_p + avg_r, 1.0)
    return torch.where(total > 0, score, 0.0)


def chrf_statistics(
    preds: TextInput,
    target: ReferencesInput,
    n_char_order: int = 6,
    n_word_order: int = 2,
    beta: float = 2.0,
    lowercase: bool = False,
    whitespace: bool = False,
    convention: Convention = "torchmetrics",
) -> tuple[Tensor, Tensor]:
    """The batch's int64 ``(3, orders)`` statistics and its sentence scores (float32, one per prediction).

    >>> stats, sentence = chrf_statistics(["ab"], [["ab", "b"]], n_char_order=2, n_word_order=0)
    >>> stats.tolist(), sentence.tolist()
    ([[2, 1], [2, 1], [2, 1]], [1.0])
    """
    p, groups = predictions_and_references(preds, target, layout="single", allow_no_reference=True)
    if lowercase:
        p, groups = [s.lower() for s in p], [[s.lower() for s in g] for g in groups]
    texts = p + list(chain.from_iterable(groups))
    refs = lengths_of(groups)
    num_preds, orders = len(p), n_char_order + n_word_order
    sample = torch.cat([torch.arange(num_preds), segment_ids(refs)])
    source = torch.cat([torch.zeros(num_preds, dtype=torch.int64), rank_within(refs) + 1])
    num_sources = int(refs.max()) + 1 if num_preds else 1

    c_ids, c_len = char_ids([_characters(s, whitespace, convention) for s in texts])
    doc, gram, order = document_ngrams(c_ids, c_len, n_char_order)
    totals = order_totals(c_len, n_char_order)
    if n_word_order:
        w_ids, w_len = word_ids([_words(s) for s in texts])
        w_doc, w_gram, w_order = document_ngrams(w_ids, w_len, n_word_order)
        offset = int(gram.max()) + 1 if gram.numel() else 0
        doc = torch.cat([doc, w_doc + len(texts)])
        gram, order = torch.cat([gram, w_gram + offset]), torch.cat([order, w_order + n_char_order])
        totals = torch.cat([totals, order_totals(w_len, n_word_order)], 1)
        sample, source = sample.repeat(2), source.repeat(2)
    counts = tally(doc, gram, order, sample, source, num_sources)
    matches = matches_per_source(counts, num_preds, num_sources, orders)  # (P, R, orders)

    # per (prediction, reference): hyp / ref / match counts, laid out on a (P, R) grid
    width = num_sources - 1
    pred_totals = totals[:num_preds]
    ref_grid = torch.zeros((num_preds * width, orders), dtype=torch.int64)
    if width:
        cell = segment_ids(refs) * width + rank_within(refs)
        ref_grid.index_copy_(0, cell, totals[num_preds:])
    ref_grid = ref_grid.view(num_preds, width, orders)
    hyp_grid = pred_totals[:, None, :].expand(num_preds, width, orders)
    if convention == "sacrebleu":
        hyp_grid = torch.where(ref_grid > 0, hyp_grid, 0)
    pair_stats = torch.stack([hyp_grid, ref_grid, matches], 2)  # (P, R, 3, orders)
    listed = torch.arange(width)[None, :] < refs[:, None]

    if convention == "sacrebleu":
        scores = torch.where(listed, _sacrebleu_fscore(pair_stats, beta), -1.0)
        best = scores.argmax(1) if width else torch.zeros(num_preds, dtype=torch.int64)
        chosen = listed.any(1)
    else:
        scores = torch.where(listed, _mean_fscore(pair_stats, n_char_order, beta), 0.0)
        best = scores.argmax(1) if width else torch.zeros(num_preds, dtype=torch.int64)
        chosen = (
            scores.gather(1, best[:, None])[:, 0] > 0 if width else torch.zeros(num_preds, dtype=torch.bool)
        )
    if width:
        best_stats = pair_stats.gather(1, best[:, None, None, None].expand(num_preds, 1, 3, orders))[:, 0]
        best_stats = torch.where(chosen[:, None, None], best_stats, 0)
    else:
        best_stats = torch.zeros((num_preds, 3, orders), dtype=torch.int64)
    if convention == "torchmetrics":
        best_stats[:, HYP] = pred_totals  # the prediction's n-grams always count
        sentence = torch.where(chosen, _mean_fscore(best_stats, n_char_order, beta), 0.0)
    else:
        sentence = _sacrebleu_fscore(best_stats, beta).to(torch.float32)
    return best_stats.sum(0), sentence.to(torch.float32)


def chrf_from_statistics(stats: Tensor, n_char_order: int, beta: float, convention: Convention) -> Tensor:
    """The corpus chrF (float32) of accumulated statistics."""
    if convention == "sacrebleu":
        return _sacrebleu_fscore(stats, beta).to(torch.float32)
    return _mean_fscore(stats, n_char_order, beta)


def chrf_score(
    preds: TextInput,
    target: ReferencesInput,
    n_char_order: int = 6,
    n_word_order: int = 2,
    beta: float = 2.0,
    lowercase: bool = False,
    whitespace: bool = False,
    return_sentence_level_score: bool = False,
    convention: Convention = "torchmetrics",
) -> Tensor | tuple[Tensor, Tensor]:
    """chrF++ (``n_word_order=2``) or chrF (``n_word_order=0``) of predictions against references.

    >>> chrf_score(["the cat is on the mat"], [["a cat is on the mat"]], return_sentence_level_score=True)
    (tensor(0.8640), tensor([0.8640]))
    """
    check_chrf_args(n_char_order, n_word_order, beta, convention, lowercase, whitespace)
    stats, sentence = chrf_statistics(
        preds, target, n_char_order, n_word_order, beta, lowercase, whitespace, convention
    )
    score = chrf_from_statistics(stats, n_char_order, beta, convention)
    if return_sentence_level_score and sentence.numel():
        return score, sentence
    return score
