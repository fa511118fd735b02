"""Comparing metric results: bit-identical (:func:`assert_identical`) or within a tolerance
(:func:`assert_close`), over nested dicts and tuples of tensors. ``tests.reliability._registry``
re-exports them (the suites import them from there)."""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor


def to_plain(value: Any) -> Any:
    """Results as nested tuples/dicts of tensors (numbers become tensors) for comparison."""
    if isinstance(value, Tensor):
        return value.detach().cpu()
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return tuple(to_plain(v) for v in value)
    if isinstance(value, (int, float)):
        return torch.tensor(value)
    return value


def assert_identical(a: Any, b: Any, path: str = "result") -> None:
    """Same structure, dtypes, shapes and bit-equal values (NaN equals NaN)."""
    a, b = to_plain(a), to_plain(b)
    if isinstance(b, dict):
        assert isinstance(a, dict) and sorted(a) == sorted(b), f"{path}: keys {a!r} != {b!r}"
        for k in b:
            assert_identical(a[k], b[k], f"{path}[{k!r}]")
        return
    if isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b), f"{path}: {a!r} != {b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_identical(x, y, f"{path}[{i}]")
        return
    assert isinstance(a, Tensor) and isinstance(b, Tensor), f"{path}: {a!r} != {b!r}"
    assert a.dtype == b.dtype and a.shape == b.shape, (
        f"{path}: {a.dtype}{tuple(a.shape)} != {b.dtype}{tuple(b.shape)}"
    )
    assert torch.equal(a, b) or (
        a.is_floating_point() and torch.equal(a.nan_to_num(7.25), b.nan_to_num(7.25))
    ), f"{path}: {a} != {b}"


def assert_close(ours: Any, oracle: Any, rtol: float, atol: float, path: str = "result") -> None:
    """Same structure and values within tolerance (NaN equals NaN); dtypes are not compared."""
    ours, oracle = to_plain(ours), to_plain(oracle)
    if isinstance(oracle, dict):
        assert isinstance(ours, dict) and sorted(ours) == sorted(oracle), (
            f"{path}: keys {sorted(ours)} != {sorted(oracle)}"
        )
        for k in oracle:
            assert_close(ours[k], oracle[k], rtol, atol, f"{path}[{k!r}]")
        return
    if isinstance(oracle, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(oracle), f"{path}: {ours!r} != {oracle!r}"
        for i, (x, y) in enumerate(zip(ours, oracle)):
            assert_close(x, y, rtol, atol, f"{path}[{i}]")
        return
    assert isinstance(ours, Tensor), f"{path}: expected a tensor, got {ours!r}"
    torch.testing.assert_close(
        ours.double(),
        oracle.double(),
        rtol=rtol,
        atol=atol,
        equal_nan=True,
        check_dtype=False,
        msg=lambda m: f"{path}: {m}\nours={ours}\noracle={oracle}",
    )


def has_nan(value: Any) -> bool:
    value = to_plain(value)
    if isinstance(value, dict):
        return any(has_nan(v) for v in value.values())
    if isinstance(value, tuple):
        return any(has_nan(v) for v in value)
    return isinstance(value, Tensor) and value.is_floating_point() and bool(torch.isnan(value).any())
