"""Modular BLEU, SacreBLEU and chrF: each ``update`` adds the batch's int64 n-gram statistics.

The states are small count tensors summed across batches and ranks (sentence scores, where asked
for, a ``cat`` tensor), so results under DDP equal single-process ones. ``convention="sacrebleu"``
gives sacrebleu's values instead of torchmetrics' (see :mod:`lightning_metrics.functional.text.bleu`
and :mod:`lightning_metrics.functional.text.chrf` for what differs).

>>> metric = SacreBLEUScore()
>>> metric.update(["The cat is on the mat."], [["The cat is on the mat.", "A cat sits on the mat."]])
>>> metric.update(["It rains."], [["It is raining."]])
>>> metric.compute()
tensor(0.7836)
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import torch
from torch import Tensor

from lightning_metrics._additive_score import AdditiveScore
from lightning_metrics.functional.text import bleu as B
from lightning_metrics.functional.text import chrf as C
from lightning_metrics.functional.text._inputs import ReferencesInput, TextInput, check_bool
from lightning_metrics.functional.text._sacrebleu_tokenize import TokenizeName, check_tokenize


class BLEUScore(AdditiveScore):
    """BLEU of whitespace-tokenized predictions against one or more references each.

    >>> metric = BLEUScore()
    >>> metric(["the cat is on the mat"], [["there is a cat on the mat", "a cat is on the mat"]])
    tensor(0.7598)
    """

    _tokenize: str | None = None
    preds_len: Tensor
    target_len: Tensor
    numerator: Tensor
    denominator: Tensor

    def __init__(
        self, n_gram: int = 4, smooth: bool = False, weights: Sequence[float] | None = None, **kwargs: Any
    ) -> None:
        self._configure(locals())

    def _build(self) -> None:
        self.weights = B.check_bleu_args(self.n_gram, self.smooth, self.weights, self._convention)
        self.add_state("preds_len", torch.tensor(0, dtype=torch.int64), dist_reduce_fx="sum")
        self.add_state("target_len", torch.tensor(0, dtype=torch.int64), dist_reduce_fx="sum")
        self.add_state("numerator", torch.zeros(self.n_gram, dtype=torch.int64), dist_reduce_fx="sum")
        self.add_state("denominator", torch.zeros(self.n_gram, dtype=torch.int64), dist_reduce_fx="sum")

    @property
    def _convention(self) -> str:
        return "torchmetrics"

    @property
    def statistic_spec(self) -> Hashable:
        return ("bleu", self.n_gram, self._tokenize, getattr(self, "lowercase", False), self._convention)

    def update(self, preds: TextInput, target: ReferencesInput) -> None:
        """Add the batch's lengths and n-gram matches."""
        stats = B.bleu_statistics(
            preds, target, self.n_gram, self._tokenize, getattr(self, "lowercase", False), self._convention
        ).to(self.numerator.device)
        n = self.n_gram
        self.preds_len = self.preds_len + stats[0]
        self.target_len = self.target_len + stats[1]
        self.numerator = self.numerator + stats[2 : 2 + n]
        self.denominator = self.denominator + stats[2 + n :]

    def compute(self) -> Tensor:
        """The corpus BLEU of everything seen."""
        stats = torch.cat([self.preds_len[None], self.target_len[None], self.numerator, self.denominator])
        return B.bleu_from_statistics(stats, self.n_gram, self.weights, self.smooth, self._convention)


class SacreBLEUScore(BLEUScore):
    """BLEU with sacrebleu's tokenizers (``13a`` by default); ``convention="sacrebleu"`` reports
    sacrebleu's own value (``smooth`` may then name a sacrebleu method such as ``"exp"``).

    >>> metric = SacreBLEUScore(n_gram=2)
    >>> metric(["The cat, it's on the mat."], [["The cat is on the mat.", "There's a cat on the mat."]])
    tensor(0.6547)
    """

    def __init__(
        self,
        n_gram: int = 4,
        smooth: bool | str = False,
        tokenize: TokenizeName = "13a",
        lowercase: bool = False,
        weights: Sequence[float] | None = None,
        convention: B.Convention = "torchmetrics",
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _build(self) -> None:
        check_tokenize(self.tokenize)
        check_bool("lowercase", self.lowercase)
        self._tokenize = self.tokenize
        super()._build()

    @property
    def _convention(self) -> str:
        return self.convention


class CHRFScore(AdditiveScore):
    """chrF++ (``n_word_order=2``, the default) or chrF (``n_word_order=0``).

    >>> metric = CHRFScore(return_sentence_level_score=True)
    >>> metric(["the cat is on the mat"], [["a cat is on the mat"]])  # one sentence: its score squeezed, as torchmetrics does
    (tensor(0.8640), tensor(0.8640))
    """

    ngram_stats: Tensor

    def __init__(
        self,
        n_char_order: int = 6,
        n_word_order: int = 2,
        beta: float = 2.0,
        lowercase: bool = False,
        whitespace: bool = False,
        return_sentence_level_score: bool = False,
        convention: B.Convention = "torchmetrics",
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _build(self) -> None:
        C.check_chrf_args(
            self.n_char_order, self.n_word_order, self.beta, self.convention, self.lowercase, self.whitespace
        )
        check_bool("return_sentence_level_score", self.return_sentence_level_score)
        self.n_order = float(self.n_char_order + self.n_word_order)
        orders = self.n_char_order + self.n_word_order
        # rows: prediction n-grams, reference n-grams, matches; columns: char then word orders
        self.add_state("ngram_stats", torch.zeros((3, orders), dtype=torch.int64), dist_reduce_fx="sum")
        if self.return_sentence_level_score:
            self.add_state("sentence_chrf_score", [], dist_reduce_fx="cat")

    @property
    def statistic_spec(self) -> Hashable:
        return (
            "chrf", self.n_char_order, self.n_word_order, self.beta, self.lowercase, self.whitespace,
            self.return_sentence_level_score, self.convention,
        )  # fmt: skip

    def update(self, preds: TextInput, target: ReferencesInput) -> None:
        """Add the batch's n-gram statistics (and keep its sentence scores)."""
        stats, sentence = C.chrf_statistics(
            preds, target, self.n_char_order, self.n_word_order, self.beta, self.lowercase, self.whitespace,
            self.convention,
        )  # fmt: skip
        self.ngram_stats = self.ngram_stats + stats.to(self.ngram_stats.device)
        if self.return_sentence_level_score:
            self.sentence_chrf_score.append(sentence.to(self.ngram_stats.device))

    def compute(self) -> Tensor | tuple[Tensor, Tensor]:
        """The corpus chrF (and every sentence score)."""
        score = C.chrf_from_statistics(self.ngram_stats, self.n_char_order, self.beta, self.convention)
        return (score, self._cat_state("sentence_chrf_score")) if self.return_sentence_level_score else score
