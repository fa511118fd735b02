"""One torch thread for the detection tests: their many small ops only wait for each other on a
shared machine, and pytest-xdist already runs a worker per core."""

from __future__ import annotations

from typing import Iterator

import pytest
import torch


@pytest.fixture(autouse=True)
def _one_thread() -> Iterator[None]:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
