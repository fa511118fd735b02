"""One intra-op thread for the wrapper tests: their tensors are tiny, and on a shared 2-core
machine OpenMP's parallel kernels (e.g. ``repeat_interleave``) slow down by 100x or more."""

from tests._threads import one_thread  # noqa: F401 - an autouse fixture, applied to this folder
