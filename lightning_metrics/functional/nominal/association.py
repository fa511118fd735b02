"""Association between two categorical variables: Cramer's V, Tschuprow's T, Pearson's contingency
coefficient and Theil's U, each a formula over one contingency table.

Inputs are categorical series: 1-D values (integers, or floats that hold categories, possibly NaN) or
2-D ``(N, C)`` scores reduced with ``argmax``. NaN values are replaced by ``nan_replace_value``
(``nan_strategy="replace"``) or the pairs holding one are dropped (``"drop"``); values then count as
their integer part, as in torchmetrics. The functions relabel the categories that occur, so any values
work; the modular metrics keep a ``num_classes x num_classes`` table indexed by the values themselves.
The ``*_matrix`` forms give the measure between every pair of columns of an ``(N, V)`` matrix.
"""

from __future__ import annotations

import itertools
from numbers import Real
from typing import Any, Literal

import torch
from torch import Tensor

from lightning_metrics.functional._contingency import TableStats, dense_table
from lightning_metrics.functional._contingency_measures import MEASURES
from lightning_metrics.utilities.checks import check_choice

NAN_STRATEGIES = ("replace", "drop")
NanStrategy = Literal["replace", "drop"]


# ------------------------------------------------------------------ checks and formatting
def check_nan_args(nan_strategy: Any, nan_replace_value: Any) -> None:
    """``nan_strategy`` one of replace/drop; a number to replace with when it is ``"replace"``."""
    check_choice("nan_strategy", nan_strategy, NAN_STRATEGIES)
    if nan_strategy == "replace" and (
        isinstance(nan_replace_value, bool) or not isinstance(nan_replace_value, Real)
    ):
        raise ValueError(
            "Argument `nan_replace_value` must be an int or a float when `nan_strategy`='replace', "
            f"got {nan_replace_value!r}"
        )


def check_bias_correction(bias_correction: Any) -> None:
    if not isinstance(bias_correction, bool):
        raise ValueError(f"Argument `bias_correction` must be a bool, got {bias_correction!r}")


def check_association_args(nan_strategy: Any, nan_replace_value: Any, **options: Any) -> None:
    """The arguments of a measure, in the functions and the modular metrics alike: its own options
    (``bias_correction``, where it takes one), then the NaN handling."""
    if "bias_correction" in options:
        check_bias_correction(options["bias_correction"])
    check_nan_args(nan_strategy, nan_replace_value)


def _series(name: str, value: Any) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(f"Argument `{name}` must be a torch.Tensor, got {type(value).__name__}")
    if value.ndim == 2:
        return value.argmax(1)
    if value.ndim != 1:
        raise ValueError(
            f"Argument `{name}` must be 1-D (categories) or 2-D (samples, classes), "
            f"got shape {tuple(value.shape)}"
        )
    return value


def nominal_labels(
    preds: Tensor, target: Tensor, nan_strategy: str, nan_replace_value: float | None, as_long: bool = True
) -> tuple[Tensor, Tensor]:
    """Both series as int64 categories, NaN handled by ``nan_strategy``.

    ``as_long=False`` (the modular metrics, which check the range next): floating series stay
    floating, truncated, with their infinities, so that an error can show the value given.
    """
    preds, target = _series("preds", preds), _series("target", target)
    if preds.shape[0] != target.shape[0]:
        raise ValueError(
            f"Arguments `preds` and `target` must hold the same number of samples, got {preds.shape[0]} and "
            f"{target.shape[0]}"
        )
    if nan_strategy == "replace" and not as_long:  # NaN only: an infinity stays one
        preds, target = (v.masked_fill(v.isnan(), nan_replace_value) if v.is_floating_point() else v
                         for v in (preds, target))
    elif nan_strategy == "replace":
        preds = preds.nan_to_num(nan_replace_value) if preds.is_floating_point() else preds
        target = target.nan_to_num(nan_replace_value) if target.is_floating_point() else target
    elif preds.is_floating_point() or target.is_floating_point():
        keep = ~(_isnan(preds) | _isnan(target))
        preds, target = preds[keep], target[keep]
    if not as_long:
        preds, target = (v.trunc() if v.is_floating_point() else v for v in (preds, target))
        return preds, target
    return preds.long(), target.long()


def _isnan(values: Tensor) -> Tensor:
    return values.isnan() if values.is_floating_point() else torch.zeros_like(values, dtype=torch.bool)


def association(
    measure: str, preds: Tensor, target: Tensor, nan_strategy: str, nan_replace_value: Any, **options: Any
) -> Tensor:
    """``MEASURES[measure]`` of the contingency table of two categorical series."""
    check_association_args(nan_strategy, nan_replace_value, **options)
    preds, target = nominal_labels(preds, target, nan_strategy, nan_replace_value)
    return MEASURES[measure](TableStats(dense_table(preds, target)), **options)


def association_matrix(
    measure: str,
    matrix: Tensor,
    nan_strategy: str,
    nan_replace_value: Any,
    symmetric: bool = True,
    **options: Any,
) -> Tensor:
    """``(V, V)`` float32: the measure between columns ``i`` (as ``preds``) and ``j`` (as ``target``) at
    ``[i, j]``, 1 on the diagonal. Each column is relabelled once; each pair is one ``bincount``."""
    check_association_args(nan_strategy, nan_replace_value, **options)
    if not isinstance(matrix, Tensor) or matrix.ndim != 2:
        shape = tuple(matrix.shape) if isinstance(matrix, Tensor) else type(matrix).__name__
        raise ValueError(f"Argument `matrix` must be a 2-D tensor (samples, variables), got {shape}")
    num_variables = matrix.shape[1]
    out = torch.ones(num_variables, num_variables, device=matrix.device)
    missing = None
    if matrix.is_floating_point():
        if nan_strategy == "replace":
            matrix = matrix.nan_to_num(nan_replace_value)
        else:
            missing = matrix.isnan()
            matrix = matrix.nan_to_num(0.0)
    codes, sizes = [], []
    for column in matrix.long().unbind(1):
        values, code = torch.unique(column, return_inverse=True)
        codes.append(code)
        sizes.append(values.numel())
    for i, j in itertools.combinations(range(num_variables), 2):
        pred_code, target_code = codes[i], codes[j]
        if missing is not None:
            keep = ~(missing[:, i] | missing[:, j])
            pred_code, target_code = pred_code[keep], target_code[keep]
        flat = target_code * sizes[i] + pred_code
        table = torch.bincount(flat, minlength=sizes[j] * sizes[i]).reshape(sizes[j], sizes[i])
        stats = TableStats(table)
        out[i, j] = MEASURES[measure](stats, **options)
        out[j, i] = out[i, j] if symmetric else MEASURES[measure](stats.transposed(), **options)
    return out


# ------------------------------------------------------------------ the measures
def cramers_v(preds: Tensor, target: Tensor, bias_correction: bool = True,
              nan_strategy: NanStrategy = "replace", nan_replace_value: float | None = 0.0) -> Tensor:
    """Cramer's V: ``sqrt(chi2 / n / min(r - 1, k - 1))``, in [0, 1] (symmetric).

    ``bias_correction`` applies Bergsma's correction (and Yates' to 2x2 tables); a table it cannot
    correct gives NaN with a warning, as torchmetrics.

    >>> import torch
    >>> preds = torch.tensor([0, 1, 2, 2, 1, 0, 0, 1, 2, 2])
    >>> target = torch.tensor([0, 1, 2, 1, 1, 0, 0, 1, 2, 2])
    >>> cramers_v(preds, target)
    tensor(0.8478)
    """
    return association(
        "cramers_v", preds, target, nan_strategy, nan_replace_value, bias_correction=bias_correction
    )


def tschuprows_t(preds: Tensor, target: Tensor, bias_correction: bool = True,
                 nan_strategy: NanStrategy = "replace", nan_replace_value: float | None = 0.0) -> Tensor:
    """Tschuprow's T: ``sqrt(chi2 / n / sqrt((r - 1)(k - 1)))``, in [0, 1] (symmetric).

    >>> import torch
    >>> preds = torch.tensor([0, 1, 2, 2, 1, 0, 0, 1, 2, 2])
    >>> target = torch.tensor([0, 1, 2, 1, 1, 0, 0, 1, 2, 2])
    >>> tschuprows_t(preds, target)
    tensor(0.8478)
    """
    return association(
        "tschuprows_t", preds, target, nan_strategy, nan_replace_value, bias_correction=bias_correction
    )


def pearsons_contingency_coefficient(preds: Tensor, target: Tensor, nan_strategy: NanStrategy = "replace",
                                     nan_replace_value: float | None = 0.0) -> Tensor:
    """Pearson's contingency coefficient ``sqrt(phi2 / (1 + phi2))`` with ``phi2 = chi2 / n`` (symmetric).

    >>> import torch
    >>> preds = torch.tensor([0, 1, 2, 2, 1, 0, 0, 1, 2, 2])
    >>> target = torch.tensor([0, 1, 2, 1, 1, 0, 0, 1, 2, 2])
    >>> pearsons_contingency_coefficient(preds, target)
    tensor(0.7809)
    """
    return association("pearsons_contingency_coefficient", preds, target, nan_strategy, nan_replace_value)


def theils_u(preds: Tensor, target: Tensor, nan_strategy: NanStrategy = "replace",
             nan_replace_value: float | None = 0.0) -> Tensor:
    """Theil's uncertainty coefficient ``U(preds | target) = (H(preds) - H(preds | target)) / H(preds)``:
    how much knowing ``target`` tells about ``preds`` (asymmetric, in [0, 1]). When ``preds`` holds a
    single category it is an int64 ``tensor(0)``, as in torchmetrics.

    >>> import torch
    >>> preds = torch.tensor([0, 1, 2, 2, 1, 0, 0, 1, 2, 2])
    >>> target = torch.tensor([0, 1, 2, 1, 1, 0, 0, 1, 2, 2])
    >>> theils_u(preds, target)
    tensor(0.7934)
    """
    return association("theils_u", preds, target, nan_strategy, nan_replace_value)


def cramers_v_matrix(matrix: Tensor, bias_correction: bool = True, nan_strategy: NanStrategy = "replace",
                     nan_replace_value: float | None = 0.0) -> Tensor:
    """Cramer's V between every pair of columns of an ``(N, V)`` matrix of categorical variables.

    >>> import torch
    >>> matrix = torch.tensor([[0, 0, 1], [1, 1, 1], [2, 2, 0], [0, 0, 0], [1, 2, 1], [2, 2, 0]])
    >>> cramers_v_matrix(matrix, bias_correction=False)
    tensor([[1.0000, 0.8165, 0.8165],
            [0.8165, 1.0000, 0.4714],
            [0.8165, 0.4714, 1.0000]])
    """
    return association_matrix(
        "cramers_v", matrix, nan_strategy, nan_replace_value, bias_correction=bias_correction
    )


def tschuprows_t_matrix(matrix: Tensor, bias_correction: bool = True, nan_strategy: NanStrategy = "replace",
                        nan_replace_value: float | None = 0.0) -> Tensor:
    """Tschuprow's T between every pair of columns of an ``(N, V)`` matrix of categorical variables.

    >>> import torch
    >>> matrix = torch.tensor([[0, 0, 1], [1, 1, 1], [2, 2, 0], [0, 0, 0], [1, 2, 1], [2, 2, 0]])
    >>> tschuprows_t_matrix(matrix, bias_correction=False)
    tensor([[1.0000, 0.8165, 0.6866],
            [0.8165, 1.0000, 0.3964],
            [0.6866, 0.3964, 1.0000]])
    """
    return association_matrix(
        "tschuprows_t", matrix, nan_strategy, nan_replace_value, bias_correction=bias_correction
    )


def pearsons_contingency_coefficient_matrix(matrix: Tensor, nan_strategy: NanStrategy = "replace",
                                            nan_replace_value: float | None = 0.0) -> Tensor:
    """Pearson's contingency coefficient between every pair of columns of an ``(N, V)`` matrix.

    >>> import torch
    >>> matrix = torch.tensor([[0, 0, 1], [1, 1, 1], [2, 2, 0], [0, 0, 0], [1, 2, 1], [2, 2, 0]])
    >>> pearsons_contingency_coefficient_matrix(matrix)
    tensor([[1.0000, 0.7559, 0.6325],
            [0.7559, 1.0000, 0.4264],
            [0.6325, 0.4264, 1.0000]])
    """
    return association_matrix("pearsons_contingency_coefficient", matrix, nan_strategy, nan_replace_value)


def theils_u_matrix(matrix: Tensor, nan_strategy: NanStrategy = "replace",
                    nan_replace_value: float | None = 0.0) -> Tensor:
    """Theil's U between every pair of columns: ``U(column i | column j)`` at ``[i, j]`` (asymmetric).

    >>> import torch
    >>> matrix = torch.tensor([[0, 0, 1], [1, 1, 1], [2, 2, 0], [0, 0, 0], [1, 2, 1], [2, 2, 0]])
    >>> theils_u_matrix(matrix)
    tensor([[1.0000, 0.7103, 0.4206],
            [0.7716, 1.0000, 0.1422],
            [0.6667, 0.2075, 1.0000]])
    """
    return association_matrix("theils_u", matrix, nan_strategy, nan_replace_value, symmetric=False)


__all__ = [
    "cramers_v",
    "cramers_v_matrix",
    "pearsons_contingency_coefficient",
    "pearsons_contingency_coefficient_matrix",
    "theils_u",
    "theils_u_matrix",
    "tschuprows_t",
    "tschuprows_t_matrix",
]
