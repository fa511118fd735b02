"""``BootStrapper``: confidence statistics of a metric from resampled copies of it."""

from __future__ import annotations

from copy import deepcopy
from typing import Any

import torch
from torch import Tensor, nn

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics._states import _apply_tensors
from lightning_metrics.metric import Metric
from lightning_metrics.utilities.checks import check_choice
from lightning_metrics.wrappers._base import (
    WrapperMetric,
    check_metric,
    first_tensor,
    rollback_on_error,
)

SAMPLING_STRATEGIES = ("poisson", "multinomial")


def bootstrap_indices(size: int, sampling_strategy: str = "poisson",
                      generator: torch.Generator | None = None) -> Tensor:
    """Indices of one bootstrap resample of ``size`` rows (on the CPU).

    ``"poisson"`` repeats each row ``Poisson(1)`` times (a resample whose size varies, which
    approximates the bootstrap over a stream of batches); ``"multinomial"`` draws ``size``
    rows with replacement. With ``generator=None`` the global generator is used, drawing
    exactly what torchmetrics draws, so seeded runs agree.

    >>> import torch
    >>> index = bootstrap_indices(5, "multinomial", torch.Generator().manual_seed(0))
    >>> index.shape, bool(((index >= 0) & (index < 5)).all())
    (torch.Size([5]), True)
    """
    if sampling_strategy == "poisson":
        counts = torch.poisson(torch.ones(size), generator=generator)
        return torch.arange(size).repeat_interleave(counts.long(), dim=0)
    if sampling_strategy == "multinomial":
        return torch.multinomial(torch.ones(size), num_samples=size, replacement=True, generator=generator)
    raise ValueError(f"Argument `sampling_strategy` must be one of {SAMPLING_STRATEGIES}, got {sampling_strategy!r}")


class BootStrapper(WrapperMetric):
    """Keep ``num_bootstraps`` copies of a metric, each fed a resample of every batch.

    Every tensor argument of ``update`` is resampled with replacement along dim 0 (one
    resample per copy). ``compute`` summarises the copies' values: their ``mean``, ``std``,
    ``quantile`` (of all values, flattened, as torchmetrics does) and the ``raw`` values.

    The copies are submodules: ``compute`` syncs all of them in ONE fused exchange, however
    many there are.

    Args:
        base_metric: the metric to bootstrap.
        num_bootstraps: the number of copies.
        mean / std / raw: include these entries in the result.
        quantile: a float or tensor of quantiles in [0, 1] to include, or ``None``.
        sampling_strategy: ``"poisson"`` or ``"multinomial"`` (see :func:`bootstrap_indices`).
        generator: (keyword) a ``torch.Generator`` for the resampling (not in torchmetrics);
            ``None`` uses the global generator, like torchmetrics.
        kwargs: the usual metric keyword arguments.

    >>> import torch
    >>> from lightning_metrics.aggregation import MeanMetric
    >>> from lightning_metrics.wrappers import BootStrapper
    >>> _ = torch.manual_seed(0)
    >>> metric = BootStrapper(MeanMetric(), num_bootstraps=20, quantile=torch.tensor([0.05, 0.95]))
    >>> metric.update(torch.arange(100.0))
    >>> result = metric.compute()
    >>> sorted(result)
    ['mean', 'quantile', 'std']
    >>> low, high = result["quantile"]
    >>> bool(low < result["mean"] < high), bool(40 < result["mean"] < 60)
    (True, True)
    """

    plot = _plot_methods.plot_value

    full_state_update = True

    def __init__(
        self,
        base_metric: Metric,
        num_bootstraps: int = 10,
        mean: bool = True,
        std: bool = True,
        quantile: float | Tensor | None = None,
        raw: bool = False,
        sampling_strategy: str = "poisson",
        **kwargs: Any,
    ) -> None:
        generator = kwargs.pop("generator", None)  # ours, beside torchmetrics' signature
        super().__init__(**kwargs)
        check_metric("base_metric", base_metric)
        if isinstance(num_bootstraps, bool) or not isinstance(num_bootstraps, int) or num_bootstraps < 1:
            raise ValueError(f"Argument `num_bootstraps` must be a positive integer, got {num_bootstraps!r}")
        for name, flag in (("mean", mean), ("std", std), ("raw", raw)):
            if not isinstance(flag, bool):
                raise ValueError(f"Argument `{name}` must be a bool, got {flag!r}")
        if quantile is not None:
            q = torch.as_tensor(quantile) if isinstance(quantile, (float, int, Tensor)) else None
            if isinstance(quantile, bool) or q is None or not q.is_floating_point() or ((q < 0) | (q > 1)).any():
                raise ValueError(f"Argument `quantile` must be None or a float or tensor in [0, 1], got {quantile!r}")
        check_choice("sampling_strategy", sampling_strategy, SAMPLING_STRATEGIES)
        if generator is not None and not isinstance(generator, torch.Generator):
            raise ValueError(f"Argument `generator` must be a torch.Generator or None, got {generator!r}")
        self.metrics = nn.ModuleList([deepcopy(base_metric) for _ in range(num_bootstraps)])
        self.num_bootstraps = num_bootstraps
        self.mean = mean
        self.std = std
        self.quantile = quantile
        self.raw = raw
        self.sampling_strategy = sampling_strategy
        self.generator = generator

    def _resampled(self, args: tuple, kwargs: dict) -> list[tuple[tuple, dict] | None]:
        """One resample of the inputs per copy (``None`` where a Poisson resample is empty)."""
        sample = first_tensor(*args, *kwargs.values())
        if sample is None:
            raise ValueError(
                "BootStrapper: none of the inputs is a tensor, so the resampling size is unknown; "
                f"got args of types {[type(a).__name__ for a in args]} and kwargs {sorted(kwargs)}"
            )
        size = len(sample)
        sizes: list[int] = []
        _apply_tensors((args, kwargs), lambda t: (sizes.append(len(t)) if t.ndim else None) or t)
        if any(n != size for n in sizes):  # shapes only, no host sync; index_select would raise IndexError
            raise ValueError(
                f"BootStrapper: every tensor input (`preds`, `target`, ...) must have the same length in dim 0 "
                f"to be resampled together, got lengths {sizes}"
            )
        out: list[tuple[tuple, dict] | None] = []
        for _ in range(self.num_bootstraps):
            index = bootstrap_indices(size, self.sampling_strategy, self.generator)
            if index.numel() == 0:
                out.append(None)
                continue

            def select(t: Tensor, index: Tensor = index) -> Tensor:
                return t.index_select(0, index.to(t.device))

            out.append((_apply_tensors(tuple(args), select), _apply_tensors(dict(kwargs), select)))
        return out

    def update(self, *args: Any, **kwargs: Any) -> None:
        """Update every copy with its own resample of the inputs (all copies or none)."""
        # a rejected batch must not advance the metric's own generator either (the global RNG is left alone)
        generator_state = self.generator.get_state() if self.generator is not None else None
        try:
            resamples = self._resampled(args, kwargs)
            with rollback_on_error(self._child_metrics()):
                for metric, resample in zip(self.metrics, resamples):
                    if resample is not None:
                        metric.update(*resample[0], **resample[1])
        except BaseException:
            if generator_state is not None:
                self.generator.set_state(generator_state)
            raise

    def compute(self) -> dict[str, Tensor]:
        """``mean``/``std``/``quantile``/``raw`` of the copies' values, as configured."""
        return self._summarise(torch.stack([metric.compute() for metric in self.metrics], dim=0))

    def forward(self, *args: Any, **kwargs: Any) -> dict[str, Tensor]:
        """Accumulate the batch (one resample per copy) and return the summary over this batch
        alone, computed from a second resample per copy.

        The second resample matches the draws of torchmetrics' ``forward``, so seeded batch
        values agree, and as there they carry no autograd history; unlike torchmetrics, the
        accumulated state keeps the earlier batches.
        """
        self.update(*args, **kwargs)
        self._computed = None
        with torch.no_grad():
            resamples = zip(self.metrics, self._resampled(args, kwargs))
            values = [_batch_value(metric, resample) for metric, resample in resamples]
        return self._summarise(torch.stack(values, dim=0))

    def _summarise(self, values: Tensor) -> dict[str, Tensor]:
        out: dict[str, Tensor] = {}
        if self.mean:
            out["mean"] = values.mean(dim=0)
        if self.std:
            out["std"] = values.std(dim=0)
        if self.quantile is not None:
            q = torch.as_tensor(self.quantile, dtype=values.dtype, device=values.device)
            out["quantile"] = torch.quantile(values, q)
        if self.raw:
            out["raw"] = values
        return out

    def reset(self) -> None:
        """Reset every copy."""
        super().reset()
        for metric in self.metrics:
            metric.reset()


def _batch_value(metric: Metric, resample: tuple[tuple, dict] | None) -> Any:
    """``metric``'s value on ``resample`` alone (no sync); its accumulated state is kept."""
    count, accumulated = metric._update_count, metric.metric_state
    try:
        with metric._batch_context():
            metric._reset_states_only()
            metric._update_count = 0
            if resample is not None:
                metric.update(*resample[0], **resample[1])
            return metric.compute()
    finally:
        for name, value in accumulated.items():
            setattr(metric, name, value)
        metric._update_count = count
        metric._computed = None
