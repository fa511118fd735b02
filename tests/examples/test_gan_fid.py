"""examples/gan_fid.py: FID and KID logged per epoch through MetricsCallback equal the metrics computed
directly over every validation image, in one process and on 2 processes (ddp_spawn, gloo; 37 images,
so one is padded and must be dropped)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.examples._run import run_example

pytestmark = pytest.mark.timeout(400)


def _values(stdout: str) -> dict[str, list[float]]:
    rows = {}
    for line in stdout.splitlines():
        for name in ("logged (last epoch)", "direct, every image once"):
            if line.startswith(name):
                rows[name] = [float(v) for v in line[len(name) :].split()]
    assert len(rows) == 2, stdout
    return rows


@pytest.mark.parametrize("devices", [1, 2])
def test_logged_fid_and_kid_equal_the_direct_values(tmp_path: Path, devices: int) -> None:
    out = run_example("gan_fid.py", "--devices", str(devices), "--logdir", "logs", cwd=tmp_path, timeout=380).stdout
    rows = _values(out)
    logged, direct = rows["logged (last epoch)"], rows["direct, every image once"]
    assert direct[0] > 0 and direct[1] != 0
    # the same images once each; only the order of float64 sums differs between 1 and 2 processes
    assert logged == pytest.approx(direct, rel=1e-6, abs=1e-12)
    with open(tmp_path / "logs" / "gan_fid" / f"{devices}_process" / "metrics.csv") as handle:
        epochs = [row for row in csv.DictReader(handle) if row.get("val/fid")]
    assert [int(row["epoch"]) for row in epochs] == [0, 1]  # logged every epoch
    assert float(epochs[-1]["val/fid"]) == pytest.approx(logged[0], rel=1e-6)
    assert all(row["val/kid/std"] != "" for row in epochs)
