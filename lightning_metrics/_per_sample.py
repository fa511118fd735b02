"""The family base of metrics whose result is a mean (or a sum) of per-sample values.

PSNR per image, SSIM, SI-SDR per utterance, PIT per mixture, ...: a mean over any number of
samples is a float64 sum and an int64 count, whose size does not grow with the number of batches
and which merge exactly across batches, ``merge_state`` and processes. Only a reduction that
returns every value (``"none"``) keeps them, as one ``cat`` state.

A subclass states its torchmetrics signature (``self._configure(locals())``), checks its
arguments in :meth:`PerSampleMetric._check_args`, says which reduction keeps the values, and
computes one batch's values in :meth:`PerSampleMetric._values` (with the functional code).

Every image and audio metric refuses NaN and infinite inputs: one such pixel or sample would make
every later value of the state NaN or infinite. torchmetrics' classes have no ``validate_args``;
ours take it as a keyword argument (default ``True``, see :mod:`lightning_metrics._input_checks`):
``False`` skips the check and its host read. The functions (``peak_signal_noise_ratio``, ...) do
not check: a NaN in gives a NaN out there, as in torchmetrics, and a loss needs no host sync per
step.
"""

from __future__ import annotations

from typing import Any, Optional

import torch
from torch import Tensor

from lightning_metrics._input_checks import ValidatedInputs
from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics.metric import Metric
from lightning_metrics.utilities.data import dim_zero_cat

# Floating dtypes in promotion order: a state records the widest one seen (codes merge by max).
_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
_DTYPE_CODES = {dtype: code for code, dtype in enumerate(_DTYPES, start=1)}


def dtype_code(dtype: torch.dtype) -> int:
    """The code of a floating dtype for a ``max``-merged state (non-floating inputs count as float32)."""
    return _DTYPE_CODES.get(dtype, _DTYPE_CODES[torch.float32])


def dtype_from_code(code: Tensor) -> torch.dtype:
    """The widest dtype recorded (the default dtype when nothing was seen); reads the code back."""
    value = int(code)
    return _DTYPES[value - 1] if value else torch.get_default_dtype()


class PerSampleMetric(ValidatedInputs, Metric):
    """A mean (or sum) of per-sample values, kept as a sum and a count; ``"none"`` keeps the values."""

    plot = _plot_methods.plot_value

    is_differentiable = True
    full_state_update = False
    additive_update = True
    exact_dtype_states = ("value_sum",)  # float64 whatever set_dtype says: the result follows the dtype

    # torchmetrics keeps every value of some metrics and returns their dtype (float64 for float64
    # inputs); of the others, a default-dtype running sum. True: record the widest input dtype.
    _result_follows_input = False
    _mean_reductions = ("elementwise_mean", "mean")
    reduction: Any = "elementwise_mean"

    def _build(self) -> None:
        self._check_args()
        self._keeps_values = self.reduction in ("none", None)
        if self._keeps_values:
            self.add_state("values", [], dist_reduce_fx="cat")
        else:
            self.add_state("value_sum", torch.zeros((), dtype=torch.float64), dist_reduce_fx="sum")
            self.add_state("count", torch.zeros((), dtype=torch.int64), dist_reduce_fx="sum")
            if self._result_follows_input:
                self.add_state("input_dtype", torch.zeros((), dtype=torch.int64), dist_reduce_fx="max")
        self._add_states()

    def _check_args(self) -> None:
        """Check the constructor arguments (recorded as attributes by ``_configure``)."""

    def _add_states(self) -> None:
        """Declare the states beyond the values (e.g. SSIM's full images)."""

    def _values(self, *args: Any) -> Tensor:
        """The per-sample values of one batch (implemented by each metric)."""
        raise NotImplementedError

    def update(self, preds: Tensor, target: Tensor) -> None:
        """Add the per-sample values of one batch (with ``validate_args``, NaN or infinite inputs raise)."""
        self._check_finite(("preds", preds), ("target", target))
        self._accumulate(self._values(preds, target))

    def _accumulate(self, values: Tensor, count: Optional[int] = None) -> None:
        """Add ``values`` (``count`` overrides their number, for torchmetrics' own counts)."""
        if self._keeps_values:
            self.values.append(values)
            return
        self.value_sum = self.value_sum + values.sum(dtype=torch.float64)
        self.count = self.count + (values.numel() if count is None else count)
        if self._result_follows_input:
            self.input_dtype = torch.clamp(self.input_dtype, min=dtype_code(values.dtype))

    def _result_dtype(self) -> torch.dtype:
        return dtype_from_code(self.input_dtype) if self._result_follows_input else self.dtype

    def _all_values(self) -> Tensor:
        if isinstance(self.values, Tensor):
            return self.values
        return dim_zero_cat(self.values) if self.values else torch.zeros(0, device=self.device)

    def _reduced(self) -> Tensor:
        """The mean, the sum or the values, as ``reduction`` says."""
        if self._keeps_values:
            return self._all_values()
        total = self.value_sum
        if self.reduction in self._mean_reductions:
            total = total / self.count
        return total.to(self._result_dtype())

    def compute(self) -> Tensor:
        """The reduced value of everything seen."""
        return self._reduced()
