"""Perplexity of a language model: ``exp`` of the mean negative log-likelihood of the targets.

:func:`perplexity_sums` reduces a batch to the summed negative log-probability (float64) and the
number of counted tokens, which add up over batches and ranks.

>>> import torch
>>> gen = torch.manual_seed(42)
>>> preds = torch.rand(2, 8, 5, generator=gen)
>>> target = torch.randint(5, (2, 8), generator=gen)
>>> target[0, 6:] = -100
>>> perplexity(preds, target, ignore_index=-100)
tensor(5.8540)
"""

from __future__ import annotations

import torch
from torch import Tensor

from lightning_metrics.utilities.checks import check_optional_int, may_hold_nonfinite, raise_if_nonfinite


def check_ignore_index(ignore_index: object) -> None:
    check_optional_int("ignore_index", ignore_index)


def _check_inputs(preds: Tensor, target: Tensor) -> None:
    if not isinstance(preds, Tensor) or not isinstance(target, Tensor):
        raise TypeError(
            f"Arguments `preds` and `target` must be tensors, got {type(preds).__name__} and {type(target).__name__}"
        )
    if preds.ndim != 3:
        raise ValueError(
            f"Argument `preds` must have 3 dimensions [batch_size, seq_len, vocab_size], got shape {tuple(preds.shape)}"
        )
    if target.ndim != 2:
        raise ValueError(
            f"Argument `target` must have 2 dimensions [batch_size, seq_len], got shape {tuple(target.shape)}"
        )
    if preds.shape[:2] != target.shape:
        raise ValueError(
            "Arguments `preds` and `target` must agree on [batch_size, seq_len], got "
            f"{tuple(preds.shape[:2])} and {tuple(target.shape)}"
        )
    if not preds.is_floating_point():
        raise TypeError(f"Argument `preds` must be a floating point tensor, got {preds.dtype}")
    if target.dtype != torch.int64:
        raise TypeError(f"Argument `target` must be an int64 tensor, got {target.dtype}")


def perplexity_sums(
    preds: Tensor, target: Tensor, ignore_index: int | None = None
) -> tuple[Tensor, Tensor]:
    """The summed negative log-probability of the targets (float64) and how many were counted (int64).

    The log-probabilities are a ``log_softmax`` in float64, so a token whose probability underflows
    in float32 still gets its finite log-probability. One host read checks the counted tokens: a
    class outside the vocabulary, or a NaN logit, raises (``-inf`` logits, a masked vocabulary, are
    fine).
    """
    _check_inputs(preds, target)
    vocab = preds.shape[-1]
    logits = preds.reshape(-1, vocab)
    flat = target.reshape(-1)
    keep = flat != ignore_index if ignore_index is not None else torch.ones_like(flat, dtype=torch.bool)
    index = torch.where(keep, flat, 0)
    if index.numel():
        low, high = torch.aminmax(index)
        # a row's sum is NaN when one of its logits is (or when +inf meets -inf: then nothing is found)
        row_sums = torch.where(keep, logits.sum(1, dtype=torch.float64), 0.0)
        nan = may_hold_nonfinite(row_sums, allow_inf=True)
        outside, has_nan = torch.stack([(low < 0) | (high >= vocab), nan]).tolist()  # one host sync
        if has_nan:
            counted = torch.where(keep[:, None], logits, 0.0).reshape(preds.shape)  # ignored ones unread
            raise_if_nonfinite("preds", counted, allow_inf=True)
        if outside:  # a bad index must not reach the kernel
            bad = index[(index < 0) | (index >= vocab)][0].item()
            raise ValueError(
                f"Argument `target` holds the class {bad}, outside the vocabulary [0, {vocab}) of `preds`"
                + (f" (and is not `ignore_index`={ignore_index})" if ignore_index is not None else "")
            )
    log_probs = torch.log_softmax(logits.to(torch.float64), dim=1).gather(1, index[:, None])[:, 0]
    return -torch.where(keep, log_probs, 0.0).sum(), keep.sum()  # a NaN of an ignored token stays out


def perplexity_from_sums(total: Tensor, count: Tensor, dtype: torch.dtype = torch.float32) -> Tensor:
    """``exp(total / count)`` in ``dtype``."""
    return torch.exp(total / count).to(dtype)


def perplexity(preds: Tensor, target: Tensor, ignore_index: int | None = None) -> Tensor:
    """Perplexity of ``preds`` (logits, ``[batch, seq, vocab]``) for the ``target`` tokens ``[batch, seq]``.

    >>> import torch
    >>> perplexity(torch.zeros(1, 3, 4), torch.tensor([[0, 1, 2]]))
    tensor(4.)
    """
    check_ignore_index(ignore_index)
    total, count = perplexity_sums(preds, target, ignore_index)
    return perplexity_from_sums(total, count, preds.dtype)
