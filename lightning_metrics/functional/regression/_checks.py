"""Input checks shared by the regression metrics; messages name the argument and the offending value.

>>> import torch
>>> check_same_shape(torch.zeros(3), torch.zeros(4))
Traceback (most recent call last):
...
lightning_metrics.utilities.exceptions.MetricInputError: `preds` and `target` must have the same shape, got preds.shape=(3,) and target.shape=(4,)
"""

from __future__ import annotations

from torch import Tensor

from lightning_metrics.utilities.checks import check_bool  # noqa: F401  (re-exported: the one bool check)
from lightning_metrics.utilities.exceptions import MetricInputError

MULTIOUTPUT_CHOICES = ("raw_values", "uniform_average", "variance_weighted")


def check_same_shape(preds: Tensor, target: Tensor, names: tuple[str, str] = ("preds", "target")) -> None:
    """Raise :class:`MetricInputError` (a ``RuntimeError`` as torchmetrics raises, and a
    ``ValueError``) unless both tensors have the same shape."""
    if preds.shape != target.shape:
        a, b = names
        raise MetricInputError(
            f"`{a}` and `{b}` must have the same shape, got {a}.shape={tuple(preds.shape)}"
            f" and {b}.shape={tuple(target.shape)}"
        )


def check_num_outputs_arg(num_outputs: object) -> None:
    """``num_outputs`` must be a positive int."""
    if isinstance(num_outputs, bool) or not isinstance(num_outputs, int) or num_outputs < 1:
        raise ValueError(f"Argument `num_outputs` must be a positive integer, got {num_outputs!r}")


def check_columns(preds: Tensor, num_outputs: int, strict_single: bool) -> None:
    """Check that ``preds`` fits ``num_outputs``.

    ``num_outputs > 1`` needs ``(N, num_outputs)``. With ``num_outputs == 1``, ``strict_single`` demands
    ``(N,)`` or ``(N, 1)`` (correlations); otherwise any shape is accepted and flattened (errors).
    """
    if num_outputs > 1:
        if preds.ndim != 2 or preds.shape[1] != num_outputs:
            # A 1-D tensor is refused even when its length is num_outputs: it could be one sample of
            # num_outputs outputs or num_outputs samples of one output (torchmetrics reads the latter
            # and copies that one output's statistic to every output, a meaningless result).
            hint = ""
            if preds.ndim == 1:
                hint = "; a 1-D tensor holds N samples of one output, use num_outputs=1"
                if preds.shape[0] == num_outputs:
                    hint += f", or preds.unsqueeze(0) for one sample of {num_outputs} outputs"
            raise MetricInputError(
                f"Expected `preds` of shape (N, num_outputs) with num_outputs={num_outputs},"
                f" got preds.shape={tuple(preds.shape)}{hint}"
            )
    elif strict_single and not (preds.ndim == 1 or (preds.ndim == 2 and preds.shape[1] == 1)):
        raise MetricInputError(
            f"Expected `preds` of shape (N,) or (N, 1) with num_outputs=1, got preds.shape={tuple(preds.shape)};"
            " set `num_outputs` to the number of columns"
        )


def check_at_most_2d(preds: Tensor, metric: str) -> None:
    """The explained-variance family takes ``(N,)`` or ``(N, d)`` inputs."""
    if preds.ndim > 2:
        raise MetricInputError(f"{metric} expects 1D or 2D `preds`/`target`, got preds.shape={tuple(preds.shape)}")


def check_floating(name: str, tensor: Tensor) -> None:
    """Raise ``TypeError`` unless ``tensor`` has a floating dtype."""
    if not tensor.is_floating_point():
        raise TypeError(f"Expected `{name}` to be a floating point tensor, got {name}.dtype={tensor.dtype}")


def check_multioutput(multioutput: object) -> None:
    """``multioutput`` must be one of :data:`MULTIOUTPUT_CHOICES`."""
    if multioutput not in MULTIOUTPUT_CHOICES:
        raise ValueError(f"Argument `multioutput` must be one of {MULTIOUTPUT_CHOICES}, got {multioutput!r}")


def check_reduction(reduction: object, choices: tuple) -> None:
    """``reduction`` must be one of ``choices``."""
    if reduction not in choices:
        raise ValueError(f"Argument `reduction` must be one of {choices}, got {reduction!r}")


