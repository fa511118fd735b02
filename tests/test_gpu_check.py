"""The GPU check (``benchmarks/gpu_check.py``) runs only where a device is lent, which is rare: its
device-agnostic parts run here on the CPU, so that the script does not rot between runs."""

from __future__ import annotations

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import gpu_check  # noqa: E402


def test_forward_values_check_runs_and_passes_on_the_cpu():
    report = gpu_check.forward_values(torch.device("cpu"), batch=256, steps=2)
    assert report["ok"], report
    assert len(report["cases"]) == 11


def test_the_check_skips_cleanly_without_cuda(tmp_path, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(sys, "argv", ["gpu_check.py", str(tmp_path / "out.json")])
    assert gpu_check.main() == 0
    assert "skipped" in (tmp_path / "out.json").read_text()
