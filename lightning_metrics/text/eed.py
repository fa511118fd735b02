"""Modular extended edit distance: keeps every sentence score (a ``cat`` state of float32).

>>> metric = ExtendedEditDistance()
>>> metric.update(["this is the prediction", "here is an other sample"], ["this is the reference", "here is another one"])
>>> metric.compute()
tensor(0.3078)
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Literal

from torch import Tensor

from lightning_metrics._additive_score import AdditiveScore
from lightning_metrics.functional.text import eed as F
from lightning_metrics.functional.text._inputs import ReferencesInput, TextInput, check_bool


class ExtendedEditDistance(AdditiveScore):
    """The mean EED of the predictions, each against its best reference.

    >>> metric = ExtendedEditDistance(return_sentence_level_score=True)
    >>> metric(["this is the prediction"], [["this is the reference", "this is it"]])
    (tensor(0.3835), tensor(0.3835))
    """

    higher_is_better = False

    def __init__(
        self,
        language: Literal["en", "ja"] = "en",
        return_sentence_level_score: bool = False,
        alpha: float = 2.0,
        rho: float = 0.3,
        deletion: float = 0.2,
        insertion: float = 1.0,
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _build(self) -> None:
        F.check_eed_args(self.language, self.alpha, self.rho, self.deletion, self.insertion)
        check_bool("return_sentence_level_score", self.return_sentence_level_score)
        self.add_state("sentence_eed", [], dist_reduce_fx="cat")

    @property
    def statistic_spec(self) -> Hashable:
        return ("eed", self.language, self.alpha, self.rho, self.deletion, self.insertion)

    def update(self, preds: TextInput, target: ReferencesInput) -> None:
        """Score every prediction of the batch and keep the scores."""
        scores = F.eed_sentence_scores(
            preds, target, self.language, self.alpha, self.rho, self.deletion, self.insertion
        )
        self.sentence_eed.append(scores.to(self.device))

    def compute(self) -> Tensor | tuple[Tensor, Tensor]:
        """The mean sentence score (and every sentence score)."""
        scores = self._cat_state("sentence_eed")
        average = F.eed_from_scores(scores)
        return (average, scores) if self.return_sentence_level_score else average
