"""torchmetrics' clustering helpers (``torchmetrics.functional.clustering.utils``), served natively.

Code written against torchmetrics imports these to build its own clustering scores: contingency
tables, entropies, power means, the pair confusion matrix and the label checks. They take
torchmetrics 1.9's arguments and return its values, dtypes and shapes. The tables come from our
contingency core (:mod:`lightning_metrics.functional._contingency`); the float32 arithmetic of
the entropies and of :func:`expected_mutual_info_score` follows torchmetrics' own, term by term,
so that the values agree to the last bit rather than to float32 noise.

``expected_mutual_info_score`` is torchmetrics' step of the adjusted mutual information (it lives
at ``functional.clustering.adjusted_mutual_info_score``); here it is one vectorised pass over
every feasible cell count instead of a Python loop per count.

>>> import torch
>>> from lightning_metrics.functional.clustering.utils import calculate_contingency_matrix
>>> calculate_contingency_matrix(torch.tensor([2, 1, 0, 1, 0]), torch.tensor([0, 2, 1, 1, 0]))
tensor([[1, 0, 1],
        [1, 1, 0],
        [0, 1, 0]])
"""

from __future__ import annotations

from typing import Literal, Optional, Union

import torch
from torch import Tensor

from lightning_metrics.functional._contingency import _EMI_CHUNK, _chunks, dense_table
from lightning_metrics.functional.clustering.labels import check_average_method as _check_average_method
from lightning_metrics.functional.clustering.labels import check_cluster_labels as _check_labels
from lightning_metrics.utilities.exceptions import MetricInputError

_MEANS = ("min", "geometric", "arithmetic", "max")

# torchmetrics' names at this path (expected_mutual_info_score is served from adjusted_mutual_info_score's)
__all__ = [
    "calculate_contingency_matrix",
    "calculate_entropy",
    "calculate_generalized_mean",
    "calculate_pair_cluster_confusion_matrix",
    "check_cluster_labels",
    "is_nonnegative",
]


def is_nonnegative(x: Tensor, atol: float = 1e-5) -> Tensor:
    """Whether every element is positive or within ``atol`` of zero (a 0-dim bool tensor).

    >>> import torch
    >>> is_nonnegative(torch.tensor([0.5, 0.0, -1e-7])), is_nonnegative(torch.tensor([1.0, -0.1]))
    (tensor(True), tensor(False))
    """
    return ((x > 0) | (x.abs() < atol)).all()


def calculate_entropy(x: Tensor) -> Tensor:
    """Shannon entropy (nats) of the label distribution in ``x`` (labels of any values).

    float32 as torchmetrics; ``1.0`` for an empty tensor and ``0`` for a single label, as there.

    >>> import torch
    >>> calculate_entropy(torch.tensor([1, 3, 2, 2, 1]))
    tensor(1.0549)
    """
    if len(x) == 0:  # no sample along the first dimension (a 0-dim tensor has no len, as there)
        return torch.tensor(1.0, device=x.device)
    counts = torch.unique(x, return_counts=True)[1]
    n = counts.sum()
    # float32 from the int64 counts, in torchmetrics' order of operations
    return -((counts / n) * (torch.log(counts) - torch.log(n))).sum()


def calculate_generalized_mean(
    x: Tensor, p: Union[int, Literal["min", "geometric", "arithmetic", "max"]]
) -> Tensor:
    """The power mean of non-negative values: ``"min"``, ``"geometric"``, ``"arithmetic"``, ``"max"``
    or ``mean(x ** p) ** (1 / p)`` for a number ``p`` (the result in ``x``'s dtype, as torch gives it).

    >>> import torch
    >>> x = torch.tensor([1.0, 3.0, 2.0, 2.0, 1.0])
    >>> calculate_generalized_mean(x, "geometric"), calculate_generalized_mean(x, 2)
    (tensor(1.6438), tensor(1.9494))
    """
    if torch.is_complex(x) or not bool(is_nonnegative(x)):
        raise ValueError("Argument `x` must hold non-negative real numbers")
    if isinstance(p, str):
        if p not in _MEANS:
            raise ValueError(f"Argument `p` must be a number or one of {_MEANS}, got {p!r}")
        if p == "geometric":
            return torch.exp(torch.mean(torch.log(x)))
        return {"min": torch.min, "arithmetic": torch.mean, "max": torch.max}[p](x)
    return torch.mean(torch.pow(x, p)) ** (1.0 / p)


def calculate_contingency_matrix(
    preds: Tensor, target: Tensor, eps: Optional[float] = None, sparse: bool = False
) -> Tensor:
    """The ``(target labels, preds labels)`` table of co-occurrence counts (int64; labels sorted).

    ``eps`` (a truthy number) is added to every cell of the dense table (float32 then); ``sparse``
    returns a coalesced sparse COO tensor instead, built from the occupied cells only (memory in
    the number of distinct label pairs, not in the product of the label counts).

    >>> import torch
    >>> preds, target = torch.tensor([2, 1, 0, 1, 0]), torch.tensor([0, 2, 1, 1, 0])
    >>> calculate_contingency_matrix(preds, target, eps=0.5)
    tensor([[1.5000, 0.5000, 1.5000],
            [1.5000, 1.5000, 0.5000],
            [0.5000, 1.5000, 0.5000]])
    >>> calculate_contingency_matrix(preds, target, sparse=True).to_dense().equal(
    ...     calculate_contingency_matrix(preds, target))
    True
    """
    if eps is not None and sparse is True:
        raise ValueError("Arguments `eps` and `sparse=True` exclude each other: a sparse table has no eps")
    if preds.ndim != 1 or target.ndim != 1:
        raise ValueError(
            f"Arguments `preds` and `target` must be 1-D, got {preds.ndim}-D and {target.ndim}-D"
        )
    if preds.shape != target.shape:  # torchmetrics fails inside torch here; say why
        raise MetricInputError(
            "Arguments `preds` and `target` must have the same length, got "
            f"{preds.numel()} and {target.numel()}"
        )
    if not sparse:
        table = dense_table(preds, target)
        return table + eps if eps else table
    preds_values, cols = torch.unique(preds, return_inverse=True)
    target_values, rows = torch.unique(target, return_inverse=True)
    width = max(preds_values.numel(), 1)
    cells, counts = torch.unique(rows * width + cols, return_counts=True)
    indices = torch.stack((cells // width, cells % width))
    size = (target_values.numel(), preds_values.numel())
    return torch.sparse_coo_tensor(indices, counts, size, check_invariants=False).coalesce()


def check_cluster_labels(preds: Tensor, target: Tensor) -> None:
    """Raise unless ``preds`` and ``target`` are 1-D integer tensors of the same shape.

    A shape mismatch raises :class:`~lightning_metrics.utilities.exceptions.MetricInputError`
    (both the ``RuntimeError`` torchmetrics raises there and a ``ValueError``); the rest a
    ``ValueError``, as in torchmetrics.

    >>> import torch
    >>> check_cluster_labels(torch.tensor([0, 1]), torch.tensor([1, 1]))
    >>> check_cluster_labels(torch.tensor([0.0, 1.0]), torch.tensor([1, 1]))
    Traceback (most recent call last):
    ...
    ValueError: Argument `preds` must hold integer cluster labels, got dtype torch.float32; ...
    """
    if isinstance(preds, Tensor) and isinstance(target, Tensor) and preds.shape != target.shape:
        raise MetricInputError(
            f"Arguments `preds` and `target` must have the same shape, got {tuple(preds.shape)} and "
            f"{tuple(target.shape)}"
        )
    _check_labels(preds, target)


# torchmetrics' private checks at this path, kept for clustering scores written against them
def _validate_average_method_arg(
    average_method: Literal["min", "geometric", "arithmetic", "max"] = "arithmetic",
) -> None:
    """Raise a ``ValueError`` unless ``average_method`` is one of the four means.

    >>> _validate_average_method_arg("harmonic")
    Traceback (most recent call last):
    ...
    ValueError: Argument `average_method` must be one of ('min', 'geometric', 'arithmetic', 'max'), got 'harmonic'
    """
    _check_average_method(average_method)


def _is_real_discrete_label(x: Tensor) -> bool:
    """Whether a 1-D tensor of labels holds integers (neither floating point nor complex).

    >>> import torch
    >>> _is_real_discrete_label(torch.tensor([1, 2])), _is_real_discrete_label(torch.tensor([1.0]))
    (True, False)
    """
    if x.ndim != 1:
        raise ValueError(f"Argument `x` must be a 1-D tensor of labels, got {x.ndim}-D")
    return not (torch.is_floating_point(x) or torch.is_complex(x))


def _validate_intrinsic_cluster_data(data: Tensor, labels: Tensor) -> None:
    """Raise a ``ValueError`` unless ``data`` is a 2-D floating tensor and ``labels`` is 1-D.

    >>> import torch
    >>> _validate_intrinsic_cluster_data(torch.zeros(4, 2), torch.zeros(4).long())
    """
    if data.ndim != 2:
        raise ValueError(f"Argument `data` must be 2-D (samples, features), got {data.ndim}-D")
    if not data.is_floating_point():
        raise ValueError(f"Argument `data` must be floating point, got {data.dtype}")
    if labels.ndim != 1:
        raise ValueError(f"Argument `labels` must be 1-D, got {labels.ndim}-D")


def _validate_intrinsic_labels_to_samples(num_labels: int, num_samples: int) -> None:
    """Raise a ``ValueError`` unless there are more than one and fewer than ``num_samples`` clusters.

    >>> _validate_intrinsic_labels_to_samples(1, 10)
    Traceback (most recent call last):
    ...
    ValueError: There must be more than one cluster and fewer than the samples, got 1 clusters and 10 samples
    """
    if not 1 < num_labels < num_samples:
        raise ValueError(
            "There must be more than one cluster and fewer than the samples, got "
            f"{num_labels} clusters and {num_samples} samples"
        )


def calculate_pair_cluster_confusion_matrix(
    preds: Optional[Tensor] = None,
    target: Optional[Tensor] = None,
    contingency: Optional[Tensor] = None,
) -> Tensor:
    """The 2x2 matrix of ordered sample pairs: ``[[neither, together in target only],
    [together in preds only, together in both]]``, from two labelings or from their contingency
    table (in the table's dtype; int64 from labels).

    >>> import torch
    >>> calculate_pair_cluster_confusion_matrix(torch.tensor([0, 0, 1, 2]), torch.tensor([0, 0, 1, 1]))
    tensor([[8, 2],
            [0, 2]])
    """
    if preds is None and target is None and contingency is None:
        raise ValueError("Pass either `preds` and `target` or `contingency`")
    if preds is not None and target is not None and contingency is not None:
        raise ValueError("Pass either `preds` and `target` or `contingency`, not both")
    if preds is not None and target is not None:
        contingency = calculate_contingency_matrix(preds, target)
    if contingency is None:
        raise ValueError("Pass `contingency` when `preds` and `target` are not both given")
    n = contingency.sum()
    together = (contingency**2).sum()  # ordered pairs (self-pairs included) together in both
    in_preds = (contingency * contingency.sum(dim=0)).sum()  # sum over cells of n_ij * |preds cluster j|
    in_target = (contingency.T * contingency.sum(dim=1)).sum()  # sum over cells of n_ij * |target class i|
    out = torch.empty(2, 2, dtype=contingency.dtype, device=contingency.device)
    out[1, 1] = together - n
    out[1, 0] = in_preds - together
    out[0, 1] = in_target - together
    out[0, 0] = n**2 - out[0, 1] - out[1, 0] - together
    return out


def expected_mutual_info_score(contingency: Tensor, n_samples: int) -> Tensor:
    """The mutual information expected between random labelings with the table's margins
    (Vinh, Epps and Bailey 2010), the chance term of the adjusted mutual information.

    float32 for an integer table, with torchmetrics' arithmetic: every term of the sum over cells
    ``(i, j)`` and counts ``n_ij`` is the same float32 value, and the terms are added one after the
    other in torchmetrics' order (cells row by row, counts ascending), so the result is the same
    to the bit; the terms are computed at once, in chunks of about a million.

    >>> import torch
    >>> expected_mutual_info_score(torch.tensor([[1, 1], [0, 3]]), 5)
    tensor(0.1604)
    """
    a = contingency.sum(dim=1).reshape(-1)
    b = contingency.sum(dim=0).reshape(-1)
    device = a.device
    if a.numel() == 1 or b.numel() == 1:
        return torch.tensor(0.0, device=device)
    # per count n_ij (index), the factors that depend on it alone; count 0 never occurs (set to 1)
    counts = torch.arange(0, max(a.max().item(), b.max().item()) + 1, device=device)
    counts[0] = 1
    share = counts / n_samples
    log_n_count = torch.log(torch.tensor(n_samples, device=device)) + torch.log(counts)
    lgamma_n = torch.lgamma(torch.tensor(n_samples + 1, dtype=a.dtype, device=device))
    lgamma_count = torch.lgamma(counts + 1) + lgamma_n
    log_a, log_b = torch.log(a), torch.log(b)
    lgamma_a, lgamma_b = torch.lgamma(a + 1), torch.lgamma(b + 1)
    lgamma_rest_a, lgamma_rest_b = torch.lgamma(n_samples - a + 1), torch.lgamma(n_samples - b + 1)
    # cells in row-major order, each with its feasible counts [first, last) (truncated as Python's int())
    rows = torch.arange(a.numel(), device=device).repeat_interleave(b.numel())
    cols = torch.arange(b.numel(), device=device).repeat(a.numel())
    first = torch.clamp(a[rows] - n_samples + b[cols], min=1).floor().long()
    last = (torch.minimum(a[rows], b[cols]) + 1).floor().long()
    lengths = (last - first).clamp(min=0)
    total = torch.zeros((), dtype=torch.float32)
    for chunk in _chunks(lengths.cpu(), _EMI_CHUNK):
        chunk = chunk.to(device)
        length = lengths[chunk]
        cell = chunk.repeat_interleave(length)
        begin = (torch.cumsum(length, 0) - length).repeat_interleave(length)
        offset = torch.arange(int(length.sum()), device=device) - begin
        nij = first[cell] + offset
        i, j = rows[cell], cols[cell]
        ai, bj = a[i], b[j]
        info = log_n_count[nij] - log_a[i] - log_b[j]
        log_prob = (
            lgamma_a[i]
            + lgamma_b[j]
            + lgamma_rest_a[i]
            + lgamma_rest_b[j]
            - lgamma_count[nij]
            - torch.lgamma(ai - nij + 1)
            - torch.lgamma(bj - nij + 1)
            - torch.lgamma(n_samples - ai - bj + nij + 1)
        )
        total = _add_in_order(total, share[nij] * info * torch.exp(log_prob))
    return total.to(device)


def _add_in_order(total: Tensor, terms: Tensor) -> Tensor:
    """``total`` (float32) plus every term, one after the other, rounding to float32 at each step, as
    ``emi += term`` does in a loop (numpy's ``add.accumulate`` is such a sequential sum; torch's
    ``cumsum`` accumulates in double)."""
    import numpy as np

    if terms.numel() == 0:
        return total
    values = terms.detach().cpu()
    if values.dtype == torch.float32:
        running = np.add.accumulate(torch.cat((total.reshape(1), values)).numpy(), dtype=np.float32)
        return torch.tensor(running[-1])
    acc = np.float32(total.item())  # a wider term: added in its precision, then rounded to float32
    for term in values.double().tolist():
        acc = np.float32(float(acc) + term)
    return torch.tensor(acc)
