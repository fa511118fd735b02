"""Modular edit-distance metrics: WER, CER, MER, WIL, WIP and the Levenshtein edit distance.

The error rates hold four int64 counts (edits, reference, prediction and longer lengths; see
:func:`lightning_metrics.functional.text.edit.edit_counts`) and share them: a
``MetricCollection`` of WER, MER, WIL and WIP aligns each batch once, and DDP sums four integers.

>>> from lightning_metrics import MetricCollection
>>> metrics = MetricCollection([WordErrorRate(), MatchErrorRate(), WordInfoLost(), WordInfoPreserved()])
>>> metrics.update(["this is the prediction", "there is an other sample"],
...                ["this is the reference", "there is another one"])
>>> {k: round(v.item(), 4) for k, v in metrics.compute().items()}
{'WordErrorRate': 0.5, 'MatchErrorRate': 0.4444, 'WordInfoLost': 0.6528, 'WordInfoPreserved': 0.3472}
>>> len(metrics.compute_groups)
1
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Literal

import torch
from torch import Tensor

from lightning_metrics._additive_score import AdditiveScore
from lightning_metrics.functional.text import edit as F
from lightning_metrics.functional.text._inputs import TextInput


class _EditCountMetric(AdditiveScore):
    """Sums the edit counts of every batch; a subclass names its unit and its rate."""

    higher_is_better = False
    _unit: F.Unit = "word"
    _rate = "wer"
    errors: Tensor
    target_total: Tensor
    preds_total: Tensor
    longer_total: Tensor

    def __init__(self, **kwargs: Any) -> None:  # the rates take no argument of their own
        self._configure(locals())

    def _build(self) -> None:
        for name in ("errors", "target_total", "preds_total", "longer_total"):
            self.add_state(name, torch.tensor(0, dtype=torch.int64), dist_reduce_fx="sum")

    @property
    def statistic_spec(self) -> Hashable:
        """The same for every word-level rate (and for CER alone): they share one update."""
        return ("edit_counts", self._unit)

    def update(self, preds: TextInput, target: TextInput) -> None:
        """Align each prediction with its reference and add the counts."""
        counts = F.edit_counts(preds, target, self._unit).to(self.errors.device)
        self.errors = self.errors + counts[F.ERRORS]
        self.target_total = self.target_total + counts[F.TARGET_TOTAL]
        self.preds_total = self.preds_total + counts[F.PREDS_TOTAL]
        self.longer_total = self.longer_total + counts[F.LONGER_TOTAL]

    def compute(self) -> Tensor:
        """The rate over everything seen."""
        counts = torch.stack([self.errors, self.target_total, self.preds_total, self.longer_total])
        return F.ERROR_RATES[self._rate](counts)


class WordErrorRate(_EditCountMetric):
    """Word error rate: word edits over reference words.

    >>> metric = WordErrorRate()
    >>> metric(["this is the prediction", "there is an other sample"], ["this is the reference", "there is another one"])
    tensor(0.5000)
    """


class CharErrorRate(_EditCountMetric):
    """Character error rate: character edits over reference characters.

    >>> metric = CharErrorRate()
    >>> metric(["this is the prediction", "there is an other sample"], ["this is the reference", "there is another one"])
    tensor(0.3415)
    """

    _unit = "char"
    _rate = "cer"


class MatchErrorRate(_EditCountMetric):
    """Match error rate: word edits over the summed longer length of each pair.

    >>> metric = MatchErrorRate()
    >>> metric(["this is the prediction", "there is an other sample"], ["this is the reference", "there is another one"])
    tensor(0.4444)
    """

    _rate = "mer"


class WordInfoLost(_EditCountMetric):
    """Word information lost (torchmetrics' definition, see ``word_information_preserved``).

    >>> metric = WordInfoLost()
    >>> metric(["this is the prediction", "there is an other sample"], ["this is the reference", "there is another one"])
    tensor(0.6528)
    """

    _rate = "wil"


class WordInfoPreserved(_EditCountMetric):
    """Word information preserved (torchmetrics' definition).

    >>> metric = WordInfoPreserved()
    >>> metric(["this is the prediction", "there is an other sample"], ["this is the reference", "there is another one"])
    tensor(0.3472)
    """

    higher_is_better = True
    _rate = "wip"


class EditDistance(AdditiveScore):
    """Levenshtein distance between the characters of each pair, reduced over all pairs.

    ``reduction="none"`` (or ``None``) keeps every pair's distance (a ``cat`` state).

    >>> metric = EditDistance()
    >>> metric(["rain", "lnaguaeg"], ["shine", "language"])
    tensor(3.5000)
    >>> metric = EditDistance(reduction=None)
    >>> metric(["rain", "lnaguaeg"], ["shine", "language"])
    tensor([3, 4], dtype=torch.int32)
    """

    higher_is_better = False
    plot_upper_bound = None

    def __init__(
        self,
        substitution_cost: int = 1,
        reduction: Literal["mean", "sum", "none"] | None = "mean",
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _build(self) -> None:
        F.check_substitution_cost(self.substitution_cost)
        F.check_reduction(self.reduction)
        if self.reduction in ("none", None):
            self.add_state("edit_scores_list", [], dist_reduce_fx="cat")
        else:
            self.add_state("edit_scores", torch.tensor(0, dtype=torch.int64), dist_reduce_fx="sum")
            self.add_state("num_elements", torch.tensor(0, dtype=torch.int64), dist_reduce_fx="sum")

    @property
    def statistic_spec(self) -> Hashable:
        return ("edit_distance", self.substitution_cost, self.reduction in ("none", None))

    def update(self, preds: TextInput, target: TextInput) -> None:
        """Compute the distance of every pair and keep it (or its sum and count)."""
        distances = F.edit_distances(preds, target, self.substitution_cost)
        if self.reduction in ("none", None):
            self.edit_scores_list.append(distances.to(self.device))
        else:
            self.edit_scores = self.edit_scores + distances.sum().to(self.edit_scores.device)
            self.num_elements = self.num_elements + distances.numel()

    def compute(self) -> Tensor:
        """Mean (float), sum (int64) or every distance (int32)."""
        if self.reduction in ("none", None):
            scores = self._cat_state("edit_scores_list")
            return scores if scores.numel() else torch.tensor(0, dtype=torch.int32, device=self.device)
        if self.reduction == "mean":
            return self.edit_scores / self.num_elements
        return self.edit_scores
