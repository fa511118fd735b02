"""``FeatureShare``: metrics that embed the same feature network run it once per input.

A metric opts in with a ``feature_network`` attribute naming the attribute that holds its
network (torchmetrics' convention). The collection gives every member one shared
:class:`NetworkCache`, which remembers the outputs of the last calls, so the members of the
collection extract the features of a batch once.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Optional, Sequence, Union

from torch import nn

from lightning_metrics.collection import MetricCollection
from lightning_metrics.metric import Metric
from lightning_metrics.utilities.prints import warn_at_caller


class NetworkCache(nn.Module):
    """A network whose last ``max_size`` calls are remembered by the identity of their arguments.

    >>> import torch
    >>> calls = []
    >>> class Net(torch.nn.Module):
    ...     def forward(self, x):
    ...         calls.append(1)
    ...         return x * 2
    >>> cached, x = NetworkCache(Net(), max_size=2), torch.ones(2)
    >>> cached(x), cached(x)
    (tensor([2., 2.]), tensor([2., 2.]))
    >>> len(calls)
    1
    """

    def __init__(self, network: nn.Module, max_size: int = 100) -> None:
        super().__init__()
        self.max_size = max_size
        self.network = network
        self._cache: OrderedDict = OrderedDict()

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Call the network, or return what it gave for the same argument objects."""
        key = (tuple(id(a) for a in args), tuple(sorted((k, id(v)) for k, v in kwargs.items())))
        hit = self._cache.get(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], args)):
            self._cache.move_to_end(key)
            return hit[1]
        out = self.network(*args, **kwargs)
        self._cache[key] = (args, out)  # the arguments stay alive with the entry, so ids are not reused
        while len(self._cache) > self.max_size:
            self._cache.popitem(last=False)
        return out


class FeatureShare(MetricCollection):
    """A collection whose members share one cached feature network (see :class:`NetworkCache`).

    Every member must have a ``feature_network`` attribute: the name of its attribute that holds
    the network. ``max_cache_size`` defaults to the number of members.

    >>> import torch
    >>> from lightning_metrics.aggregation import MeanMetric, SumMetric
    >>> class Embedded(MeanMetric):
    ...     feature_network = "net"
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.net = torch.nn.Linear(2, 1)
    ...     def update(self, x):
    ...         super().update(self.net(x).detach())
    >>> shared = FeatureShare({"a": Embedded(), "b": Embedded()})
    >>> shared["a"].net is shared["b"].net
    True
    """

    def __init__(
        self,
        metrics: Union[Metric, Sequence[Metric], dict[str, Metric]],
        max_cache_size: Optional[int] = None,
    ) -> None:
        super().__init__(metrics, compute_groups=False)
        max_cache_size = len(self) if max_cache_size is None else max_cache_size
        if isinstance(max_cache_size, bool) or not isinstance(max_cache_size, int):
            raise TypeError(f"Argument `max_cache_size` must be an int, got {max_cache_size!r}")
        members = list(self.items(keep_base=True))
        for name, metric in members:
            attribute = getattr(metric, "feature_network", None)
            if not isinstance(attribute, str) or not hasattr(metric, attribute):
                raise AttributeError(
                    f"FeatureShare: metric {name!r} needs a `feature_network` attribute naming the attribute "
                    f"that holds its network, got {attribute!r}"
                )
        first = members[0][1]
        network = getattr(first, first.feature_network)
        cached = NetworkCache(network, max_size=max_cache_size)
        for name, metric in members:
            if str(getattr(metric, metric.feature_network)) != str(network):
                warn_at_caller(
                    f"FeatureShare: metric {name!r} has another network than the first metric; "
                    "it is replaced by the shared one.",
                    UserWarning,
                )
            setattr(metric, metric.feature_network, cached)


__all__ = ["FeatureShare", "NetworkCache"]
