"""Suite-wide isolation: global torch switches a test flips stay inside that test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch


@pytest.fixture(autouse=True)
def _restore_deterministic_algorithms() -> Iterator[None]:
    """``Trainer(deterministic=True)`` turns on ``torch.use_deterministic_algorithms`` for the
    whole process; torchmetrics then counts with another kernel (which drops out-of-range values
    instead of failing), so a later oracle comparison in the same worker would depend on the order."""
    enabled = torch.are_deterministic_algorithms_enabled()
    warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    yield
    torch.use_deterministic_algorithms(enabled, warn_only=warn_only)
