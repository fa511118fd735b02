"""Metric wrappers with torchmetrics' names, arguments and values.

A wrapper keeps its metrics as submodules, so each of them syncs in the one fused exchange
of its outermost metric, however many copies it holds (a ``BootStrapper`` of 100 copies
costs the collective calls of one metric).

>>> import torch
>>> from lightning_metrics.aggregation import MeanMetric
>>> from lightning_metrics.wrappers import MinMaxMetric
>>> metric = MinMaxMetric(MeanMetric())
>>> metric(torch.tensor([2.0, 4.0]))
{'raw': tensor(3.), 'max': tensor(3.), 'min': tensor(3.)}
"""

from lightning_metrics.wrappers._base import WrapperMetric
from lightning_metrics.wrappers.bootstrapping import BootStrapper
from lightning_metrics.wrappers.classwise import ClasswiseWrapper
from lightning_metrics.wrappers.feature_share import FeatureShare, NetworkCache
from lightning_metrics.wrappers.minmax import MinMaxMetric
from lightning_metrics.wrappers.multioutput import MultioutputWrapper
from lightning_metrics.wrappers.multitask import MultitaskWrapper
from lightning_metrics.wrappers.running import Running
from lightning_metrics.wrappers.tracker import MetricTracker
from lightning_metrics.wrappers.transformations import (
    BinaryTargetTransformer,
    LambdaInputTransformer,
    MetricInputTransformer,
)

__all__ = [
    "BinaryTargetTransformer",
    "BootStrapper",
    "ClasswiseWrapper",
    "FeatureShare",
    "LambdaInputTransformer",
    "MetricInputTransformer",
    "MetricTracker",
    "MinMaxMetric",
    "MultioutputWrapper",
    "MultitaskWrapper",
    "NetworkCache",
    "Running",
    "WrapperMetric",
]
