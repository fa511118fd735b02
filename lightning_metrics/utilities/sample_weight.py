"""The one check and broadcast of ``sample_weight``, the keyword every weighted metric takes.

The rules, the same for every metric and function that takes ``sample_weight`` (stated here once):

- one weight per sample, shape ``(N,)``; also a scalar (every sample alike), or a tensor whose shape is
  a leading part of the target's shape (``(N,)``, ``(N, C)``, ...) or the whole of it: it is broadcast
  over the remaining dimensions, as scikit-learn and Keras do (a sample with several outputs, positions
  or labels weighs each of them by its weight);
- weights are finite and non-negative (checked with ``validate_args``, as the other value checks);
- a zero weight removes the sample exactly, integer weights equal repeated samples, a constant weight
  gives the unweighted value of every scale-free measure (counts scale by it);
- weighted statistics are float64: exact sums of integer weights up to 2**53;
- ``ignore_index`` drops a position whatever its weight.

>>> import torch
>>> as_sample_weight([1, 2], (2, 3), device=torch.device("cpu"))
tensor([[1., 1., 1.],
        [2., 2., 2.]], dtype=torch.float64)
>>> as_sample_weight(torch.tensor([1.0, -1.0]), (2,), device=torch.device("cpu"))
Traceback (most recent call last):
...
lightning_metrics.utilities.exceptions.MetricInputError: Argument `sample_weight` must hold finite, non-negative weights, got -1.0 at index 1
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import torch
from torch import Tensor

from lightning_metrics.utilities.exceptions import MetricInputError


def _as_tensor(sample_weight: Any, device: Optional[torch.device]) -> Tensor:
    if isinstance(sample_weight, Tensor):
        if sample_weight.is_complex() or sample_weight.dtype == torch.bool:
            raise MetricInputError(
                f"Argument `sample_weight` must hold real numbers, got a tensor of dtype {sample_weight.dtype}"
            )
        return sample_weight.to(device=device, dtype=torch.float64)
    try:
        return torch.as_tensor(sample_weight, dtype=torch.float64, device=device)
    except (TypeError, ValueError, RuntimeError) as err:
        raise MetricInputError(
            f"Argument `sample_weight` must be None, a number or a tensor of weights, got {sample_weight!r}"
        ) from err


def check_sample_weight_values(weight: Tensor) -> None:
    """Raise naming the first weight that is negative, NaN or infinite (one host sync).

    >>> check_sample_weight_values(torch.tensor([0.0, 2.5]))
    """
    if weight.numel() == 0:
        return
    low, high = torch.aminmax(weight)  # the common case in two reductions and one host read
    if bool((low >= 0) & torch.isfinite(high)):  # NaN fails both comparisons
        return
    bad = ~(torch.isfinite(weight) & (weight >= 0))
    if bool(bad.any()):
        index = tuple(int(i) for i in bad.nonzero()[0])
        where = index[0] if len(index) == 1 else index
        raise MetricInputError(
            "Argument `sample_weight` must hold finite, non-negative weights, "
            f"got {float(weight[index])} at index {where}"
        )


def as_sample_weight(
    sample_weight: Any,
    target_shape: Sequence[int],
    *,
    device: Optional[torch.device] = None,
    validate: bool = True,
) -> Optional[Tensor]:
    """``sample_weight`` checked and broadcast to ``target_shape`` (a float64 view), or ``None``.

    A weight of shape ``(N,)`` (or any leading part of ``target_shape``) is broadcast over the
    trailing dimensions; a scalar over all of them. With ``validate`` the values are checked (finite,
    non-negative). The error names the argument, its shape and the target's.

    >>> import torch
    >>> as_sample_weight(None, (3,)) is None
    True
    >>> as_sample_weight(2.0, (2,))
    tensor([2., 2.], dtype=torch.float64)
    """
    if sample_weight is None:
        return None
    weight = _as_tensor(sample_weight, device)
    shape = tuple(int(s) for s in target_shape)
    if weight.ndim > 0 and (weight.ndim > len(shape) or tuple(weight.shape) != shape[: weight.ndim]):
        raise MetricInputError(
            f"Argument `sample_weight` must have one weight per sample: shape ({shape[0] if shape else ''},) or a "
            f"leading part of the target's shape {shape}, got shape {tuple(weight.shape)}"
        )
    if validate:
        check_sample_weight_values(weight)
    return weight.reshape(weight.shape + (1,) * (len(shape) - weight.ndim)).expand(shape)


def per_sample(sample_weight: Any, num_samples: int, *, device: Optional[torch.device] = None,
               validate: bool = True) -> Optional[Tensor]:
    """``sample_weight`` as one float64 weight per sample, ``(num_samples,)`` (a scalar is broadcast).

    For metrics whose samples are the rows of their inputs and whose weights cannot vary within a
    sample (a ranking of one sample's scores, a whole image).

    >>> per_sample(torch.tensor([1, 0, 3]), 3)
    tensor([1., 0., 3.], dtype=torch.float64)
    """
    return as_sample_weight(sample_weight, (num_samples,), device=device, validate=validate)


__all__ = ["as_sample_weight", "check_sample_weight_values", "per_sample"]
