"""Permutation invariant training (PIT): the best assignment of estimated to reference speakers.

``"speaker-wise"`` evaluates ``metric_func`` on every (reference, estimate) pair once, then finds
the permutation with the best mean on the device, by scoring all ``S!`` permutations at once in
one gather (exact, no host sync; torchmetrics reads the matrix back to the host and runs SciPy's
Hungarian solver from 3 speakers on, which finds the same optimum). Past
:data:`EXHAUSTIVE_MAX_SPEAKERS` speakers, SciPy's solver is used. ``"permutation-wise"`` evaluates
``metric_func`` on every permuted estimate, for metrics that score all speakers together.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import permutations
from typing import Any, Callable

import torch
from torch import Tensor

EXHAUSTIVE_MAX_SPEAKERS = 7  # 5040 permutations per mixture
PIT_MODES = ("speaker-wise", "permutation-wise")
EVAL_FUNCS = ("max", "min")


@lru_cache(maxsize=None)
def _permutation_table(speakers: int) -> Tensor:
    return torch.tensor(list(permutations(range(speakers))), dtype=torch.int64)


def speaker_permutations(speakers: int, device: torch.device) -> Tensor:
    """Every permutation of ``speakers`` in lexicographic order ``(S!, S)`` (built once per size)."""
    return _permutation_table(speakers).to(device)


def check_pit_args(mode: object, eval_func: object) -> None:
    if eval_func not in EVAL_FUNCS:
        raise ValueError(f"Argument `eval_func` must be one of {EVAL_FUNCS}, got {eval_func!r}")
    if mode not in PIT_MODES:
        raise ValueError(f"Argument `mode` must be one of {PIT_MODES}, got {mode!r}")


def check_pit_inputs(preds: object, target: object) -> None:
    for name, value in (("preds", preds), ("target", target)):
        if not isinstance(value, Tensor):
            raise TypeError(f"Argument `{name}` must be a tensor, got {type(value).__name__}")
    if target.ndim < 2:  # type: ignore[union-attr]
        raise ValueError(f"Inputs must have the shape (batch, speakers, ...), got target.shape={tuple(target.shape)}")  # type: ignore[union-attr]
    if preds.shape[:2] != target.shape[:2]:  # type: ignore[union-attr]
        raise RuntimeError(
            "`preds` and `target` must have the same batch and speaker sizes, got preds.shape="
            f"{tuple(preds.shape)} and target.shape={tuple(target.shape)}"  # type: ignore[union-attr]
        )


def _pair_matrix(preds: Tensor, target: Tensor, metric_func: Callable, **kwargs: Any) -> Tensor:
    """``(B, S, S)``: ``metric_func(preds[:, p], target[:, t])`` at ``[:, t, p]``."""
    speakers = target.shape[1]
    rows = [torch.stack([metric_func(preds[:, p], target[:, t], **kwargs) for p in range(speakers)], dim=-1)
            for t in range(speakers)]
    return torch.stack(rows, dim=-2)


def _best_exhaustive(matrix: Tensor, eval_func: str) -> tuple[Tensor, Tensor]:
    batch, speakers = matrix.shape[:2]
    perms = speaker_permutations(speakers, matrix.device)  # (P, S): estimate perms[k, t] for reference t
    index = perms.t().unsqueeze(0).expand(batch, speakers, perms.shape[0])
    scores = torch.gather(matrix, 2, index).mean(dim=1)  # (B, P)
    best, which = (scores.max if eval_func == "max" else scores.min)(dim=1)
    return best, perms[which.detach()]


def _best_hungarian(matrix: Tensor, eval_func: str) -> tuple[Tensor, Tensor]:
    from scipy.optimize import linear_sum_assignment

    host = matrix.detach().cpu()
    chosen = [linear_sum_assignment(m.numpy(), maximize=eval_func == "max")[1].tolist() for m in host]
    perm = torch.tensor(chosen, dtype=torch.int64, device=matrix.device)
    return torch.gather(matrix, 2, perm[:, :, None]).mean(dim=(-1, -2)), perm


def permutation_invariant_training(
    preds: Tensor,
    target: Tensor,
    metric_func: Callable,
    mode: str = "speaker-wise",
    eval_func: str = "max",
    **kwargs: Any,
) -> tuple[Tensor, Tensor]:
    """The best metric over speaker permutations ``(B,)`` and the best permutation ``(B, S)``
    (``perm[b, t]`` is the estimate assigned to reference ``t``). ``kwargs`` go to ``metric_func``.

    >>> import torch
    >>> from lightning_metrics.functional.audio import permutation_invariant_training
    >>> from lightning_metrics.functional.audio import scale_invariant_signal_distortion_ratio as si_sdr
    >>> target = torch.stack([torch.arange(32.0).sin(), torch.arange(32.0).cos()]).unsqueeze(0)
    >>> preds = target.flip(1) + 0.1
    >>> best, perm = permutation_invariant_training(preds, target, si_sdr)
    >>> best, perm
    (tensor([17.0026]), tensor([[1, 0]]))
    """
    check_pit_inputs(preds, target)
    check_pit_args(mode, eval_func)
    batch, speakers = target.shape[:2]
    if mode == "permutation-wise":
        perms = speaker_permutations(speakers, preds.device)
        count = perms.shape[0]
        permuted = preds.index_select(1, perms.reshape(-1)).reshape(batch * count, *preds.shape[1:])
        scores = metric_func(permuted, target.repeat_interleave(count, dim=0), **kwargs)
        scores = scores.reshape(batch, count, -1).mean(dim=-1)
        best, which = (scores.max if eval_func == "max" else scores.min)(dim=1)
        return best, perms[which.detach()]
    matrix = _pair_matrix(preds, target, metric_func, **kwargs)
    if speakers <= EXHAUSTIVE_MAX_SPEAKERS:
        return _best_exhaustive(matrix, eval_func)
    return _best_hungarian(matrix, eval_func)


def pit_permutate(preds: Tensor, perm: Tensor) -> Tensor:
    """Reorder the speakers of ``preds (B, S, ...)`` by ``perm (B, S)``.

    >>> import torch
    >>> from lightning_metrics.functional.audio import pit_permutate
    >>> pit_permutate(torch.tensor([[[1.0], [2.0]]]), torch.tensor([[1, 0]]))
    tensor([[[2.],
             [1.]]])
    """
    index = perm.reshape(*perm.shape, *([1] * (preds.ndim - 2))).expand(*perm.shape, *preds.shape[2:])
    return torch.gather(preds, 1, index)
