"""Run an example script or the LightningCLI in a subprocess, as a user would, in a tiny mode."""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
CONFIGS = ROOT / "configs"


def run_example(script: str, *args: str, cwd: Path, timeout: float = 240.0) -> subprocess.CompletedProcess:
    """``python examples/<script> [args]`` with LM_EXAMPLE_FAST=1 in ``cwd``; fails with its output."""
    env = dict(os.environ, LM_EXAMPLE_FAST="1", MPLBACKEND="Agg", PYTHONUNBUFFERED="1")
    for leftover in ("MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK", "LOCAL_RANK", "NODE_RANK"):
        env.pop(leftover, None)  # a DDP example picks its own free port, whatever ran before in this worker
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        cwd=str(cwd),
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert proc.returncode == 0, (
        f"{script} exited {proc.returncode}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr[-6000:]}"
    )
    return proc


def event_tags(directory: Path) -> dict[str, set[str]]:
    """The scalar, image and tensor (text) tags of every TensorBoard event file under ``directory``."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    tags: dict[str, set[str]] = {"scalars": set(), "images": set(), "tensors": set()}
    for path in glob.glob(str(directory / "**" / "events.out.tfevents.*"), recursive=True):
        accumulator = EventAccumulator(path, size_guidance={"images": 0, "tensors": 0, "scalars": 0})
        accumulator.Reload()
        found = accumulator.Tags()
        for kind, names in tags.items():
            names.update(found[kind])
    return tags


def table_rows(stdout: str, first_column: str) -> dict[str, list[str]]:
    """Rows of a printed table after the header line starting with ``first_column``."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split() and line.split()[0] == first_column)
    rows: dict[str, list[str]] = {}
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        if set(line.strip()) <= {"-"}:
            continue
        name, *cells = line.split()
        rows[name] = cells
    return rows


def floats(cells: list[Any]) -> list[float]:
    return [float(c) for c in cells]
