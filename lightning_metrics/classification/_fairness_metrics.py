"""Group fairness of binary classifiers, modular: per-group counts kept, measures at compute.

The state is ``(num_groups, 4)`` int64 counts ``[tp, fp, tn, fn]`` (a sum), so it streams and
syncs exactly; see :mod:`lightning_metrics.functional.classification._fairness` for the
measures and the deliberate differences from torchmetrics.
"""

from __future__ import annotations

from typing import Any, Optional

import torch
from torch import Tensor

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics.functional.classification import _fairness
from lightning_metrics.metric import Metric
from lightning_metrics.utilities.checks import check_choice


def _count_column(index: int, doc: str) -> property:
    """A read-only view of one column of the ``(num_groups, 4)`` count table ``[tp, fp, tn, fn]``."""

    def column(self: _GroupCounts) -> Tensor:
        return self.counts[:, index]

    return property(column, doc=doc)


class _GroupCounts(Metric):
    """Accumulates the per-group count table; subclasses reduce it."""

    is_differentiable = False
    higher_is_better = False
    full_state_update = False
    additive_update = True
    plot_lower_bound = 0.0
    plot_upper_bound = 1.0

    def _build(self) -> None:
        _fairness.check_num_groups(self.num_groups)
        if self.validate_args:
            _fairness.check_fairness_args(self.threshold, self.ignore_index)
        self.add_state("counts", torch.zeros(self.num_groups, 4, dtype=torch.long), dist_reduce_fx="sum")

    def update(self, preds: Tensor, target: Optional[Tensor], groups: Tensor) -> None:
        """Add one batch: predictions, targets and the group id of every sample."""
        if getattr(self, "task", None) == "demographic_parity":
            target = _fairness.dp_target(preds, target)
        if self.validate_args:
            _fairness.validate_group_inputs(preds, target, groups, self.num_groups, self.ignore_index)
        self.counts += _fairness.group_counts(preds, target, groups, self.num_groups, self.threshold, self.ignore_index)

    tp = _count_column(0, "True positives per group (torchmetrics' state names, read from the count table).")
    fp = _count_column(1, "False positives per group.")
    tn = _count_column(2, "True negatives per group.")
    fn = _count_column(3, "False negatives per group.")


class BinaryGroupStatRates(_GroupCounts):
    """The true/false positive/negative rates of each group, ``{"group_<id>": [tp, fp, tn, fn] / n}``.

    >>> from torch import tensor
    >>> metric = BinaryGroupStatRates(num_groups=2)
    >>> metric(tensor([0, 1, 0, 1]), tensor([0, 1, 1, 1]), tensor([0, 1, 0, 1]))
    {'group_0': tensor([0.0000, 0.0000, 0.5000, 0.5000]), 'group_1': tensor([1., 0., 0., 0.])}
    """

    def __init__(self, num_groups: int, threshold: float = 0.5, ignore_index: Optional[int] = None,
                 validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())

    def compute(self) -> dict[str, Tensor]:
        """The rates of every group (NaN for a group without samples)."""
        return _fairness.group_stat_rates(self.counts)


class BinaryFairness(_GroupCounts):
    """Demographic parity and equal opportunity: lowest over highest rate among the groups.

    ``task`` is "demographic_parity" (positive-prediction rates; ``target`` may be ``None``),
    "equal_opportunity" (true positive rates) or "all". Keys name the two groups,
    ``"DP_<low>_<high>"`` and ``"EO_<low>_<high>"``.

    >>> from torch import tensor
    >>> metric = BinaryFairness(num_groups=2)
    >>> metric(tensor([0, 1, 1, 1]), tensor([1, 1, 1, 1]), tensor([0, 0, 1, 1]))
    {'DP_0_1': tensor(0.5000), 'EO_0_1': tensor(0.5000)}
    """

    plot = _plot_methods.plot_value

    def __init__(self, num_groups: int, task: str = "all", threshold: float = 0.5,
                 ignore_index: Optional[int] = None, validate_args: bool = True, **kwargs: Any) -> None:
        self._configure(locals())

    def _build(self) -> None:
        check_choice("task", self.task, _fairness.FAIRNESS_TASKS)
        super()._build()

    def compute(self) -> dict[str, Tensor]:
        """The ratios of ``task`` over the groups seen."""
        return _fairness.fairness_from_counts(self.counts, self.task)


__all__ = ["BinaryFairness", "BinaryGroupStatRates"]
