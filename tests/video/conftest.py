"""One intra-op thread for the video tests: their tensors are small, and on a shared 2-core machine
the second thread only spins (it triples the CPU time of the parity sweeps). Restored after each test."""

from tests._threads import one_thread  # noqa: F401 - an autouse fixture, applied to this folder
