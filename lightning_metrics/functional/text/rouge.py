"""ROUGE-N (1..9), ROUGE-L and ROUGE-Lsum: precision, recall and F-measure per sentence, averaged.

Per (prediction, reference) pair, ROUGE-N's matches come from the shared n-gram tally and ROUGE-L's
longest common subsequence from the bit-parallel LCS, both over the whole batch at once;
ROUGE-Lsum (summary-level union LCS over sentences) runs per pair. Each prediction keeps its best
reference (``accumulate="best"``, by F-measure) or the mean over its references (``"avg"``);
:func:`rouge_sums` reduces a batch to the float64 sums of those per-sentence scores and their
count, which add up over batches and ranks.

Stemming (``use_stemmer``) and ROUGE-Lsum's sentence splitting use ``nltk`` (an optional
dependency, imported when needed); the sentence splitter needs nltk's ``punkt_tab`` data: when it is
missing it is fetched once with nltk's downloader, as torchmetrics does, and a machine without the
network gets an error that names the command to run where there is one.

>>> preds = "My name is John"
>>> target = "Is your name John"
>>> {k: round(v.item(), 4) for k, v in rouge_score(preds, target, rouge_keys=("rouge1", "rougeL")).items()}
{'rouge1_fmeasure': 0.75, 'rouge1_precision': 0.75, 'rouge1_recall': 0.75, 'rougeL_fmeasure': 0.5, 'rougeL_precision': 0.5, 'rougeL_recall': 0.5}
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, Literal

import torch
from torch import Tensor

from lightning_metrics.functional.text._encoding import Vocabulary, padded, rank_within, segment_ids, word_ids
from lightning_metrics.functional.text._inputs import ReferencesInput, TextInput, predictions_and_references
from lightning_metrics.functional.text._levenshtein import lcs_length
from lightning_metrics.functional.text._ngrams import document_ngrams, matches_per_source, tally
from lightning_metrics.utilities.checks import check_choice

ROUGE_KEYS: dict[str, int | str] = {f"rouge{n}": n for n in range(1, 10)}
ROUGE_KEYS.update(rougeL="L", rougeLsum="Lsum")
SCORE_TYPES = ("fmeasure", "precision", "recall")
ACCUMULATE = ("avg", "best")
_NON_ALPHANUMERIC = re.compile(r"[^a-z0-9]+")
_WHITESPACE = re.compile(r"\s+")


def check_rouge_keys(rouge_keys: Any) -> tuple[str, ...]:
    """The keys as a tuple, each one of ``rouge1``..``rouge9``, ``rougeL``, ``rougeLsum``."""
    keys = (rouge_keys,) if isinstance(rouge_keys, str) else tuple(rouge_keys)
    for key in keys:
        check_choice("rouge_keys", key, tuple(ROUGE_KEYS))
    if not keys:
        raise ValueError("Argument `rouge_keys` must name at least one ROUGE key, got ()")
    return keys


def _nltk() -> Any:
    try:
        import nltk
    except ImportError as err:
        raise ModuleNotFoundError(
            "ROUGE with `use_stemmer=True` or the key 'rougeLsum' needs the package `nltk`; install it with"
            " `pip install nltk`"
        ) from err
    return nltk


def porter_stemmer() -> Any:
    """nltk's Porter stemmer (what torchmetrics and rouge-score use)."""
    return _nltk().stem.porter.PorterStemmer()


def _split_sentence(text: str) -> Sequence[str]:
    """Sentences of ``text`` by nltk's punkt model (fetched once when missing, see :func:`_punkt`)."""
    nltk = _nltk()
    _punkt(nltk)
    return nltk.sent_tokenize(text)


def _punkt(nltk: Any) -> None:
    """Make sure nltk's ``punkt_tab`` data is on disk: fetch it with nltk's downloader when it is
    missing (as torchmetrics does on first use); raise ``OSError`` naming the command when that fails."""
    try:
        nltk.data.find("tokenizers/punkt_tab")
        return
    except LookupError:
        pass
    try:
        fetched = nltk.download("punkt_tab", quiet=True, raise_on_error=True)
        nltk.data.find("tokenizers/punkt_tab")
    except Exception as err:  # noqa: BLE001 - no network, no write access, a proxy: the same advice
        reason = f"{type(err).__name__}: {err}".strip()
        fetched = False
    else:
        reason = ""
    if fetched is False:
        raise OSError(
            "ROUGE key 'rougeLsum' splits sentences with nltk's `punkt_tab` data, which is not installed, and "
            f"fetching it failed{' (' + reason[:200] + ')' if reason else ''}; fetch it once where the network "
            "allows with `python -m nltk.downloader punkt_tab` (or copy an nltk_data folder holding "
            "tokenizers/punkt_tab to one of nltk.data.path)"
        )


class _Tokenizer:
    """torchmetrics' ROUGE tokenization: normalise, split, stem words longer than three letters."""

    def __init__(self, stemmer: Any, normalizer: Callable | None, tokenizer: Callable | None) -> None:
        self.stemmer, self.normalizer, self.tokenizer = stemmer, normalizer, tokenizer
        self._stems: dict[str, str] = {}

    def _stem(self, token: str) -> str:
        stem = self._stems.get(token)
        if stem is None:
            stem = self._stems[token] = self.stemmer.stem(token)
        return stem

    def __call__(self, text: str) -> list[str]:
        text = (
            self.normalizer(text) if callable(self.normalizer) else _NON_ALPHANUMERIC.sub(" ", text.lower())
        )
        tokens = self.tokenizer(text) if callable(self.tokenizer) else _WHITESPACE.split(text)
        if self.stemmer:
            tokens = [self._stem(x) if len(x) > 3 else x for x in tokens]
        return [x for x in tokens if isinstance(x, str) and len(x) > 0]


def _scores(hits: Tensor, pred_len: Tensor, target_len: Tensor) -> Tensor:
    """``(..., 3)`` float64 F-measure, precision, recall; zeros where a side is empty or nothing matched."""
    hits = hits.to(torch.float64)
    empty = (pred_len == 0) | (target_len == 0)
    precision = torch.where(empty, 0.0, hits / pred_len.clamp(min=1))
    recall = torch.where(empty, 0.0, hits / target_len.clamp(min=1))
    total = precision + recall
    fmeasure = torch.where(total > 0, 2 * precision * recall / torch.where(total > 0, total, 1.0), 0.0)
    return torch.stack([fmeasure, precision, recall], -1)


def _lcs_indices(pred: Sequence[int], target: Sequence[int]) -> list[int]:
    """Positions in ``target`` of one LCS with ``pred``, backtracked as torchmetrics does."""
    table = [[0] * (len(pred) + 1) for _ in range(len(target) + 1)]
    for i in range(1, len(target) + 1):
        row, above, t = table[i], table[i - 1], target[i - 1]
        for j in range(1, len(pred) + 1):
            row[j] = above[j - 1] + 1 if t == pred[j - 1] else max(above[j], row[j - 1])
    out: list[int] = []
    i, j = len(pred), len(target)
    while i > 0 and j > 0:
        if pred[i - 1] == target[j - 1]:
            out.append(j - 1)
            i, j = i - 1, j - 1
        elif table[j][i - 1] > table[j - 1][i]:
            i -= 1
        else:
            j -= 1
    return out


def _lsum_hits(pred_sentences: list[list[int]], target_sentences: list[list[int]]) -> int:
    """Summary-level LCS hits: per reference sentence, the union of its LCS with every prediction
    sentence, each token counted at most as often as it occurs on both sides."""
    pred_counts = Counter(t for s in pred_sentences for t in s)
    target_counts = Counter(t for s in target_sentences for t in s)
    hits = 0
    for target in target_sentences:
        union = sorted(set().union(*(_lcs_indices(p, target) for p in pred_sentences)))
        for token in (target[i] for i in union):
            if pred_counts[token] > 0 and target_counts[token] > 0:
                hits += 1
                pred_counts[token] -= 1
                target_counts[token] -= 1
    return hits


def pair_scores(
    preds: list[str], groups: list[list[str]], keys: tuple[str, ...], tokenize: Callable[[str], list[str]],
    split_sentences: Callable[[str], Sequence[str]] | None = None,
) -> Tensor:  # fmt: skip
    """``(pairs, keys, 3)`` float32 scores of every (prediction, reference) pair, in reference order."""
    refs_per_pred = torch.tensor([len(g) for g in groups], dtype=torch.int64)
    flat_refs = [r for g in groups for r in g]
    owner = segment_ids(refs_per_pred)
    vocab = Vocabulary()
    pred_ids, pred_len = word_ids([tokenize(p) for p in preds], vocab)
    ref_ids, ref_len = word_ids([tokenize(r) for r in flat_refs], vocab)
    pairs = len(flat_refs)
    out = torch.zeros((pairs, len(keys), 3), dtype=torch.float64)
    values = [ROUGE_KEYS[k] for k in keys]
    orders = sorted(v for v in values if isinstance(v, int))
    pair_pred_len = pred_len.index_select(0, owner)
    if orders:
        ids, lengths = torch.cat([pred_ids, ref_ids]), torch.cat([pred_len, ref_len])
        doc, gram, order = document_ngrams(ids, lengths, orders[-1], orders[0])
        sample = torch.cat([torch.arange(len(preds)), owner])
        source = torch.cat([torch.zeros(len(preds), dtype=torch.int64), rank_within(refs_per_pred) + 1])
        sources = int(refs_per_pred.max()) + 1 if pairs else 1
        matches = matches_per_source(
            tally(doc, gram, order, sample, source, sources), len(preds), sources, orders[-1]
        )
        cell = owner * (sources - 1) + rank_within(refs_per_pred)
        matches = matches.reshape(-1, orders[-1]).index_select(0, cell)
    if "L" in values:
        pred_pad = padded(pred_ids, pred_len, -1).index_select(0, owner)
        lcs = lcs_length(pred_pad, pair_pred_len, padded(ref_ids, ref_len, -2), ref_len)
    for k, value in enumerate(values):
        if isinstance(value, int):
            grams_p, grams_t = (pair_pred_len - value + 1).clamp(min=0), (ref_len - value + 1).clamp(min=0)
            out[:, k] = _scores(matches[:, value - 1], grams_p, grams_t)
        elif value == "L":
            out[:, k] = _scores(lcs, pair_pred_len, ref_len)
        else:
            out[:, k] = _lsum_scores(preds, flat_refs, owner.tolist(), tokenize, split_sentences)
    return out.to(torch.float32)


def _lsum_scores(
    preds: list[str], refs: list[str], owner: list[int], tokenize: Callable,
    split_sentences: Callable[[str], Sequence[str]] | None,
) -> Tensor:  # fmt: skip
    split = split_sentences or _split_sentence
    vocab: dict[str, int] = {}

    def sentences(text: str) -> list[list[int]]:
        return [[vocab.setdefault(t, len(vocab)) for t in tokenize(s)] for s in split(text)]

    pred_sentences = [sentences(p) for p in preds]
    hits, pred_len, ref_len = [], [], []
    for ref, i in zip(refs, owner):
        target = sentences(ref)
        p_len, t_len = sum(map(len, pred_sentences[i])), sum(map(len, target))
        hits.append(_lsum_hits(pred_sentences[i], target) if p_len and t_len else 0)
        pred_len.append(p_len)
        ref_len.append(t_len)
    as_tensor = lambda v: torch.tensor(v, dtype=torch.int64)
    return _scores(as_tensor(hits), as_tensor(pred_len), as_tensor(ref_len))


def accumulate_scores(scores: Tensor, refs_per_pred: Tensor, accumulate: str) -> Tensor:
    """Per prediction ``(preds, keys, 3)`` float32: the best reference by F-measure, or the mean."""
    preds, width = refs_per_pred.numel(), int(refs_per_pred.max()) if refs_per_pred.numel() else 0
    if not preds:
        return scores.new_zeros((0, *scores.shape[1:]))
    grid = torch.zeros((preds * width, *scores.shape[1:]), dtype=scores.dtype)
    cell = segment_ids(refs_per_pred) * width + rank_within(refs_per_pred)
    grid.index_copy_(0, cell, scores)
    grid = grid.view(preds, width, *scores.shape[1:])
    listed = (torch.arange(width)[None, :] < refs_per_pred[:, None])[..., None, None]
    if accumulate == "avg":
        return torch.where(listed, grid, 0.0).sum(1) / refs_per_pred[:, None, None].to(scores.dtype)
    fmeasure = torch.where(listed[..., 0], grid[..., 0], -1.0)  # (preds, width, keys)
    best = fmeasure.argmax(1)  # the first best reference, per key
    return grid.gather(1, best[:, None, :, None].expand(preds, 1, grid.shape[2], 3))[:, 0]


def rouge_sums(
    preds: TextInput,
    target: ReferencesInput,
    keys: tuple[str, ...],
    accumulate: str,
    stemmer: Any = None,
    normalizer: Callable[[str], str] | None = None,
    tokenizer: Callable[[str], Sequence[str]] | None = None,
) -> tuple[Tensor, Tensor]:
    """Float64 ``(keys, 3)`` sums of the per-sentence scores and the number of sentences (int64)."""
    p, groups = predictions_and_references(preds, target, layout="str")
    tokenize = _Tokenizer(stemmer, normalizer, tokenizer)
    refs = torch.tensor([len(g) for g in groups], dtype=torch.int64)
    per_sentence = accumulate_scores(pair_scores(p, groups, keys, tokenize), refs, accumulate)
    return per_sentence.to(torch.float64).sum(0), torch.tensor(len(p), dtype=torch.int64)


def rouge_from_sums(sums: Tensor, count: Tensor, keys: tuple[str, ...]) -> dict[str, Tensor]:
    """``{"rouge1_fmeasure": ..., ...}``: the mean per-sentence scores (float32)."""
    means = (sums / count).to(torch.float32)
    return {
        f"rouge{ROUGE_KEYS[key]}_{kind}": means[k, t]
        for k, key in enumerate(keys)
        for t, kind in enumerate(SCORE_TYPES)
    }


def rouge_score(
    preds: TextInput,
    target: ReferencesInput,
    accumulate: Literal["avg", "best"] = "best",
    use_stemmer: bool = False,
    normalizer: Callable[[str], str] | None = None,
    tokenizer: Callable[[str], Sequence[str]] | None = None,
    rouge_keys: str | tuple[str, ...] = ("rouge1", "rouge2", "rougeL", "rougeLsum"),
) -> dict[str, Tensor]:
    """ROUGE scores of predictions against one or more references each.

    >>> rouge_score(["the cat sat"], [["the cat sat down", "a cat"]], rouge_keys="rouge2")
    {'rouge2_fmeasure': tensor(0.8000), 'rouge2_precision': tensor(1.), 'rouge2_recall': tensor(0.6667)}
    """
    keys = check_rouge_keys(rouge_keys)
    check_choice("accumulate", accumulate, ACCUMULATE)
    stemmer = porter_stemmer() if use_stemmer else None
    sums, count = rouge_sums(preds, target, keys, accumulate, stemmer, normalizer, tokenizer)
    return rouge_from_sums(sums, count, keys)
