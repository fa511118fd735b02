"""Extended edit distance (EED, Stanchev et al. 2019): a character edit distance with jumps at
word boundaries and a coverage penalty, per sentence, averaged over the sentences.

The programme runs over all (prediction, reference) pairs of a batch at once: one step fills one
cell of every pair, in torch float64, in the very order (and so with the very roundings) of the
definition, because the coverage term depends on which cell of each row is the first minimum.

>>> preds = ["this is the prediction", "here is an other sample"]
>>> target = ["this is the reference", "here is another one"]
>>> extended_edit_distance(preds, target)
tensor(0.3078)
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

import torch
from torch import Tensor

from lightning_metrics.functional.text._encoding import char_ids, padded, segment_ids
from lightning_metrics.functional.text._inputs import ReferencesInput, TextInput, predictions_and_references
from lightning_metrics.utilities.checks import check_choice

LANGUAGES = ("en", "ja")
_EN_SPACING = (
    (re.compile(r"\s+"), " "),
    (re.compile(r"(\d) ([.,]) (\d)"), r"\1\2\3"),
    (re.compile(r"(Dr|Jr|Prof|Rev|Gen|Mr|Mt|Mrs|Ms) ."), r"\1."),
)
_SPACE = ord(" ")


def check_eed_args(language: object, alpha: object, rho: object, deletion: object, insertion: object) -> None:
    check_choice("language", language, LANGUAGES)
    for name, value in (("alpha", alpha), ("rho", rho), ("deletion", deletion), ("insertion", insertion)):
        if not isinstance(value, float) or value < 0:
            raise ValueError(f"Argument `{name}` must be a non-negative float, got {value!r}")


def preprocess(sentence: str, language: str) -> str:
    """EED's preprocessing: English punctuation split off and padded with spaces; Japanese NFKC.

    >>> preprocess("Dr. Smith paid, twice!", "en")
    ' Dr. Smith paid , twice ! '
    """
    sentence = sentence.rstrip()
    if language == "ja":
        return unicodedata.normalize("NFKC", sentence)
    for mark in ".!?,":
        sentence = sentence.replace(mark, " " + mark)
    for pattern, replacement in _EN_SPACING:
        sentence = pattern.sub(replacement, sentence)
    for spaced, joined in (("e . g .", "e.g."), ("i . e .", "i.e."), ("U . S .", "U.S.")):
        sentence = sentence.replace(spaced, joined)
    return f" {sentence} "


def eed_pairs(
    hyps: list[str], refs: list[str], alpha: float, rho: float, deletion: float, insertion: float
) -> Tensor:
    """The EED (float64) of every ``(hyps[k], refs[k])``."""
    if not hyps:
        return torch.zeros(0, dtype=torch.float64)
    h_ids, h_len = char_ids(hyps)
    r_ids, r_len = char_ids(refs)
    hyp, ref = padded(h_ids, h_len, -1), padded(r_ids, r_len, -2)
    batch, width = hyp.shape
    inf = torch.tensor(float("inf"), dtype=torch.float64)
    row = torch.ones((batch, width + 1), dtype=torch.float64)
    row[:, 0] = 0.0
    visits = torch.full((batch, width + 1), -1, dtype=torch.int64)
    columns = torch.arange(width + 1)
    in_hyp = columns[None, :] <= h_len[:, None]
    for w in range(ref.shape[1]):
        live = w < r_len
        token = ref[:, w]
        cost = (hyp != token[:, None]).to(torch.float64)  # (batch, width)
        reach = torch.minimum(row[:, :-1] + cost, row[:, 1:] + insertion)  # cells 1..width, but the left step
        cells = [row[:, 0] + 1.0]
        for i in range(width):
            cells.append(torch.minimum(cells[-1] + deletion, reach[:, i]))
        nxt = torch.where(in_hyp, torch.stack(cells, 1), inf)
        first_min = nxt.argmin(1)
        visits.scatter_add_(1, first_min[:, None], live.to(torch.int64)[:, None])
        jump = alpha + nxt.gather(1, first_min[:, None])
        nxt = torch.where((token == _SPACE)[:, None], torch.minimum(nxt, jump), nxt)
        row = torch.where(live[:, None], nxt, row)
    coverage = rho * torch.where(in_hyp, torch.where(visits >= 0, visits, 1), 0).sum(1).to(torch.float64)
    last = row.gather(1, h_len[:, None])[:, 0]
    value = (last + coverage) / (r_len.to(torch.float64) + coverage)
    return torch.where(value < 1, value, 1.0)  # min(1, value), as the definition takes it (NaN -> 1)


def eed_sentence_scores(
    preds: TextInput,
    target: ReferencesInput,
    language: str = "en",
    alpha: float = 2.0,
    rho: float = 0.3,
    deletion: float = 0.2,
    insertion: float = 1.0,
) -> Tensor:
    """Each prediction's EED against its best (lowest) reference, float32."""
    p, groups = predictions_and_references(preds, target, layout="single")
    hyps = [preprocess(s, language) for s in p]
    refs = [preprocess(r, language) for group in groups for r in group]
    counts = torch.tensor([len(g) for g in groups], dtype=torch.int64)
    owner = segment_ids(counts)
    scores = eed_pairs([hyps[i] for i in owner.tolist()], refs, alpha, rho, deletion, insertion)
    best = torch.full((len(p),), float("inf"), dtype=torch.float64).scatter_reduce_(0, owner, scores, "amin")
    return best.to(torch.float32)


def eed_from_scores(scores: Tensor) -> Tensor:
    """The mean sentence score; 0 when there are none."""
    if not scores.numel():
        return torch.tensor(0.0, device=scores.device)
    return (scores.to(torch.float64).sum() / scores.numel()).to(torch.float32)


def extended_edit_distance(
    preds: TextInput,
    target: ReferencesInput,
    language: Literal["en", "ja"] = "en",
    return_sentence_level_score: bool = False,
    alpha: float = 2.0,
    rho: float = 0.3,
    deletion: float = 0.2,
    insertion: float = 1.0,
) -> Tensor | tuple[Tensor, Tensor]:
    """The mean EED of the predictions (each against its best reference).

    >>> extended_edit_distance(["this is the prediction"], [["this is the reference", "this is it"]], return_sentence_level_score=True)
    (tensor(0.3835), tensor([0.3835]))
    """
    check_eed_args(language, alpha, rho, deletion, insertion)
    scores = eed_sentence_scores(preds, target, language, alpha, rho, deletion, insertion)
    if return_sentence_level_score:
        return eed_from_scores(scores), scores
    return eed_from_scores(scores)
