"""Perceptual evaluation of speech quality (PESQ, ITU-T P.862 / P.862.2) through the ``pesq``
package, which compiles the ITU reference code: the standard is defined by that code, so it is
called, not rewritten. ``pesq`` is an optional dependency (``pip install lightning_metrics[audio]``);
this module imports it on first use only.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

import numpy as np
import torch
from torch import Tensor

from lightning_metrics.functional.audio._projection import check_signals
from lightning_metrics.utilities.checks import check_bool

_INSTALL = "pip install lightning_metrics[audio]"


def pesq_available() -> bool:
    """Whether the ``pesq`` package can be imported."""
    return importlib.util.find_spec("pesq") is not None


def require_pesq(name: str = "perceptual_evaluation_speech_quality") -> Any:
    """The ``pesq`` module, or a ``ModuleNotFoundError`` that says how to install it."""
    try:
        return importlib.import_module("pesq")
    except ImportError as err:
        raise ModuleNotFoundError(
            f"{name} needs the `pesq` package (the ITU-T P.862 reference code, compiled on install): "
            f"`{_INSTALL}` or `pip install pesq`",
            name="pesq",
        ) from err


def check_pesq_args(fs: object, mode: object, n_processes: object = 1) -> None:
    """``fs`` 8000 or 16000, ``mode`` ``"nb"`` or ``"wb"`` (wide band needs 16 kHz), ``n_processes``
    a positive int."""
    if isinstance(fs, bool) or fs not in (8000, 16000):
        raise ValueError(f"Argument `fs` must be 8000 or 16000 (Hz), got {fs!r}")
    if mode not in ("wb", "nb"):
        raise ValueError(f"Argument `mode` must be 'wb' (wide band) or 'nb' (narrow band), got {mode!r}")
    if fs == 8000 and mode == "wb":
        raise ValueError("Argument `mode` 'wb' (wide band) needs `fs` 16000, got fs=8000")
    if isinstance(n_processes, bool) or not isinstance(n_processes, int) or n_processes < 1:
        raise ValueError(f"Argument `n_processes` must be a positive integer, got {n_processes!r}")


def pesq_values(preds: Tensor, target: Tensor, fs: int, mode: str, n_processes: int = 1) -> Tensor:
    """PESQ (MOS-LQO) of signals ``(batch, time)``: a float32 CPU tensor ``(batch,)``. Batches are
    spread over ``n_processes`` worker processes (``pesq.pesq_batch``) when it is above 1; an
    utterance that the reference code rejects raises its error either way."""
    backend = require_pesq()
    degraded = preds.detach().cpu().numpy()
    reference = target.detach().cpu().numpy()
    if n_processes > 1 and reference.shape[0] > 1:
        scores = backend.pesq_batch(fs, reference, degraded, mode, n_processor=n_processes)
        for index, score in enumerate(scores):
            if isinstance(score, BaseException):  # the workers return the error instead of raising it
                raise type(score)(f"PESQ of signal {index} of the batch failed: {score}") from score
    else:
        scores = [backend.pesq(fs, ref, deg, mode) for ref, deg in zip(reference, degraded)]
    return torch.from_numpy(np.asarray(scores, dtype=np.float32).reshape(len(scores)))


def perceptual_evaluation_speech_quality(
    preds: Tensor,
    target: Tensor,
    fs: int,
    mode: str,
    keep_same_device: bool = False,
    n_processes: int = 1,
) -> Tensor:
    """PESQ of the degraded ``preds`` against the reference ``target``, signals ``(..., time)``
    sampled at ``fs`` (8000 or 16000 Hz), ``mode`` ``"nb"`` (narrow band, P.862) or ``"wb"`` (wide
    band, P.862.2, 16 kHz only): one float32 value per signal, shape ``(...)``, on the CPU unless
    ``keep_same_device``. ``n_processes`` above 1 scores a batch in that many processes.

    Needs the ``pesq`` package (``pip install lightning_metrics[audio]``), which runs on the CPU.

    >>> import torch
    >>> from lightning_metrics.functional.audio import perceptual_evaluation_speech_quality
    >>> t = torch.arange(16000) / 8000
    >>> target = torch.sin(2 * torch.pi * 440 * t) * torch.sin(2 * torch.pi * 3 * t) ** 2
    >>> noise = torch.randn(16000, generator=torch.Generator().manual_seed(0))
    >>> perceptual_evaluation_speech_quality(target + 0.01 * noise, target, 8000, "nb")
    tensor(1.8618)
    """
    require_pesq()
    check_pesq_args(fs, mode, n_processes)
    check_bool("keep_same_device", keep_same_device)
    check_signals(preds, target)
    values = pesq_values(preds.reshape(-1, preds.shape[-1]), target.reshape(-1, target.shape[-1]), fs, mode,
                         n_processes)
    values = values.reshape(preds.shape[:-1])
    return values.to(preds.device) if keep_same_device else values
