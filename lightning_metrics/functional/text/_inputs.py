"""Input checks and layouts shared by the text metrics; messages name the argument and the value.

Predictions are a string or a sequence of strings; references one string per prediction, or a
sequence of strings per prediction (several references). Every check runs before a metric
touches its state, so a rejected batch leaves no trace.

>>> sentences("a b", "preds")
['a b']
>>> sentences(["a", 3], "preds")
Traceback (most recent call last):
...
lightning_metrics.functional.text._inputs.TextTypeError: Argument `preds` must hold strings, got 3 (int) at index 1
>>> reference_groups(["r1", ["r2", "r3"]], 2)
[['r1'], ['r2', 'r3']]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from lightning_metrics.utilities import checks

TextInput = str | Sequence[str]
ReferencesInput = str | Sequence[str] | Sequence[Sequence[str]]

# How a flat sequence of strings is read as references when there is a single prediction:
# "item": one reference per prediction (BLEU, WER); "single": all of them belong to the one
# prediction (torchmetrics' ``_validate_inputs``: chrF, TER, EED); "str": the same, but only when the
# prediction itself was given as a bare string (ROUGE).
FlatLayout = Literal["item", "single", "str"]


class TextTypeError(TypeError, ValueError):
    """An input or argument of the wrong type: a ``TypeError``, and a ``ValueError`` as torchmetrics
    raises for these (``EditDistance``'s inputs, TER's flags)."""


def _describe(value: Any) -> str:
    text = repr(value)
    return (text if len(text) <= 80 else text[:77] + "...") + f" ({type(value).__name__})"


def sentences(value: Any, name: str) -> list[str]:
    """``value`` as a list of strings (a bare string is one sentence)."""
    if isinstance(value, str):
        return [value]
    if not isinstance(value, Sequence):
        raise TextTypeError(
            f"Argument `{name}` must be a string or a sequence of strings, got {_describe(value)}"
        )
    out = list(value)
    if not all(isinstance(item, str) for item in out):
        i, item = next((i, item) for i, item in enumerate(out) if not isinstance(item, str))
        raise TextTypeError(f"Argument `{name}` must hold strings, got {_describe(item)} at index {i}")
    return out


def check_same_length(
    preds: Sequence, target: Sequence, names: tuple[str, str] = ("preds", "target")
) -> None:
    """Raise ``ValueError`` unless there is one reference entry per prediction."""
    if len(preds) != len(target):
        raise ValueError(
            f"Arguments `{names[0]}` and `{names[1]}` must have the same length, got {len(preds)} and {len(target)}"
        )


def paired_sentences(preds: Any, target: Any) -> tuple[list[str], list[str]]:
    """One prediction and one reference string per sample (the edit-distance family)."""
    p, t = sentences(preds, "preds"), sentences(target, "target")
    check_same_length(p, t)
    return p, t


def reference_groups(
    target: Any,
    num_preds: int,
    layout: FlatLayout = "item",
    preds_was_str: bool = False,
    name: str = "target",
) -> list[list[str]]:
    """The references of each prediction, as lists of strings, checked against ``num_preds``."""
    if isinstance(target, str):
        groups: list[list[str]] = [[target]]
    elif not isinstance(target, Sequence):
        raise TextTypeError(
            f"Argument `{name}` must be a string, a sequence of strings or a sequence of sequences of strings,"
            f" got {_describe(target)}"
        )
    else:
        items = list(target)
        flat = all(isinstance(t, str) for t in items)
        single = (layout == "single" and num_preds == 1) or (layout == "str" and preds_was_str)
        if flat and single and items:
            groups = [items]
        else:
            groups = []
            for i, item in enumerate(items):
                if isinstance(item, str):
                    groups.append([item])
                elif isinstance(item, Sequence):
                    group = list(item)
                    for j, ref in enumerate(group):
                        if not isinstance(ref, str):
                            raise TextTypeError(
                                f"Argument `{name}` must hold strings, got {_describe(ref)} at index [{i}][{j}]"
                            )
                    groups.append(group)
                else:
                    raise TextTypeError(
                        f"Argument `{name}` must hold strings or sequences of strings, got {_describe(item)}"
                        f" at index {i}"
                    )
    if num_preds == 0 and not any(groups):
        # An empty batch: no predictions, and references written as ``[]`` or as empty groups
        # (``[[]]``, torchmetrics' ``chrf_score([], [[]])``); it scores nothing.
        groups = []
    if len(groups) != num_preds:
        raise ValueError(
            f"Arguments `preds` and `{name}` must have the same length, got {num_preds} and {len(groups)}"
        )
    return groups


def check_nonempty_groups(groups: list[list[str]], name: str = "target") -> None:
    """Raise ``ValueError`` if a prediction has no reference at all (where the score is undefined)."""
    for i, group in enumerate(groups):
        if not group:
            raise ValueError(f"Argument `{name}`: prediction {i} has no reference (an empty sequence)")


def predictions_and_references(
    preds: Any, target: Any, layout: FlatLayout = "item", allow_no_reference: bool = False
) -> tuple[list[str], list[list[str]]]:
    """Predictions as a list of strings and, for each, its list of references."""
    p = sentences(preds, "preds")
    groups = reference_groups(target, len(p), layout, preds_was_str=isinstance(preds, str))
    if not allow_no_reference:
        check_nonempty_groups(groups)
    return p, groups


def check_positive_int(name: str, value: Any, minimum: int = 1) -> None:
    """Raise ``ValueError`` unless ``value`` is an int (not a bool) of at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"Argument `{name}` must be an integer of at least {minimum}, got {value!r}")


def check_bool(name: str, value: Any) -> None:
    """Raise :class:`TextTypeError` unless ``value`` is a bool."""
    checks.check_bool(name, value, TextTypeError)
