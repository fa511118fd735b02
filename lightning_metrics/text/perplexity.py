"""Modular perplexity: sums the negative log-likelihood (float64) and the counted tokens.

>>> import torch
>>> metric = Perplexity(ignore_index=-100)
>>> metric.update(torch.zeros(2, 3, 4), torch.tensor([[0, 1, -100], [2, 3, 1]]))
>>> metric.compute()
tensor(4.)
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import torch
from torch import Tensor

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics.functional.text import likelihood as F
from lightning_metrics.metric import Metric


class Perplexity(Metric):
    """Perplexity of logits ``[batch, seq, vocab]`` for target tokens ``[batch, seq]``.

    >>> import torch
    >>> metric = Perplexity()
    >>> metric(torch.zeros(1, 3, 4), torch.tensor([[0, 1, 2]]))
    tensor(4.)
    """

    plot = _plot_methods.plot_value

    is_differentiable = True
    higher_is_better = False
    full_state_update = False
    additive_update = True
    exact_dtype_states = ("total_log_probs",)
    total_log_probs: Tensor
    count: Tensor

    def __init__(self, ignore_index: int | None = None, **kwargs: Any) -> None:
        self._configure(locals())

    def _build(self) -> None:
        F.check_ignore_index(self.ignore_index)
        self.add_state("total_log_probs", torch.tensor(0.0, dtype=torch.float64), dist_reduce_fx="sum")
        self.add_state("count", torch.tensor(0, dtype=torch.int64), dist_reduce_fx="sum")

    @property
    def statistic_spec(self) -> Hashable:
        return ("perplexity", self.ignore_index)

    def update(self, preds: Tensor, target: Tensor) -> None:
        """Add the batch's negative log-likelihood and token count."""
        total, count = F.perplexity_sums(preds, target, self.ignore_index)
        self.total_log_probs = self.total_log_probs + total.to(self.total_log_probs.device)
        self.count = self.count + count.to(self.count.device)

    def compute(self) -> Tensor:
        """``exp`` of the mean negative log-likelihood, in the metric's dtype."""
        return F.perplexity_from_sums(self.total_log_probs, self.count, self.dtype)
