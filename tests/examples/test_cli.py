"""The LightningCLI configs: fit, validate and test for one short epoch (configs/fast.yaml)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.examples._run import CONFIGS, event_tags, run_example

pytest.importorskip("jsonargparse")
pytestmark = pytest.mark.timeout(300)


def _cli(command: str, config: str, tmp_path: Path, *extra: str) -> str:
    return run_example(
        "cli.py",
        command,
        "--config",
        str(CONFIGS / config),
        "--config",
        str(CONFIGS / "fast.yaml"),
        *extra,
        cwd=tmp_path,
    ).stdout


def test_digits_config_fit_then_validate_and_test_from_the_checkpoint(tmp_path: Path) -> None:
    _cli("fit", "digits.yaml", tmp_path)
    run = tmp_path / "lightning_logs" / "digits_cli"
    (checkpoint,) = (run / "version_0" / "checkpoints").glob("*.ckpt")
    fit_tags = event_tags(run / "version_0")
    assert {"val/acc", "val/f1", "val/recall/0_zero", "train/acc"} <= fit_tags["scalars"]
    assert not fit_tags["images"]  # plots: end -> images only in standalone validate/test
    assert (run / "version_0" / "config.yaml").exists()

    out = _cli("validate", "digits.yaml", tmp_path, "--ckpt_path", str(checkpoint))
    assert "val/acc" in out and "val/recall/9_nine" in out  # Lightning's own results table
    assert {"val/confmat", "val/roc", "val/recall"} <= event_tags(run / "version_1")["images"]

    out = _cli("test", "digits.yaml", tmp_path, "--ckpt_path", str(checkpoint))
    assert "test/f1" in out
    assert {"test/confmat", "test/roc"} <= event_tags(run / "version_2")["images"]


def test_regression_config_fit(tmp_path: Path) -> None:
    _cli("fit", "regression.yaml", tmp_path)
    (csv_path,) = (tmp_path / "lightning_logs" / "diabetes_cli").glob("version_0/metrics.csv")
    with open(csv_path) as handle:
        rows = list(csv.DictReader(handle))
    assert rows and {"val/mse", "val/mae", "val/r2", "val/pearson", "val/explained_variance"} <= set(rows[0])
    assert any(row["val/r2"] for row in rows)


def test_names_config_fit_builds_the_metrics_from_the_first_batch(tmp_path: Path) -> None:
    _cli("fit", "names.yaml", tmp_path)
    (csv_path,) = (tmp_path / "lightning_logs" / "names_cli").glob("version_0/metrics.csv")
    with open(csv_path) as handle:
        columns = set(next(csv.DictReader(handle)))
    assert {"val/accuracy", "val/f1", "val/auroc", "train/accuracy"} <= columns
