"""Modular metrics over the shared float64 moment statistic: MSE, NRMSE, R2, explained variance, RSE,
Pearson and concordance.

Every class here holds one state, ``moments`` (see :mod:`lightning_metrics.functional.regression._moments`),
merged across batches, ``merge_state``, ``forward`` and ranks by the Chan update (its ``dist_reduce_fx``).
They declare the same :attr:`statistic_spec`, so a :class:`~lightning_metrics.MetricCollection` of, say,
``MeanSquaredError``, ``R2Score`` and ``PearsonCorrCoef`` updates the moments once per batch.

>>> import torch
>>> from lightning_metrics import MetricCollection
>>> metrics = MetricCollection([MeanSquaredError(), R2Score(), PearsonCorrCoef()])
>>> metrics.update(torch.tensor([2.5, 0.0, 2, 8]), torch.tensor([3, -0.5, 2, 7]))
>>> {k: round(v.item(), 4) for k, v in metrics.compute().items()}
{'MeanSquaredError': 0.375, 'R2Score': 0.9486, 'PearsonCorrCoef': 0.9849}
>>> len(metrics.compute_groups)
1

``update(preds, target, sample_weight=None)``: the moments become weighted ones, their count the total weight
(the rules: :mod:`lightning_metrics.utilities.sample_weight`; the meaning per measure: the functional forms in
:mod:`lightning_metrics.functional.regression.moment_measures`). The state is float64 either way, so a weighted
and an unweighted metric hold the same layout: nothing changes for sync, checkpoints or sharing.

>>> metrics.reset()
>>> weight = torch.tensor([1, 1, 0, 2])
>>> metrics.update(torch.tensor([2.5, 0.0, 2, 8]), torch.tensor([3, -0.5, 2, 7]), sample_weight=weight)
>>> {k: round(v.item(), 4) for k, v in metrics.compute().items()}
{'MeanSquaredError': 0.625, 'R2Score': 0.9362, 'PearsonCorrCoef': 0.9887}
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Literal

import torch
from torch import Tensor

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics._input_checks import ValidatedInputs
from lightning_metrics._states import _finished
from lightning_metrics.functional.regression import _moments as mo
from lightning_metrics.functional.regression import _statistics as st
from lightning_metrics.functional.regression._checks import (
    check_at_most_2d,
    check_bool,
    check_columns,
    check_floating,
    check_multioutput,
    check_num_outputs_arg,
    check_same_shape,
)
from lightning_metrics.functional.regression.moment_measures import (
    NORMALIZATIONS,
    _check_adjusted,
    concordance_from_moments,
    explained_variance_from_moments,
    mse_from_moments,
    nrmse_from_moments,
    pearson_from_moments,
    r2_from_moments,
    rse_from_moments,
)
from lightning_metrics.metric import Metric
from lightning_metrics.utilities.exceptions import MetricInputError
from lightning_metrics.utilities.sample_weight import as_sample_weight


def _view(of_moments: Any, doc: str, integer: bool = False, squeeze: bool = False) -> property:
    """A read-only state of torchmetrics' class (``PearsonCorrCoef.mean_x``, ...), derived from ``moments``.

    Code written for torchmetrics reads these names; here they are views in the metric's dtype
    (counts as int64 where torchmetrics keeps an integer), one entry per output column, or a
    scalar with ``squeeze`` for classes whose torchmetrics states are scalars for 1-D input.
    """

    def read(self: "_MomentMetric") -> Tensor:
        value = of_moments(self._lifted())
        value = value.round().long() if integer else value.to(self.dtype)
        return value[0] if integer or (squeeze and value.numel() == 1) else value

    return property(read, doc=doc)


def _total(m: Tensor) -> Tensor:
    return mo.count(m)


def _sum(var: int) -> Any:
    return lambda m: mo.count(m) * mo.mean(m, var)


def _sum_of_squares(var: int) -> Any:
    return lambda m: mo.comoment(m, var, var) + mo.count(m) * mo.mean(m, var) ** 2


def _max_abs_deviation(var: int) -> Any:
    def deviation(m: Tensor) -> Tensor:
        centre = mo.mean(m, var)
        spread = torch.maximum(mo.maximum(m, var) - centre, centre - mo.minimum(m, var))
        return torch.where(mo.count(m) > 0, spread, torch.zeros_like(spread))

    return deviation


def _bind(preds: Tensor, target: Tensor, sample_weight: Any = None) -> tuple[Tensor, Tensor, Any]:
    return preds, target, sample_weight


class _MomentMetric(ValidatedInputs, Metric):
    """Holds the ``moments`` state; subclasses add input checks and a measure over the moments.

    Alone, a metric keeps the smallest statistic of :mod:`~lightning_metrics.functional.regression._statistics`
    its value needs (``_smallest_statistic``); a collection widens its members to the largest level among
    them (:meth:`_widen_statistic`), so that they share one state. ``validate_args=False`` (a keyword
    argument) skips the value check of ``sample_weight`` and its host read.
    """

    plot = _plot_methods.plot_value

    full_state_update = False
    additive_update = True
    exact_dtype_states = ("moments",)  # float64 whatever set_dtype says: that is the point
    # torchmetrics returns float64 for float64 inputs from metrics whose states are reassigned, and the
    # default dtype from others (MSE, RSE; Pearson and NRMSE depend on arguments): mirror it per class.
    _result_follows_float64 = True
    _smallest_statistic: st.Statistic = st.MOMENTS
    # the input checks of a class (:meth:`_check_inputs`): floating-point inputs only; at most 2-D inputs
    # (so never a flattened state); ``num_outputs`` columns, where for one output ``"lax"`` accepts any
    # shape (flattened) and ``"strict"`` only ``(N,)`` or ``(N, 1)``
    _floating_only = False
    _at_most_2d = False
    _columns: Literal["lax", "strict"] | None = None
    moments: Tensor

    def _build_columns(self, initial_columns: int) -> None:
        """The family's part of ``_build``: the ``moments`` state of ``initial_columns`` output columns, at the
        class's smallest statistic (a subclass checks its arguments, then calls this)."""
        self._initial_columns = initial_columns
        self._use_statistic(self._smallest_statistic)

    def _use_statistic(self, statistic: st.Statistic, device: torch.device | None = None) -> None:
        self._statistic = statistic
        persistent = self._persistent.get("moments", False)
        self.add_state("moments", statistic.empty(self._initial_columns), dist_reduce_fx=statistic.merge)
        self._persistent["moments"] = persistent
        if device is not None:
            self.moments = self.moments.to(device)

    @property
    def statistic_spec(self) -> Hashable | None:
        """Equal for every moment metric with the same initial width and statistic: they share one ``update``."""
        return ("regression_" + self._statistic.name, self._initial_columns)

    @property
    def _statistic_lattice(self) -> tuple[Hashable, int]:
        """(family, level): a collection widens the members of one family to their largest level."""
        return ("regression", self._initial_columns), self._statistic.level

    def _widen_statistic(self, level: int) -> bool:
        """Switch to the statistic of ``level`` (a wider one), possible only before the first update."""
        if level == self._statistic.level:
            return True
        if level < self._statistic.level or self._update_count > 0:
            return False
        self._use_statistic(st.LEVELS[level], device=self.moments.device)
        self._computed = None
        return True

    def _lifted(self) -> Tensor:
        """The state in the moment layout, whatever the level."""
        return st.lift(self.moments, self._statistic)

    def _check_inputs(self, preds: Tensor, target: Tensor) -> None:
        if self._floating_only:
            check_floating("preds", preds)
            check_floating("target", target)
        check_same_shape(preds, target)
        if self._at_most_2d:
            check_at_most_2d(preds, type(self).__name__)
        if self._columns is not None:
            check_columns(preds, self.num_outputs, strict_single=self._columns == "strict")

    def update(self, preds: Tensor, target: Tensor, *, sample_weight: Any = None) -> None:
        """Merge the float64 statistic of this batch (weighted by ``sample_weight``) into the state."""
        self._check_inputs(preds, target)
        cols_p, cols_t, flattened = mo.as_columns(preds, target)
        attrs = self.__dict__  # the state is a plain attribute: skip nn.Module.__setattr__ on the hot path
        weight = None if sample_weight is None else self._weight_columns(sample_weight, preds, target)
        # the first update since the state was fresh chooses the shifts of the shifted-sum levels
        attrs["moments"] = self._statistic.update(
            attrs["moments"], cols_p, cols_t, flattened, attrs["_update_count"] <= 1, weight
        )

    def _weight_columns(self, sample_weight: Any, preds: Tensor, target: Tensor) -> Tensor:
        """The checked weights laid out as :func:`~._moments.as_columns` lays out the inputs; the metric is
        weighted from now on (until ``reset``)."""
        weight = as_sample_weight(sample_weight, target.shape, device=target.device, validate=self.validate_args)
        self.__dict__["_sample_weighted"] = True
        return weight if preds.ndim == 2 else weight.reshape(-1, 1)

    def _forget_updates(self) -> None:
        super()._forget_updates()
        self.__dict__["_sample_weighted"] = False

    def _share_states_of(self, leader: Metric) -> None:
        super()._share_states_of(leader)
        self.__dict__["_sample_weighted"] = leader.__dict__.get("_sample_weighted", False)

    def _prepared_update(self, *args: Any, **kwargs: Any) -> Any:
        prepared = self._prepared_columns(*args, **kwargs)
        if prepared is None:
            return None
        *columns, weight = prepared
        with torch.no_grad():
            state = self._statistic.update(self.moments, *columns, self._update_count == 0, weight)
        return self._committer(lambda: self.__dict__.__setitem__("moments", state))

    def _prepared_batch(self, *args: Any, **kwargs: Any) -> Any:
        """The batch's own statistic (for the batch value) and the accumulated one: their sum for an
        additive statistic, else the accumulated one updated with the batch (a second pass over the batch
        costs less than re-basing two sets of shifted sums)."""
        prepared = self._prepared_columns(*args, **kwargs)
        if prepared is None:
            return None
        statistic = self._statistic
        *columns, weight = prepared
        batch = statistic.update(None, *columns, True, weight)
        with torch.no_grad():
            if statistic.additive:
                state = st.merge_pair(self.moments, batch.detach(), statistic)
            else:
                state = statistic.update(self.moments, *columns, self._update_count == 0, weight)
        return {"moments": batch}, self._committer(lambda: self.__dict__.__setitem__("moments", state))

    def _prepared_columns(self, *args: Any, **kwargs: Any) -> tuple[Tensor, Tensor, bool, Tensor | None] | None:
        """The checked batch as columns (``as_columns``) and its weights laid out alike (or ``None``), or
        ``None`` for a subclass with its own update."""
        if type(self).update is not _MomentMetric.update or self.__dict__["_is_synced"]:
            return None
        preds, target, sample_weight = _bind(*args, **kwargs)
        self._check_inputs(preds, target)
        weight = None if sample_weight is None else self._weight_columns(sample_weight, preds, target)
        return (*mo.as_columns(preds, target), weight)

    def _forward_shared(self, members: list[Metric], *args: Any, **kwargs: Any) -> list[Any]:
        # forward updates a fresh state first, so check the column count against the accumulated state
        # now: a mismatch found while merging back would come too late to leave the state untouched.
        preds = args[0] if args else kwargs.get("preds")
        target = args[1] if len(args) > 1 else kwargs.get("target")
        if isinstance(preds, Tensor) and isinstance(target, Tensor):
            self._check_inputs(preds, target)
            columns = preds.shape[1] if preds.ndim == 2 else 1
            width = self.moments.shape[1]
            if columns != width and not (width == 1 and not bool(mo.count(self.moments).any())):
                raise MetricInputError(
                    f"Expected inputs with {width} output column(s) as in earlier batches, got {columns} (from `preds`)"
                )
        return super()._forward_shared(members, *args, **kwargs)

    def _merge_states(self, incoming: dict[str, Any]) -> None:
        # Like the base class (its reduction), but an empty one-column side may meet a multi-output state.
        self.moments = st.merge_pair(self.moments, incoming["moments"], self._statistic)

    def _result_dtype(self, m: Tensor) -> torch.dtype:
        if self._result_follows_float64 and mo.saw_float64(m):
            return torch.float64
        return self.dtype

    def compute(self) -> Tensor:
        """The class's measure over everything seen (:meth:`_measure` of the accumulated moments)."""
        return self._measure(self._checked_moments(self.moments))

    def _measure(self, m: Any) -> Tensor:
        """The class's measure of checked moments ``m`` (:meth:`_checked_moments`), in torchmetrics' dtype."""
        raise NotImplementedError

    def _batch_value_fn(self) -> Any:
        """``forward``'s batch value read straight off the batch's moments (the :meth:`_measure` of them, as
        ``compute`` on them would return it) instead of swapping them in for ``compute``; ``None`` for a
        subclass with a ``compute`` of its own, or a value that needs a sync."""
        if not self._computes_like(_MomentMetric):
            return None
        detach = self.is_differentiable is False
        return lambda batch: _finished(self._measure(self._checked_moments(batch["moments"])), detach)

    def _checked_moments(self, state: Tensor) -> Any:
        """What the measures read of a moments ``state`` (its moment rows, computed as read), after checking it
        fits this class's input checks (a shared state may come from a laxer metric)."""
        m = st.moment_rows(state, self._statistic)
        if self._at_most_2d and mo.was_flattened(m):
            raise MetricInputError(
                f"{type(self).__name__} expects 1D or 2D inputs, but >2D inputs were accumulated"
            )
        self._check_accumulated_width(m.shape[1])
        return m

    def _check_accumulated_width(self, width: int) -> None:
        """The accumulated column count fits ``num_outputs`` (a shared state may come from a laxer metric)."""
        num_outputs = self.num_outputs if self._columns is not None else None
        if num_outputs is not None and width != num_outputs and (num_outputs > 1 or self._at_most_2d):
            raise MetricInputError(
                f"{type(self).__name__}: argument `num_outputs`={num_outputs} does not match the"
                f" {width} output column(s) accumulated"
            )


class MeanSquaredError(_MomentMetric):
    """Mean squared error (``squared=False``: RMSE), per output with ``num_outputs > 1``.

    >>> import torch
    >>> metric = MeanSquaredError()
    >>> metric.update(torch.tensor([2.5, 5.0, 4.0, 8.0]), torch.tensor([3.0, 5.0, 2.5, 7.0]))
    >>> metric.compute()
    tensor(0.8750)
    """

    is_differentiable = True
    higher_is_better = False
    plot_lower_bound = 0.0
    _result_follows_float64 = False
    _smallest_statistic = st.SSE
    _columns = "lax"

    sum_squared_error = _view(mo.sum_squared_error, "``sum (preds - target)^2`` per output (torchmetrics' state)")
    total = _view(_total, "The number of observations (torchmetrics' state)", integer=True)

    def __init__(self, squared: bool = True, num_outputs: int = 1, **kwargs: Any) -> None:
        self._configure(locals())

    def _build(self) -> None:
        check_bool("squared", self.squared)
        check_num_outputs_arg(self.num_outputs)
        self._build_columns(self.num_outputs)

    def _measure(self, m: Any) -> Tensor:
        """MSE (or RMSE) of the moments ``m``."""
        return mse_from_moments(m, self.squared, self.num_outputs).to(self._result_dtype(m))


class NormalizedRootMeanSquaredError(_MomentMetric):
    """RMSE normalised by the target's ``mean``, ``range``, ``std`` or ``l2`` norm.

    >>> import torch
    >>> metric = NormalizedRootMeanSquaredError(normalization="std")
    >>> metric.update(torch.tensor([0.0, 1, 2, 3]), torch.tensor([0.0, 1, 2, 2]))
    >>> metric.compute()
    tensor(0.6030)
    """

    is_differentiable = True
    higher_is_better = False
    plot_lower_bound = 0.0
    _columns = "lax"

    def __init__(
        self,
        normalization: Literal["mean", "range", "std", "l2"] = "mean",
        num_outputs: int = 1,
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _build(self) -> None:
        normalization, num_outputs = self.normalization, self.num_outputs
        if normalization not in NORMALIZATIONS:
            raise ValueError(
                f"Argument `normalization` must be one of {NORMALIZATIONS}, got {normalization!r}"
            )
        check_num_outputs_arg(num_outputs)
        # the target's mean, standard deviation and l2 norm are in the shifted target sums; only its range
        # needs the extremes of the moments
        self._smallest_statistic = st.MOMENTS if normalization == "range" else st.R2
        # torchmetrics' result dtype for float64 inputs, as observed in 1.9
        self._result_follows_float64 = normalization in ("mean", "range") and num_outputs > 1
        self._build_columns(num_outputs)

    def _measure(self, m: Any) -> Tensor:
        """NRMSE of the moments ``m``."""
        return nrmse_from_moments(m, self.normalization, self.num_outputs).to(self._result_dtype(m))


class R2Score(_MomentMetric):
    """Coefficient of determination; outputs are inferred from the input (``(N,)`` or ``(N, d)``).

    Weighted (``update(..., sample_weight=w)``) it needs a positive total weight instead of two samples, and
    ``adjusted`` reads the total weight as the number of samples. Whether the metric is weighted is known to
    the process that saw the weights (and to its collection), until ``reset``.

    >>> import torch
    >>> metric = R2Score(multioutput="raw_values")
    >>> metric.update(torch.tensor([[0.0, 2], [-1, 2], [8, -5]]), torch.tensor([[0.5, 1], [-1, 1], [7, -6]]))
    >>> metric.compute()
    tensor([0.9654, 0.9082])
    """

    is_differentiable = True
    higher_is_better = True
    plot_upper_bound = 1.0
    _smallest_statistic = st.R2
    _at_most_2d = True

    sum_squared_error = _view(_sum_of_squares(mo.Y), "``sum target^2`` (torchmetrics' state)", squeeze=True)
    sum_error = _view(_sum(mo.Y), "``sum target`` (torchmetrics' state)", squeeze=True)
    residual = _view(mo.sum_squared_error, "``sum (target - preds)^2`` (torchmetrics' state)", squeeze=True)
    total = _view(_total, "The number of observations (torchmetrics' state)", integer=True)

    def __init__(self, adjusted: int = 0, multioutput: str = "uniform_average", **kwargs: Any) -> None:
        self._configure(locals())

    def _build(self) -> None:
        _check_adjusted(self.adjusted)
        check_multioutput(self.multioutput)
        self._build_columns(1)

    def _measure(self, m: Any) -> Tensor:
        """R2 of the moments ``m``."""
        weighted = self.__dict__.get("_sample_weighted", False)
        return r2_from_moments(m, self.adjusted, self.multioutput, weighted).to(self._result_dtype(m))


class ExplainedVariance(_MomentMetric):
    """Explained variance ``1 - Var(target - preds) / Var(target)``; outputs inferred from the input.

    >>> import torch
    >>> metric = ExplainedVariance()
    >>> metric.update(torch.tensor([2.5, 0.0, 2, 8]), torch.tensor([3, -0.5, 2, 7]))
    >>> metric.compute()
    tensor(0.9572)
    """

    is_differentiable = True
    higher_is_better = True
    plot_upper_bound = 1.0
    _smallest_statistic = st.TARGET_RESIDUAL
    _at_most_2d = True

    sum_error = _view(_sum(mo.E), "``sum (target - preds)`` (torchmetrics' state)", squeeze=True)
    sum_squared_error = _view(mo.sum_squared_error, "``sum (target - preds)^2`` (torchmetrics' state)", squeeze=True)
    sum_target = _view(_sum(mo.Y), "``sum target`` (torchmetrics' state)", squeeze=True)
    sum_squared_target = _view(_sum_of_squares(mo.Y), "``sum target^2`` (torchmetrics' state)", squeeze=True)
    num_obs = _view(_total, "The number of observations (torchmetrics' state)", squeeze=True)

    def __init__(
        self,
        multioutput: Literal["raw_values", "uniform_average", "variance_weighted"] = "uniform_average",
        **kwargs: Any,
    ) -> None:
        self._configure(locals())

    def _build(self) -> None:
        check_multioutput(self.multioutput)
        self._build_columns(1)

    def _measure(self, m: Any) -> Tensor:
        """Explained variance of the moments ``m``."""
        return explained_variance_from_moments(m, self.multioutput).to(self._result_dtype(m))


class RelativeSquaredError(_MomentMetric):
    """Relative squared error ``SSE / SST`` (``squared=False``: its root), averaged over outputs.

    >>> import torch
    >>> metric = RelativeSquaredError()
    >>> metric.update(torch.tensor([2.5, 0.0, 2, 8]), torch.tensor([3, -0.5, 2, 7]))
    >>> metric.compute()
    tensor(0.0514)
    """

    is_differentiable = True
    higher_is_better = False
    _result_follows_float64 = False
    _smallest_statistic = st.R2
    _at_most_2d = True
    _columns = "strict"

    sum_squared_error = _view(_sum_of_squares(mo.Y), "``sum target^2`` per output (torchmetrics' state)")
    sum_error = _view(_sum(mo.Y), "``sum target`` per output (torchmetrics' state)")
    residual = _view(mo.sum_squared_error, "``sum (target - preds)^2`` per output (torchmetrics' state)")
    total = _view(_total, "The number of observations (torchmetrics' state)", integer=True)

    def __init__(self, num_outputs: int = 1, squared: bool = True, **kwargs: Any) -> None:
        self._configure(locals())

    def _build(self) -> None:
        check_num_outputs_arg(self.num_outputs)
        check_bool("squared", self.squared)
        self._build_columns(self.num_outputs)

    def _measure(self, m: Any) -> Tensor:
        """RSE of the moments ``m``."""
        dtype = self._result_dtype(m)
        return rse_from_moments(m, self.squared, torch.finfo(dtype).eps).to(dtype)


class PearsonCorrCoef(_MomentMetric):
    """Pearson correlation coefficient, per output with ``num_outputs > 1``.

    >>> import torch
    >>> metric = PearsonCorrCoef()
    >>> metric.update(torch.tensor([2.5, 0.0, 2, 8]), torch.tensor([3, -0.5, 2, 7]))
    >>> metric.compute()
    tensor(0.9849)
    """

    is_differentiable = True
    higher_is_better = None  # both -1 and 1 are optimal
    plot_lower_bound = -1.0
    plot_upper_bound = 1.0
    _floating_only = True
    _at_most_2d = True
    _columns = "strict"

    mean_x = _view(lambda m: mo.mean(m, mo.X), "Mean of ``preds`` per output (torchmetrics' state)")
    mean_y = _view(lambda m: mo.mean(m, mo.Y), "Mean of ``target`` per output (torchmetrics' state)")
    max_abs_dev_x = _view(_max_abs_deviation(mo.X), "Largest ``|preds - mean_x|`` (torchmetrics' state)")
    max_abs_dev_y = _view(_max_abs_deviation(mo.Y), "Largest ``|target - mean_y|`` (torchmetrics' state)")
    var_x = _view(lambda m: mo.comoment(m, mo.X, mo.X), "``sum (preds - mean_x)^2`` (torchmetrics' state)")
    var_y = _view(lambda m: mo.comoment(m, mo.Y, mo.Y), "``sum (target - mean_y)^2`` (torchmetrics' state)")
    corr_xy = _view(lambda m: mo.comoment(m, mo.X, mo.Y), "``sum (preds - mean_x)(target - mean_y)`` (torchmetrics' state)")
    n_total = _view(_total, "The number of observations per output (torchmetrics' state)")

    def __init__(self, num_outputs: int = 1, **kwargs: Any) -> None:
        self._configure(locals())

    def _build(self) -> None:
        check_num_outputs_arg(self.num_outputs)
        # torchmetrics' result dtype for float64 inputs, as observed in 1.9
        self._result_follows_float64 = self.num_outputs > 1
        self._build_columns(self.num_outputs)

    def _measure(self, m: Any) -> Tensor:
        """Pearson's r of the moments ``m``."""
        dtype = self._result_dtype(m)
        return pearson_from_moments(m, dtype).to(dtype)


class ConcordanceCorrCoef(PearsonCorrCoef):
    """Lin's concordance correlation coefficient, per output with ``num_outputs > 1``.

    >>> import torch
    >>> metric = ConcordanceCorrCoef()
    >>> metric.update(torch.tensor([2.5, 0.0, 2, 8]), torch.tensor([3, -0.5, 2, 7]))
    >>> metric.compute()
    tensor(0.9777)
    """

    higher_is_better = True

    def _measure(self, m: Any) -> Tensor:
        """Concordance of the moments ``m``."""
        dtype = self._result_dtype(m)
        return concordance_from_moments(m, dtype).to(dtype)


__all__ = [
    "ConcordanceCorrCoef",
    "ExplainedVariance",
    "MeanSquaredError",
    "NormalizedRootMeanSquaredError",
    "PearsonCorrCoef",
    "R2Score",
    "RelativeSquaredError",
]
