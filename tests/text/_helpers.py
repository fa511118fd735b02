"""Comparison helpers shared by the text tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import Tensor

from tests.reliability._registry import assert_close


def assert_same(
    ours: Any, oracle: Any, rtol: float = 1e-6, atol: float = 1e-7, dtypes: bool = True, path: str = ""
) -> None:
    """Same structure, shapes and (unless ``dtypes=False``) dtypes; values within tolerance, NaN equal NaN."""
    if isinstance(oracle, dict):
        assert isinstance(ours, dict) and list(ours) == list(oracle), (
            f"{path}: keys {list(ours)} != {list(oracle)}"
        )
        for key in oracle:
            assert_same(ours[key], oracle[key], rtol, atol, dtypes, f"{path}[{key}]")
        return
    if isinstance(oracle, (tuple, list)):
        assert isinstance(ours, type(oracle)) and len(ours) == len(oracle), f"{path}: {ours!r} != {oracle!r}"
        for i, (a, b) in enumerate(zip(ours, oracle)):
            assert_same(a, b, rtol, atol, dtypes, f"{path}[{i}]")
        return
    oracle = torch.as_tensor(oracle)
    assert isinstance(ours, Tensor), f"{path}: {ours!r} is not a tensor"
    assert ours.shape == oracle.shape, f"{path}: shape {tuple(ours.shape)} != {tuple(oracle.shape)}"
    if dtypes:
        assert ours.dtype == oracle.dtype, f"{path}: dtype {ours.dtype} != {oracle.dtype}"
    assert_close(ours, oracle, rtol, atol, path)  # the values, in float64


def in_batches(metric: Any, preds: Sequence, target: Sequence, sizes: Sequence[int]) -> Any:
    """Feed ``metric`` the corpus in consecutive batches of ``sizes`` (cycled); return ``compute()``."""
    i, k = 0, 0
    while i < len(preds):
        size = sizes[k % len(sizes)]
        metric.update(list(preds[i : i + size]), list(target[i : i + size]))
        i, k = i + size, k + 1
    return metric.compute()


def both(factory: Callable[[Any], Any], lm_module: Any, tm_module: Any) -> tuple[Any, Any]:
    return factory(lm_module), factory(tm_module)
