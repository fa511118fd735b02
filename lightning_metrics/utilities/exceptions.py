"""The exception and warning classes the metrics raise, with torchmetrics' names where it has one.

``TorchMetricsUserError`` and ``TorchMetricsUserWarning`` are the classes code written for
torchmetrics catches (``torchmetrics.utilities.exceptions``); ours are raised in the same
situations. The other classes subclass both the built-in class torchmetrics raises in a situation
and the one a reader expects, so ``except RuntimeError`` written for torchmetrics keeps working:

- :class:`MetricUserError`: the metric API is used in the wrong order (``sync`` twice,
  ``forward`` on a synced metric); a ``TorchMetricsUserError`` and a ``RuntimeError``.
- :class:`MetricInputError`: a tensor given to ``update`` has the wrong shape, dtype or values;
  a ``ValueError`` and a ``RuntimeError`` (torchmetrics raises either, depending on the check).
- :class:`MetricArgumentError`: a constructor or function argument torchmetrics rejects with
  ``TorchMetricsUserError`` (Minkowski's ``p``); also a ``ValueError``.

>>> import torch
>>> from lightning_metrics.regression import MeanSquaredError
>>> try:
...     MeanSquaredError().update(torch.zeros(3), torch.zeros(4))
... except RuntimeError as err:  # as with torchmetrics
...     print(type(err).__name__, isinstance(err, ValueError))
MetricInputError True
"""

from __future__ import annotations


class TorchMetricsUserError(Exception):
    """A wrong combination of metric API calls (torchmetrics' name and base class).

    >>> issubclass(MetricUserError, TorchMetricsUserError)
    True
    """


class TorchMetricsUserWarning(Warning):
    """A warning about how the metric API is used (torchmetrics' name and base class).

    >>> issubclass(TorchMetricsUserWarning, Warning)
    True
    """


class MetricUserError(TorchMetricsUserError, RuntimeError):
    """The metric API is used in the wrong order, e.g. ``sync`` twice or ``forward`` while synced.

    >>> issubclass(MetricUserError, RuntimeError)
    True
    """


class MetricInputError(ValueError, RuntimeError):
    """A tensor passed to ``update`` (or a functional metric) has the wrong shape, dtype or values.

    torchmetrics raises ``RuntimeError`` for some of these checks (shapes that differ, values out
    of range, too many classes) and ``ValueError`` for others; this class is both.

    >>> issubclass(MetricInputError, ValueError) and issubclass(MetricInputError, RuntimeError)
    True
    """


class MetricArgumentError(TorchMetricsUserError, ValueError):
    """An argument that torchmetrics rejects with ``TorchMetricsUserError`` (e.g. Minkowski's ``p``).

    >>> issubclass(MetricArgumentError, ValueError)
    True
    """


__all__ = [
    "MetricArgumentError",
    "MetricInputError",
    "MetricUserError",
    "TorchMetricsUserError",
    "TorchMetricsUserWarning",
]
