"""Measures over a whole ``(C, C)`` confusion matrix, read off one summary of it.

:func:`confmat_summary` is the matrix's basis (diagonal, row sums, column sums, total) and its Gram
matrix, computed once per matrix for all its readers (``derived``): every per-class count is linear
in the basis (what the count-ratio measures of :func:`~._measures.confmat_measures` read), and the
terms of MCC and Cohen's kappa are entries of the Gram matrix (:func:`confmat_agreement`). The
normalized matrix (:func:`normalize_confmat`) is here too.
"""

from __future__ import annotations

from typing import Optional

import torch
from torch import Tensor

from lightning_metrics.utilities import memo
from lightning_metrics.utilities.memo import derived
from lightning_metrics.utilities.prints import warn_at_caller


def confmat_summary(confmat: Tensor) -> tuple[Tensor, Tensor]:
    """The basis and its Gram matrix of a ``(C, C)`` confusion matrix, from which every per-class count and
    the moments of the marginals are linear or bilinear: ``basis`` stacks the diagonal, the row sums
    (targets), the column sums (predictions) and the total, ``(4, C)`` in an exact float dtype (float64; float32
    on MPS), and ``gram = basis @ basis.T``. Computed once per matrix for all its readers
    (``derived``): a true positive is the diagonal, a false positive a column sum minus it, and so on.

    >>> basis, gram = confmat_summary(torch.tensor([[2, 1], [0, 3]]))
    >>> basis
    tensor([[2., 3.],
            [3., 3.],
            [2., 4.],
            [6., 6.]], dtype=torch.float64)
    >>> gram[1, 2].item(), gram[0, 3].item()  # rows·cols and trace * total
    (18.0, 30.0)
    """
    return derived("confmat_summary", confmat, _summary)


def _summary(confmat: Tensor) -> tuple[Tensor, Tensor]:
    exact = exact_dtype(confmat.device)  # integer sums below 2^53 are exact in float64
    num_classes = confmat.shape[0]
    if num_classes <= _SELECTED_UP_TO:  # a small matrix: the basis is one product with a 0/1 selection
        basis = (_selection(num_classes, exact, confmat.device) @ confmat.reshape(-1).to(exact)).view(4, num_classes)
        return basis, basis @ basis.T
    return summary_of(confmat.diagonal().to(exact), confmat.sum(1, dtype=exact), confmat.sum(0, dtype=exact))


_SELECTED_UP_TO = 24  # classes: a selection of 4C x C^2 entries stays below 2^16
_SELECTIONS: dict = {}


def _selection(num_classes: int, dtype: torch.dtype, device: torch.device) -> Tensor:
    """The ``(4C, C^2)`` 0/1 matrix that maps a flat ``(C, C)`` matrix to its diagonal, row sums, column sums
    and total (repeated C times): the summary basis."""
    key = (num_classes, dtype, device)
    selection = _SELECTIONS.get(key)
    if selection is None:
        c = num_classes
        eye = torch.eye(c, dtype=dtype)
        diagonal = torch.zeros(c, c, c, dtype=dtype)
        diagonal[torch.arange(c), torch.arange(c), torch.arange(c)] = 1  # class i picks entry (i, i)
        rows = eye.unsqueeze(2).expand(c, c, c)  # class i sums entries (i, j)
        cols = eye.unsqueeze(1).expand(c, c, c)  # class i sums entries (j, i)
        total = torch.ones(c, c, c, dtype=dtype)
        selection = torch.cat([diagonal, rows, cols, total]).reshape(4 * c, c * c).to(device)
        if len(_SELECTIONS) > 64:
            _SELECTIONS.clear()
        _SELECTIONS[key] = selection
    return selection


def summary_of(diagonal: Tensor, rows: Tensor, cols: Tensor) -> tuple[Tensor, Tensor]:
    """:func:`confmat_summary` of a matrix with this diagonal, row sums and column sums (exact dtype)."""
    basis = torch.stack([diagonal, rows, cols, rows.sum().expand(rows.shape[0])])
    return basis, basis @ basis.T


def seed_summary(confmat: Tensor, diagonal: Tensor, rows: Tensor, cols: Tensor) -> None:
    """Give the readers of ``confmat`` in an open ``shared_derivations`` scope its summary from marginals that
    its maker counted more cheaply than two passes over the matrix (a no-op outside a scope)."""
    memo.seed("confmat_summary", confmat, summary_of(diagonal, rows, cols))


def confmat_agreement(confmat: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """The terms of MCC and Cohen's kappa of a ``(C, C)`` confusion matrix, in an exact float dtype:
    ``trace * total - rows·cols`` (both numerators), ``total^2 - rows·cols`` (kappa's denominator),
    ``total^2 - cols·cols`` and ``total^2 - rows·rows`` (MCC's), one product of its summary's Gram matrix
    (``derived``: once per matrix for both measures).

    >>> [t.item() for t in confmat_agreement(torch.tensor([[2, 1], [0, 3]]))]
    [12.0, 18.0, 16.0, 18.0]
    """
    return derived("confmat_agreement", confmat, _agreement)


def _agreement(confmat: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    _, gram = confmat_summary(confmat)
    terms = _AGREEMENT_TERMS.get((gram.device, gram.dtype))
    if terms is None:
        terms = _AGREEMENT_TERMS[(gram.device, gram.dtype)] = _AGREEMENT.to(device=gram.device, dtype=gram.dtype)
    return (terms @ gram.reshape(-1)).unbind(0)  # integer terms below 2^53: exact


def _gram_at(i: int, j: int) -> int:
    return 4 * i + j  # the basis rows: diagonal 0, rows 1, cols 2, total 3


# each term a difference of two entries of the flat Gram matrix: diagonal·total = trace * total,
# rows·total = total^2, rows·cols, cols·cols, rows·rows
_AGREEMENT = torch.zeros(4, 16, dtype=torch.float64)
for _row, (_plus, _minus) in enumerate([((0, 3), (1, 2)), ((1, 3), (1, 2)), ((1, 3), (2, 2)), ((1, 3), (1, 1))]):
    _AGREEMENT[_row, _gram_at(*_plus)] += 1
    _AGREEMENT[_row, _gram_at(*_minus)] -= 1
_AGREEMENT_TERMS: dict = {}


def exact_dtype(device: torch.device) -> torch.dtype:
    """The float dtype in which integer counts stay exact (below 2^53; MPS has no float64: below 2^24)."""
    return torch.float32 if device.type == "mps" else torch.float64


def matthews_corrcoef(confmat: Tensor) -> Tensor:
    """MCC of a ``(C, C)`` confusion matrix; ``(L, 2, 2)`` multilabel matrices are summed first.

    Degenerate 2x2 matrices follow torchmetrics: perfect or fully wrong predictions give +1 / -1,
    and a zero denominator is regularised with ``eps`` so that the limit is returned.

    >>> matthews_corrcoef(torch.tensor([[2, 1], [0, 3]]))
    tensor(0.7071)
    """
    confmat = confmat.sum(0) if confmat.ndim == 3 else confmat
    numerator, _, by_cols, by_rows = confmat_agreement(confmat)
    denominator = by_cols * by_rows
    if confmat.numel() != 4:
        # 0 without a denominator, and no host sync: a zero denominator (all targets, or all predictions, in one
        # class) has a zero numerator, so the quotient is NaN exactly there
        return (numerator / denominator.sqrt()).nan_to_num_(0.0).float()
    one = torch.ones((), dtype=torch.float32, device=confmat.device)
    tn, fp, fn, tp = confmat.reshape(-1).tolist()  # ints, or floats for weighted counts
    if tp + tn != 0 and fp + fn == 0:
        return one
    if tp + tn == 0 and fp + fn != 0:
        return -one
    if denominator != 0:
        return (numerator / denominator.sqrt()).float()
    # A constant prediction or target: torchmetrics takes the limit with an eps-perturbed table.
    eps = torch.finfo(torch.float32).eps
    root_eps = eps**0.5
    if fn == 0 and tn == 0:
        num = root_eps * (tp - fp)
    elif fp == 0 and tn == 0:
        num = root_eps * (tp - fn)
    elif tp == 0 and fn == 0:
        num = root_eps * (tn - fp)
    elif tp == 0 and fp == 0:
        num = root_eps * (tn - fn)
    elif tp == 0:
        num = tn - fp * fn
    elif tn == 0:
        num = tp - fp * fn
    elif fp == 0 or fn == 0:
        num = tp * tn
    else:
        return 0 * one
    den = (tp + fp + eps) * (tp + fn + eps) * (tn + fp + eps) * (tn + fn + eps)
    return torch.tensor(num / den**0.5, dtype=torch.float32, device=confmat.device)


def cohen_kappa(confmat: Tensor, weights: Optional[str] = None) -> Tensor:
    """Cohen's kappa of a ``(C, C)`` confusion matrix, unweighted or with linear/quadratic weights.

    >>> cohen_kappa(torch.tensor([[2, 1], [0, 3]]))
    tensor(0.6667)
    """
    if weights not in ("linear", "quadratic"):
        # weights 1 off the diagonal: 1 - observed / expected disagreement, from the marginals alone (no (C, C)
        # temporaries), scaled by the total: (trace * total - rows·cols) / (total^2 - rows·cols), exact terms
        numerator, denominator, _, _ = confmat_agreement(confmat)
        return (numerator / denominator).float()
    cm = confmat if confmat.is_floating_point() else confmat.float()
    num_classes = cm.shape[0]
    expected = cm.sum(1, keepdim=True) @ cm.sum(0, keepdim=True) / cm.sum()
    idx = torch.arange(num_classes, device=cm.device, dtype=cm.dtype)
    distance = (idx.unsqueeze(1) - idx.unsqueeze(0)).abs()
    w = distance if weights == "linear" else distance**2
    return (1 - (w * cm).sum() / (w * expected).sum()).float()


def normalize_confmat(confmat: Tensor, normalize: Optional[str]) -> Tensor:
    """Normalize over targets (``"true"``, rows), predictions (``"pred"``) or ``"all"``; 0/0 -> 0.

    >>> normalize_confmat(torch.tensor([[2, 0], [1, 1]]), "true")
    tensor([[1.0000, 0.0000],
            [0.5000, 0.5000]])
    """
    if normalize is None or normalize == "none":
        return confmat
    cm = confmat.float()
    dims = {"true": (-1,), "pred": (-2,), "all": (-2, -1)}[normalize]
    cm = cm / cm.sum(dim=dims, keepdim=True)
    nans = torch.isnan(cm)
    if nans.any():
        warn_at_caller(f"{int(nans.sum())} NaN values found in confusion matrix have been replaced with zeros.")
        cm = torch.nan_to_num(cm, nan=0.0)
    return cm
