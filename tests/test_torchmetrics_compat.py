"""Custom metrics written for torchmetrics run unchanged after swapping the import."""

from __future__ import annotations

import pytest
import torch

SUM_STATES = '''
import torch
from torchmetrics import Metric

class MyAccuracy(Metric):
    full_state_update = False
    higher_is_better = True

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.add_state("correct", default=torch.tensor(0), dist_reduce_fx="sum")
        self.add_state("total", default=torch.tensor(0), dist_reduce_fx="sum")

    def update(self, preds, target):
        self.correct += (preds.argmax(-1) == target).sum()
        self.total += target.numel()

    def compute(self):
        return self.correct.float() / self.total
'''

LIST_STATE = '''
import torch
from torchmetrics import Metric
from torchmetrics.utilities import dim_zero_cat

class MedianAbsError(Metric):
    full_state_update = False

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.add_state("errors", default=[], dist_reduce_fx="cat")

    def update(self, preds, target):
        self.errors.append((preds - target).abs())

    def compute(self):
        return dim_zero_cat(self.errors).median()
'''


def _load(source: str, package: str, name: str):
    namespace: dict = {}
    exec(compile(source.replace("torchmetrics", package), f"<{package}>", "exec"), namespace)
    return namespace[name]


def _batches():
    g = torch.Generator().manual_seed(3)
    return [(torch.randn(n, 4, generator=g), torch.randint(0, 4, (n,), generator=g)) for n in (5, 1, 8)]


@pytest.mark.parametrize(("source", "name"), [(SUM_STATES, "MyAccuracy"), (LIST_STATE, "MedianAbsError")])
def test_custom_metric_runs_after_import_swap(source, name):
    theirs, ours = _load(source, "torchmetrics", name)(), _load(source, "lightning_metrics", name)()
    for preds, target in _batches():
        if name == "MedianAbsError":
            preds, target = preds[:, 0], target.float()
        assert torch.allclose(ours(preds, target), theirs(preds, target))
    assert torch.allclose(ours.compute(), theirs.compute())
    ours.reset()
    assert ours.update_count == 0
