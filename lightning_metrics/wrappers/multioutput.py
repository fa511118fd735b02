"""``MultioutputWrapper``: one copy of a metric per output column."""

from __future__ import annotations

from copy import deepcopy
from typing import Any

import torch
from torch import Tensor, nn

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics._states import _apply_tensors
from lightning_metrics.metric import Metric
from lightning_metrics.utilities.exceptions import MetricInputError
from lightning_metrics.wrappers._base import WrapperMetric, check_metric, rollback_on_error


def _nan_rows(tensors: list[Tensor]) -> Tensor:
    """Rows (along dim 0) where any of ``tensors`` holds a NaN."""
    rows = torch.zeros(len(tensors[0]), dtype=torch.bool, device=tensors[0].device)
    for tensor in tensors:
        if tensor.is_floating_point() or tensor.is_complex():
            rows |= torch.isnan(tensor.flatten(start_dim=1)).any(dim=1)
    return rows


class MultioutputWrapper(WrapperMetric):
    """Compute a metric separately for each output along ``output_dim``.

    Output ``i`` of every tensor argument goes to the ``i``-th copy of ``base_metric``;
    ``compute`` stacks the copies' values along a new dim 0.

    Args:
        base_metric: the metric computed per output.
        num_outputs: the number of outputs (copies).
        output_dim: the dimension that indexes the outputs, the same for every argument.
        remove_nans: drop, per output, the rows (dim 0) where any argument holds a NaN.
        squeeze_outputs: squeeze ``output_dim`` away after selecting an output.

    >>> import torch
    >>> from lightning_metrics.regression import MeanSquaredError
    >>> from lightning_metrics.wrappers import MultioutputWrapper
    >>> preds = torch.tensor([[0.0, 2.0], [-1.0, 2.0], [8.0, float("nan")]])
    >>> target = torch.tensor([[0.5, 1.0], [-1.0, 1.0], [7.0, -6.0]])
    >>> MultioutputWrapper(MeanSquaredError(), num_outputs=2)(preds, target)
    tensor([0.4167, 1.0000])
    """

    plot = _plot_methods.plot_value

    is_differentiable = False

    def __init__(
        self,
        base_metric: Metric,
        num_outputs: int,
        output_dim: int = -1,
        remove_nans: bool = True,
        squeeze_outputs: bool = True,
    ) -> None:
        super().__init__()
        check_metric("base_metric", base_metric)
        if isinstance(num_outputs, bool) or not isinstance(num_outputs, int) or num_outputs < 1:
            raise ValueError(f"Argument `num_outputs` must be a positive integer, got {num_outputs!r}")
        if isinstance(output_dim, bool) or not isinstance(output_dim, int):
            raise ValueError(f"Argument `output_dim` must be an integer, got {output_dim!r}")
        for name, flag in (("remove_nans", remove_nans), ("squeeze_outputs", squeeze_outputs)):
            if not isinstance(flag, bool):
                raise ValueError(f"Argument `{name}` must be a bool, got {flag!r}")
        self.metrics = nn.ModuleList([deepcopy(base_metric) for _ in range(num_outputs)])
        self.output_dim = output_dim
        self.remove_nans = remove_nans
        self.squeeze_outputs = squeeze_outputs

    @property
    def additive_update(self) -> bool:  # type: ignore[override]
        """Additive when the outputs sit on a positive dim (dim 0 stays the sample axis) and the
        wrapped metric is; a negative ``output_dim`` may name dim 0 of a 1-d input."""
        return self.output_dim > 0 and all(m.additive_update for m in self.metrics)

    def _split(self, args: tuple, kwargs: dict) -> list[tuple[list, dict]]:
        """The arguments of each output: selected, NaN rows removed, squeezed (as configured)."""
        for value in [*args, *kwargs.values()]:
            if isinstance(value, Tensor) and value.ndim and value.shape[self.output_dim] < len(self.metrics):
                raise MetricInputError(
                    f"MultioutputWrapper: expected `num_outputs`={len(self.metrics)} outputs along dim "
                    f"{self.output_dim} of every input, got an input of shape {tuple(value.shape)}"
                )
        out = []
        for i in range(len(self.metrics)):
            index = torch.tensor([i], device=self.device)

            def select(t: Tensor, index: Tensor = index) -> Tensor:
                return t.index_select(self.output_dim, index.to(t.device))

            selected_args = list(_apply_tensors(tuple(args), select))
            selected_kwargs = _apply_tensors(dict(kwargs), select)
            if self.remove_nans:
                tensors = [t for t in [*selected_args, *selected_kwargs.values()] if isinstance(t, Tensor)]
                if tensors:
                    keep = ~_nan_rows(tensors)
                    selected_args = [a[keep] if isinstance(a, Tensor) else a for a in selected_args]
                    selected_kwargs = {k: v[keep] if isinstance(v, Tensor) else v for k, v in selected_kwargs.items()}
            if self.squeeze_outputs:
                selected_args = [a.squeeze(self.output_dim) if isinstance(a, Tensor) else a for a in selected_args]
                selected_kwargs = {
                    k: v.squeeze(self.output_dim) if isinstance(v, Tensor) else v for k, v in selected_kwargs.items()
                }
            out.append((selected_args, selected_kwargs))
        return out

    def update(self, *args: Any, **kwargs: Any) -> None:
        """Update each output's metric with its slice of the inputs."""
        parts = self._split(args, kwargs)
        with rollback_on_error(self._child_metrics()):
            for metric, (selected_args, selected_kwargs) in zip(self.metrics, parts):
                metric.update(*selected_args, **selected_kwargs)

    def compute(self) -> Tensor:
        """The per-output values stacked along dim 0."""
        return torch.stack([metric.compute() for metric in self.metrics], 0)

    def forward(self, *args: Any, **kwargs: Any) -> Tensor | None:
        """Accumulate the batch and return its per-output values."""
        parts = self._split(args, kwargs)
        with rollback_on_error(self._child_metrics()):
            results = [metric(*a, **k) for metric, (a, k) in zip(self.metrics, parts)]
        self._computed = None
        self._update_count += 1
        if results[0] is None:
            return None
        return torch.stack(results, 0)

    def reset(self) -> None:
        """Reset every output's metric."""
        super().reset()
        for metric in self.metrics:
            metric.reset()
