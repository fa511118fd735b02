"""Modular SQuAD: sums the F1 (float64) and counts the exact matches and questions (int64).

>>> metric = SQuAD()
>>> metric.update({"prediction_text": "1976", "id": "a"}, {"answers": {"text": ["1976"]}, "id": "a"})
>>> metric.update({"prediction_text": "in 1976", "id": "b"}, {"answers": {"text": ["1976", "the year 1976"]}, "id": "b"})
>>> metric.compute()
{'exact_match': tensor(50.), 'f1': tensor(83.3333)}
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import torch
from torch import Tensor

from lightning_metrics._additive_score import AdditiveScore
from lightning_metrics.functional.text import question_answering as F


class SQuAD(AdditiveScore):
    """SQuAD v1.1 exact match and F1 (percentages) over every question seen.

    >>> metric = SQuAD()
    >>> metric([{"prediction_text": "1976", "id": "q"}], [{"answers": {"text": ["1976"]}, "id": "q"}])
    {'exact_match': tensor(100.), 'f1': tensor(100.)}
    """

    plot_upper_bound = 100.0
    exact_dtype_states = ("f1_score",)
    f1_score: Tensor
    exact_match: Tensor
    total: Tensor

    def __init__(self, **kwargs: Any) -> None:
        self._configure(locals())

    def _build(self) -> None:
        self.add_state("f1_score", torch.tensor(0.0, dtype=torch.float64), dist_reduce_fx="sum")
        self.add_state("exact_match", torch.tensor(0, dtype=torch.int64), dist_reduce_fx="sum")
        self.add_state("total", torch.tensor(0, dtype=torch.int64), dist_reduce_fx="sum")

    @property
    def statistic_spec(self) -> Hashable:
        return ("squad",)

    def update(self, preds: Any, target: Any) -> None:
        """Score every question of the batch."""
        f1, exact, total = F.squad_sums(preds, target)
        device = self.total.device
        self.f1_score = self.f1_score + f1.to(device)
        self.exact_match = self.exact_match + exact.to(device)
        self.total = self.total + total.to(device)

    def compute(self) -> dict[str, Tensor]:
        """``{"exact_match": ..., "f1": ...}`` in percent."""
        return F.squad_from_sums(self.f1_score, self.exact_match, self.total)
