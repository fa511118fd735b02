"""One intra-op thread for the audio tests: their tensors are small, and on a shared 2-core machine
the second thread only spins (it triples the CPU time of the parity sweeps). Restored after each test."""

import pytest
import torch


@pytest.fixture(autouse=True)
def _one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
