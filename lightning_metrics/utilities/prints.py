"""Rank-zero printing helpers (``utilities.prints``): warn, log or call only on the first process.

The rank is read once from the ``LOCAL_RANK`` environment variable (as torchmetrics does) and can
be set by assigning ``rank_zero_only.rank``.
"""

from __future__ import annotations

import logging
import os
import sys
import warnings
from functools import wraps
from typing import Any, Callable

import torch

_log = logging.getLogger("lightning_metrics")


def rank_zero_only(fn: Callable) -> Callable:
    """Decorate ``fn`` so that it runs only where ``rank_zero_only.rank == 0`` (``None`` elsewhere).

    >>> @rank_zero_only
    ... def hello():
    ...     return "hi"
    >>> hello()
    'hi'
    """

    @wraps(fn)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs) if rank_zero_only.rank == 0 else None

    return wrapped


rank_zero_only.rank = int(os.environ.get("LOCAL_RANK", 0))  # type: ignore[attr-defined]


@rank_zero_only
def rank_zero_warn(*args: Any, **kwargs: Any) -> None:
    """``warnings.warn`` on rank zero only.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     rank_zero_warn("careful", UserWarning)
    >>> str(caught[0].message)
    'careful'
    """
    kwargs.setdefault("stacklevel", 3)
    warnings.warn(*args, **kwargs)


# the frames a warning is not attributed to: this package's and torch.nn's (``Module.__call__``)
_INTERNAL = tuple(os.path.dirname(os.path.dirname(os.path.abspath(path))) + os.sep
                  for path in (__file__, torch.nn.modules.__file__))


def warn_at_caller(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` attributed to the first frame outside this package and ``torch.nn`` (the user's
    line, however deep in ``update``, ``forward`` or a collection the warning arose).

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_at_caller("careful")
    >>> caught[0].filename == __file__ or caught[0].filename.startswith("<doctest")
    True
    """
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_INTERNAL):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level + 1)


@rank_zero_only
def rank_zero_info(*args: Any, **kwargs: Any) -> None:
    """``logging.info`` to the ``lightning_metrics`` logger on rank zero only.

    >>> rank_zero_info("computed")
    """
    _log.info(*args, **kwargs)


@rank_zero_only
def rank_zero_debug(*args: Any, **kwargs: Any) -> None:
    """``logging.debug`` to the ``lightning_metrics`` logger on rank zero only.

    >>> rank_zero_debug("state sizes: %d", 3)
    """
    _log.debug(*args, **kwargs)


__all__ = ["rank_zero_debug", "rank_zero_info", "rank_zero_only", "rank_zero_warn", "warn_at_caller"]
