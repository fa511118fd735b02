"""One intra-op thread for the wrapper tests: their tensors are tiny, and on a shared 2-core
machine OpenMP's parallel kernels (e.g. ``repeat_interleave``) slow down by 100x or more."""

import pytest
import torch


@pytest.fixture(autouse=True)
def _one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
