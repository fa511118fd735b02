"""The lattice of regression statistics: each moment metric alone keeps the smallest one its value needs.

Four levels, each covering the ones below it (a :class:`~lightning_metrics.MetricCollection` widens its
members to the largest level among them, so they share one state and one update):

- ``SSE`` (MSE alone): count and ``sum e^2``;
- ``R2`` (R2 and RSE alone): count, the float64 and flattened counts, a shift ``K_y``, the sums of
  ``y - K_y`` and of its square, and ``sum e^2``;
- ``TARGET_RESIDUAL`` (explained variance alone): as ``R2``, with the residual summed around a shift
  ``K_e`` too;
- ``MOMENTS`` (NRMSE, Pearson, concordance, and any collection that has one of them): the first and
  second moments of (x, y, e) and the extremes of x and y, as sums around the shifts ``K_x``, ``K_y``
  (``K_e = K_y - K_x``): count, the sums of the shifted values, of their squares and of ``x y``, and
  the shifted extremes.

(``x = preds``, ``y = target``, ``e = target - preds``.) The sums are additive, so an update is a handful
of kernels. They stay accurate at any offset: ``sum e^2`` adds non-negative terms, and ``y`` is summed
around a shift ``K_y`` (``x`` around ``K_x``) that is one of its own observations (the first one seen), so that
``|mean - K_y| <= sqrt(n - 1) * std`` (Samuelson) bounds the cancellation in ``S2 - S1^2 / n`` to about
``n * eps`` of float64, and to a few ``eps`` in practice. :func:`lift` rebuilds the moment layout from any
level, so every measure is written once, over moments.

Sample weights (``update(..., weight)``, float64 ``(N, d)``, checked) enter every sum as a factor and the
count becomes the total weight; the shifts stay observations and the merges are unchanged (they already weigh
each side by its count). A zero weight adds nothing (its sample is left out of the extremes too).

>>> import torch
>>> preds, target = torch.tensor([[2.5], [0.0], [2.0]]), torch.tensor([[3.0], [-0.5], [2.0]])
>>> small = R2.update(R2.empty(1), preds, target)
>>> big = MOMENTS.update(MOMENTS.empty(1), preds, target)
>>> bool(torch.allclose(lift(small, R2)[:1], big[:1])), float(mo.sum_squared_error(lift(small, R2))[0])
(True, 0.5)
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Optional

import torch
from torch import Tensor

from lightning_metrics.functional.regression import _moments as mo
from lightning_metrics.utilities.exceptions import MetricInputError
from lightning_metrics.utilities.memo import ConstantCache

_F64 = torch.float64

# rows of the shifted-sum levels (R2, TARGET_RESIDUAL); SSE keeps rows 0 and 1 of its own. The rows an
# update adds to come last, in the order the update stacks them.
_COUNT, _N_F64, _N_FLAT, _KY, _KE, _S1E, _S1Y, _S2Y, _S2E = range(9)
_SUM_ROWS = 9


class Statistic(NamedTuple):
    """One level of the lattice: how its state is made, updated, merged and read as moments."""

    level: int
    name: str
    empty: Callable[..., Tensor]  # (num_columns, device=None) -> state
    # (state, preds (N, d), target (N, d), flattened=False, fresh=True, weight=None) -> state; ``fresh=False``
    # promises that the state holds data (its shifts are chosen), which skips choosing them again;
    # ``state=None``: the statistic of this batch alone (around its own first observation, with no sums to
    # re-express); ``weight``: checked float64 sample weights of the batch's shape
    update: Callable[..., Tensor]
    merge: Callable[[Tensor], Tensor]  # stacked states (k, R, d) -> state: the dist_reduce_fx
    additive: bool = False  # states of any two batches merge by addition (no shifts to re-base)


_CONSTANTS = ConstantCache()  # increment heads (batches usually have one size) and constant blocks of ``lift``


def _head(values: tuple, device: torch.device) -> Tensor:
    """The constant increment rows ``values`` as a ``(len(values), 1)`` float64 column (cached)."""
    return _CONSTANTS.get(("head", values, device), lambda: torch.tensor(values, dtype=_F64, device=device).unsqueeze(1))


def _check_width(state: Tensor, d: int, empty: Callable[..., Tensor]) -> Tensor:
    """The state widened to ``d`` columns when it is an empty single column, else an error (rare path)."""
    if state.shape[1] == 1 and not bool(state[_COUNT].any()):
        return empty(d, device=state.device)
    raise MetricInputError(
        f"Expected inputs with {state.shape[1]} output column(s) as in earlier batches, got {d} (from `preds`)"
    )


def difference(target: Tensor, preds: Tensor) -> Tensor:
    """``target - preds`` in the inputs' dtype when that is float32 or float64 (exact for close values by
    Sterbenz' lemma, else within half an ulp of itself), in float64 for others (no half-precision rounding,
    no integer wrap-around)."""
    if target.dtype in _WIDE and preds.dtype in _WIDE:
        return target - preds
    return target.to(_F64) - preds.to(_F64)


_WIDE = (torch.float32, torch.float64)


def _square_sum(v: Tensor, keepdim: bool = False) -> Tensor:
    # squares in the input dtype (half an ulp off each, no cancellation: they are all non-negative), summed
    # in float64
    return torch.square(v).sum(dim=0, keepdim=keepdim, dtype=_F64)


# ------------------------------------------------------------------ SSE: count and sum of squared errors
def _empty_sse(num_columns: int = 1, device: Optional[torch.device] = None) -> Tensor:
    return torch.zeros(2, num_columns, dtype=_F64, device=device)


def _update_sse(
    state: Optional[Tensor], preds: Tensor, target: Tensor, flattened: bool = False, fresh: bool = True,
    weight: Optional[Tensor] = None,
) -> Tensor:
    n, d = preds.shape
    if state is None:
        state = _empty_sse(d, device=preds.device)
    if n == 0:
        return state
    if state.shape[1] != d:
        state = _check_width(state, d, _empty_sse)
    if weight is not None:
        squares = torch.square(difference(target, preds)) * weight  # float64: the weight is
        return state + torch.cat([weight.sum(dim=0, keepdim=True), squares.sum(dim=0, keepdim=True)])
    sse = _square_sum(difference(target, preds), keepdim=True)
    return state + torch.cat([_head((n,), state.device).expand(1, d), sse])


def _merge_sse(stacked: Tensor) -> Tensor:
    return stacked.to(_F64).sum(dim=0)


# ------------------------------------------------------------------ R2 / TARGET_RESIDUAL: shifted sums
def _empty_sums(num_columns: int = 1, device: Optional[torch.device] = None) -> Tensor:
    return torch.zeros(_SUM_ROWS, num_columns, dtype=_F64, device=device)


def _rebase(state: Tensor, k_row: int, s1_row: int, s2_row: int, shift: Tensor) -> None:
    """Re-express (in place) the sums of ``state`` around ``shift`` instead of its stored shift."""
    delta = state[k_row] - shift
    n, s1 = state[_COUNT], state[s1_row].clone()
    state[s1_row] = s1 + n * delta
    state[s2_row] = state[s2_row] + 2 * delta * s1 + n * delta**2
    state[k_row] = shift


def _shifted_update(
    state: Optional[Tensor], preds: Tensor, target: Tensor, flattened: bool, fresh: bool, shift_residual: bool,
    weight: Optional[Tensor] = None,
) -> Tensor:
    n, d = preds.shape
    if state is None:
        if n == 0:
            return _empty_sums(d, device=preds.device)
        k_y = target[:1].to(_F64)
        k_e = k_y - preds[:1] if shift_residual else _constant(0.0, 1, d, preds.device)
        state, fresh = torch.cat([_constant(0.0, 3, d, preds.device), k_y, k_e, _constant(0.0, 4, d, preds.device)]), False
    if n == 0:
        return state
    if state.shape[1] != d:
        state = _check_width(state, d, _empty_sums)
    if fresh:
        # the shifts become observations of this batch (the sums, if any, are re-expressed around them):
        # a shift inside the data keeps ``S2 - S1^2 / n`` free of cancellation
        state = state.clone()
        _rebase(state, _KY, _S1Y, _S2Y, target[0].to(_F64))
        if shift_residual:
            _rebase(state, _KE, _S1E, _S2E, target[0].to(_F64) - preds[0])
    k_y = state[_KY]
    dy = target - k_y  # float64: the shift is a float64 tensor with a dimension
    flags = (n, n if (preds.dtype == _F64 or target.dtype == _F64) else 0, n if flattened else 0, 0, 0)
    if weight is not None:
        return state + _weighted_shifted_sums(state, preds, target, dy, flags, shift_residual, weight)
    sums = [dy.sum(dim=0, keepdim=True), (dy * dy).sum(dim=0, keepdim=True)]  # a product and a sum: what vecdot runs
    if shift_residual:
        # in float64 throughout: the residual may sit far from zero too (biased predictions)
        de = dy - (preds - (k_y - state[_KE]))
        sums = [de.sum(dim=0, keepdim=True), *sums, (de * de).sum(dim=0, keepdim=True)]
    else:
        sums.append(_square_sum(difference(target, preds), keepdim=True))
        flags = flags + (0,)  # S1E stays zero: the residual is not shifted
    return state + torch.cat([_head(flags, state.device).expand(-1, d), *sums])


def _weighted_shifted_sums(
    state: Tensor, preds: Tensor, target: Tensor, dy: Tensor, flags: tuple, shift_residual: bool, weight: Tensor
) -> Tensor:
    """The increment of a weighted batch: the total weight as the count (the flag rows still count
    observations), every sum over ``weight * term``."""
    d = preds.shape[1]
    wy = weight * dy
    sums = [wy.sum(dim=0, keepdim=True), (wy * dy).sum(dim=0, keepdim=True)]
    if shift_residual:
        de = dy - (preds - (state[_KY] - state[_KE]))
        we = weight * de
        sums = [we.sum(dim=0, keepdim=True), *sums, (we * de).sum(dim=0, keepdim=True)]
    else:
        squares = torch.square(difference(target, preds)) * weight
        sums = [_constant(0.0, 1, d, state.device), *sums, squares.sum(dim=0, keepdim=True)]
    head = _head(flags[1:5], state.device).expand(-1, d)
    return torch.cat([weight.sum(dim=0, keepdim=True), head, *sums])


def _update_target_sums(
    state: Tensor, preds: Tensor, target: Tensor, flattened: bool = False, fresh: bool = True,
    weight: Optional[Tensor] = None,
) -> Tensor:
    return _shifted_update(state, preds, target, flattened, fresh, False, weight)


def _update_target_residual_sums(
    state: Tensor, preds: Tensor, target: Tensor, flattened: bool = False, fresh: bool = True,
    weight: Optional[Tensor] = None,
) -> Tensor:
    return _shifted_update(state, preds, target, flattened, fresh, True, weight)


def _merge_sums(stacked: Tensor) -> Tensor:
    """Rebase every side onto one shared shift (the first side with data, a data point), then add."""
    stacked = stacked.to(_F64)
    counts = stacked[:, _COUNT]  # (k, d)
    first = (counts > 0).to(torch.int8).argmax(dim=0, keepdim=True)  # (1, d); 0 when nothing was seen
    out = stacked.sum(dim=0)
    for k_row, s1_row, s2_row in ((_KY, _S1Y, _S2Y), (_KE, _S1E, _S2E)):
        shifts = stacked[:, k_row]
        shift = shifts.gather(0, first)  # (1, d)
        delta = shifts - shift  # (k, d): each side's shift relative to the shared one
        s1 = stacked[:, s1_row]
        out[s1_row] = (s1 + counts * delta).sum(dim=0)
        out[s2_row] = (stacked[:, s2_row] + 2 * delta * s1 + counts * delta**2).sum(dim=0)
        out[k_row] = shift[0]
    return out


def lift(state: Tensor, statistic: Statistic) -> Tensor:
    """The state as a moment tensor (:mod:`._moments` layout), for the measures and torchmetrics' views.

    Rows a level does not keep are as in empty moments (zero, or the infinite extremes). One
    concatenation of the computed rows and cached constant blocks: ``compute`` (and so a lone metric's
    ``forward``) pays a handful of kernels for it.
    """
    if statistic.level == MOMENTS.level:
        return _lift_joint(state)
    d, device = state.shape[1], state.device
    if statistic.level == SSE.level:  # mean_e = 0, so M2_e carries the whole sum
        return torch.cat([state[:1], _constant(0.0, 11, d, device), state[1:2], _empty_tail(d, device)])
    n = state[_COUNT : _COUNT + 1]
    safe_n = _safe(n)
    s1 = state[_S1E : _S1Y + 1].flip(0)  # y, e
    means = torch.where(n > 0, state[_KY : _KE + 1] + s1 / safe_n, 0.0)
    m2 = state[_S2Y : _S2E + 1] - s1 * s1 / safe_n
    zero = _constant(0.0, 1, d, device)
    flags = (state[_N_F64 : _N_FLAT + 1] > 0).to(_F64)
    # count; means x, y, e; co-moments (x, y, e) row-major with M2_y at 4 and M2_e at 8; extremes; flags
    return torch.cat(
        [n, zero, means, _constant(0.0, 4, d, device), m2[:1], _constant(0.0, 3, d, device), m2[1:],
         _constant(float("inf"), 2, d, device), _constant(float("-inf"), 2, d, device), flags]
    )


def _safe(n: Tensor) -> Tensor:
    """The count with 0 -> 1 (nothing seen: every sum is zero), the rest unchanged (a total weight may be
    below 1)."""
    return torch.where(n > 0, n, 1.0)


def _constant(value: float, rows: int, d: int, device: torch.device) -> Tensor:
    """A cached ``(rows, d)`` float64 block of ``value`` (read-only: it only ever enters a ``cat``)."""
    return _CONSTANTS.get((value, rows, d, device), lambda: torch.full((rows, d), value, dtype=_F64, device=device))


def _empty_tail(d: int, device: torch.device) -> Tensor:
    """The extremes and flags of empty moments: +inf, +inf, -inf, -inf, 0, 0."""
    return _CONSTANTS.get(("tail", d, device), lambda: mo.empty_moments(d, device=device)[mo._MINS.start :])


class MomentRows:
    """The moment layout of a state of the ``SSE``, ``R2`` or ``TARGET_RESIDUAL`` level, row by row on demand:
    what ``compute`` of a lone MSE, NRMSE, R2, RSE or explained variance hands the measures, so that it
    computes the few rows they read instead of the whole layout (:func:`lift`). Rows are those of
    :func:`lift`, by the same float64 arithmetic; the rest come from the lifted layout.

    >>> preds, target = torch.tensor([[2.5], [0.0], [2.0]]), torch.tensor([[3.0], [-0.5], [2.0]])
    >>> state = R2.update(R2.empty(1), preds, target)
    >>> rows, layout = MomentRows(state, R2), lift(state, R2)
    >>> all(bool(torch.equal(rows[i], layout[i])) for i in range(mo.NUM_ROWS))
    True
    """

    __slots__ = ("_state", "_statistic", "_rows", "shape")

    def __init__(self, state: Tensor, statistic: Statistic) -> None:
        self._state, self._statistic, self._rows = state, statistic, {}
        self.shape = torch.Size((mo.NUM_ROWS, state.shape[1]))

    def __getitem__(self, row: int) -> Tensor:
        rows = self._rows
        if row not in rows:
            rows[row] = self._row(row)
        return rows[row]

    def _row(self, row: int) -> Tensor:
        state, sse = self._state, self._statistic.level == SSE.level
        if row == mo._COUNT:
            return state[_COUNT]
        if sse:
            # mean_e = 0, so M2_e carries the whole sum; nothing else is kept
            if row == mo._COMOMENTS.start + mo.E * 4:
                return state[1]
            if row >= mo._MINS.start:  # the extremes and flags of empty moments
                return _empty_tail(state.shape[1], state.device)[row - mo._MINS.start]
            return torch.zeros_like(state[0])
        var = {mo._MEANS.start + mo.Y: 0, mo._MEANS.start + mo.E: 1}.get(row)
        if var is not None:  # the mean of y or e: its shift plus the mean shifted value
            return torch.where(state[_COUNT] > 0, state[_KY + var] + state[_S1Y - var] / self._safe_n(), 0.0)
        var = {mo._COMOMENTS.start + mo.Y * 4: 0, mo._COMOMENTS.start + mo.E * 4: 1}.get(row)
        if var is not None:  # the M2 of y or e
            s1 = state[_S1Y - var]
            return state[_S2Y + var] - s1 * s1 / self._safe_n()
        if row >= mo._SAW_FLOAT64:
            return (state[_N_F64 + row - mo._SAW_FLOAT64] > 0).to(_F64)
        return self._lifted()[row]

    def _safe_n(self) -> Tensor:
        if "n" not in self._rows:
            self._rows["n"] = _safe(self._state[_COUNT])
        return self._rows["n"]

    def _lifted(self) -> Tensor:
        if "lifted" not in self._rows:
            self._rows["lifted"] = lift(self._state, self._statistic)
        return self._rows["lifted"]

    def sum_squared_error(self) -> Tensor:
        """``sum (target - preds)^2`` per column: kept as such unless the residual is shifted."""
        if self._statistic.level == SSE.level:
            return self._state[1]
        if self._statistic.level == R2.level:  # the residual is not shifted: S2E is the plain sum of squares
            return self._state[_S2E]
        return mo.comoment(self, mo.E, mo.E) + self[mo._COUNT] * mo.mean(self, mo.E) ** 2

    def saw_float64(self) -> bool:
        """Whether a float64 batch was seen: its count is kept (none at the ``SSE`` level)."""
        return self._statistic.level != SSE.level and bool(self._state[_N_F64].any())

    def was_flattened(self) -> bool:
        """Whether an input of more than two dimensions was flattened: its count is kept (not at ``SSE``)."""
        return self._statistic.level != SSE.level and bool(self._state[_N_FLAT].any())

    def pool_columns(self) -> "MomentRows | Tensor":
        """All columns as one: summed for the additive ``SSE``, else pooled moments."""
        if self._statistic.level == SSE.level:
            return MomentRows(self._state.sum(dim=1, keepdim=True), SSE)
        return mo.pool_columns(self._lifted())


def moment_rows(state: Tensor, statistic: Statistic) -> "MomentRows | Tensor":
    """What the measures read of ``state``: its rows on demand, or for ``MOMENTS`` the lifted layout (whose
    measures read most rows)."""
    return lift(state, statistic) if statistic.level == MOMENTS.level else MomentRows(state, statistic)


SSE = Statistic(0, "sse", _empty_sse, _update_sse, _merge_sse, additive=True)
R2 = Statistic(1, "target_sums", _empty_sums, _update_target_sums, _merge_sums)
TARGET_RESIDUAL = Statistic(2, "target_residual_sums", _empty_sums, _update_target_residual_sums, _merge_sums)
# ------------------------------------------------------------------ MOMENTS: shifted sums of (x, y, e)
# rows after the three count rows: the shifts K_x and K_y (the residual's is K_y - K_x), the sums of
# x - K_x, y - K_y and e - (K_y - K_x), of their squares, of (x - K_x)(y - K_y), and the extremes of
# x - K_x and y - K_y (their minimums, then their maximums)
_JKX, _JKY = 3, 4
_JS1, _JS2, _JSXY = slice(5, 8), slice(8, 11), 11
_JMIN, _JMAX = slice(12, 14), slice(14, 16)
_JOINT_ROWS = 16


def _empty_joint(num_columns: int = 1, device: Optional[torch.device] = None) -> Tensor:
    state = torch.zeros(_JOINT_ROWS, num_columns, dtype=_F64, device=device)
    state[_JMIN] = float("inf")
    state[_JMAX] = float("-inf")
    return state


def _empty_joint_sums(d: int, device: torch.device) -> Tensor:
    """Rows 5 on of empty joint sums: zero sums, infinite extremes."""
    return _CONSTANTS.get(("joint", d, device), lambda: _empty_joint(d, device=device)[_JS1.start :])


def _rebased(state: Tensor, shift: Tensor) -> Tensor:
    """``state`` (``(..., 16, d)``) re-expressed around the shifts ``shift`` (``(..., 2, d)``, x then y)."""
    n = state[..., _COUNT : _COUNT + 1, :]
    moved = state[..., _JKX : _JKY + 1, :] - shift  # old shift - new shift: what each shifted value gains
    delta = torch.cat([moved, moved[..., 1:, :] - moved[..., :1, :]], dim=-2)  # x, y, e
    s1 = state[..., _JS1, :]
    out = state.clone()
    out[..., _JKX : _JKY + 1, :] = shift
    out[..., _JS1, :] = s1 + n * delta
    out[..., _JS2, :] = state[..., _JS2, :] + 2 * delta * s1 + n * delta**2
    dx, dy = moved[..., 0, :], moved[..., 1, :]
    out[..., _JSXY, :] = state[..., _JSXY, :] + dx * s1[..., 1, :] + dy * s1[..., 0, :] + n[..., 0, :] * dx * dy
    out[..., _JMIN, :] = state[..., _JMIN, :] + moved
    out[..., _JMAX, :] = state[..., _JMAX, :] + moved
    return out


def _update_joint(
    state: Optional[Tensor], preds: Tensor, target: Tensor, flattened: bool = False, fresh: bool = True,
    weight: Optional[Tensor] = None,
) -> Tensor:
    n, d = preds.shape
    if state is None:
        if n == 0:
            return _empty_joint(d, device=preds.device)
        shifts = torch.cat([preds[:1], target[:1]]).to(_F64)
        state, fresh = torch.cat([_constant(0.0, 3, d, preds.device), shifts, _empty_joint_sums(d, preds.device)]), False
    if n == 0:
        return state
    if state.shape[1] != d:
        state = _check_width(state, d, _empty_joint)
    if fresh:  # the shifts become this batch's first observation (any sums are re-expressed around it)
        state = _rebased(state, torch.stack([preds[0], target[0]]).to(_F64))
    dx = preds - state[_JKX]  # float64: the shifts are float64 rows
    dy = target - state[_JKY]
    shifted = torch.stack([dx, dy, dy - dx])  # (3, n, d): x, y and e around their shifts
    if weight is not None:
        return _weighted_joint(state, shifted, (n, n if (preds.dtype == _F64 or target.dtype == _F64) else 0,
                                                n if flattened else 0), weight)
    if shifted.requires_grad:  # torch before 2.5 has no derivative for aminmax
        low, high = shifted[:2].amin(dim=1), shifted[:2].amax(dim=1)
    else:
        low, high = torch.aminmax(shifted[:2], dim=1)
    flags = (n, n if (preds.dtype == _F64 or target.dtype == _F64) else 0, n if flattened else 0, 0, 0)
    increment = torch.cat(
        [
            _head(flags, state.device).expand(-1, d),
            shifted.sum(dim=1),
            (shifted * shifted).sum(dim=1),
            (dx * dy).sum(dim=0, keepdim=True),
        ]
    )
    return torch.cat(
        [state[: _JMIN.start] + increment, torch.minimum(state[_JMIN], low), torch.maximum(state[_JMAX], high)]
    )


def _weighted_joint(state: Tensor, shifted: Tensor, flags: tuple, weight: Tensor) -> Tensor:
    """``_update_joint``'s sums of a weighted batch; its extremes over the samples of positive weight."""
    d = shifted.shape[-1]
    weighted = shifted * weight
    kept = weight > 0
    low = torch.where(kept, shifted[:2], float("inf")).amin(dim=1)
    high = torch.where(kept, shifted[:2], float("-inf")).amax(dim=1)
    increment = torch.cat(
        [
            weight.sum(dim=0, keepdim=True),
            _head(flags[1:] + (0, 0), state.device).expand(-1, d),
            weighted.sum(dim=1),
            (weighted * shifted).sum(dim=1),
            (weighted[0] * shifted[1]).sum(dim=0, keepdim=True),
        ]
    )
    return torch.cat(
        [state[: _JMIN.start] + increment, torch.minimum(state[_JMIN], low), torch.maximum(state[_JMAX], high)]
    )


def _merge_joint(stacked: Tensor) -> Tensor:
    """Rebase every side onto the shifts of the first side with data, then add (extremes: min and max)."""
    stacked = stacked.to(_F64)
    seen = stacked[:, _COUNT] > 0  # (k, d)
    first = seen.to(torch.int8).argmax(dim=0)  # (d,); 0 when nothing was seen
    shift = stacked[:, _JKX : _JKY + 1].gather(0, first.expand(1, 2, -1))  # (1, 2, d)
    rebased = _rebased(stacked, shift)
    out = rebased.sum(dim=0)
    out[_JKX : _JKY + 1] = shift[0]
    present = seen.unsqueeze(1)  # sides without data (zero padding too) are neutral
    out[_JMIN] = torch.where(present, rebased[:, _JMIN], float("inf")).amin(dim=0)
    out[_JMAX] = torch.where(present, rebased[:, _JMAX], float("-inf")).amax(dim=0)
    return out


def _lift_joint(state: Tensor) -> Tensor:
    n = state[_COUNT : _COUNT + 1]
    seen = n > 0
    safe_n = _safe(n)
    kx, ky = state[_JKX : _JKX + 1], state[_JKY : _JKY + 1]
    shifts = state[_JKX : _JKY + 1]
    s1 = state[_JS1]  # x, y, e
    means = torch.where(seen, torch.cat([shifts, ky - kx]) + s1 / safe_n, 0.0)
    m2 = state[_JS2] - s1 * s1 / safe_n  # x, y, e
    c_xy = state[_JSXY : _JSXY + 1] - s1[:1] * s1[1:2] / safe_n
    m2_x, m2_y, m2_e = m2[:1], m2[1:2], m2[2:]
    c_xe, c_ye = c_xy - m2_x, m2_y - c_xy  # e = y - x
    comoments = [m2_x, c_xy, c_xe, c_xy, m2_y, c_ye, c_xe, c_ye, m2_e]  # row-major over (x, y, e)
    mins = torch.where(seen, state[_JMIN] + shifts, float("inf"))
    maxs = torch.where(seen, state[_JMAX] + shifts, float("-inf"))
    flags = (state[_N_F64 : _N_FLAT + 1] > 0).to(_F64)
    return torch.cat([n, means, *comoments, mins, maxs, flags])


MOMENTS = Statistic(3, "moments", _empty_joint, _update_joint, _merge_joint)
LEVELS = (SSE, R2, TARGET_RESIDUAL, MOMENTS)


def merge_pair(current: Tensor, incoming: Tensor, statistic: Statistic) -> Tensor:
    """Merge two states of one level; an empty single-column side widens to the other's column count."""
    if current.shape != incoming.shape:
        if current.shape[1] == 1 and not bool(current[_COUNT].any()):
            current = statistic.empty(incoming.shape[1], device=current.device)
        elif incoming.shape[1] == 1 and not bool(incoming[_COUNT].any()):
            incoming = statistic.empty(current.shape[1], device=current.device)
        else:
            raise MetricInputError(
                f"Expected inputs with {current.shape[1]} output column(s) as in earlier batches,"
                f" got {incoming.shape[1]} (from `preds`)"
            )
    return statistic.merge(torch.stack([current, incoming]))
