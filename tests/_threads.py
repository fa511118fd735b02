"""The one-intra-op-thread fixture that some test folders switch on in their ``conftest.py``.

Small tensors gain nothing from a second torch thread on a shared machine where pytest-xdist already
runs a worker per core: the thread only spins (OpenMP's parallel kernels can slow down by 100x).
A folder applies it by importing it into its conftest: ``from tests._threads import one_thread``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch


@pytest.fixture(autouse=True)
def one_thread() -> Iterator[None]:
    """One torch intra-op thread for the test, restored after it."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
