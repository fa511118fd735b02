"""``validate_args`` for the metric classes whose torchmetrics signature has none.

torchmetrics' image, audio and Fleiss' kappa classes take no ``validate_args`` and accept any
value: one NaN pixel, sample or score, or a negative count, would poison every later value of the
state. Ours check the values of each batch before any state is touched, and take ``validate_args``
as a keyword argument (default ``True``, through ``**kwargs``, so the signatures stay
torchmetrics'): ``False`` skips the checks and their host read.
"""

from __future__ import annotations

from typing import Any

from lightning_metrics.utilities.checks import check_bool, check_finite


class ValidatedInputs:
    """Mixin of a :class:`~lightning_metrics.Metric`: the keyword argument ``validate_args`` and
    :meth:`_check_finite`, which ``update`` calls before it touches a state."""

    _keyword_arguments = {"validate_args": True}

    def _configure(self, arguments: dict[str, Any]) -> None:
        super()._configure(arguments)  # type: ignore[misc]
        check_bool("validate_args", self.validate_args)

    def _check_finite(self, *named: tuple[str, Any], allow_inf: bool = False) -> None:
        """With ``validate_args``, raise naming the argument and the value when one of the
        ``(argument name, tensor)`` pairs holds a NaN (or, unless ``allow_inf``, an infinity);
        one host read for all of them."""
        if self.validate_args:
            check_finite(*named, allow_inf=allow_inf)
