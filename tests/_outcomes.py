"""Comparing what a call gives in torchmetrics and in ours, exceptions included (the path tests of
torchmetrics' helper modules: clustering and segmentation utils, the retrieval base class)."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import torch


def outcome(call: Callable[[], Any]) -> Any:
    """What ``call()`` returns, or the exception it raises (warnings silenced)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return call()
    except Exception as error:  # noqa: BLE001 - the outcome compared is the exception's type
        return error


def assert_same_outcome(ours: Any, theirs: Any, what: str, rtol: float = 1e-6, atol: float = 1e-6) -> None:
    """Ours raised what torchmetrics raised (an instance of its class), or returned the same: equal
    Python values, tuples item by item, arrays and tensors of the same dtype, shape and layout whose
    values are close (NaN where torchmetrics has NaN)."""
    if isinstance(theirs, Exception):
        assert isinstance(ours, type(theirs)), f"{what}: torchmetrics raised {theirs!r}, ours gave {ours!r}"
        return
    assert not isinstance(ours, Exception), f"{what}: ours raised {ours!r}, torchmetrics gave {theirs!r}"
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs), f"{what}: {type(ours)} vs {len(theirs)}-tuple"
        for k, (a, b) in enumerate(zip(ours, theirs)):
            assert_same_outcome(a, b, f"{what}[{k}]", rtol, atol)
        return
    if isinstance(theirs, np.ndarray):
        assert isinstance(ours, np.ndarray) and ours.dtype == theirs.dtype, f"{what}: {type(ours)}"
        ours, theirs = torch.from_numpy(ours), torch.from_numpy(theirs)
    if not isinstance(theirs, torch.Tensor):  # None, or a Python value
        assert type(ours) is type(theirs) and ours == theirs, f"{what}: {ours!r} vs {theirs!r}"
        return
    assert isinstance(ours, torch.Tensor), what
    assert (ours.dtype, ours.shape, ours.layout) == (theirs.dtype, theirs.shape, theirs.layout), (
        f"{what}: {ours.dtype} {tuple(ours.shape)} {ours.layout} vs {theirs.dtype} {tuple(theirs.shape)} {theirs.layout}"
    )
    if theirs.is_sparse:
        ours, theirs = ours.to_dense(), theirs.to_dense()
    torch.testing.assert_close(ours, theirs, rtol=rtol, atol=atol, equal_nan=True, msg=what)
