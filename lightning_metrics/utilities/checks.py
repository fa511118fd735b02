"""Shared argument checks whose messages name the argument and the offending value."""

from __future__ import annotations

from typing import Any, Iterable, Optional, Sequence


def check_choice(name: str, value: Any, choices: Iterable[Any]) -> None:
    """Raise ``ValueError`` unless ``value`` is one of ``choices``.

    >>> check_choice("average", "macro", ("micro", "macro"))
    >>> check_choice("average", "mean", ("micro", "macro"))
    Traceback (most recent call last):
    ...
    ValueError: Argument `average` must be one of ('micro', 'macro'), got 'mean'
    """
    choices = tuple(choices)
    if value not in choices:
        raise ValueError(f"Argument `{name}` must be one of {choices}, got {value!r}")


def check_bool(name: str, value: Any, error: type[Exception] = ValueError) -> None:
    """Raise ``error`` (``ValueError``, as torchmetrics raises for most flags) unless ``value`` is a bool.

    >>> check_bool("squared", True)
    >>> check_bool("squared", 1)
    Traceback (most recent call last):
    ...
    ValueError: Argument `squared` must be a bool, got 1
    """
    if not isinstance(value, bool):
        raise error(f"Argument `{name}` must be a bool, got {value!r}")


def check_optional_int(name: str, value: Any) -> None:
    """Raise ``ValueError`` unless ``value`` is ``None`` or an int (bools are not ints).

    >>> check_optional_int("ignore_index", None)
    >>> check_optional_int("ignore_index", 1.5)
    Traceback (most recent call last):
    ...
    ValueError: Argument `ignore_index` must be None or an integer, got 1.5
    """
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise ValueError(f"Argument `{name}` must be None or an integer, got {value!r}")


def check_type(name: str, value: Any, types: type | tuple[type, ...]) -> None:
    """Raise ``TypeError`` unless ``value`` is an instance of ``types`` (bools are not ints).

    >>> check_type("window", 3, int)
    >>> check_type("window", "3", int)
    Traceback (most recent call last):
    ...
    TypeError: Argument `window` must be of type int, got '3' (str)
    """
    allowed = types if isinstance(types, tuple) else (types,)
    is_bool_as_int = isinstance(value, bool) and bool not in allowed
    if is_bool_as_int or not isinstance(value, allowed):
        names = " or ".join(t.__name__ for t in allowed)
        raise TypeError(f"Argument `{name}` must be of type {names}, got {value!r} ({type(value).__name__})")


def may_hold_nonfinite(value: Any, allow_inf: bool = False) -> Any:
    """A 0-d bool tensor, on ``value``'s device and read by nobody yet: ``False`` when the floating
    (or complex) tensor ``value`` surely holds no NaN (nor, unless ``allow_inf``, an infinity);
    ``None`` when there is nothing to check (not a tensor, not floating, empty).

    One reduction and no host read, so that callers can ask it along with their other questions
    in one read: a sum is NaN when a term is NaN (or +inf meets -inf) and infinite when a term is
    (or the sum overflows), so a ``True`` is confirmed by :func:`raise_if_nonfinite`.
    """
    import torch

    if not isinstance(value, torch.Tensor) or not value.numel():
        return None
    if value.is_complex():
        total = value.sum()
    elif value.is_floating_point():
        total = value.sum(dtype=torch.float64 if value.dtype == torch.float64 else torch.float32)
    else:
        return None
    return torch.isnan(total) if allow_inf else ~torch.isfinite(total)


def raise_if_nonfinite(name: str, value: Any, allow_inf: bool = False) -> None:
    """Raise ``MetricInputError`` naming the argument ``name``, the first NaN (or infinite, unless
    ``allow_inf``) value of ``value`` and its index; return when there is none (reads ``value``).

    >>> import torch
    >>> raise_if_nonfinite("preds", torch.tensor([[0.5, 1.0], [float("inf"), 2.0]]))
    Traceback (most recent call last):
    ...
    lightning_metrics.utilities.exceptions.MetricInputError: Argument `preds` must be finite (no NaN or infinity), got inf at index (1, 0)
    """
    import torch

    from lightning_metrics.utilities.exceptions import MetricInputError

    if not isinstance(value, torch.Tensor) or not (value.is_floating_point() or value.is_complex()):
        return
    bad = torch.isnan(value) if allow_inf else ~torch.isfinite(value)
    count = int(bad.sum())
    if not count:
        return
    where = tuple(bad.nonzero()[0].tolist())
    found = value[where].item()
    rule = "must not contain NaN" if allow_inf else "must be finite (no NaN or infinity)"
    index = where[0] if len(where) == 1 else where
    more = f" ({count} such values in all)" if count > 1 else ""
    raise MetricInputError(f"Argument `{name}` {rule}, got {found} at index {index}{more}")


def check_finite(*named: tuple[str, Any], allow_inf: bool = False) -> None:
    """Raise ``MetricInputError`` when one of the ``(argument name, tensor)`` pairs holds a NaN (or,
    unless ``allow_inf``, an infinity): the message names the argument, the value and its index.

    Values that are not floating tensors pass. The common case costs one reduction per tensor and
    one host read for all of them (:func:`may_hold_nonfinite`): a host sync, so metrics run it
    with ``validate_args`` only, before any state is touched.

    >>> import torch
    >>> check_finite(("preds", torch.tensor([0.5, 1.0])), ("target", torch.tensor([1, 0])))
    >>> check_finite(("preds", torch.tensor([0.5, float("inf")])), allow_inf=True)
    >>> check_finite(("preds", torch.tensor([0.5, 1.0])), ("target", torch.tensor([0.0, float("nan")])))
    Traceback (most recent call last):
    ...
    lightning_metrics.utilities.exceptions.MetricInputError: Argument `target` must be finite (no NaN or infinity), got nan at index 1
    """
    import torch

    flags = [(name, value, may_hold_nonfinite(value, allow_inf)) for name, value in named]
    flags = [(name, value, flag) for name, value, flag in flags if flag is not None]
    if not flags:
        return
    device = flags[0][2].device
    answers = torch.stack([flag.to(device) for *_, flag in flags]).tolist()
    for (name, value, _), flagged in zip(flags, answers):
        if flagged:
            raise_if_nonfinite(name, value, allow_inf)


def _allclose(a: Any, b: Any) -> bool:
    import torch

    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.shape == b.shape and bool(torch.allclose(a.double(), b.double(), equal_nan=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_allclose(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_allclose(x, y) for x, y in zip(a, b))
    return a == b


def check_forward_full_state_property(
    metric_class: Any,
    init_args: Optional[dict[str, Any]] = None,
    input_args: Optional[dict[str, Any]] = None,
    num_update_to_compare: Sequence[int] = [10, 100, 1000],  # noqa: B006 (torchmetrics' default; never mutated)
    reps: int = 5,
) -> None:
    """Print whether ``full_state_update=False`` is safe (and faster) for ``metric_class``.

    Both settings run ``forward`` on ``input_args`` ``num_update_to_compare[0]`` times; if every
    batch value and the final value agree, the two are timed over each count in
    ``num_update_to_compare`` (``reps`` times) and the faster setting is recommended.

    >>> import torch
    >>> from lightning_metrics.classification import MulticlassConfusionMatrix
    >>> check_forward_full_state_property(
    ...     MulticlassConfusionMatrix, init_args={"num_classes": 3},
    ...     input_args={"preds": torch.randint(3, (100,)), "target": torch.randint(3, (100,))},
    ...     num_update_to_compare=[10], reps=1)
    Full state for 10 steps took: ...
    Partial state for 10 steps took: ...
    Recommended setting `full_state_update=...`
    """
    import time

    import torch

    init_args, input_args = init_args or {}, input_args or {}
    full = type("FullState", (metric_class,), {"full_state_update": True})(**init_args)
    part = type("PartState", (metric_class,), {"full_state_update": False})(**init_args)
    equal = True
    try:
        for _ in range(num_update_to_compare[0]):
            equal = _allclose(full(**input_args), part(**input_args)) and equal
        equal = _allclose(full.compute(), part.compute()) and equal
    except RuntimeError:
        equal = False
    if not equal:
        print("Recommended setting `full_state_update=True`")
        return
    times = torch.zeros(2, len(num_update_to_compare), reps)
    for i, metric in enumerate((full, part)):
        for j, steps in enumerate(num_update_to_compare):
            for r in range(reps):
                start = time.perf_counter()
                for _ in range(steps):
                    metric(**input_args)
                times[i, j, r] = time.perf_counter() - start
                metric.reset()
    mean = times.mean(-1)
    for j, steps in enumerate(num_update_to_compare):
        print(f"Full state for {steps} steps took: {float(mean[0, j]):0.3f}")
        print(f"Partial state for {steps} steps took: {float(mean[1, j]):0.3f}")
    print(f"Recommended setting `full_state_update={not bool(mean[1, -1] < mean[0, -1])}`")


def is_overridden(method_name: str, instance: object, parent: object) -> bool:
    """Whether ``instance`` (or its class) defines ``method_name`` otherwise than ``parent``.

    >>> from lightning_metrics import Metric
    >>> from lightning_metrics.aggregation import SumMetric
    >>> is_overridden("update", SumMetric(), Metric)
    True
    """
    method = getattr(instance, method_name, None)
    if method is None:
        return False
    method = getattr(method, "__wrapped__", method)
    method = getattr(method, "func", method)  # functools.partial
    method = getattr(method, "_mock_wraps", method)  # unittest.mock.Mock(wraps=...)
    if method is None:
        return False
    reference = getattr(parent, method_name, None)
    if reference is None:
        raise ValueError(f"Argument `parent`: {parent!r} does not define {method_name!r}")
    reference = getattr(reference, "__wrapped__", reference)
    return getattr(method, "__code__", None) != getattr(reference, "__code__", None)
