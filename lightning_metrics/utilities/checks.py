"""Shared argument checks whose messages name the argument and the offending value."""

from __future__ import annotations

from typing import Any, Iterable


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
