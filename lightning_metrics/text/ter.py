"""Modular translation edit rate: sums the best edits (int64) and mean reference lengths (float64).

>>> metric = TranslationEditRate()
>>> metric.update(["the cat is on the mat"], [["there is a cat on the mat", "a cat is on the mat"]])
>>> metric.compute()
tensor(0.1538)
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import torch
from torch import Tensor

from lightning_metrics._additive_score import AdditiveScore
from lightning_metrics.functional.text import ter as F
from lightning_metrics.functional.text._inputs import ReferencesInput, TextInput
from lightning_metrics.functional.text.bleu import Convention


class TranslationEditRate(AdditiveScore):
    """TER (Tercom); ``convention="sacrebleu"`` reports sacrebleu's value.

    >>> metric = TranslationEditRate(return_sentence_level_score=True)
    >>> metric(["a b c d"], [["c d a b"]])
    (tensor(0.2500), tensor(0.2500))
    """

    higher_is_better = False
    exact_dtype_states = ("total_tgt_len",)
    total_num_edits: Tensor
    total_tgt_len: Tensor

    def __init__(
        self,
        normalize: bool = False,
        no_punctuation: bool = False,
        lowercase: bool = True,
        asian_support: bool = False,
        return_sentence_level_score: bool = False,
        convention: Convention = "torchmetrics",
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _build(self) -> None:
        F.check_ter_args(
            self.normalize, self.no_punctuation, self.lowercase, self.asian_support,
            self.return_sentence_level_score, self.convention,
        )  # fmt: skip
        self.add_state("total_num_edits", torch.tensor(0, dtype=torch.int64), dist_reduce_fx="sum")
        self.add_state("total_tgt_len", torch.tensor(0.0, dtype=torch.float64), dist_reduce_fx="sum")
        if self.return_sentence_level_score:
            self.add_state("sentence_ter", [], dist_reduce_fx="cat")

    @property
    def statistic_spec(self) -> Hashable:
        return (
            "ter", self.normalize, self.no_punctuation, self.lowercase, self.asian_support,
            self.return_sentence_level_score, self.convention,
        )  # fmt: skip

    def update(self, preds: TextInput, target: ReferencesInput) -> None:
        """Add the batch's edits and reference lengths (and keep its sentence scores)."""
        edits, length, sentence = F.ter_statistics(
            preds,
            target,
            self.normalize,
            self.no_punctuation,
            self.lowercase,
            self.asian_support,
            self.convention,
        )
        device = self.total_num_edits.device
        self.total_num_edits = self.total_num_edits + edits.sum().to(device)
        self.total_tgt_len = self.total_tgt_len + length.sum().to(device)
        if self.return_sentence_level_score:
            self.sentence_ter.append(sentence.to(device))

    def compute(self) -> Tensor | tuple[Tensor, Tensor]:
        """The corpus TER (and every sentence score)."""
        score = F.ter_from_statistics(self.total_num_edits, self.total_tgt_len)
        return (score, self._cat_state("sentence_ter")) if self.return_sentence_level_score else score
