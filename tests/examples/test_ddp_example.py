"""examples/ddp_exact.py: 2 CPU processes (ddp_spawn, gloo) on an odd validation set."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.examples._run import run_example

pytestmark = pytest.mark.timeout(300)


def test_ddp_example_is_exact_and_shows_the_bias_of_the_default(tmp_path: Path) -> None:
    out = run_example("ddp_exact.py", "--logdir", "logs", cwd=tmp_path, timeout=280).stdout
    rows = {}
    for line in out.splitlines():
        for name in (
            "1 process (reference)",
            "2 processes, MetricsCallback",
            "2 processes, Lightning default",
        ):
            if line.startswith(name):
                rows[name] = [float(v) for v in line[len(name) :].split()]
    assert len(rows) == 3, out
    assert rows["1 process (reference)"][0] == 101
    assert rows["2 processes, MetricsCallback"] == rows["1 process (reference)"]
    assert rows["2 processes, Lightning default"][0] == 102  # the padded duplicate, counted
    assert "equals 1 process exactly: True" in out
    assert "differs: True" in out
