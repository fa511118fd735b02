"""Modular ROUGE: sums the per-sentence precision, recall and F-measure of every key (float64).

>>> metric = ROUGEScore(rouge_keys=("rouge1", "rougeL"))
>>> metric.update(["My name is John"], ["Is your name John"])
>>> {k: round(v.item(), 4) for k, v in metric.compute().items()}
{'rouge1_fmeasure': 0.75, 'rouge1_precision': 0.75, 'rouge1_recall': 0.75, 'rougeL_fmeasure': 0.5, 'rougeL_precision': 0.5, 'rougeL_recall': 0.5}
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, Literal

import torch
from torch import Tensor

from lightning_metrics._additive_score import AdditiveScore
from lightning_metrics.functional.text import rouge as F
from lightning_metrics.functional.text._inputs import ReferencesInput, TextInput, check_bool
from lightning_metrics.utilities.checks import check_choice


class ROUGEScore(AdditiveScore):
    """ROUGE-N, ROUGE-L and ROUGE-Lsum, averaged over the sentences seen; ``compute`` returns a
    dict ``{"rouge1_fmeasure": ..., "rouge1_precision": ..., ...}``.

    >>> metric = ROUGEScore(rouge_keys="rouge2")
    >>> metric(["the cat sat"], [["the cat sat down", "a cat"]])
    {'rouge2_fmeasure': tensor(0.8000), 'rouge2_precision': tensor(1.), 'rouge2_recall': tensor(0.6667)}
    """

    exact_dtype_states = ("score_sums",)
    score_sums: Tensor
    num_sentences: Tensor

    def __init__(
        self,
        use_stemmer: bool = False,
        normalizer: Callable[[str], str] | None = None,
        tokenizer: Callable[[str], Sequence[str]] | None = None,
        accumulate: Literal["avg", "best"] = "best",
        rouge_keys: str | tuple[str, ...] = ("rouge1", "rouge2", "rougeL", "rougeLsum"),
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _build(self) -> None:
        check_bool("use_stemmer", self.use_stemmer)
        check_choice("accumulate", self.accumulate, F.ACCUMULATE)
        self.rouge_keys = F.check_rouge_keys(self.rouge_keys)
        self.rouge_keys_values = [F.ROUGE_KEYS[key] for key in self.rouge_keys]
        if self.use_stemmer or "rougeLsum" in self.rouge_keys:
            F._nltk()  # the optional dependency, named now rather than at the first update
        self.stemmer = F.porter_stemmer() if self.use_stemmer else None
        # rows: keys; columns: F-measure, precision, recall
        self.add_state(
            "score_sums", torch.zeros((len(self.rouge_keys), 3), dtype=torch.float64), dist_reduce_fx="sum"
        )
        self.add_state("num_sentences", torch.tensor(0, dtype=torch.int64), dist_reduce_fx="sum")

    @property
    def statistic_spec(self) -> Hashable | None:
        if self.normalizer is not None or self.tokenizer is not None:
            return None  # callables: no way to tell two configurations apart
        return ("rouge", self.rouge_keys, self.accumulate, self.use_stemmer)

    def update(self, preds: TextInput, target: ReferencesInput) -> None:
        """Add the batch's per-sentence scores."""
        sums, count = F.rouge_sums(
            preds, target, self.rouge_keys, self.accumulate, self.stemmer, self.normalizer, self.tokenizer
        )
        self.score_sums = self.score_sums + sums.to(self.score_sums.device)
        self.num_sentences = self.num_sentences + count.to(self.num_sentences.device)

    def compute(self) -> dict[str, Tensor]:
        """The mean score of every key and kind."""
        return F.rouge_from_sums(self.score_sums, self.num_sentences, self.rouge_keys)
