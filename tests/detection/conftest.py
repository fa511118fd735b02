"""One torch thread for the detection tests: their many small ops only wait for each other on a
shared machine, and pytest-xdist already runs a worker per core."""

from tests._threads import one_thread  # noqa: F401 - an autouse fixture, applied to this folder
